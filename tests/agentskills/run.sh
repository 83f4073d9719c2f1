#!/usr/bin/env bash
# Agent Skills parity: the reference validator skills-ref (PyPI) against `carnet check`, on
# the vendored corpus and on generated valid and invalid skills (tests/agentskills/parity.py
# lists them and the deliberate differences). Creates target/agentskills-venv with
# skills-ref==0.1.1 on first run. Environment: CARNET_BIN (default: builds carnet-cli and
# uses target/debug/carnet), PYTHON (interpreter for the venv, default python3).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
VENV="$ROOT/target/agentskills-venv"
if [ ! -x "$VENV/bin/agentskills" ]; then
    echo "installing skills-ref==0.1.1 into $VENV" >&2
    "${PYTHON:-python3}" -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "skills-ref==0.1.1"
fi
if [ -z "${CARNET_BIN:-}" ]; then
    cargo build -p carnet-cli --quiet
    CARNET_BIN="$TARGET/debug/carnet"
fi
exec "$VENV/bin/python" tests/agentskills/parity.py "$VENV/bin/agentskills" "$CARNET_BIN" tests/corpus/agentskills
