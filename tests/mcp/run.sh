#!/usr/bin/env bash
# End-to-end tests of the MCP server (examples/mcp-server) with the official Python SDK.
#
#   tests/mcp/run.sh [e2e.py options: --only NAME]
#
# Builds the servers (`cargo build -p mcp-server -p carnet-cli`) unless MCP_SERVER names a
# binary to test (CARNET_BIN then names the `carnet` binary, default target/debug/carnet),
# creates target/mcp-venv with mcp==2.3.0 and a2a-sdk==1.3.0 if needed, then runs
# tests/mcp/e2e.py, then tests/mcp/replicas.py (three replicas behind haproxy; skipped with a
# note when haproxy is not installed, unless CI is set).
# Environment: MCP_SERVER (skip the build, test this binary), E2E_TIMEOUT (seconds for the
# whole run, default 600), PYTHON (interpreter for the venv, default python3).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

VENV="$ROOT/target/mcp-venv"
if [ ! -x "$VENV/bin/python" ]; then
    echo "creating $VENV" >&2
    "${PYTHON:-python3}" -m venv "$VENV"
fi
if ! "$VENV/bin/python" -c 'import mcp, httpx2, anyio, a2a.client' 2>/dev/null; then
    echo "installing mcp==2.3.0 and a2a-sdk==1.3.0 into $VENV" >&2
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "mcp==2.3.0" "a2a-sdk==1.3.0"
fi

if [ -z "${MCP_SERVER:-}" ]; then
    cargo build -p mcp-server -p carnet-cli --quiet
    MCP_SERVER="$ROOT/target/debug/mcp-server"
fi
export CARNET_BIN="${CARNET_BIN:-$ROOT/target/debug/carnet}"
if [ ! -x "$MCP_SERVER" ]; then
    echo "no server binary at $MCP_SERVER (build it with: cargo build -p mcp-server)" >&2
    exit 2
fi

# e2e.py appends the pid of every HTTP server it starts here; whatever is still running at
# exit is killed, by pid, after checking that it is that server.
PIDFILE="$(mktemp "${TMPDIR:-/tmp}/carnet-mcp-e2e.XXXXXX")"
export E2E_PIDFILE="$PIDFILE"
child=""

cleanup() {
    local status=$?
    trap - EXIT INT TERM
    if [ -n "$child" ] && kill -0 "$child" 2>/dev/null; then
        kill -TERM "$child" 2>/dev/null || true
        for _ in 1 2 3 4 5 6 7 8 9 10; do
            kill -0 "$child" 2>/dev/null || break
            sleep 0.5
        done
        kill -KILL "$child" 2>/dev/null || true
    fi
    while read -r pid; do
        [ -n "$pid" ] || continue
        if kill -0 "$pid" 2>/dev/null && grep -qa "mcp-server" "/proc/$pid/cmdline" 2>/dev/null; then
            echo "killing leftover HTTP server $pid" >&2
            kill -KILL "$pid" 2>/dev/null || true
        fi
    done < "$PIDFILE"
    rm -f "$PIDFILE"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# `timeout` bounds the whole run (each scenario also has its own deadline inside e2e.py);
# it sends SIGTERM first, which e2e.py turns into an orderly shutdown of its servers.
timeout --kill-after=15 "${E2E_TIMEOUT:-600}" \
    "$VENV/bin/python" -u "$ROOT/tests/mcp/e2e.py" --server "$MCP_SERVER" "$@" &
child=$!
set +e
wait "$child"
status=$?
set -e
child=""
if [ "$status" -eq 124 ]; then
    echo "FAIL: the end-to-end tests did not finish within ${E2E_TIMEOUT:-600} s" >&2
fi
[ "$status" -eq 0 ] || exit "$status"

# Replicas behind haproxy (only with --only unset: a filtered run is someone's quick loop).
if [ "$#" -eq 0 ]; then
    if command -v haproxy >/dev/null 2>&1; then
        timeout --kill-after=15 "${REPLICAS_TIMEOUT:-180}" \
            "$VENV/bin/python" -u "$ROOT/tests/mcp/replicas.py" --server "$MCP_SERVER" &
        child=$!
        set +e
        wait "$child"
        status=$?
        set -e
        child=""
        [ "$status" -ne 124 ] || echo "FAIL: the replica test did not finish within ${REPLICAS_TIMEOUT:-180} s" >&2
    elif [ -n "${CI:-}" ]; then
        echo "FAIL: haproxy is not installed (.ci/run installs it)" >&2
        status=1
    else
        echo "note: haproxy is not installed: skipping tests/mcp/replicas.py (apt-get install haproxy)" >&2
    fi
fi
exit "$status"
