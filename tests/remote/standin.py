#!/usr/bin/env python3
"""A stand-in MCP server over stdio that misbehaves on purpose, for carnet's fault tests.

Python standard library only: raw JSON-RPC 2.0, one JSON object per line on stdin and stdout
(the MCP stdio transport). Nothing but protocol messages goes to stdout, except in `garbage`
mode; nothing is written to stderr unless something is wrong with the invocation.

    standin.py [--mode MODE]        (or env STANDIN_MODE; default ok)

Methods: initialize, notifications/initialized, ping, tools/list, tools/call; other requests
get JSON-RPC error -32601, other notifications and any responses are ignored.

initialize answers protocolVersion = the client's requested one when it is one of 2024-11-05,
2025-03-26, 2025-06-18, 2025-11-25 (else 2025-06-18), serverInfo {name: standin, version:
1.0.0}, capabilities {tools: {listChanged: true}}.

Tools:
    echo {text: string}          text content with the text, structuredContent {"text": text}
                                 (declares an outputSchema)
    add {a: integer, b: integer} text content with the sum
    fail {}                      isError: true, text "it failed on purpose"
Bad arguments give an isError result; an unknown tool gives JSON-RPC error -32602.

Modes:
    ok           as above
    hang-call    tools/call of echo is never answered (everything else is)
    crash-call   the first tools/call of echo exits the process (status 1) without answering;
                 with STANDIN_STATE naming a file: crashes only if that file does not exist,
                 and creates it before exiting (so the restarted server behaves)
    garbage      before every message it sends: two non-JSON lines and a JSON line that is not
                 JSON-RPC; the real message follows
    huge-list    tools/list answers one line of about 50 MB (25,000 tools, long descriptions)
    deep-schema  tools/list has, besides the three tools, `deep` whose inputSchema nests
                 10,000 levels (`properties.x` inside `properties.x` ...); calling it answers "deep"
    drift        after answering the first tools/call: echo's inputSchema gains a required
                 property `loud: boolean`, `add` is removed, and notifications/tools/list_changed
                 is sent (echo with loud: true answers in upper case)
    slow-start   sleeps STANDIN_DELAY seconds (default 30) before answering initialize
    paged        tools/list gives one tool per page, with nextCursor

Env: CARNET_TEST_MARKERS (a directory: the PID is appended to standin.pid there, as the
wrappers of target/remote/bin do), STANDIN_MODE, STANDIN_STATE, STANDIN_DELAY.
"""

from __future__ import annotations

import copy
import json
import os
import sys
import time
from typing import Any

MODES = ("ok", "hang-call", "crash-call", "garbage", "huge-list", "deep-schema", "drift", "slow-start", "paged")
KNOWN_PROTOCOLS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
DEFAULT_PROTOCOL = "2025-06-18"

HUGE_TOOLS = 25_000
HUGE_DESCRIPTION_CHARS = 2_000
DEEP_LEVELS = 10_000
DEEP_PLACEHOLDER = "__STANDIN_DEEP_SCHEMA__"

BASE_TOOLS: list[dict[str, Any]] = [
    {
        "name": "echo",
        "description": "Returns the text it is given.",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string", "description": "The text to echo."}},
            "required": ["text"],
        },
        "outputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    },
    {
        "name": "add",
        "description": "Adds two integers.",
        "inputSchema": {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
        },
    },
    {
        "name": "fail",
        "description": "Always fails.",
        "inputSchema": {"type": "object", "properties": {}},
    },
]


def parse_mode(argv: list[str]) -> str:
    mode = os.environ.get("STANDIN_MODE") or "ok"
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--mode" and args:
            mode = args.pop(0)
        elif a.startswith("--mode="):
            mode = a.split("=", 1)[1]
        elif a in ("-h", "--help"):
            print(__doc__)
            sys.exit(0)
        else:
            sys.stderr.write(f"standin: unknown argument {a!r}\n")
            sys.exit(2)
    if mode not in MODES:
        sys.stderr.write(f"standin: unknown mode {mode!r} (one of {', '.join(MODES)})\n")
        sys.exit(2)
    return mode


