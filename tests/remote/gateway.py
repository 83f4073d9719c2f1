#!/usr/bin/env python3
"""End-to-end test of `carnet serve-mcp` as a gateway to remote toolsets (issue 25), with the
official MCP Python SDK (`mcp` 2.3.0) as the host. Run with target/remote/venv/bin/python
after tests/remote/setup.sh (tests/remote/run.sh does both).

    gateway.py --carnet PATH --dir DIR [--only CASE ...] [--timeout SECS]

DIR is a carnet content directory with agent `desk`, skill `files` (toolset `filesystem`:
`${CARNET_TEST_FS_SERVER} ${CARNET_TEST_DESK}`) and skill `clock` (toolset `time`:
`${CARNET_TEST_TIME_SERVER}`). Every case gets its own desk (a temp directory holding
hello.txt) and its own markers directory, and sets for carnet:

    CARNET_TEST_FS_SERVER    target/remote/bin/fs-server (absolute)
    CARNET_TEST_TIME_SERVER  target/remote/bin/time-server (absolute)
    CARNET_TEST_DESK         the case's desk
    CARNET_TEST_MARKERS      the case's markers directory: each wrapper appends the PID of the
                             server it starts to <name>.pid there (fs.pid, time.pid)

Cases (one line each; exit status 1 on the first failure, 2 on a usage error):

    stdio       serve-mcp over stdio: before loadSkill no filesystem tool is listed and no
                filesystem server runs; loadSkill files; read_text_file returns the file's text
                (content and the upstream's structuredContent); the time server never starts.
    crash       same session: after a good call, every filesystem server is killed (SIGKILL);
                the next read_text_file is an error result naming `filesystem` or already
                succeeds, and one of it and up to 3 more calls (1 s apart) succeeds, with no
                reconnect and the carnet process still the same.
    http        as stdio, over streamable HTTP (`serve-mcp --http 127.0.0.1:0`; the first
                stdout line is the endpoint).
    dispatcher  `serve-mcp --mode dispatcher`: a fixed tools/list (meta-tools and callTool)
                that loadSkill does not change; callTool read_text_file gives the file's text.
    stateless   the stateless revision 2026-07-28 (`--mode dispatcher`, with `mcp.Client` in
                auto mode, CARNET_SESSION_KEY unset: a random key per process), over HTTP
                (`--http 127.0.0.1:0`) and then over stdio: the negotiated version is
                2026-07-28; tools/list is fixed (meta-tools and callTool, each taking the
                optional `session` argument); loadSkill files returns a sealed `session`
                handle; callTool read_text_file with it gives the file's text. Without the
                handle, over HTTP the same call is refused (a fresh conversation has not loaded
                `files`); over stdio it continues the process's conversation and succeeds (the
                process is the conversation). The time server never starts.

After each case, upstream servers still alive once carnet has exited are reported (and
killed, by PID, after checking their command line) as a failure: the gateway must not leave
orphans. Nothing is skipped: a missing binary, directory or wrapper is an error.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import faulthandler
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, AsyncIterator, Callable

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.session import ClientSession
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
BIN = ROOT / "target" / "remote" / "bin"
AGENT = "desk"
HELLO = "hello from the desk\n"
FS_TOOLS = {
    "read_file", "read_text_file", "read_media_file", "read_multiple_files", "write_file", "edit_file",
    "create_directory", "list_directory", "list_directory_with_sizes", "directory_tree", "move_file",
    "search_files", "get_file_info", "list_allowed_directories",
}  # @modelcontextprotocol/server-filesystem 2026.8.31
TIME_TOOLS = {"get_current_time", "convert_time"}  # mcp-server-time 2026.10.19
STATELESS = "2026-07-28"  # the stateless revision: no sessions, the conversation as a handle
REQUEST_TIMEOUT = 30.0  # seconds, one request
CASE_TIMEOUT = 90.0  # seconds, one case
# what identifies our upstream processes in /proc/PID/cmdline (before killing one)
SERVER_SIGNATURES = {"fs": b"server-filesystem", "time": b"mcp_server_time"}

CARNET = ""
CONTENT = ""


class Failed(Exception):
    pass


def check(cond: Any, what: str, detail: Any = "") -> None:
    if not cond:
        raise Failed(f"{what}" + (f"\n    got: {short(detail)}" if detail != "" else ""))


def short(value: Any, limit: int = 600) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


# --------------------------------------------------------------------------------------------
# A case's world: desk, markers, environment, logs


class World:
    def __init__(self, name: str) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix=f"carnet-gateway-{name}-"))
        self.desk = self.tmp / "desk"
        self.markers = self.tmp / "markers"
        self.desk.mkdir()
        self.markers.mkdir()
        (self.desk / "hello.txt").write_text(HELLO)
        self.hello = str(self.desk / "hello.txt")
        self.log = self.tmp / "carnet.stderr"
        self.env = {
            **os.environ,
            "CARNET_TEST_FS_SERVER": str(BIN / "fs-server"),
            "CARNET_TEST_TIME_SERVER": str(BIN / "time-server"),
            "CARNET_TEST_DESK": str(self.desk),
            "CARNET_TEST_MARKERS": str(self.markers),
            "NO_COLOR": "1",
        }

    def pids(self, name: str) -> list[int]:
        path = self.markers / f"{name}.pid"
        if not path.exists():
            return []
        return [int(p) for p in path.read_text().split()]

    def started(self, name: str) -> bool:
        return bool(self.pids(name))

    def stderr_tail(self, lines: int = 30) -> str:
        try:
            text = self.log.read_text(errors="replace").splitlines()
        except OSError:
            return "(no stderr)"
        return "\n".join("    | " + line for line in text[-lines:]) or "    | (empty)"

    def cleanup(self) -> None:
        subprocess.run(["rm", "-rf", str(self.tmp)], check=False)


def alive(pid: int, name: str) -> bool:
    """PID is a live (not zombie) process of the upstream server `name`."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    state = stat.rsplit(")", 1)[1].split()[0]
    return state not in ("Z", "X") and SERVER_SIGNATURES[name] in cmdline


