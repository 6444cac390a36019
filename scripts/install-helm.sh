#!/usr/bin/env bash
# Installs a pinned helm into the cache (v3.19.0 or v4.3.1) and prints its path; see
# install-from-layer.sh.
exec "$(dirname "$0")/install-from-layer.sh" helm "$@"
