#!/usr/bin/env bash
# MCP over HTTP under load as a deployment meets it: two replicas of one agent (dispatcher
# mode, one shared CARNET_SESSION_KEY) behind haproxy (round robin per request, keep-alive
# to both sides), driven by stateless (2026-07-28) conversations whose sealed handle lets any
# replica serve any call. The replicas, haproxy and the load generator share this machine's
# cores.
#
# Each round runs both server paths side by side, in turn: `through rmcp` (every request
# left to rmcp's streamable HTTP service: `Server::through_rmcp_only`) and `direct` (the
# stateless `tools/list` and `tools/call` answered by carnet's own writer, the default).
#
#   bash bench/mcp-haproxy.sh [--rounds N] [--clients N] [--calls N] [--threads N]
#
# Defaults: 2 rounds, 32 clients × 100 calls each (the first a `loadSkill`, then `callTool`
# of a domain tool with the handle), then 32 × 50 `tools/list`; the load generator on 1
# worker thread. Prints a markdown table. Needs haproxy (apt-get install haproxy).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

rounds=2
load_args=()
workers="${REPLICA_WORKERS:-1}"
haproxy_threads="${HAPROXY_THREADS:-1}"
while [ "$#" -gt 0 ]; do
    case "$1" in
        --rounds) rounds="$2"; shift 2 ;;
        --clients|--calls|--threads|--lists) load_args+=("$1" "$2"); shift 2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done

command -v haproxy >/dev/null || { echo "haproxy is not installed (apt-get install haproxy)" >&2; exit 1; }
cargo build --release --quiet -p carnet-bench --bin mcp-load
TARGET="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
BIN="$TARGET/release/mcp-load"

WORK="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

CARNET_SESSION_KEY="$(head -c 32 /dev/urandom | base64)"
export CARNET_SESSION_KEY

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

wait_port() {
    for _ in $(seq 1 100); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
        sleep 0.1
    done
    echo "nothing listens on port $1" >&2
    return 1
}

# One measurement: two replicas (`$1` = extra replica flag) behind a fresh haproxy.
measure() {
    local label="$1" flag="$2"
    local p1 p2 front
    p1="$(free_port)"; p2="$(free_port)"; front="$(free_port)"
    "$BIN" --serve "127.0.0.1:$p1" --workers "$workers" $flag >"$WORK/r1.out" 2>&1 & pids+=($!)
    "$BIN" --serve "127.0.0.1:$p2" --workers "$workers" $flag >"$WORK/r2.out" 2>&1 & pids+=($!)
    cat >"$WORK/haproxy.cfg" <<EOF
global
    maxconn 4096
    nbthread $haproxy_threads
defaults
    mode http
    timeout connect 5s
    timeout client 60s
    timeout server 60s
    option http-keep-alive
    http-reuse always
frontend mcp
    bind 127.0.0.1:$front
    default_backend replicas
backend replicas
    balance roundrobin
    server r1 127.0.0.1:$p1
    server r2 127.0.0.1:$p2
EOF
    haproxy -f "$WORK/haproxy.cfg" -db >"$WORK/haproxy.out" 2>&1 & pids+=($!)
    wait_port "$p1"; wait_port "$p2"; wait_port "$front"
    "$BIN" --url "http://127.0.0.1:$front/mcp" --label "$label" "${load_args[@]}"
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    pids=()
}

echo "| path | request | clients | requests | p50 | p99 | throughput |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
for round in $(seq 1 "$rounds"); do
    measure "through rmcp, round $round" "--through-rmcp"
    measure "direct, round $round" ""
done
