#!/usr/bin/env bash
# Builds the book (docs/book) into DEST, outside the repository: the references drawn
# from the code must be current and the pages must pass their checks (a key that does not
# exist, an inline YAML example, a missing include fail with the page and line), mdBook
# must build every page the summary names, and every internal link of the result must
# lead somewhere. Prints DEST's index.html.
#
#   scripts/build-book.sh ~/.cache/sluiceway/book
set -euo pipefail
cd "$(dirname "$0")/.."

dest="${1:?usage: build-book.sh DEST (outside the repository)}"
mdbook="$(scripts/install-mdbook.sh v0.5.4)"
cargo build --quiet -p sluiceway-book
book="${CARGO_TARGET_DIR:-target}/debug/sluiceway-book"

"$book" check
rm -rf "$dest"
# mdBook reports a missing include or summary entry as an error but may still write
# the rest, so its log is read as well as its status.
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! "$mdbook" build docs/book --dest-dir "$(realpath -m "$dest")" 2>"$log"; then
  cat "$log" >&2
  exit 1
fi
if grep -E '(ERROR|WARN)' "$log" >&2; then
  echo "mdBook warned; the book must build cleanly" >&2
  exit 1
fi
"$book" links "$dest"
echo "$(realpath "$dest")/index.html"
