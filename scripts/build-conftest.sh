#!/usr/bin/env bash
# Builds Conftest from the Go module proxy with the machine's own Go and caches it
# outside the repository, keyed by its version:
#
#   $SLUICEWAY_CACHE/conftest/<version>/bin/conftest
#
# Usage: scripts/build-conftest.sh v0.70.1
# Its last line on stdout is the binary's path. Sluiceway never runs Conftest: it
# evaluates policies in-process, and the differential tests hold that evaluation to
# this binary's answers.
set -euo pipefail

VERSION="${1:?usage: $0 <conftest version, e.g. v0.70.1>}"
case "$VERSION" in
  v[0-9]*.[0-9]*.[0-9]*) ;;
  *) echo "not a version: $VERSION" >&2; exit 2 ;;
esac
CACHE="${SLUICEWAY_CACHE:-$HOME/.cache/sluiceway}"
ROOT="$CACHE/conftest/$VERSION"
BIN="$ROOT/bin"

if [ -x "$BIN/conftest" ]; then
  echo "conftest $VERSION is cached in $BIN" >&2
  echo "$BIN/conftest"
  exit 0
fi

started=$(date +%s)
rm -rf "$ROOT/src"
mkdir -p "$ROOT/src" "$BIN"
cd "$ROOT/src"
export GOFLAGS=-mod=mod CGO_ENABLED=0
# The compiler writes no DWARF (-gcflags=all=-dwarf=false): the link drops it anyway
# (-ldflags -w), and writing it cost an eighth of the compile (ADR 0043).
go mod download -json "github.com/open-policy-agent/conftest@$VERSION" > download.json
dir="$(sed -n 's/^\t"Dir": "\(.*\)",$/\1/p' download.json)"
cp -r "$dir"/. .
chmod -R u+w .
go build -trimpath -gcflags=all=-dwarf=false -ldflags "-s -w -X github.com/open-policy-agent/conftest/internal/version.Version=${VERSION#v}" -o "$ROOT/src/conftest" .

said="$("$ROOT/src/conftest" --version | head -n 1)"
[ "$said" = "Conftest: ${VERSION#v}" ] || { echo "the built conftest says '$said', not $VERSION" >&2; exit 1; }
mv "$ROOT/src/conftest" "$BIN/conftest"
rm -rf "$ROOT/src"
echo "conftest $VERSION built into $BIN in $(( $(date +%s) - started )) s" >&2
echo "$BIN/conftest"
