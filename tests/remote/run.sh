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
# gateway.py bounds itself (GATEWAY_TIMEOUT, then a watchdog); `timeout` is the last resort.
limit="${GATEWAY_TIMEOUT:-300}"
exec timeout --kill-after=15 "$((limit + 60))" \
    target/remote/venv/bin/python -u tests/remote/gateway.py \
    --carnet "$carnet" --dir tests/remote/desk --timeout "$limit" "$@"
