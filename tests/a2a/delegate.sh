#!/usr/bin/env bash
# Remote A2A agents as toolsets (issue 52, items 3 and 5), with real parts:
#
# 1. a2a-sdk 1.3.0's server (tests/a2a/delegate_agent.py) as the remote agent: the build
#    refuses the toolset unpinned (E0037 naming `carnet a2a pin`), `carnet a2a pin --check`
#    matches the committed pin, an edited pin fails `--check` with a diff and the build (E0038);
#    then a carnet agent served by `carnet serve-a2a` (scripted model) delegates to it only
#    after its skill loads, twice in one remote context, judged by a2a-sdk's client
#    (tests/a2a/delegate.py).
# 2. examples/delegation: a carnet agent (planner) delegating to another carnet agent
#    (forecaster), both served by `carnet serve-a2a` with scripted models; the example's
#    committed pin matches the forecaster.
#
#   tests/a2a/delegate.sh
#
# Environment: CARNET_BIN (default target/debug/carnet, built if missing), PYTHON.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

VENV="$ROOT/target/a2a-venv"
[ -x "$VENV/bin/python" ] || "${PYTHON:-python3}" -m venv "$VENV"
if ! "$VENV/bin/python" -c 'import a2a.client, starlette, sse_starlette, uvicorn' 2>/dev/null; then
    echo "installing a2a-sdk[http-server]==1.3.0 and uvicorn into $VENV" >&2
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "a2a-sdk[http-server]==1.3.0" uvicorn
fi
if [ -z "${CARNET_BIN:-}" ]; then
    cargo build -p carnet-cli --quiet
    CARNET_BIN="$ROOT/target/debug/carnet"
fi
carnet="$CARNET_BIN"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/carnet-delegate.XXXXXX")"
PIDS=()
cleanup() {
    local status=$?
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
    exit "$status"
}
trap cleanup EXIT

# Starts a server whose first stdout line is its URL; sets $url.
start() {
    local out="$WORK/$1.url"
    shift
    "$@" > "$out" 2> "$out.err" &
    PIDS+=($!)
    for _ in $(seq 150); do
        [ -s "$out" ] && break
        sleep 0.1
    done
    url="$(head -n 1 "$out")"
    [ -n "$url" ] || { echo "FAIL: $* did not print its URL: $(cat "$out.err")" >&2; exit 1; }
}

# 1. The a2a-sdk agent.
start forecaster timeout 600 "$VENV/bin/python" tests/a2a/delegate_agent.py "$WORK/forecaster.log"
export FORECASTER_URL="$url"
content="$WORK/delegate"
cp -r tests/a2a/delegate "$content"
rm -f "$content/toolsets/forecaster/a2a.lock.json"
out="$("$carnet" --dir "$content" check 2>&1)" && { echo "FAIL: an unpinned a2a toolset built" >&2; exit 1; }
grep -q 'E0037' <<<"$out" && grep -q 'carnet a2a pin forecaster' <<<"$out" \
    || { echo "FAIL: no E0037 naming the pin command: $out" >&2; exit 1; }
timeout 60 "$carnet" --dir tests/a2a/delegate a2a pin --check \
    || { echo "FAIL: the committed pin does not match a2a-sdk's agent" >&2; exit 1; }
timeout 60 "$carnet" --dir "$content" a2a pin >/dev/null
cmp -s "$content/toolsets/forecaster/a2a.lock.json" tests/a2a/delegate/toolsets/forecaster/a2a.lock.json \
    || { echo "FAIL: pinning again gave other bytes" >&2; exit 1; }
"$carnet" --dir "$content" check >/dev/null 2>&1 || { echo "FAIL: a pinned a2a toolset does not build" >&2; exit 1; }
sed -i 's/The weather of a city for the coming days/Edited by hand/' "$content/toolsets/forecaster/a2a.lock.json"
if out="$(timeout 60 "$carnet" --dir "$content" a2a pin --check 2>&1)"; then
    echo "FAIL: a2a pin --check passed on an edited pin" >&2; exit 1
fi
grep -q 'tool `forecast`: description changed' <<<"$out" || { echo "FAIL: no diff in: $out" >&2; exit 1; }
grep -q 'E0038' <<<"$("$carnet" --dir "$content" check 2>&1)" || { echo "FAIL: the build accepted an edited pin" >&2; exit 1; }
if grep -qv 'agent-card' "$WORK/forecaster.log"; then
    echo "FAIL: pinning did more than read the card: $(cat "$WORK/forecaster.log")" >&2; exit 1
fi
echo "PASS pins: unpinned -> E0037 naming \`carnet a2a pin\`; --check matches a2a-sdk's agent; same bytes again; an edited pin fails --check with a diff and the build"

: > "$WORK/forecaster.log"
start desk "$carnet" --dir tests/a2a/delegate serve-a2a desk --http 127.0.0.1:0 \
    --model "scripted:$ROOT/tests/a2a/delegate_script.json"
timeout 120 "$VENV/bin/python" tests/a2a/delegate.py "$url" "$WORK/forecaster.log" "Forecast #N for 'Q'" \
    || { echo "FAIL: the delegation to a2a-sdk's agent" >&2; exit 1; }

# 2. examples/delegation: carnet to carnet.
example=examples/delegation
start example-forecaster "$carnet" --dir "$example/forecaster" serve-a2a forecaster --http 127.0.0.1:0 \
    --model "scripted:$ROOT/$example/forecaster.json"
export FORECASTER_URL="$url"
timeout 60 "$carnet" --dir "$example/planner" a2a pin --check \
    || { echo "FAIL: the example's pin does not match the forecaster carnet serves" >&2; exit 1; }
start planner "$carnet" --dir "$example/planner" serve-a2a planner --http 127.0.0.1:0 \
    --model "scripted:$ROOT/$example/planner.json"
timeout 120 "$VENV/bin/python" tests/a2a/delegate.py "$url" - "Forecast for \"Q\": sunny" \
    || { echo "FAIL: the example's delegation" >&2; exit 1; }
echo "PASS examples/delegation: planner delegates to forecaster, both carnet agents over A2A"
