#!/usr/bin/env bash
# Figures for `carnet serve-mcp` as a gateway to remote toolsets (issue 25, item 8): added
# latency per call, cold start and idle memory, against the official time and filesystem MCP
# servers, with the official MCP Python SDK as the client (bench/gateway/bench.py).
#
#   bench/gateway/run.sh [bench.py options: --calls N --cold N --mem-reps N --json FILE ...]
#
# Installs the servers and the SDK first (tests/remote/setup.sh, idempotent), never builds.
#
# Environment:
#   CARNET_BIN   the carnet binary (default target/release/carnet; when it is missing,
#                target/debug/carnet, with a warning: debug figures are not the ones to report)
#   CARNET_REMOTE_DIR, PYTHON   passed on to setup.sh (where the servers and the venv live)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$here/../.." && pwd)"
remote="${CARNET_REMOTE_DIR:-$ROOT/target/remote}"

if [ -n "${CARNET_BIN:-}" ]; then
    bin="$CARNET_BIN"
elif [ -x "$ROOT/target/release/carnet" ]; then
    bin="$ROOT/target/release/carnet"
elif [ -x "$ROOT/target/debug/carnet" ]; then
    bin="$ROOT/target/debug/carnet"
    echo "bench: warning: no target/release/carnet; using target/debug/carnet." >&2
    echo "bench: warning: debug-build figures are NOT the ones to report (cargo build --release -p carnet-cli)." >&2
else
    echo "bench: no carnet binary: build one (cargo build --release -p carnet-cli) or set CARNET_BIN" >&2
    exit 2
fi
if [ ! -x "$bin" ]; then
    echo "bench: CARNET_BIN=$bin is not an executable file" >&2
    exit 2
fi

bash "$ROOT/tests/remote/setup.sh"
py="$remote/venv/bin/python"
if [ ! -x "$py" ]; then
    echo "bench: no $py after tests/remote/setup.sh" >&2
    exit 2
fi
exec "$py" "$here/bench.py" --carnet "$bin" "$@"
