#!/usr/bin/env bash
# Installs GitHub's own published API descriptions into the cache, pinned, and prints the
# directory that holds them:
#
#   install-github-descriptions.sh  ->  $SLUICEWAY_CACHE/github-descriptions/<openapi>-<graphql>/
#       api.github.com.json   the REST description (OpenAPI 3.0), from @octokit/openapi
#       schema.graphql        the public GraphQL schema, from @octokit/graphql-schema
#
# The emulator's tests validate traffic against these files (ADR 0011). Only the
# api.github.com variant is kept; the package's other variants are 300 MB we never read.
set -euo pipefail

openapi="23.0.2"
graphql="15.26.1"
CACHE="${SLUICEWAY_CACHE:-$HOME/.cache/sluiceway}"
target="$CACHE/github-descriptions/${openapi}-${graphql}"
if [ -s "$target/api.github.com.json" ] && [ -s "$target/schema.graphql" ]; then
  echo "$target"
  exit 0
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(
  cd "$work"
  npm pack --silent "@octokit/openapi@${openapi}" "@octokit/graphql-schema@${graphql}" >/dev/null
  tar xzf "octokit-openapi-${openapi}.tgz" package/generated/api.github.com.json
  tar xzf "octokit-graphql-schema-${graphql}.tgz" package/schema.graphql
)
mkdir -p "$target.partial"
install -m 0644 "$work/package/generated/api.github.com.json" "$target.partial/api.github.com.json"
install -m 0644 "$work/package/schema.graphql" "$target.partial/schema.graphql"
rm -rf "$target"
mv "$target.partial" "$target"
echo "$target"
