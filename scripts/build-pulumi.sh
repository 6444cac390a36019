#!/usr/bin/env bash
# Builds the Pulumi CLI, Pulumi YAML's language host and the Kubernetes provider from the
# Go module proxy with the machine's own Go, and caches them outside the repository,
# keyed by the CLI's version:
#
#   $SLUICEWAY_CACHE/pulumi/<version>/bin/{pulumi,pulumi-language-yaml,pulumi-resource-kubernetes}
#
# Usage: scripts/build-pulumi.sh v3.229.0 [<pulumi-yaml version, default v1.25.0>]
# Its last line on stdout is the CLI's path.
#
# The wrapper modules are in tools/pulumi (see its README).
set -euo pipefail

VERSION="${1:?usage: $0 <pulumi version, e.g. v3.229.0> [<pulumi-yaml version>]}"
YAML_VERSION="${2:-v1.25.0}"
# The one version of the Kubernetes provider the proxy serves here, and the newest
# served SDK at or above the one it names (its own go.mod replaces the SDK with a path).
KUBERNETES_VERSION=v4.0.0-20260115033456-f47bc2d6f199
KUBERNETES_SDK_VERSION=v4.29.0
for v in "$VERSION" "$YAML_VERSION"; do
  case "$v" in
    v[0-9]*.[0-9]*.[0-9]*) ;;
    *) echo "not a version: $v" >&2; exit 2 ;;
  esac
done
HERE="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="${SLUICEWAY_CACHE:-$HOME/.cache/sluiceway}"
ROOT="$CACHE/pulumi/$VERSION"
BIN="$ROOT/bin"

if [ -x "$BIN/pulumi" ] && [ -x "$BIN/pulumi-language-yaml" ] && [ -x "$BIN/pulumi-resource-kubernetes" ]; then
  echo "pulumi $VERSION is cached in $BIN" >&2
  echo "$BIN/pulumi"
  exit 0
fi

started=$(date +%s)
proxy="$(go env GOPROXY | cut -d, -f1)"
case "$proxy" in
  http*) ;;
  *) echo "GOPROXY names no proxy to read github.com/pulumi/pulumi/pkg/v3 $VERSION from" >&2; exit 1 ;;
esac
upstream="$(curl -fsS "$proxy/github.com/pulumi/pulumi/pkg/v3/@v/$VERSION.mod")"

rm -rf "$ROOT/cli" "$ROOT/language-yaml" "$ROOT/provider-kubernetes"
mkdir -p "$BIN"
cp -r "$HERE/tools/pulumi/cli" "$HERE/tools/pulumi/language-yaml" "$HERE/tools/pulumi/provider-kubernetes" "$ROOT/"
{
  echo "module sluiceway.invalid/pulumi"
  echo
  echo "$upstream" | grep -E '^go [0-9]'
  echo
  echo "require ("
  echo "	github.com/pulumi/pulumi/pkg/v3 $VERSION"
  echo "	github.com/pulumi/pulumi/sdk/v3 $VERSION"
  echo ")"
  echo
  # The module's own replacements that name another module (not a path in its tree).
  echo "$upstream" | awk '$1 == "replace" && $5 != "" && $4 !~ /^\./ { print }'
} > "$ROOT/cli/go.mod"
{
  echo "module sluiceway.invalid/pulumi-language-yaml"
  echo
  curl -fsS "$proxy/github.com/pulumi/pulumi-yaml/@v/$YAML_VERSION.mod" | grep -E '^go [0-9]'
  echo
  echo "require github.com/pulumi/pulumi-yaml $YAML_VERSION"
} > "$ROOT/language-yaml/go.mod"

{
  echo "module sluiceway.invalid/pulumi-resource-kubernetes"
  echo
  curl -fsS "$proxy/github.com/pulumi/pulumi-kubernetes/provider/v4/@v/$KUBERNETES_VERSION.mod" | grep -E '^go [0-9]'
  echo
  echo "require ("
  echo "	github.com/pulumi/pulumi-kubernetes/provider/v4 $KUBERNETES_VERSION"
  echo "	github.com/pulumi/pulumi-kubernetes/sdk/v4 $KUBERNETES_SDK_VERSION"
  echo "	github.com/pulumi/pulumi/pkg/v3 $VERSION"
  echo "	github.com/pulumi/pulumi/sdk/v3 $VERSION"
  echo ")"
} > "$ROOT/provider-kubernetes/go.mod"

export GOFLAGS=-mod=mod CGO_ENABLED=0
# The compiler writes no DWARF (-gcflags=all=-dwarf=false): the link drops it anyway
# (-ldflags -w), and writing it cost an eighth of the compile (ADR 0043).
(
  cd "$ROOT/cli"
  go mod tidy
  go build -trimpath -gcflags=all=-dwarf=false \
    -ldflags "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$VERSION" \
    -o "$BIN/" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi
)
(
  cd "$ROOT/language-yaml"
  go mod tidy
  go build -trimpath -gcflags=all=-dwarf=false \
    -ldflags "-s -w -X github.com/pulumi/pulumi-yaml/pkg/version.Version=$YAML_VERSION" \
    -o "$BIN/" github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml
)

(
  # The provider's main embeds its schema, which its release writes with `go generate`
  # and the module leaves out: the command's files are copied here and generated.
  cd "$ROOT/provider-kubernetes"
  go mod tidy
  source="$(go list -m -f '{{.Dir}}' github.com/pulumi/pulumi-kubernetes/provider/v4)/cmd/pulumi-resource-kubernetes"
  mkdir -p cmd
  cp "$source"/*.go "$source"/*.json cmd/
  chmod -R u+w cmd
  cd cmd
  VERSION="${KUBERNETES_VERSION#v}" go run generate.go
  go build -trimpath -gcflags=all=-dwarf=false \
    -ldflags "-s -w -X github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version.Version=${KUBERNETES_VERSION#v}" \
    -o "$BIN/pulumi-resource-kubernetes" .
)

said="$("$BIN/pulumi" version)"
[ "$said" = "$VERSION" ] || { echo "the built pulumi says $said, not $VERSION" >&2; exit 1; }
echo "pulumi $VERSION, pulumi-language-yaml $YAML_VERSION and pulumi-resource-kubernetes $KUBERNETES_VERSION built into $BIN in $(( $(date +%s) - started )) s" >&2
echo "$BIN/pulumi"
