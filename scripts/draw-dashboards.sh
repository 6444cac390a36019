#!/usr/bin/env bash
# Draws the book's pictures of the dashboard: the end-to-end test book_pictures scans,
# ticks and deploys the book's one-job example for real (the real binary, the real
# `tofu`, the emulator) and keeps each state's body; each body becomes a page
# (`sluiceway dashboard html`, pictures embedded) that headless Chromium draws light and
# dark into docs/book/src/pictures/. The bodies are kept beside them in
# docs/book/pictures/, so a picture can always be traced to what a scan wrote.
#
#   scripts/draw-dashboards.sh
set -euo pipefail
cd "$(dirname "$0")/.."

chromium="$(command -v chromium || command -v chromium-browser || true)"
[ -n "$chromium" ] || { echo "draw-dashboards.sh needs chromium (Debian's package)" >&2; exit 1; }
bodies="docs/book/pictures"
pictures="docs/book/src/pictures"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

rm -rf "$bodies"
SLUICEWAY_PICTURES="$(realpath -m "$bodies")" \
  cargo test --quiet -p sluiceway --test book_pictures >&2
cargo build --quiet -p sluiceway
sluiceway="${CARGO_TARGET_DIR:-target}/debug/sluiceway"

mkdir -p "$pictures"
rm -f "$pictures"/*.png
for body in "$bodies"/*.md; do
  state="$(basename "$body" .md)"
  "$sluiceway" dashboard html "$body" > "$work/$state.html"
  for theme in light dark; do
    dark=()
    [ "$theme" = dark ] && dark=(--force-dark-mode --blink-settings=preferredColorScheme=0)
    "$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking \
      --disable-component-update --disable-sync --no-first-run --hide-scrollbars \
      --user-data-dir="$work/profile" "${dark[@]}" --window-size=1000,1200 \
      --screenshot="$pictures/$state-$theme.png" "file://$work/$state.html" 2>/dev/null
    [ -s "$pictures/$state-$theme.png" ] || { echo "chromium drew nothing for $state ($theme)" >&2; exit 1; }
  done
  echo "$pictures/$state-light.png"
done