def wait_dead(pids: list[int], name: str, timeout: float) -> list[int]:
    deadline = time.monotonic() + timeout
    while True:
        left = [p for p in pids if alive(p, name)]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


def leftovers(world: World) -> list[str]:
    """Upstream servers of this case still running (carnet has exited): killed, and named."""
    found = []
    for name in SERVER_SIGNATURES:
        for pid in wait_dead(world.pids(name), name, 5.0):
            found.append(f"{name} {pid}")
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    return found


# --------------------------------------------------------------------------------------------
# Clients


def die_with_parent() -> None:
    """preexec_fn: the child gets SIGKILL when this script dies (Linux)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


class Watcher:
    def __init__(self) -> None:
        self.exceptions: list[BaseException] = []
        self.list_changed = 0

    async def __call__(self, message: Any) -> None:
        if isinstance(message, Exception):
            self.exceptions.append(message)
        elif isinstance(message, types.ToolListChangedNotification):
            self.list_changed += 1


@contextlib.asynccontextmanager
async def stdio_session(world: World, *extra: str) -> AsyncIterator[tuple[ClientSession, Watcher]]:
    params = StdioServerParameters(
        command=CARNET, args=["--dir", CONTENT, "serve-mcp", AGENT, *extra], env=world.env
    )
    watcher = Watcher()
    with open(world.log, "a") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=REQUEST_TIMEOUT, message_handler=watcher) as s:
                await s.initialize()
                yield s, watcher


class HttpServer:
    """`carnet serve-mcp --http 127.0.0.1:0`, its endpoint read from the first stdout line."""

    def __init__(self, world: World, *extra: str) -> None:
        self.errlog = open(world.log, "a")
        self.proc = subprocess.Popen(
            [CARNET, "--dir", CONTENT, "serve-mcp", AGENT, "--http", "127.0.0.1:0", *extra],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=self.errlog,
            env=world.env,
            preexec_fn=die_with_parent,
        )
        self.url = self._first_line(20.0)
        # carnet prints nothing else on stdout; drain it anyway so that it never blocks
        threading.Thread(target=self._drain, daemon=True).start()

    def _first_line(self, timeout: float) -> str:
        fd = self.proc.stdout.fileno()
        data = b""
        deadline = time.monotonic() + timeout
        while b"\n" not in data:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([fd], [], [], max(0.0, left))
            if not ready:
                self.stop()
                raise Failed(f"serve-mcp --http printed no endpoint within {timeout:.0f} s")
            chunk = os.read(fd, 4096)
            if not chunk:
                self.stop()
                raise Failed(f"serve-mcp --http exited (status {self.proc.wait()}) before printing its endpoint")
            data += chunk
        url = data.split(b"\n", 1)[0].decode().strip()
        if not url.startswith("http://127.0.0.1:"):
            self.stop()
            raise Failed(f"serve-mcp --http: the first stdout line is not the endpoint URL: {url!r}")
        return url

    def _drain(self) -> None:
        with contextlib.suppress(Exception):
            while self.proc.stdout.read(65536):
                pass

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)  # serve-mcp --http stops on Ctrl-C
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.errlog.close()


@contextlib.asynccontextmanager
async def http_session(url: str) -> AsyncIterator[tuple[ClientSession, Watcher]]:
    watcher = Watcher()
    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write, read_timeout_seconds=REQUEST_TIMEOUT, message_handler=watcher) as s:
            await s.initialize()
            yield s, watcher


# --------------------------------------------------------------------------------------------
# Steps shared by the cases


async def tool_names(s: ClientSession) -> list[str]:
    names: list[str] = []
    cursor = None
    for _ in range(100):
        page = await s.list_tools(params=types.PaginatedRequestParams(cursor=cursor) if cursor else None)
        names += [t.name for t in page.tools]
        cursor = page.next_cursor
        if not cursor:
            return names
    raise Failed("tools/list: more than 100 pages")


def texts(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


async def load_files(s: ClientSession) -> None:
    r = await s.call_tool("loadSkill", {"skillName": "files"})
    check(isinstance(r, types.CallToolResult) and not r.is_error, "loadSkill files succeeds", r)


async def read_hello(s: ClientSession, world: World, what: str) -> types.CallToolResult:
    r = await s.call_tool("read_text_file", {"path": world.hello})
    check(not r.is_error, f"{what}: read_text_file is not an error", r)
    check(HELLO.strip() in texts(r), f"{what}: read_text_file's text content has the file's text", r)
    return r


async def dynamic_scenario(s: ClientSession, world: World, transport: str) -> str:
    """Case stdio / http once connected. Returns a note for the case line."""
    before = await tool_names(s)
    check("loadSkill" in before, f"{transport}: tools/list has loadSkill", before)
    check(not FS_TOOLS & set(before), f"{transport}: no filesystem tool is listed before loadSkill", before)
    check(not TIME_TOOLS & set(before), f"{transport}: no time tool is listed", before)
    check(not world.started("fs"), f"{transport}: no filesystem server runs before loadSkill", world.pids("fs"))

    await load_files(s)
    at_load = world.started("fs")
    after = await tool_names(s)
    check("read_text_file" in after, f"{transport}: tools/list has read_text_file after loadSkill files", after)
    check(not TIME_TOOLS & set(after), f"{transport}: still no time tool", after)

    r = await read_hello(s, world, transport)
    check(
        r.structured_content == {"content": HELLO},
        f"{transport}: the upstream's structuredContent comes through",
        r.structured_content,
    )
    check(
        world.started("fs"),
        f"{transport}: the filesystem server was started through its wrapper (fs.pid): "
        "CARNET_TEST_MARKERS must reach the upstream's environment",
        world.pids("fs"),
    )
    check(not world.started("time"), f"{transport}: the time server never started (clock not loaded)", world.pids("time"))
    started = "at loadSkill" if at_load else "at the first call"
    return f"filesystem server started {started}, {len(world.pids('fs'))} process(es); time never started"


# --------------------------------------------------------------------------------------------
# Cases


async def case_stdio(world: World) -> str:
    async with stdio_session(world) as (s, watcher):
        note = await dynamic_scenario(s, world, "stdio")
        check(not watcher.exceptions, "stdio: no transport errors", watcher.exceptions)
    return note


async def case_crash(world: World) -> str:
    async with stdio_session(world) as (s, watcher):
        await load_files(s)
        await read_hello(s, world, "before the kill")
        victims = world.pids("fs")
        check(victims, "a filesystem server was started (fs.pid)", victims)
        carnet_pids = _children_named(b"serve-mcp")
        check(len(carnet_pids) == 1, "one carnet serve-mcp process is our child", carnet_pids)
        for pid in victims:
            if alive(pid, "fs"):
                os.kill(pid, signal.SIGKILL)
        left = wait_dead(victims, "fs", 5.0)
        check(not left, "the filesystem servers are dead after SIGKILL", left)

        outcomes = []
        succeeded = False
        for attempt in range(4):  # the next call, then up to 3 more
            if attempt:
                await anyio.sleep(1.0)
            r = await s.call_tool("read_text_file", {"path": world.hello})
            if not r.is_error:
                check(HELLO.strip() in texts(r), f"call {attempt + 1} after the kill: the file's text", r)
                outcomes.append("ok")
                succeeded = True
                break
            check(
                "filesystem" in texts(r),
                f"call {attempt + 1} after the kill: an error result naming the toolset `filesystem`",
                r,
            )
            outcomes.append("error result")
        check(succeeded, "a call succeeds within 3 calls after the first one following the kill", outcomes)
        restarted = [p for p in world.pids("fs") if p not in victims]
        check(restarted, "a new filesystem server was started", world.pids("fs"))
        check(not watcher.exceptions, "no transport errors in the session", watcher.exceptions)
        check(
            _children_named(b"serve-mcp") == carnet_pids,
            "the same carnet process serves the session",
            (carnet_pids, _children_named(b"serve-mcp")),
        )
    return f"after SIGKILL: {', '.join(outcomes)}; restarted as {restarted}"


def _children_named(needle: bytes) -> list[int]:
    """Our child processes whose command line contains `needle`."""
    me = os.getpid()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == me and needle in cmdline:
            found.append(int(entry.name))
    return sorted(found)


async def case_http(world: World) -> str:
    server = HttpServer(world)
    try:
        async with http_session(server.url) as (s, watcher):
            note = await dynamic_scenario(s, world, "http")
            check(not watcher.exceptions, "http: no transport errors", watcher.exceptions)
        check(server.proc.poll() is None, "http: serve-mcp is still running after the client left")
    finally:
        server.stop()
    return f"{server.url}: {note}"


async def case_dispatcher(world: World) -> str:
    async with stdio_session(world, "--mode", "dispatcher") as (s, watcher):
        before = await tool_names(s)
        check({"loadSkill", "callTool"} <= set(before), "dispatcher: tools/list has loadSkill and callTool", before)
        check(not FS_TOOLS & set(before), "dispatcher: no filesystem tool is listed", before)
        check(not world.started("fs"), "dispatcher: no filesystem server before loadSkill", world.pids("fs"))
        await load_files(s)
        after = await tool_names(s)
        check(after == before, "dispatcher: tools/list is unchanged by loadSkill", after)
        r = await s.call_tool("callTool", {"name": "read_text_file", "arguments": {"path": world.hello}})
        check(not r.is_error, "dispatcher: callTool read_text_file is not an error", r)
        check(HELLO.strip() in texts(r), "dispatcher: callTool read_text_file gives the file's text", r)
        check(world.started("fs"), "dispatcher: the filesystem server was started through its wrapper", world.pids("fs"))
        check(not world.started("time"), "dispatcher: the time server never started", world.pids("time"))
        check(not watcher.exceptions, "dispatcher: no transport errors", watcher.exceptions)
    return f"tools/list fixed at {len(before)} tools; callTool reached the filesystem server"


# The stateless revision: no handshake and no session; in dispatcher mode the conversation
# travels as a sealed handle, the `session` argument of every meta-tool and of callTool.


def stateless_env(world: World) -> None:
    # No CARNET_SESSION_KEY: each process seals with a random key of its own (as tests/mcp/e2e.py).
    world.env.pop("CARNET_SESSION_KEY", None)
    world.env.pop("CARNET_PREVIOUS_SESSION_KEY", None)


def result_value(r: types.CallToolResult) -> dict[str, Any]:
    """A meta-tool's JSON result: its structuredContent, else its text parsed."""
    if isinstance(r.structured_content, dict):
        return r.structured_content
    with contextlib.suppress(ValueError):
        value = json.loads(texts(r))
        if isinstance(value, dict):
            return value
    return {}


