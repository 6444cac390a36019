#!/usr/bin/env bash
# The console's playground, all on this machine and offline once built: GitHub's emulator,
# the console as a GitHub App installed on the emulator's org `octo` (its bot named in the
# example's recordWriters, so a tick through the console deploys), and the bundled example
# scanned with the real OpenTofu as the dashboard's workflow would. It prints, each on a
# line of its own,
#
#   github=<the emulator>   console=<the console>   token=<a personal token of alice, who
#   may write>   signin=<a link that signs alice in through the emulator's OAuth flow>
#   org=<login>   repo=<name>
#
# and runs until interrupted, then stops everything it started. With
# SLUICEWAY_PLAYGROUND_BINARIES naming a folder that holds `sluiceway` and
# `sluiceway-github-emulator` already built (as the tests do), it builds nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

tofu="$(scripts/install-tofu.sh v1.6.2)"
if [ -n "${SLUICEWAY_PLAYGROUND_BINARIES:-}" ]; then
  binaries="$SLUICEWAY_PLAYGROUND_BINARIES"
else
  cargo build --quiet -p sluiceway -p github-emulator
  binaries="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/debug"
fi
sluiceway="$binaries/sluiceway"
emulator="$binaries/sluiceway-github-emulator"

work="$(mktemp -d)"
pids=()
stop() {
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap stop EXIT
trap 'exit 130' INT TERM

# Starts a server whose first line on stdout names its address; prints that address.
started() {
  local out="$1" pattern="$2"
  for _ in $(seq 1 300); do
    if line="$(grep -o "$pattern" "$out" 2>/dev/null | head -n 1)" && [ -n "$line" ]; then
      echo "$line"
      return
    fi
    sleep 0.1
  done
  echo "playground: a server did not start; see $out" >&2
  exit 1
}

# One act on the emulator's world; prints what it answers.
act() {
  curl --silent --fail --show-error -X POST -H 'content-type: application/json' \
    --data "$1" "$github/_emulator/act"
}
json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
quoted() { python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))'; }

"$emulator" --port 0 --state "$work/github.json" >"$work/emulator.out" 2>"$work/emulator.err" &
pids+=($!)
github="$(started "$work/emulator.out" 'http://127\.0\.0\.1:[0-9]*')"

openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$work/app.pem" 2>/dev/null
public="$(openssl pkey -pubout -in "$work/app.pem" | quoted)"
app="$(act "{\"add_app\":{\"slug\":\"sluiceway-console\",\"public_key_pem\":$public}}")"
app_id="$(echo "$app" | json '["id"]')"
act "{\"install\":{\"app\":$app_id,\"account\":\"octo\",\"permissions\":{\"actions\":\"write\",\"checks\":\"read\",\"contents\":\"write\",\"deployments\":\"write\",\"issues\":\"read\",\"members\":\"read\",\"metadata\":\"read\",\"pull-requests\":\"write\"}}}" >/dev/null
act '{"add_member":{"org":"octo","login":"alice"}}' >/dev/null
act '{"add_member":{"org":"octo","login":"bob"}}' >/dev/null

webhook_secret="playground-$(openssl rand -hex 8)"
SLUICEWAY_CONSOLE_WEBHOOK_SECRET="$webhook_secret" \
SLUICEWAY_CONSOLE_CLIENT_SECRET="$(echo "$app" | json '["client_secret"]')" \
  "$sluiceway" console serve --listen 127.0.0.1:0 --data "$work/console" \
  --github-api-url "$github" --github-url "$github" \
  --app-id "$app_id" --app-key-file "$work/app.pem" \
  --client-id "$(echo "$app" | json '["client_id"]')" \
  >"$work/console.out" 2>"$work/console.err" &
pids+=($!)
console="$(started "$work/console.out" 'http://127\.0\.0\.1:[0-9]*')"
act "{\"add_hook\":{\"url\":\"$console/webhooks/github\",\"secret\":\"$webhook_secret\"}}" >/dev/null

# The example, its bot a record writer, pushed and scanned as the workflow's push run.
cp -R examples/quickstart "$work/checkout"
printf 'recordWriters: ["sluiceway-console[bot]"]\n' >>"$work/checkout/sluiceway.yaml"
config="$(quoted <"$work/checkout/sluiceway.yaml")"
sha="$(act "{\"push\":{\"repo\":\"octo/infra\",\"branch\":\"main\",\"author\":\"alice\",\"message\":\"name the console's bot a record writer\",\"files\":[{\"path\":\"sluiceway.yaml\",\"status\":\"modified\",\"previous_path\":null,\"content\":$config}]}}" | json '')"
run="$(act '{"start_run":{"repo":"octo/infra","workflow":"sluiceway.yml","event":"push","actor":"alice"}}')"
mkdir -p "$work/runner"
echo '{"ref":"refs/heads/main","repository":{"default_branch":"main"}}' >"$work/runner/event.json"
env -i PATH="$(dirname "$tofu"):/usr/bin:/bin" HOME="$work/runner" \
  GITHUB_ACTIONS=true GITHUB_EVENT_NAME=push GITHUB_EVENT_PATH="$work/runner/event.json" \
  GITHUB_REPOSITORY=octo/infra GITHUB_SHA="$sha" GITHUB_RUN_ID="$run" GITHUB_RUN_ATTEMPT=1 \
  GITHUB_SERVER_URL=https://github.com GITHUB_API_URL="$github" GITHUB_GRAPHQL_URL="$github/graphql" \
  GITHUB_WORKSPACE="$work/checkout" GITHUB_OUTPUT="$work/runner/output.txt" \
  GITHUB_STEP_SUMMARY="$work/runner/summary.md" RUNNER_TEMP="$work/runner" \
  INPUT_GITHUB-TOKEN=emulator-token INPUT_MODE=scan INPUT_CONCURRENCY= \
  "$sluiceway" run >"$work/scan.log" 2>&1 || {
  echo "playground: the scan failed; its log:" >&2
  cat "$work/scan.log" >&2
  exit 1
}
act "{\"end_run\":{\"repo\":\"octo/infra\",\"run\":$run,\"conclusion\":\"success\"}}" >/dev/null

token="$("$sluiceway" console token --org octo --login alice --name playground --data "$work/console" 2>/dev/null | tail -n 1)"

echo "github=$github"
echo "console=$console"
echo "token=$token"
echo "signin=$console/signin?login=alice"
echo "org=octo"
echo "repo=infra"
wait "${pids[1]}"
