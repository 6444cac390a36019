#!/usr/bin/env bash
# Builds actionlint from the Go module proxy with the machine's own Go and caches it
# outside the repository, keyed by its version:
#
#   $SLUICEWAY_CACHE/actionlint/<version>/bin/actionlint
#
# Usage: scripts/build-actionlint.sh v1.7.12
# Its last line on stdout is the binary's path. CI checks the repository's own workflows
# with it (the release workflow above all, which runs only on a tag).
set -euo pipefail

VERSION="${1:?usage: $0 <actionlint version, e.g. v1.7.12>}"
case "$VERSION" in
  v[0-9]*.[0-9]*.[0-9]*) ;;
  *) echo "not a version: $VERSION" >&2; exit 2 ;;
esac
CACHE="${SLUICEWAY_CACHE:-$HOME/.cache/sluiceway}"
BIN="$CACHE/actionlint/$VERSION/bin"

if ! { [ -x "$BIN/actionlint" ] && "$BIN/actionlint" -version | head -n 1 | grep -qx "$VERSION"; }; then
  mkdir -p "$BIN"
  CGO_ENABLED=0 GOBIN="$BIN" go install -trimpath -gcflags=all=-dwarf=false "github.com/rhysd/actionlint/cmd/actionlint@$VERSION"
  said="$("$BIN/actionlint" -version | head -n 1)"
  [ "$said" = "$VERSION" ] || { echo "the built actionlint says '$said', not $VERSION" >&2; exit 1; }
fi
echo "$BIN/actionlint"