async def modern_tool_names(c: Client) -> list[str]:
    names: list[str] = []
    cursor = None
    for _ in range(100):
        page = await c.list_tools(cursor=cursor, cache_mode="bypass")
        names += [t.name for t in page.tools]
        for t in page.tools:
            check(
                "session" in ((t.input_schema or {}).get("properties") or {}),
                f"tools/list: {t.name} takes the optional `session` argument",
                t.input_schema,
            )
        cursor = page.next_cursor
        if not cursor:
            return names
    raise Failed("tools/list: more than 100 pages")


async def stateless_scenario(c: Client, watcher: Watcher, world: World, transport: str) -> str:
    check(c.protocol_version == STATELESS, f"{transport}: the client negotiated {STATELESS}", c.protocol_version)
    before = await modern_tool_names(c)
    check({"loadSkill", "callTool"} <= set(before), f"{transport}: tools/list has loadSkill and callTool", before)
    check(not (FS_TOOLS | TIME_TOOLS) & set(before), f"{transport}: no domain tool is listed", before)
    check(not world.started("fs"), f"{transport}: no filesystem server before loadSkill", world.pids("fs"))

    r = await c.call_tool("loadSkill", {"skillName": "files"})
    check(not r.is_error, f"{transport}: loadSkill files succeeds", r)
    handle = result_value(r).get("session")
    check(isinstance(handle, str) and handle, f"{transport}: loadSkill's result carries a `session` handle", r)
    check(await modern_tool_names(c) == before, f"{transport}: tools/list is unchanged by loadSkill")

    read = {"name": "read_text_file", "arguments": {"path": world.hello}}
    r = await c.call_tool("callTool", {**read, "session": handle})
    check(not r.is_error, f"{transport}: callTool read_text_file with the handle is not an error", r)
    check(HELLO.strip() in texts(r), f"{transport}: callTool read_text_file with the handle gives the file's text", r)
    check(world.started("fs"), f"{transport}: the filesystem server was started through its wrapper", world.pids("fs"))

    r = await c.call_tool("callTool", read)
    if transport == "http":
        # A request without a handle starts from the agent's initial skills: `files` is not loaded.
        check(r.is_error, f"{transport}: callTool read_text_file without the handle is refused", r)
        error = str(result_value(r).get("error", ""))
        check("`files`" in error, f"{transport}: the refusal says that skill `files` is not loaded", r)
        check(HELLO.strip() not in texts(r), f"{transport}: the refusal does not carry the file's text", r)
        without = f"refused: {error}"
    else:
        # Over a byte stream the process is the conversation: no handle continues it.
        check(not r.is_error, f"{transport}: callTool without the handle continues the process's conversation", r)
        check(HELLO.strip() in texts(r), f"{transport}: callTool without the handle gives the file's text", r)
        without = "continues the process's conversation"
    check(not world.started("time"), f"{transport}: the time server never started", world.pids("time"))
    check(not watcher.exceptions, f"{transport}: no transport errors", watcher.exceptions)
    return f"{transport} {c.protocol_version}, tools/list fixed at {len(before)}, handle {len(handle)} bytes, without it: {without}"


