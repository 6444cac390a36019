#!/usr/bin/env bash
# Builds the local Kubernetes control plane our kubectl fixtures are recorded against,
# from Debian bookworm's own packages, and caches it outside the repository:
#
#   $SLUICEWAY_CACHE/control-plane/<version>/bin/{kube-apiserver,kube-controller-manager,etcd}
#
# kube-apiserver and kube-controller-manager come from the source package `kubernetes`
# (its upstream tree vendors every dependency, so it builds offline) with Debian's Go
# 1.19; etcd from `etcd-server`. Nothing is fetched from anywhere but the machine's own
# apt sources: a private APT_CONFIG copies them and adds deb-src.
set -euo pipefail

K8S_PACKAGE_VERSION="1.20.5+really1.20.2-1.1+deb12u1"
K8S_VERSION="v1.20.2"
CACHE="${SLUICEWAY_CACHE:-$HOME/.cache/sluiceway}"
ROOT="$CACHE/control-plane/$K8S_VERSION"
BIN="$ROOT/bin"

if [ -x "$BIN/kube-apiserver" ] && [ -x "$BIN/kube-controller-manager" ] && [ -x "$BIN/etcd" ]; then
  echo "control plane $K8S_VERSION is cached in $BIN"
  exit 0
fi

WORK="$ROOT/work"
rm -rf "$WORK"
mkdir -p "$WORK/apt/lists/partial" "$WORK/apt/archives/partial" "$WORK/apt/sources.list.d" "$WORK/debs" "$WORK/root" "$BIN"

# A private apt configuration: the machine's own sources, with source packages too.
for f in /etc/apt/sources.list.d/*.sources; do
  [ -e "$f" ] || continue
  sed -E 's/^Types:.*/Types: deb deb-src/' "$f" > "$WORK/apt/sources.list.d/$(basename "$f")"
done
if [ -s /etc/apt/sources.list ]; then
  sed -nE 's/^deb (.*)/deb \1\ndeb-src \1/p' /etc/apt/sources.list > "$WORK/apt/sources.list"
else
  : > "$WORK/apt/sources.list"
fi
cat > "$WORK/apt/apt.conf" <<CONF
Dir::Etc::sourcelist "$WORK/apt/sources.list";
Dir::Etc::sourceparts "$WORK/apt/sources.list.d";
Dir::State::lists "$WORK/apt/lists";
Dir::Cache::archives "$WORK/apt/archives";
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
APT::Get::AllowUnauthenticated "false";
CONF
export APT_CONFIG="$WORK/apt/apt.conf"
apt-get update -qq

command -v rsync >/dev/null || apt-get install -y -qq rsync >/dev/null

echo "== fetching Debian packages"
(cd "$WORK/debs" && apt-get download -qq golang-1.19-go golang-1.19-src etcd-server golang-github-modern-go-reflect2-dev)
for deb in "$WORK"/debs/*.deb; do dpkg-deb -x "$deb" "$WORK/root"; done
(cd "$WORK" && apt-get source --download-only -qq "kubernetes=$K8S_PACKAGE_VERSION")
(cd "$WORK" && dpkg-source --no-check -x kubernetes_*.dsc src >/dev/null)

export GOROOT="$WORK/root/usr/lib/go-1.19"
export PATH="$GOROOT/bin:$PATH"
export GO111MODULE=off GOPROXY=off GOFLAGS= CGO_ENABLED=0 GOCACHE="$WORK/gocache"
go version

SRC="$WORK/src"
# reflect2 1.0.1 crashes on Go >= 1.18; Debian's 1.0.2 works.
rm -rf "$SRC/vendor/github.com/modern-go/reflect2"
cp -r "$WORK/root/usr/share/gocode/src/github.com/modern-go/reflect2" "$SRC/vendor/github.com/modern-go/reflect2"

echo "== generating code"
(cd "$SRC" && make generated_files KUBE_VERBOSE=0 >/dev/null)

echo "== building"
GOPATH="$WORK/gopath"
mkdir -p "$GOPATH/src/k8s.io"
ln -sfn "$SRC" "$GOPATH/src/k8s.io/kubernetes"
export GOPATH
LDFLAGS="-s -w \
 -X k8s.io/kubernetes/vendor/k8s.io/component-base/version.gitVersion=$K8S_VERSION \
 -X k8s.io/kubernetes/vendor/k8s.io/component-base/version.gitMajor=1 \
 -X k8s.io/kubernetes/vendor/k8s.io/component-base/version.gitMinor=20 \
 -X k8s.io/kubernetes/vendor/k8s.io/component-base/version.gitTreeState=clean \
 -X k8s.io/kubernetes/vendor/k8s.io/client-go/pkg/version.gitVersion=$K8S_VERSION"
cd "$GOPATH/src/k8s.io/kubernetes"
for cmd in kube-apiserver kube-controller-manager; do
  go build -o "$BIN/$cmd" -ldflags "$LDFLAGS" "k8s.io/kubernetes/cmd/$cmd"
done
cp "$WORK/root/usr/bin/etcd" "$BIN/etcd"
"$BIN/kube-apiserver" --version
"$BIN/etcd" --version | head -1

rm -rf "$WORK"
echo "control plane $K8S_VERSION built into $BIN"
