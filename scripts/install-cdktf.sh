#!/usr/bin/env bash
# Installs the pinned CDK for Terraform CLI and the modules of examples/cdktf-lab into the
# cache, from npm, and prints two paths: the cdktf binary, then the app's node_modules
# (keyed by the example's lock file, so a changed lock installs afresh):
#
#   install-cdktf.sh v0.21.0  ->  $SLUICEWAY_CACHE/cdktf/v0.21.0/cli/node_modules/.bin/cdktf
#                                 $SLUICEWAY_CACHE/cdktf/v0.21.0/lab-<lock digest>/node_modules
set -euo pipefail

version="${1:?usage: install-cdktf.sh v0.21.0}"
case "$version" in
  v0.21.0) ;;
  *) echo "only CDKTF v0.21.0 is known (the project's last release)" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."
CACHE="${SLUICEWAY_CACHE:-$HOME/.cache/sluiceway}"
root="$CACHE/cdktf/$version"

cli="$root/cli"
cdktf="$cli/node_modules/.bin/cdktf"
if ! { [ -x "$cdktf" ] && [ "$("$cdktf" --version 2>/dev/null | head -n 1)" = "${version#v}" ]; }; then
  rm -rf "$cli"
  mkdir -p "$cli"
  npm install --silent --no-audit --no-fund --prefix "$cli" "cdktf-cli@${version#v}" >/dev/null
  [ "$("$cdktf" --version 2>/dev/null | head -n 1)" = "${version#v}" ] ||
    { echo "the package did not hold cdktf $version" >&2; exit 1; }
fi

lock="examples/cdktf-lab/package-lock.json"
digest="$(sha256sum "$lock" | cut -c1-16)"
app="$root/lab-$digest"
if [ ! -f "$app/node_modules/.installed" ]; then
  rm -rf "$app"
  mkdir -p "$app"
  cp examples/cdktf-lab/package.json "$lock" "$app/"
  (cd "$app" && npm ci --silent --no-audit --no-fund >/dev/null)
  touch "$app/node_modules/.installed"
fi

echo "$cdktf"
echo "$app/node_modules"