async def case_stateless(world: World) -> str:
    stateless_env(world)
    notes = []
    server = HttpServer(world, "--mode", "dispatcher")
    try:
        watcher = Watcher()
        async with Client(server.url, mode="auto", read_timeout_seconds=REQUEST_TIMEOUT, message_handler=watcher) as c:
            notes.append(await stateless_scenario(c, watcher, world, "http"))
        check(server.proc.poll() is None, "http: serve-mcp is still running after the client left")
    finally:
        server.stop()
    orphans = leftovers(world)
    check(not orphans, "http: no upstream server outlives carnet (killed now)", orphans)

    # Over stdio, in a fresh desk's markers (the HTTP run's servers are gone).
    for name in SERVER_SIGNATURES:
        (world.markers / f"{name}.pid").unlink(missing_ok=True)
    params = StdioServerParameters(
        command=CARNET, args=["--dir", CONTENT, "serve-mcp", AGENT, "--mode", "dispatcher"], env=world.env
    )
    watcher = Watcher()
    with open(world.log, "a") as errlog:
        transport = stdio_client(params, errlog=errlog)
        async with Client(transport, mode="auto", read_timeout_seconds=REQUEST_TIMEOUT, message_handler=watcher) as c:
            notes.append(await stateless_scenario(c, watcher, world, "stdio"))
    return "; ".join(notes)


