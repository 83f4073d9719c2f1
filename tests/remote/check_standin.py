#!/usr/bin/env python3
"""Checks tests/remote/standin.py mode by mode: raw JSON lines over a subprocess's stdio, and
`ok` and `paged` through the official MCP Python SDK's stdio client as well. Run with
target/remote/venv/bin/python (the raw checks alone need only the standard library:
`--raw-only`). One line per check; exits 1 on the first failure.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
STANDIN = HERE / "standin.py"
INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "check", "version": "1"}}


class Failed(Exception):
    pass


def check(cond: bool, what: str, detail: Any = "") -> None:
    if not cond:
        raise Failed(f"{what}: {detail}" if detail != "" else what)


class Raw:
    """A stand-in process spoken to in raw JSON lines."""

    def __init__(self, mode: str, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(STANDIN), "--mode", mode],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **(env or {})},
        )
        self.buf = b""
        self.next_id = 1
        self.skipped: list[bytes] = []  # lines that were not JSON-RPC messages

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except OSError:
                pass

    def __enter__(self) -> "Raw":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def write(self, message: dict[str, Any] | str) -> None:
        line = message if isinstance(message, str) else json.dumps(message)
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any] | None = None) -> int:
        id_ = self.next_id
        self.next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "method": method}
        if params is not None:
            message["params"] = params
        self.write(message)
        return id_

    def notify(self, method: str) -> None:
        self.write({"jsonrpc": "2.0", "method": method})

    def line(self, timeout: float) -> bytes | None:
        """The next line, or None at timeout or EOF."""
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        chunks = [self.buf]
        newline = self.buf.find(b"\n")
        while newline < 0:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([fd], [], [], max(0.0, left))
            chunk = os.read(fd, 1 << 20) if ready else b""
            if not chunk:
                self.buf = b"".join(chunks)
                return None
            newline = chunk.find(b"\n")
            if newline >= 0:
                newline += sum(len(c) for c in chunks)
            chunks.append(chunk)
        data = b"".join(chunks)
        line, self.buf = data[:newline], data[newline + 1 :]
        return line

    def message(self, timeout: float = 10.0) -> dict[str, Any] | None:
        """The next JSON-RPC message; other lines are recorded in `skipped`."""
        deadline = time.monotonic() + timeout
        while True:
            line = self.line(max(0.0, deadline - time.monotonic()))
            if line is None:
                return None
            try:
                message = json.loads(line)
            except ValueError:
                self.skipped.append(line)
                continue
            if isinstance(message, dict) and message.get("jsonrpc") == "2.0":
                return message
            self.skipped.append(line)

    def call(self, method: str, params: dict[str, Any] | None = None, timeout: float = 10.0) -> dict[str, Any]:
        id_ = self.request(method, params)
        message = self.message(timeout)
        check(message is not None, f"{method} answered", "no answer")
        check(message.get("id") == id_, f"{method}: answer has id {id_}", message)
        return message

    def initialize(self, version: str = "2025-06-18") -> dict[str, Any]:
        answer = self.call("initialize", {**INIT, "protocolVersion": version})
        self.notify("notifications/initialized")
        return answer["result"]


def text(result: dict[str, Any]) -> str:
    return result["content"][0]["text"]


def tool_call(raw: Raw, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return raw.call("tools/call", {"name": name, "arguments": arguments})


# ---------------------------------------------------------------------------------------------


def mode_ok() -> None:
    with Raw("ok") as r:
        init = r.initialize("2025-03-26")
        check(init["protocolVersion"] == "2025-03-26", "a known protocol version is echoed", init)
        check(init["serverInfo"] == {"name": "standin", "version": "1.0.0"}, "serverInfo", init)
        check(init["capabilities"] == {"tools": {"listChanged": True}}, "capabilities", init)
        check(r.call("ping")["result"] == {}, "ping")
        tools = r.call("tools/list")["result"]["tools"]
        check([t["name"] for t in tools] == ["echo", "add", "fail"], "three tools", tools)
        echo = tool_call(r, "echo", {"text": "hi"})["result"]
        check(text(echo) == "hi" and echo["structuredContent"] == {"text": "hi"} and not echo.get("isError"), "echo", echo)
        add = tool_call(r, "add", {"a": 2, "b": 40})["result"]
        check(text(add) == "42", "add", add)
        fail = tool_call(r, "fail", {})["result"]
        check(fail.get("isError") is True and text(fail) == "it failed on purpose", "fail", fail)
        bad = tool_call(r, "add", {"a": "2", "b": 1})["result"]
        check(bad.get("isError") is True, "add with a string is an isError result", bad)
        unknown = tool_call(r, "nope", {})
        check(unknown.get("error", {}).get("code") == -32602, "unknown tool: -32602", unknown)
        check(r.call("resources/list").get("error", {}).get("code") == -32601, "unknown method: -32601")
        r.write("{not json")
        parse = r.message()
        check(parse is not None and parse.get("error", {}).get("code") == -32700 and parse.get("id") is None, "parse error", parse)
    with Raw("ok") as r:
        init = r.initialize("2099-01-01")
        check(init["protocolVersion"] == "2025-06-18", "an unknown protocol version gets 2025-06-18", init)
    for version in ("2024-11-05", "2025-06-18", "2025-11-25"):
        with Raw("ok") as r:
            check(r.initialize(version)["protocolVersion"] == version, f"{version} echoed")
    with Raw("ok") as r:
        r.proc.stdin.close()
        check(r.proc.wait(timeout=10) == 0, "exits 0 at the end of stdin")


def mode_markers() -> None:
    with tempfile.TemporaryDirectory() as markers:
        with Raw("ok", {"CARNET_TEST_MARKERS": markers}) as r:
            r.initialize()
            pids = Path(markers, "standin.pid").read_text().split()
            check(pids == [str(r.proc.pid)], "CARNET_TEST_MARKERS: standin.pid holds the PID", pids)


def mode_hang_call() -> None:
    with Raw("hang-call") as r:
        r.initialize()
        hung = r.request("tools/call", {"name": "echo", "arguments": {"text": "hi"}})
        add = tool_call(r, "add", {"a": 1, "b": 2})
        check(text(add["result"]) == "3", "other calls are answered while echo hangs", add)
        check(r.call("ping")["result"] == {}, "ping is answered while echo hangs")
        late = r.message(timeout=1.5)
        check(late is None, f"echo (id {hung}) is never answered", late)
        check(r.proc.poll() is None, "the process is still running")


def mode_crash_call() -> None:
    with Raw("crash-call") as r:
        r.initialize()
        check(text(tool_call(r, "add", {"a": 1, "b": 1})["result"]) == "2", "add works before the crash")
        r.request("tools/call", {"name": "echo", "arguments": {"text": "hi"}})
        check(r.message(timeout=5) is None, "echo is not answered")
        check(r.proc.wait(timeout=5) == 1, "exit status 1")
    with tempfile.TemporaryDirectory() as tmp:
        state = str(Path(tmp, "crashed"))
        with Raw("crash-call", {"STANDIN_STATE": state}) as r:
            r.initialize()
            r.request("tools/call", {"name": "echo", "arguments": {"text": "hi"}})
            check(r.message(timeout=5) is None, "with STANDIN_STATE: the first server crashes")
            check(r.proc.wait(timeout=5) == 1 and os.path.exists(state), "exit 1 and the state file exists")
        with Raw("crash-call", {"STANDIN_STATE": state}) as r:
            r.initialize()
            echo = tool_call(r, "echo", {"text": "again"})["result"]
            check(text(echo) == "again", "the restarted server answers echo", echo)


def mode_garbage() -> None:
    with Raw("garbage") as r:
        init = r.initialize()
        check(init["serverInfo"]["name"] == "standin", "initialize answered among garbage")
        check(len(r.skipped) == 3, "three garbage lines before the answer", r.skipped)
        check(any(b'"hello"' in line for line in r.skipped), "one garbage line is JSON but not JSON-RPC", r.skipped)
        echo = tool_call(r, "echo", {"text": "hi"})["result"]
        check(text(echo) == "hi" and len(r.skipped) == 6, "echo answered among garbage", r.skipped)


def mode_huge_list() -> None:
    with Raw("huge-list") as r:
        r.initialize()
        start = time.monotonic()
        r.request("tools/list")
        line = r.line(timeout=60)
        check(line is not None, "tools/list answered")
        size = len(line)
        message = json.loads(line)
        tools = message["result"]["tools"]
        check(40_000_000 <= size <= 60_000_000, "one line of about 50 MB", size)
        check(len(tools) == 25_000, "25,000 tools", len(tools))
        print(f"   huge-list: {size / 1e6:.1f} MB, {len(tools)} tools in {time.monotonic() - start:.1f} s")


def depth_of(text_: str) -> int:
    """Maximum nesting of objects and arrays in a JSON text, without recursion."""
    depth = best = 0
    in_string = escaped = False
    for ch in text_:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            depth += 1
            best = max(best, depth)
        elif ch in "}]":
            depth -= 1
            check(depth >= 0, "balanced brackets")
    check(depth == 0 and not in_string, "the text ends balanced")
    return best


def mode_deep_schema() -> None:
    with Raw("deep-schema") as r:
        r.initialize()
        r.request("tools/list")
        line = r.line(timeout=10)
        check(line is not None, "tools/list answered")
        decoded = line.decode()
        depth = depth_of(decoded)
        # message > result > tools[] > tool > inputSchema (1) > properties > x (2) > ...
        check(depth >= 2 * 10_000, "the schema nests 10,000 levels", depth)
        for name in ("echo", "add", "fail", "deep"):
            check(f'"name":"{name}"' in decoded, f"tools/list has {name}")
        check(text(tool_call(r, "echo", {"text": "still"})["result"]) == "still", "echo still works")
        check(text(tool_call(r, "deep", {})["result"]) == "deep", "deep answers")


def mode_drift() -> None:
    with Raw("drift") as r:
        r.initialize()
        before = {t["name"]: t for t in r.call("tools/list")["result"]["tools"]}
        check(set(before) == {"echo", "add", "fail"}, "three tools before", list(before))
        first = tool_call(r, "add", {"a": 1, "b": 2})
        check(text(first["result"]) == "3", "the first call is answered as before", first)
        note = r.message()
        check(note == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}, "list_changed after the first call", note)
        after = {t["name"]: t for t in r.call("tools/list")["result"]["tools"]}
        check(set(after) == {"echo", "fail"}, "add is gone", list(after))
        schema = after["echo"]["inputSchema"]
        check(schema["required"] == ["text", "loud"] and schema["properties"]["loud"] == {"type": "boolean", "description": "Shout the text."}, "echo requires loud", schema)
        check(tool_call(r, "add", {"a": 1, "b": 2}).get("error", {}).get("code") == -32602, "add is now an unknown tool")
        loud = tool_call(r, "echo", {"text": "hi", "loud": True})["result"]
        check(text(loud) == "HI", "echo with loud", loud)
        check(tool_call(r, "echo", {"text": "hi"})["result"].get("isError") is True, "echo without loud is an isError result")
        check(r.message(timeout=0.5) is None, "list_changed is sent once")


def mode_slow_start() -> None:
    with Raw("slow-start", {"STANDIN_DELAY": "2"}) as r:
        start = time.monotonic()
        init = r.initialize()
        took = time.monotonic() - start
        check(init["serverInfo"]["name"] == "standin" and 1.9 <= took < 5, "initialize answered after STANDIN_DELAY", took)


def mode_paged() -> None:
    with Raw("paged") as r:
        r.initialize()
        names, cursors, cursor = [], [], None
        while True:
            page = r.call("tools/list", {"cursor": cursor} if cursor else {})["result"]
            check(len(page["tools"]) == 1, "one tool per page", page)
            names.append(page["tools"][0]["name"])
            cursor = page.get("nextCursor")
            if cursor is None:
                break
            cursors.append(cursor)
        check(names == ["echo", "add", "fail"] and cursors == ["1", "2"], "three pages", (names, cursors))
        check(r.call("tools/list", {"cursor": "bogus"}).get("error", {}).get("code") == -32602, "a bad cursor is -32602")


def mode_bad_mode() -> None:
    proc = subprocess.run([sys.executable, str(STANDIN), "--mode", "nonsense"], capture_output=True, timeout=10)
    check(proc.returncode == 2 and b"unknown mode" in proc.stderr, "an unknown mode exits 2", proc.stderr)
    proc = subprocess.run([sys.executable, str(STANDIN)], input=b"", capture_output=True, timeout=10, env={**os.environ, "STANDIN_MODE": "paged"})
    check(proc.returncode == 0 and proc.stdout == b"" and proc.stderr == b"", "STANDIN_MODE is read; silent on empty stdin", proc)


# ---------------------------------------------------------------------------------------------


async def sdk_checks() -> None:
    import anyio
    import mcp_types as types
    from mcp import StdioServerParameters
    from mcp.client.session import ClientSession
    from mcp.client.stdio import stdio_client

    for mode in ("ok", "paged"):
        params = StdioServerParameters(command=sys.executable, args=[str(STANDIN), "--mode", mode])
        with anyio.fail_after(30):
            async with stdio_client(params) as (read, write), ClientSession(read, write, read_timeout_seconds=10) as s:
                init = await s.initialize()
                check(init.server_info.name == "standin", f"SDK {mode}: initialize", init)
                names, cursor, pages = [], None, 0
                while True:
                    page = await s.list_tools(params=types.PaginatedRequestParams(cursor=cursor) if cursor else None)
                    pages += 1
                    names += [t.name for t in page.tools]
                    cursor = page.next_cursor
                    if not cursor:
                        break
                check(names == ["echo", "add", "fail"], f"SDK {mode}: tools", names)
                check(pages == (3 if mode == "paged" else 1), f"SDK {mode}: pages", pages)
                echo = await s.call_tool("echo", {"text": "sdk"})
                check(not echo.is_error and echo.structured_content == {"text": "sdk"}, f"SDK {mode}: echo", echo)
                add = await s.call_tool("add", {"a": 20, "b": 22})
                check(add.content[0].text == "42", f"SDK {mode}: add", add)
                fail = await s.call_tool("fail", {})
                check(fail.is_error and fail.content[0].text == "it failed on purpose", f"SDK {mode}: fail", fail)
                await s.send_ping()
        print(f"ok  sdk-{mode}: initialize (protocol {init.protocol_version}), tools/list, echo, add, fail, ping")


def main() -> int:
    checks = [
        ("ok", mode_ok),
        ("markers", mode_markers),
        ("hang-call", mode_hang_call),
        ("crash-call", mode_crash_call),
        ("garbage", mode_garbage),
        ("huge-list", mode_huge_list),
        ("deep-schema", mode_deep_schema),
        ("drift", mode_drift),
        ("slow-start", mode_slow_start),
        ("paged", mode_paged),
        ("bad-mode", mode_bad_mode),
    ]
    for name, fn in checks:
        try:
            fn()
        except Failed as e:
            print(f"FAIL {name}: {e}")
            return 1
        print(f"ok  {name}")
    if "--raw-only" not in sys.argv:
        import anyio

        try:
            anyio.run(sdk_checks)
        except Failed as e:
            print(f"FAIL sdk: {e}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
