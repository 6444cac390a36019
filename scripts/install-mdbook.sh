#!/usr/bin/env bash
# Installs a pinned mdBook into the cache, built from the crate registry without the
# `serve` and `watch` features the book's build does not use, and prints the binary's
# path:
#
#   install-mdbook.sh v0.5.4   ->  $SLUICEWAY_CACHE/mdbook/v0.5.4/bin/mdbook
set -euo pipefail

version="${1:?usage: install-mdbook.sh v0.5.4}"
CACHE="${SLUICEWAY_CACHE:-$HOME/.cache/sluiceway}"
root="$CACHE/mdbook/$version"
target="$root/bin/mdbook"
if [ -x "$target" ] && "$target" --version 2>/dev/null | grep -qx "mdbook $version"; then
  echo "$target"
  exit 0
fi
# Its own target folder, so the build never touches the workspace's.
cargo install --quiet --locked --no-default-features --features search \
  --version "${version#v}" --root "$root" --target-dir "$CACHE/mdbook/build" mdbook >&2
rm -rf "$CACHE/mdbook/build"
"$target" --version | grep -qx "mdbook $version" || { echo "the build did not give mdBook $version" >&2; exit 1; }
echo "$target"