CASES: dict[str, Callable[[World], Any]] = {
    "stdio": case_stdio,
    "crash": case_crash,
    "http": case_http,
    "dispatcher": case_dispatcher,
    "stateless": case_stateless,
}


# --------------------------------------------------------------------------------------------


async def run_case(name: str, fn: Callable[[World], Any], keep: bool) -> bool:
    world = World(name)
    start = time.monotonic()
    ok = False
    try:
        with anyio.fail_after(CASE_TIMEOUT):
            note = await fn(world)
        orphans = leftovers(world)
        check(not orphans, "no upstream server outlives carnet (killed now)", orphans)
        print(f"PASS {name} ({time.monotonic() - start:.1f} s): {note}", flush=True)
        ok = True
    except Failed as e:
        print(f"FAIL {name}: {e}", flush=True)
    except TimeoutError:
        print(f"FAIL {name}: did not finish within {CASE_TIMEOUT:.0f} s", flush=True)
    except Exception as e:  # noqa: BLE001 - an SDK or transport error is a failure of the case
        print(f"FAIL {name}: {type(e).__name__}: {short(e)}", flush=True)
        for sub in getattr(e, "exceptions", [])[:3]:
            print(f"    {type(sub).__name__}: {short(sub)}", flush=True)
    if not ok:
        leftovers(world)
        print(f"    carnet's stderr ({world.log}):\n{world.stderr_tail()}", flush=True)
    if ok and not keep:
        world.cleanup()
    return ok