class Standin:
    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.tools = copy.deepcopy(BASE_TOOLS)
        self.drifted = False
        self.out = sys.stdout.buffer

    # -- output

    def send_line(self, line: str) -> None:
        if self.mode == "garbage":
            self.out.write(b"standin: this line is not JSON\n")
            self.out.write(b"{\"unterminated\": \n")
            self.out.write(b'{"hello": "a JSON object that is not JSON-RPC", "n": 42}\n')
        self.out.write(line.encode("utf-8") + b"\n")
        self.out.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.send_line(json.dumps(message, separators=(",", ":")))

    def result(self, id_: Any, result: dict[str, Any]) -> None:
        self.send({"jsonrpc": "2.0", "id": id_, "result": result})

    def error(self, id_: Any, code: int, message: str) -> None:
        self.send({"jsonrpc": "2.0", "id": id_, "error": {"code": code, "message": message}})

    # -- methods

    def initialize(self, id_: Any, params: dict[str, Any]) -> None:
        if self.mode == "slow-start":
            time.sleep(float(os.environ.get("STANDIN_DELAY", "30")))
        requested = params.get("protocolVersion")
        version = requested if requested in KNOWN_PROTOCOLS else DEFAULT_PROTOCOL
        self.result(
            id_,
            {
                "protocolVersion": version,
                "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": "standin", "version": "1.0.0"},
            },
        )

    def tools_list(self, id_: Any, params: dict[str, Any]) -> None:
        if self.mode == "huge-list":
            self.send_line(huge_list_line(id_))
            return
        if self.mode == "deep-schema":
            tools = self.tools + [{"name": "deep", "description": "A schema nested 10,000 levels deep.", "inputSchema": DEEP_PLACEHOLDER}]
            line = json.dumps({"jsonrpc": "2.0", "id": id_, "result": {"tools": tools}}, separators=(",", ":"))
            self.send_line(line.replace(json.dumps(DEEP_PLACEHOLDER), deep_schema_text()))
            return
        if self.mode == "paged":
            cursor = params.get("cursor")
            try:
                index = int(cursor) if cursor is not None else 0
                if not 0 <= index < len(self.tools):
                    raise ValueError
            except (TypeError, ValueError):
                self.error(id_, -32602, f"invalid cursor {cursor!r}")
                return
            page: dict[str, Any] = {"tools": [self.tools[index]]}
            if index + 1 < len(self.tools):
                page["nextCursor"] = str(index + 1)
            self.result(id_, page)
            return
        self.result(id_, {"tools": self.tools})

    def tools_call(self, id_: Any, params: dict[str, Any]) -> None:
        name = params.get("name")
        args = params.get("arguments") or {}
        if name == "echo" and self.mode == "hang-call":
            return  # never answered
        if name == "echo" and self.mode == "crash-call":
            state = os.environ.get("STANDIN_STATE")
            if not state:
                os._exit(1)
            if not os.path.exists(state):
                with open(state, "w") as f:
                    f.write(f"crashed {os.getpid()}\n")
                os._exit(1)
        if name not in {t["name"] for t in self.tools} and not (name == "deep" and self.mode == "deep-schema"):
            self.error(id_, -32602, f"Unknown tool: {name}")
            return
        if not isinstance(args, dict):
            self.result(id_, tool_error("arguments must be an object"))
            return
        if name == "echo":
            text = args.get("text")
            if not isinstance(text, str):
                self.result(id_, tool_error("echo: `text` must be a string"))
            elif self.drifted and not isinstance(args.get("loud"), bool):
                self.result(id_, tool_error("echo: `loud` must be a boolean"))
            else:
                if self.drifted and args.get("loud"):
                    text = text.upper()
                self.result(id_, {"content": [{"type": "text", "text": text}], "structuredContent": {"text": text}})
        elif name == "add":
            a, b = args.get("a"), args.get("b")
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in (a, b)):
                self.result(id_, tool_error("add: `a` and `b` must be integers"))
            else:
                self.result(id_, {"content": [{"type": "text", "text": str(a + b)}]})
        elif name == "fail":
            self.result(id_, tool_error("it failed on purpose"))
        else:  # deep
            self.result(id_, {"content": [{"type": "text", "text": "deep"}]})
        if self.mode == "drift" and not self.drifted:
            self.drift()

    def drift(self) -> None:
        self.drifted = True
        tools = []
        for tool in self.tools:
            if tool["name"] == "add":
                continue
            if tool["name"] == "echo":
                schema = tool["inputSchema"]
                schema["properties"]["loud"] = {"type": "boolean", "description": "Shout the text."}
                schema["required"] = ["text", "loud"]
            tools.append(tool)
        self.tools = tools
        self.send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})

    # -- loop

    def handle(self, raw: bytes) -> None:
        try:
            message = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            self.error(None, -32700, f"parse error: {e}")
            return
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            self.error(message.get("id") if isinstance(message, dict) else None, -32600, "invalid request")
            return
        method = message.get("method")
        if method is None:
            return  # a response to something we never asked: ignore
        params = message.get("params") or {}
        if "id" not in message:
            return  # notifications/initialized, notifications/cancelled, ...: nothing to do
        id_ = message["id"]
        if not isinstance(params, dict):
            self.error(id_, -32602, "params must be an object")
        elif method == "initialize":
            self.initialize(id_, params)
        elif method == "ping":
            self.result(id_, {})
        elif method == "tools/list":
            self.tools_list(id_, params)
        elif method == "tools/call":
            self.tools_call(id_, params)
        else:
            self.error(id_, -32601, f"method not found: {method}")

    def run(self) -> None:
        stdin = sys.stdin.buffer
        while True:
            line = stdin.readline()
            if not line:
                return
            if line.strip():
                self.handle(line)


