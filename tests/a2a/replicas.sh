#!/usr/bin/env bash
# Two `carnet serve-a2a` replicas sharing Redis behind haproxy, judged by the official A2A
# Python SDK (a2a-sdk 1.3.0; tests/a2a/replicas.py): a task started through the balancer is
# read and subscribed to through each replica and canceled through the other; a replica
# killed mid-task leaves its task failed with a reason naming it, read through the survivor.
#
#   tests/a2a/replicas.sh
#
# Installs redis-server and haproxy from Debian when missing (apt-get, as root), builds the
# `carnet` binary unless CARNET_BIN names one, creates target/a2a-venv with a2a-sdk==1.3.0 if
# needed. Environment: CARNET_BIN, REPLICAS_TIMEOUT (seconds, default 120), PYTHON.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v haproxy >/dev/null 2>&1 || missing+=(haproxy)
if [ "${#missing[@]}" -gt 0 ]; then
    echo "installing ${missing[*]} from Debian" >&2
    apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

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

# replicas.py kills its children on exit (and they die with it, PR_SET_PDEATHSIG); the
# timeout here bounds the run whatever happens.
status=0
timeout --kill-after=10 "$(( ${REPLICAS_TIMEOUT:-120} + 20 ))" "$VENV/bin/python" -u "$ROOT/tests/a2a/replicas.py" || status=$?
if [ "$status" -eq 124 ]; then
    echo "FAIL: the A2A replica test did not finish within ${REPLICAS_TIMEOUT:-120} s" >&2
fi
exit "$status"
