#!/usr/bin/env bash
# Builds a local Kubernetes control plane our kubectl fixtures are recorded against,
# from the Go module proxy with the machine's own Go, and caches it outside the
# repository, keyed by version:
#
#   $SLUICEWAY_CACHE/control-plane/<version>/bin/{kube-apiserver,kube-controller-manager,etcd}
#
# Usage: scripts/build-control-plane.sh v1.34.4
#
# `tools/control-plane` is a small wrapper module of ours: its `go.mod` is written here
# for the version, pinning every `k8s.io/<staging>` module (which k8s.io/kubernetes
# replaces with paths into its own tree) to its `v0.<minor>.<patch>` release. etcd is
# built from `go.etcd.io/etcd/server/v3` at the version Kubernetes requires.
set -euo pipefail

VERSION="${1:?usage: $0 <kubernetes version, e.g. v1.34.4>}"
case "$VERSION" in
  v1.[0-9]*.[0-9]*) ;;
  *) echo "not a Kubernetes version: $VERSION" >&2; exit 2 ;;
esac
HERE="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="${SLUICEWAY_CACHE:-$HOME/.cache/sluiceway}"
ROOT="$CACHE/control-plane/$VERSION"
BIN="$ROOT/bin"

if [ -x "$BIN/kube-apiserver" ] && [ -x "$BIN/kube-controller-manager" ] && [ -x "$BIN/etcd" ]; then
  echo "control plane $VERSION is cached in $BIN" >&2
  exit 0
fi

started=$(date +%s)
MODULE="$ROOT/module"
rm -rf "$MODULE"
mkdir -p "$MODULE" "$BIN"
cp -r "$HERE/tools/control-plane/." "$MODULE/"

# The version's own go.mod, through the machine's module proxy (its first entry).
proxy="$(go env GOPROXY | cut -d, -f1)"
case "$proxy" in
  http*) ;;
  *) echo "GOPROXY names no proxy to read k8s.io/kubernetes $VERSION from" >&2; exit 1 ;;
esac
upstream="$(curl -fsS "$proxy/k8s.io/kubernetes/@v/$VERSION.mod")"
staging_version="v0.${VERSION#v1.}"
{
  echo "module sluiceway.invalid/control-plane"
  echo
  echo "$upstream" | grep -E '^go [0-9]'
  echo
  echo "require k8s.io/kubernetes $VERSION"
  echo
  echo "replace ("
  echo "$upstream" | sed -n '/^replace (/,/^)/p' | awk -v v="$staging_version" '$3 ~ /^\.\/staging\// { print "\t" $1 " => " $1 " " v }'
  echo ")"
} > "$MODULE/go.mod"

cd "$MODULE"
export GOFLAGS=-mod=mod CGO_ENABLED=0
# The compiler writes no DWARF (-gcflags=all=-dwarf=false): the link drops it anyway
# (-ldflags -w), and writing it cost an eighth of the compile (ADR 0043).
# etcd at the version the Kubernetes module graph holds.
go mod tidy
etcd_version="$(go list -m -f '{{.Version}}' go.etcd.io/etcd/server/v3)"

minor="${VERSION#v1.}"; minor="${minor%%.*}"
version_pkg=k8s.io/component-base/version
LDFLAGS="-s -w \
 -X $version_pkg.gitVersion=$VERSION \
 -X $version_pkg.gitMajor=1 \
 -X $version_pkg.gitMinor=$minor \
 -X $version_pkg.gitTreeState=clean \
 -X $version_pkg.gitCommit= \
 -X $version_pkg.buildDate=1970-01-01T00:00:00Z \
 -X k8s.io/client-go/pkg/version.gitVersion=$VERSION"
go build -trimpath -gcflags=all=-dwarf=false -ldflags "$LDFLAGS" -o "$BIN/" \
  k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager
go build -trimpath -gcflags=all=-dwarf=false -ldflags "-s -w -X go.etcd.io/etcd/api/v3/version.GitSHA=module" -o "$BIN/etcd" ./etcd

# Read whole, then cut: a pipe into `head` would end etcd with SIGPIPE under pipefail.
"$BIN/kube-apiserver" --version >&2
etcd_said="$("$BIN/etcd" --version)"
echo "${etcd_said%%$'\n'*}" >&2
echo "control plane $VERSION (etcd $etcd_version) built into $BIN in $(( $(date +%s) - started )) s" >&2
