#!/usr/bin/env bash
# The README's first command: builds Sluiceway (in the dev profile, whose build the
# second command's tests share, so that one compiles only the tests), installs the pinned
# OpenTofu into the cache, and scans a copy of examples/quickstart with `sluiceway scan --local` (real
# previews, no GitHub). Its last line is the path of the HTML dashboard.
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE="${SLUICEWAY_CACHE:-$HOME/.cache/sluiceway}"
tofu="$(scripts/install-tofu.sh v1.6.2)"
cargo build --quiet -p sluiceway

# The tool writes its working files beside the code, so the scan runs on a copy.
work="$CACHE/first-scan"
rm -rf "$work"
mkdir -p "$work"
cp -R examples/quickstart "$work/repo"
PATH="$(dirname "$tofu"):$PATH" cargo run --quiet -p sluiceway -- \
  scan --local --repo "$work/repo" --out "$work/dashboard"
