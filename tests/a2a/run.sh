#!/usr/bin/env bash
# `carnet serve-a2a` judged by the official A2A Python SDK (a2a-sdk 1.3.0): card, send,
# stream, get, list, subscribe, cancel, errors, over both bindings (tests/a2a/e2e.py).
#
#   tests/a2a/run.sh
#
# Builds the `carnet` binary unless CARNET_BIN names one, creates target/a2a-venv with
# a2a-sdk==1.3.0 if needed (PyPI), then runs e2e.py with a deadline.
# Environment: CARNET_BIN, E2E_TIMEOUT (seconds, default 300), PYTHON (default python3).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

VENV="$ROOT/target/a2a-venv"
if [ ! -x "$VENV/bin/python" ]; then
    echo "creating $VENV" >&2
    "${PYTHON:-python3}" -m venv "$VENV"
fi
if ! "$VENV/bin/python" -c 'import a2a.client, httpx' 2>/dev/null; then
    echo "installing a2a-sdk==1.3.0 into $VENV" >&2
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "a2a-sdk==1.3.0"
fi

if [ -z "${CARNET_BIN:-}" ]; then
    cargo build -p carnet-cli --quiet
    CARNET_BIN="$ROOT/target/debug/carnet"
fi
export CARNET_BIN

# e2e.py writes the pid of the server it starts here; one still running at exit is killed,
# by pid, after checking that it is that server.
PIDFILE="$(mktemp "${TMPDIR:-/tmp}/carnet-a2a-e2e.XXXXXX")"
export E2E_PIDFILE="$PIDFILE"
cleanup() {
    local status=$?
    while read -r pid; do
        [ -n "$pid" ] || continue
        if kill -0 "$pid" 2>/dev/null && grep -qa "serve-a2a" "/proc/$pid/cmdline" 2>/dev/null; then
            echo "killing leftover server $pid" >&2
            kill -KILL "$pid" 2>/dev/null || true
        fi
    done < "$PIDFILE"
    rm -f "$PIDFILE"
    exit "$status"
}
trap cleanup EXIT

status=0
timeout --kill-after=10 "${E2E_TIMEOUT:-300}" "$VENV/bin/python" -u "$ROOT/tests/a2a/e2e.py" || status=$?
if [ "$status" -eq 124 ]; then
    echo "FAIL: the A2A end-to-end tests did not finish within ${E2E_TIMEOUT:-300} s" >&2
fi
exit "$status"
