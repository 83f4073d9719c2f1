#!/usr/bin/env bash
# End-to-end test of `carnet serve-mcp` as a gateway to real MCP servers (issue 25):
# installs the servers and the Python SDK (tests/remote/setup.sh, quiet once installed), then
# runs tests/remote/gateway.py on the content in tests/remote/desk.
#
#   tests/remote/run.sh [gateway.py options: --only CASE, --keep, --keep-going]
#
# Environment: CARNET_BIN (the carnet binary, default target/debug/carnet; this script does
# not build it), GATEWAY_TIMEOUT (seconds for the whole run, default 300).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

bash tests/remote/setup.sh
carnet="${CARNET_BIN:-target/debug/carnet}"
if [ ! -x "$carnet" ]; then
    echo "FAIL: no carnet binary at $carnet (cargo build -p carnet-cli, or set CARNET_BIN)" >&2
    exit 2
fi
# Pins: the committed pins match the real servers (`carnet mcp pin --check`, as CI would run
# it), and a pin edited by hand fails the check with a diff naming the tool.
export CARNET_TEST_FS_SERVER="$ROOT/target/remote/bin/fs-server"
export CARNET_TEST_TIME_SERVER="$ROOT/target/remote/bin/time-server"
export CARNET_TEST_DESK="$ROOT/target/remote/desk"
mkdir -p "$CARNET_TEST_DESK"
timeout 120 "$carnet" --dir tests/remote/desk mcp pin --check 2>/dev/null
edited="$ROOT/target/remote/edited-desk"
rm -rf "$edited" && cp -r tests/remote/desk "$edited"
sed -i 's/"Get current time in a specific timezone"/"Edited by hand"/' "$edited/toolsets/time/mcp.lock.json"
if out="$(timeout 120 "$carnet" --dir "$edited" mcp pin --check time 2>&1)"; then
    echo "FAIL: mcp pin --check passed on an edited pin" >&2; exit 1
fi
grep -q 'tool `get_current_time`: description changed' <<<"$out" || { echo "FAIL: no diff in: $out" >&2; exit 1; }
grep -q 'E0038' <<<"$(timeout 60 "$carnet" --dir "$edited" check 2>&1)" || { echo "FAIL: the build accepted an edited pin" >&2; exit 1; }
timeout 120 "$carnet" --dir "$edited" mcp pin time >/dev/null 2>&1
timeout 120 "$carnet" --dir "$edited" check >/dev/null 2>&1 || { echo "FAIL: a fresh pin does not build" >&2; exit 1; }
echo "PASS pins: --check matches the real servers, fails on an edited pin with a diff; the build refuses it; a new pin builds"
rm -rf "$edited"

# The example crate (examples/desk-agent): its scripted conversation against the real servers.
desk_agent="$(dirname "$carnet")/desk-agent"
if [ ! -x "$desk_agent" ]; then
    echo "FAIL: no desk-agent binary beside $carnet (cargo build -p desk-agent)" >&2
    exit 2
fi
printf 'hello from the desk\n' > "$CARNET_TEST_DESK/hello.txt"
export CARNET_TEST_EVERYTHING_SERVER="$ROOT/target/remote/bin/everything-server"
out="$(DESK_FS_SERVER="$CARNET_TEST_FS_SERVER" DESK_TIME_SERVER="$CARNET_TEST_TIME_SERVER" DESK_DIR="$CARNET_TEST_DESK" \
    DESK_EVERYTHING_SERVER="$CARNET_TEST_EVERYTHING_SERVER" timeout 120 "$desk_agent" hello.txt 2>/dev/null)" \
    || { echo "FAIL: desk-agent: $out" >&2; exit 1; }
for expected in '`hello.txt` says: "hello from the desk"' 'Noted (you have 1 note(s))' 'In Paris it is 20' \
        'The reference `features.md` is titled "Everything Server - Features"' \
        'server of `filesystem`: started' 'server of `library`: started' 'server of `time`: started'; do
    grep -qF "$expected" <<<"$out" || { echo "FAIL: desk-agent's output lacks: $expected"$'\n'"$out" >&2; exit 1; }
done
echo "PASS desk-agent: read through the filesystem server, noted in Rust, a reference read by a Rust tool through the everything server's connection (Carnet::remote), the time from the time server"

# The typed handle (Carnet::remote) against the everything server: resources (text and blob),
# templates, prompts, a tool call. `--workspace` keeps the feature set of the workspace's
# test build, so nothing is compiled again.
out="$(cargo test -q --workspace --test remote_handle the_everything_server 2>&1)" && grep -q '1 passed' <<<"$out" \
    || { echo "FAIL: the remote handle against the everything server (cargo test --workspace --test remote_handle):"$'\n'"$out" >&2; exit 1; }
echo "PASS remote handle: the everything server's resources, templates, prompts and echo through Carnet::remote"

# A program's own answers to the server's requests (issue 53): nothing declared without a
# handler; its elicitation and sampling handlers answer the everything server.
out="$(cargo test -q --workspace --test remote_answers 2>&1)" && grep -q '3 passed' <<<"$out" \
    || { echo "FAIL: a program's elicitation/sampling handlers against the everything server (cargo test --workspace --test remote_answers):"$'\n'"$out" >&2; exit 1; }
echo "PASS remote answers: nothing declared without a handler; a program's handlers answer the everything server's elicitation and sampling"

# The gateway's pass-through (issue 53): the official SDK as the host receives the everything
# server's progress, logs, elicitation and sampling requests, resource subscriptions and list
# changes through carnet, over stdio and HTTP.
timeout 120 "$carnet" --dir tests/remote/relay mcp pin --check 2>/dev/null \
    || { echo "FAIL: tests/remote/relay's pin no longer matches the everything server" >&2; exit 1; }
timeout --kill-after=15 400 target/remote/venv/bin/python -u tests/remote/relay.py --carnet "$carnet"

# gateway.py bounds itself (GATEWAY_TIMEOUT, then a watchdog); `timeout` is the last resort.
limit="${GATEWAY_TIMEOUT:-300}"
exec timeout --kill-after=15 "$((limit + 60))" \
    target/remote/venv/bin/python -u tests/remote/gateway.py \
    --carnet "$carnet" --dir tests/remote/desk --timeout "$limit" "$@"
