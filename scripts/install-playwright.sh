#!/usr/bin/env bash
# Installs the pinned playwright-core from npm into the cache and prints the folder of
# its node_modules; the console's page tests drive Debian's Chromium through it (issue
# 42). Only the driver: it downloads no browser of its own.
#
#   install-playwright.sh 1.65.2  ->  $SLUICEWAY_CACHE/playwright/1.65.2/node_modules
set -euo pipefail

version="${1:?usage: install-playwright.sh 1.65.2}"
case "$version" in
  [0-9]*.[0-9]*.[0-9]*) ;;
  *) echo "not a version: $version" >&2; exit 2 ;;
esac
CACHE="${SLUICEWAY_CACHE:-$HOME/.cache/sluiceway}"
root="$CACHE/playwright/$version"
installed() {
  [ "$(node -p "require('$root/node_modules/playwright-core/package.json').version" 2>/dev/null)" = "$version" ]
}
if ! installed; then
  rm -rf "$root"
  mkdir -p "$root"
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --silent --no-audit --no-fund --prefix "$root" "playwright-core@$version" >/dev/null
  installed || { echo "the package did not hold playwright-core $version" >&2; exit 1; }
fi
echo "$root/node_modules"
