#!/usr/bin/env bash
# The research agent example's trace, checked at a real OTLP/HTTP receiver: builds the
# example with `--features otel`, starts tests/otel/receiver.py (the official
# opentelemetry-proto types decode each request; its venv lives under the target dir),
# runs the example offline against it, stops the receiver and checks the span tree with
# tests/otel/check.py; then the same for `carnet serve-mcp` (built with `--features otel`).
# `OTEL_RECEIVER=phoenix` checks the example's trace in Arize Phoenix instead. Bounded: the receiver stops by itself after 300 s, the example is
# given 120 s.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
work="$target/otel"
mkdir -p "$work"

if [ ! -x "$work/venv/bin/python" ]; then
    python3 -m venv "$work/venv"
fi
if ! "$work/venv/bin/python" -c "import opentelemetry.proto.collector.trace.v1.trace_service_pb2" 2>/dev/null; then
    "$work/venv/bin/pip" install --quiet --disable-pip-version-check "opentelemetry-proto>=1.30,<2"
fi

cargo build --quiet -p research-agent --features otel
cargo build --quiet -p carnet-cli --features otel

receiver=
trap '[ -z "$receiver" ] || kill "$receiver" 2>/dev/null || true' EXIT
# Starts a receiver writing to $work/$1.jsonl; its port is in $work/$1.port.
start_receiver() {
    rm -f "$work/$1.port" "$work/$1.jsonl"
    "$work/venv/bin/python" "$root/tests/otel/receiver.py" "$work/$1.port" "$work/$1.jsonl" 300 &
    receiver=$!
    for _ in $(seq 100); do
        [ -s "$work/$1.port" ] && return 0
        kill -0 "$receiver" || { echo "otel: the receiver did not start" >&2; exit 1; }
        sleep 0.1
    done
    echo "otel: the receiver did not listen within 10 s" >&2
    exit 1
}
stop_receiver() {
    kill "$receiver" 2>/dev/null || true
    wait "$receiver" 2>/dev/null || true
    receiver=
}

# OTEL_RECEIVER=phoenix: the example's trace checked in Arize Phoenix itself (PyPI
# `arize-phoenix`, ~900 MB in target/otel/phoenix-venv), read back through its REST API.
if [ "${OTEL_RECEIVER:-proto}" = phoenix ]; then
    if [ ! -x "$work/phoenix-venv/bin/phoenix" ]; then
        python3 -m venv "$work/phoenix-venv"
        "$work/phoenix-venv/bin/pip" install --quiet --disable-pip-version-check "arize-phoenix>=12,<30"
    fi
    port="$("$work/venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    grpc="$("$work/venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    rm -rf "$work/phoenix-data"
    PHOENIX_WORKING_DIR="$work/phoenix-data" PHOENIX_HOST=127.0.0.1 PHOENIX_PORT="$port" PHOENIX_GRPC_PORT="$grpc" \
        timeout 600 "$work/phoenix-venv/bin/phoenix" serve > "$work/phoenix.log" 2>&1 &
    receiver=$!
    for _ in $(seq 240); do
        curl -sf "http://127.0.0.1:$port/v1/projects" > /dev/null && break
        kill -0 "$receiver" || { echo "otel: phoenix did not start" >&2; tail "$work/phoenix.log" >&2; exit 1; }
        sleep 0.5
    done
    env -u OTEL_EXPORTER_OTLP_TRACES_ENDPOINT -u OTEL_EXPORTER_OTLP_HEADERS -u OTEL_RESOURCE_ATTRIBUTES \
        OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:$port" OTEL_SERVICE_NAME=carnet-otel-test \
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=false \
        timeout 120 "$target/debug/research-agent" > "$work/example.out"
    # Phoenix stores what it received asynchronously: wait for the whole trace (15 spans).
    for _ in $(seq 60); do
        count="$(curl -sf "http://127.0.0.1:$port/v1/projects/default/spans?limit=1000" |
            "$work/venv/bin/python" -c 'import json, sys; print(len(json.load(sys.stdin)["data"]))' || echo 0)"
        [ "$count" -ge 15 ] && break
        sleep 0.5
    done
    "$work/venv/bin/python" "$root/tests/otel/check.py" --phoenix "http://127.0.0.1:$port"
    stop_receiver
    exit 0
fi

start_receiver example

# Only the exporter's variables reach the example (a developer's own OTEL_* would not).
env -u OTEL_EXPORTER_OTLP_TRACES_ENDPOINT -u OTEL_EXPORTER_OTLP_HEADERS -u OTEL_RESOURCE_ATTRIBUTES \
    -u OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT \
    OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:$(cat "$work/example.port")" \
    OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf \
    OTEL_SERVICE_NAME=carnet-otel-test \
    timeout 120 "$target/debug/research-agent" > "$work/example.out"

stop_receiver
"$work/venv/bin/python" "$root/tests/otel/check.py" "$work/example.jsonl"

# `carnet serve-mcp` over stdio: a load and a refused call, each its own trace.
start_receiver serve
rm -f "$work/serve.out"
# stdin stays open until the last answer is out: at end of input the server stops.
{
    printf '%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"otel-test","version":"1"}}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"loadSkill","arguments":{"skillName":"dataAnalysis"}}}' \
    '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"formatCitation","arguments":{}}}'
    for _ in $(seq 300); do
        grep -q '"id":3' "$work/serve.out" 2>/dev/null && break
        sleep 0.1
    done
} |
    env -u OTEL_EXPORTER_OTLP_TRACES_ENDPOINT -u OTEL_SERVICE_NAME -u OTEL_RESOURCE_ATTRIBUTES \
        OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:$(cat "$work/serve.port")" \
        timeout 60 "$target/debug/carnet" --dir "$root/examples/research-agent/carnet" serve-mcp researcher \
        > "$work/serve.out" 2> "$work/serve.err"
stop_receiver
"$work/venv/bin/python" "$root/tests/otel/check.py" --serve "$work/serve.jsonl"

# A protocol that is not built in is said, and the agent still runs (untraced).
OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:9 OTEL_EXPORTER_OTLP_PROTOCOL=grpc \
    timeout 120 "$target/debug/research-agent" > /dev/null 2> "$work/grpc.err"
grep -q "OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported" "$work/grpc.err" \
    || { echo "otel: FAILED: no warning for OTEL_EXPORTER_OTLP_PROTOCOL=grpc" >&2; cat "$work/grpc.err" >&2; exit 1; }
echo "otel: an unsupported protocol is reported"
