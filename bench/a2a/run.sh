#!/usr/bin/env bash
# A2A figures (issue 52, item 4): `carnet serve-a2a` (release build, scripted model) against
# a2a-sdk 1.3.0's own server doing the same job, with an HTTP echo of the same bytes as the
# floor, all driven by one Rust load client (`a2a-load`); then memory per open context.
# What is measured and how: bench/a2a/bench.py. Results: bench/RESULTS.md, "A2A".
#
#   bash bench/a2a/run.sh [bench.py options: --rounds N --clients 1,16 --messages N
#                          --warmup N --contexts N --json FILE]
#
# Builds `carnet` and `a2a-load` (release) unless CARNET_BIN / A2A_LOAD_BIN name them;
# creates target/a2a-bench-venv with a2a-sdk[http-server]==1.3.0 and uvicorn (PyPI) if
# needed. Everything it starts is stopped at the end, and its temporary files removed.
# Run by hand (a quiet machine is best); `--rounds 1 --messages 50 --warmup 10 --contexts 50
# --delegation-rounds 1 --delegation-messages 50`
# is a smoke run of a few seconds.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

VENV="$ROOT/target/a2a-bench-venv"
if [ ! -x "$VENV/bin/python" ]; then
    echo "creating $VENV" >&2
    "${PYTHON:-python3}" -m venv "$VENV"
fi
if ! "$VENV/bin/python" -c 'import a2a.server.routes, starlette, sse_starlette, uvicorn' 2>/dev/null; then
    echo "installing a2a-sdk[http-server]==1.3.0 and uvicorn into $VENV" >&2
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "a2a-sdk[http-server]==1.3.0" "uvicorn==0.54.0"
fi

TARGET="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
if [ -z "${CARNET_BIN:-}" ]; then
    cargo build --release --quiet -p carnet-cli
    CARNET_BIN="$TARGET/release/carnet"
fi
if [ -z "${A2A_LOAD_BIN:-}" ]; then
    cargo build --release --quiet -p carnet-bench --bin a2a-load
    A2A_LOAD_BIN="$TARGET/release/a2a-load"
fi

exec "$VENV/bin/python" "$ROOT/bench/a2a/bench.py" --carnet "$CARNET_BIN" --load "$A2A_LOAD_BIN" "$@"
