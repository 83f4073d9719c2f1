#!/usr/bin/env bash
# The official SDKs judge the bytes. Requests: the example conversation in every exposure
# mode, as the clients send it to Anthropic Messages, OpenAI Chat Completions, OpenAI
# Responses and Gemini at every step, streamed or not, strict or not
# (examples/research-agent/tests/disclosure.rs), each body checked against the SDKs' request
# types with unknown keys refused (tests/providers/validate.py; Gemini's with google-genai's
# types, then compared with the body google-genai writes for those values). Responses: made
# by the SDKs' response and stream-event models (tests/providers/responses.py) and read back
# by carnet (carnet-runtime/tests/sdk_responses.rs); Gemini's signed turns sent back. Provider-side tool search: the bodies
# declaring it, and the ones sending an SDK-made search back
# (carnet-runtime/tests/provider_search.rs, sdk_responses.rs), checked the same way.
#
# Creates target/sdk-venv with the pinned SDKs if needed. PYTHON: interpreter for the venv.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

VENV="$ROOT/target/sdk-venv"
if [ ! -x "$VENV/bin/python" ]; then
    echo "creating $VENV" >&2
    "${PYTHON:-python3}" -m venv "$VENV"
fi
if ! "$VENV/bin/python" -c 'import openai, anthropic, google.genai, pydantic; assert openai.__version__ == "3.54.0" and anthropic.__version__ == "2.12.0" and google.genai.__version__ == "3.6.1"' 2>/dev/null; then
    echo "installing openai==3.54.0 anthropic==2.12.0 google-genai==3.6.1 into $VENV" >&2
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "openai==3.54.0" "anthropic==2.12.0" "google-genai==3.6.1"
fi

RESPONSES="$ROOT/target/sdk-responses"
rm -rf "$RESPONSES"
"$VENV/bin/python" tests/providers/responses.py "$RESPONSES"

OUT="$ROOT/target/provider-requests"
rm -rf "$OUT"
CARNET_REQUESTS_DIR="$OUT" cargo test --quiet -p research-agent --test disclosure
# Provider-side tool search (issue 26, item 3): conversations with the search declared, and
# the request after each SDK-made search response (its items sent back as they came).
CARNET_REQUESTS_DIR="$OUT" cargo test --quiet -p carnet-runtime --test provider_search
# OpenAI's client-executed tool search, answered by carnet's own search (issue 51, item 4).
CARNET_REQUESTS_DIR="$OUT" cargo test --quiet -p carnet-runtime --features openai,anthropic --test models \
    a_client_executed_tool_search_is_answered_by_carnets_search
CARNET_SDK_RESPONSES="$RESPONSES" CARNET_REQUESTS_DIR="$OUT" cargo test --quiet -p carnet-runtime --test sdk_responses
"$VENV/bin/python" tests/providers/validate.py "$OUT"