def tool_error(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": True}


def deep_schema_text() -> str:
    """{"type":"object","properties":{"x": ... {"type":"string"} ...}} nested DEEP_LEVELS
    levels, built as text (no recursion anywhere)."""
    return '{"type":"object","properties":{"x":' * DEEP_LEVELS + '{"type":"string"}' + "}}" * DEEP_LEVELS


def huge_list_line(id_: Any) -> str:
    filler = (
        "This description is long on purpose: the stand-in tests bounded memory and time when a "
        "server answers tools/list with a list far larger than any real one. "
    )
    description = (filler * (HUGE_DESCRIPTION_CHARS // len(filler) + 1))[:HUGE_DESCRIPTION_CHARS]
    parts = []
    for i in range(HUGE_TOOLS):
        parts.append(
            json.dumps(
                {
                    "name": f"tool_{i:05d}",
                    "description": f"Tool {i}. {description}",
                    "inputSchema": {"type": "object", "properties": {"value": {"type": "string"}}},
                },
                separators=(",", ":"),
            )
        )
    return '{"jsonrpc":"2.0","id":' + json.dumps(id_) + ',"result":{"tools":[' + ",".join(parts) + "]}}"


def main() -> None:
    mode = parse_mode(sys.argv[1:])
    markers = os.environ.get("CARNET_TEST_MARKERS")
    if markers:
        os.makedirs(markers, exist_ok=True)
        with open(os.path.join(markers, "standin.pid"), "a") as f:
            f.write(f"{os.getpid()}\n")
    try:
        Standin(mode).run()
    except (BrokenPipeError, KeyboardInterrupt):
        os._exit(0)  # the client went away: no flush of a closed stdout at exit


if __name__ == "__main__":
    main()
