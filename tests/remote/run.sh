#!/usr/bin/env bash
# End-to-end test of `carnet serve-mcp` as a gateway to real MCP servers (issue 25):
# installs the servers and the Python SDK (tests/remote/setup.sh, quiet once installed), then
# runs tests/remote/gateway.py on the content in tests/remote/desk.
#
#   tests/remote/run.sh [gateway.py options: --only CASE, --keep, --keep-going]
#
# Environment: CARNET_BIN (the carnet binary, default target/debug/carnet; this script does
# not build it), GATEWAY_TIMEOUT (seconds for the whole run, default 300).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

bash tests/remote/setup.sh
carnet="${CARNET_BIN:-target/debug/carnet}"
if [ ! -x "$carnet" ]; then
    echo "FAIL: no carnet binary at $carnet (cargo build -p carnet-cli, or set CARNET_BIN)" >&2
    exit 2
fi
# Pins: the committed pins match the real servers (`carnet mcp pin --check`, as CI would run
# it), and a pin edited by hand fails the check with a diff naming the tool.
export CARNET_TEST_FS_SERVER="$ROOT/target/remote/bin/fs-server"
export CARNET_TEST_TIME_SERVER="$ROOT/target/remote/bin/time-server"
export CARNET_TEST_DESK="$ROOT/target/remote/desk"
mkdir -p "$CARNET_TEST_DESK"
timeout 120 "$carnet" --dir tests/remote/desk mcp pin --check 2>/dev/null
edited="$ROOT/target/remote/edited-desk"
rm -rf "$edited" && cp -r tests/remote/desk "$edited"
sed -i 's/"Get current time in a specific timezone"/"Edited by hand"/' "$edited/toolsets/time/mcp.lock.json"
if out="$(timeout 120 "$carnet" --dir "$edited" mcp pin --check time 2>&1)"; then
    echo "FAIL: mcp pin --check passed on an edited pin" >&2; exit 1
fi
grep -q 'tool `get_current_time`: description changed' <<<"$out" || { echo "FAIL: no diff in: $out" >&2; exit 1; }
grep -q 'E0038' <<<"$(timeout 60 "$carnet" --dir "$edited" check 2>&1)" || { echo "FAIL: the build accepted an edited pin" >&2; exit 1; }
timeout 120 "$carnet" --dir "$edited" mcp pin time >/dev/null 2>&1
timeout 120 "$carnet" --dir "$edited" check >/dev/null 2>&1 || { echo "FAIL: a fresh pin does not build" >&2; exit 1; }
echo "PASS pins: --check matches the real servers, fails on an edited pin with a diff; the build refuses it; a new pin builds"
rm -rf "$edited"

# gateway.py bounds itself (GATEWAY_TIMEOUT, then a watchdog); `timeout` is the last resort.
limit="${GATEWAY_TIMEOUT:-300}"
exec timeout --kill-after=15 "$((limit + 60))" \
    target/remote/venv/bin/python -u tests/remote/gateway.py \
    --carnet "$carnet" --dir tests/remote/desk --timeout "$limit" "$@"