async def main_async(opts: argparse.Namespace) -> int:
    names = opts.only or list(CASES)
    passed = failed = 0
    for name in names:
        if await run_case(name, CASES[name], opts.keep):
            passed += 1
        else:
            failed += 1
            if not opts.keep_going:
                break
    print(f"gateway: {passed} passed, {failed} failed")
    return 0 if failed == 0 and passed == len(names) else 1


def main() -> int:
    global CARNET, CONTENT
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--carnet", required=True, help="the carnet binary")
    ap.add_argument("--dir", required=True, help="the content directory (tests/remote/desk)")
    ap.add_argument("--only", action="append", choices=list(CASES), help="run only this case (repeatable)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds for the whole run (default 300)")
    ap.add_argument("--keep", action="store_true", help="keep every case's temp directory")
    ap.add_argument("--keep-going", action="store_true", help="run the other cases after a failure")
    opts = ap.parse_args()

    carnet = Path(opts.carnet).resolve()
    if not (carnet.is_file() and os.access(carnet, os.X_OK)):
        print(f"FAIL: no carnet binary at {opts.carnet} (build it with: cargo build -p carnet-cli)", file=sys.stderr)
        return 2
    content = Path(opts.dir).resolve()
    if not content.is_dir():
        print(f"FAIL: no content directory at {opts.dir}", file=sys.stderr)
        return 2
    for wrapper in ("fs-server", "time-server"):
        if not os.access(BIN / wrapper, os.X_OK):
            print(f"FAIL: no {BIN / wrapper}: run tests/remote/setup.sh first", file=sys.stderr)
            return 2
    CARNET, CONTENT = str(carnet), str(content)

    # A hard watchdog beyond the soft deadline: dump every thread's stack and exit.
    faulthandler.dump_traceback_later(opts.timeout + 30, exit=True)

    async def bounded() -> int:
        with anyio.fail_after(opts.timeout):
            return await main_async(opts)

    try:
        return anyio.run(bounded)
    except TimeoutError:
        print(f"FAIL: the gateway tests did not finish within {opts.timeout:.0f} s")
        return 1


if __name__ == "__main__":
    sys.exit(main())
