#!/usr/bin/env python3
"""End-to-end tests of the carnet MCP server (examples/mcp-server), driven by the official
Python SDK (`mcp` 2.3.0) and by raw JSON-RPC over stdio and HTTP.

    python tests/mcp/e2e.py --server target/debug/mcp-server [--only NAME ...]

Every passing check prints one `PASS` line; the first failing check prints `FAIL` with what
was expected and what came back, and the script exits with status 1. Scenarios:

    session-<transport>-<mode>  the whole client surface, stdio/HTTP x dynamic/dispatcher
    isolation                  two concurrent HTTP sessions do not see each other's skills
    concurrent                 50 concurrent HTTP sessions, each with its own skill
    stdio-malformed            raw lines over stdio: parse errors, invalid requests, oversize
    http-malformed             raw HTTP posts: 400/413 with JSON-RPC error bodies
    serve-mcp-corpus           `carnet serve-mcp` on third-party Agent Skills: fonts as blobs

Expectations come from the content on disk (examples/research-agent/carnet and data), not
from the server: skill files, toolsets' tool names and the CSV the statistics are computed on.

Child processes: HTTP servers get PR_SET_PDEATHSIG (they die with this script), their pids
are appended to $E2E_PIDFILE when set (run.sh kills leftovers), and each scenario runs under
a deadline plus a hard watchdog (faulthandler) so that nothing hangs.
"""

from __future__ import annotations

import argparse
import base64
import csv
import ctypes
import faulthandler
import hashlib
import json
import logging
import math
import os
import queue
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable, Literal

import anyio
import httpx2
import mcp_types as types
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client import advertise
from pydantic import TypeAdapter

ROOT = Path(__file__).resolve().parents[2]
CONTENT = ROOT / "examples" / "research-agent" / "carnet"
DATA = ROOT / "examples" / "research-agent" / "data"
AGENT = "researcher"
PROTOCOL = "2025-11-25"
MODERN_PROTOCOL = "2026-07-28"
SERVER_NAME = "research-agent"
MAX_MESSAGE_BYTES = 16 * 1024 * 1024  # the server's default limit (DEFAULT_MAX_MESSAGE_BYTES)
SKILLS_EXTENSION = "io.modelcontextprotocol/skills"
META_TOOLS = ["listAvailableSkills", "loadSkill", "listSkillToolsets", "loadToolset", "loadTool", "loadSkillFile"]
REQUEST_TIMEOUT = 20.0  # seconds, for any single request
SCENARIO_TIMEOUT = 90.0  # seconds, soft deadline of one scenario (anyio.fail_after)
WATCHDOG_SLACK = 30.0  # the hard watchdog fires this long after the soft deadline

BINARY: str = ""
CARNET: str = ""  # the `carnet` binary (serve-mcp)


# --------------------------------------------------------------------------------------------
# Reporting


class CheckFailed(Exception):
    pass


_scenario = "-"
_passed = 0


def ok(what: str) -> None:
    global _passed
    _passed += 1
    print(f"PASS [{_scenario}] {what}", flush=True)


def check(condition: Any, what: str, detail: str = "") -> None:
    """Prints a PASS line, or raises with `what` and `detail` (expected vs actual)."""
    if not condition:
        raise CheckFailed(f"{what}" + (f"\n    {detail}" if detail else ""))
    ok(what)




def check_eq(actual: Any, expected: Any, what: str) -> None:
    check(actual == expected, what, f"expected: {expected!r}\n    actual:   {actual!r}")


def leaves(e: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups."""
    groups = getattr(e, "exceptions", None)
    return [leaf for x in groups for leaf in leaves(x)] if groups else [e]


def describe(e: BaseException) -> str:
    """An exception, with the leaves of exception groups."""
    groups = getattr(e, "exceptions", None)
    if groups:
        return "; ".join(describe(x) for x in groups)
    return f"{type(e).__name__}: {e}"


def short(value: Any, limit: int = 400) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


# --------------------------------------------------------------------------------------------
# Expectations, read from the content on disk


def frontmatter(path: Path) -> tuple[dict[str, Any], str]:
    """The frontmatter (flat keys; `[a, b]` lists; `tools:`/`files:` blocks as lists of
    names/paths) and the body of a SKILL.md / TOOLSET.md / AGENT.md."""
    text = path.read_text(encoding="utf-8")
    match = re.match(r"---\n(.*?)\n---\n(.*)", text, re.S)
    assert match, f"{path} has no frontmatter"
    fields: dict[str, Any] = {}
    block: str | None = None
    for line in match.group(1).splitlines():
        item = re.match(r"\s+-\s+(?:name:\s*|path:\s*)?(.+?)\s*$", line)
        if block and item:
            fields[block].append(item.group(1))
            continue
        if line.startswith(" ") and block:
            continue  # a nested key of a block item (description: ...)
        key, _, value = line.partition(":")
        value = value.strip()
        if value == "":
            block = key.strip()
            fields[block] = []
        else:
            block = None
            if value.startswith("[") and value.endswith("]"):
                fields[key.strip()] = [v.strip() for v in value[1:-1].split(",") if v.strip()]
            else:
                fields[key.strip()] = value
    return fields, match.group(2)


def skill_names() -> list[str]:
    agent, _ = frontmatter(CONTENT / "agents" / AGENT / "AGENT.md")
    return list(agent.get("initialSkills", [])) + list(agent.get("skills", []))


def initial_skills() -> list[str]:
    agent, _ = frontmatter(CONTENT / "agents" / AGENT / "AGENT.md")
    return list(agent.get("initialSkills", []))


def skill_tools(skill: str) -> list[str]:
    """The domain tools a skill brings, in toolset order."""
    fields, _ = frontmatter(CONTENT / "skills" / skill / "SKILL.md")
    tools: list[str] = []
    for toolset in fields.get("toolsets", []):
        ts, _ = frontmatter(CONTENT / "toolsets" / toolset / "TOOLSET.md")
        tools.extend(ts["tools"])
    return tools


def skill_files_on_disk(skill: str) -> dict[str, bytes]:
    """Every file of a skill's folder but SKILL.md, by relative path."""
    base = CONTENT / "skills" / skill
    return {
        p.relative_to(base).as_posix(): p.read_bytes()
        for p in sorted(base.rglob("*"))
        if p.is_file() and p.relative_to(base).as_posix() != "SKILL.md"
    }


def expected_uris() -> set[str]:
    uris = set()
    for skill in skill_names():
        uris.add(f"skill://{skill}/SKILL.md")
        uris.update(f"skill://{skill}/{path}" for path in skill_files_on_disk(skill))
    return uris


def csv_stats(dataset: str, column: str) -> dict[str, float]:
    """analyzeStatistics computed independently: population standard deviation."""
    with open(DATA / f"{dataset}.csv", newline="", encoding="utf-8") as f:
        values = [float(row[column]) for row in csv.DictReader(f)]
    n = len(values)
    mean = sum(values) / n
    ordered = sorted(values)
    median = ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2
    std = math.sqrt(sum((x - mean) ** 2 for x in values) / n)
    return {"count": n, "mean": mean, "median": median, "std_dev": std, "min": min(values), "max": max(values)}


def check_stats(result: dict[str, Any], dataset: str, column: str, what: str) -> None:
    expected = csv_stats(dataset, column)
    problems = []
    for key, value in expected.items():
        got = result.get(key)
        if not isinstance(got, (int, float)):
            problems.append(f"{key}: missing or not a number ({got!r})")
        elif key in ("count", "min", "max"):
            if got != value:
                problems.append(f"{key}: {got} != {value}")
        elif abs(got - value) > 0.005 + 1e-9:  # rounded to two decimals
            problems.append(f"{key}: {got} != {value:.4f} (rounded to 2 decimals)")
    check(not problems, what, "; ".join(problems) + f"\n    result: {result!r}")


def split_skill_md(text: str) -> tuple[dict[str, Any], str]:
    """The served SKILL.md: its frontmatter's top-level `key: value` lines (values written as
    JSON, or as plain YAML scalars and `[a, b]` lists), then the instructions."""
    match = re.match(r"---\n(.*?)\n---\n(.*)", text, re.S)
    if not match:
        raise CheckFailed(f"the served SKILL.md has no frontmatter: {short(text)}")
    fields: dict[str, Any] = {}
    for line in match.group(1).splitlines():
        if line.startswith((" ", "-")) or ":" not in line:
            continue  # inside a block value
        key, _, value = line.partition(":")
        value = value.strip()
        try:
            fields[key] = json.loads(value)
        except json.JSONDecodeError:
            if value.startswith("[") and value.endswith("]"):
                fields[key] = [v.strip() for v in value[1:-1].split(",") if v.strip()]
            else:
                fields[key] = value
    return fields, match.group(2)


def prompt_section(text: str, heading: str) -> str:
    """The text of a `## heading` section of the system prompt ('' if absent)."""
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^---$|^## |\Z)", text, re.S | re.M)
    return match.group(1) if match else ""


# --------------------------------------------------------------------------------------------
# Processes


def _die_with_parent() -> None:
    """preexec_fn: SIGKILL this child when the test process dies (Linux)."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def record_pid(pid: int) -> None:
    pidfile = os.environ.get("E2E_PIDFILE")
    if pidfile:
        with open(pidfile, "a", encoding="utf-8") as f:
            f.write(f"{pid}\n")


class HttpServer:
    """`mcp-server --http 127.0.0.1:0`, stopped with SIGINT (its graceful shutdown)."""

    def __init__(self, mode: str):
        self.mode = mode
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [BINARY, "--agent", AGENT, "--mode", mode, "--http", "127.0.0.1:0"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            preexec_fn=_die_with_parent,
        )
        record_pid(self.proc.pid)
        ready, _, _ = select.select([self.proc.stdout], [], [], 15)
        line = self.proc.stdout.readline().decode().strip() if ready else ""
        if not re.fullmatch(r"http://127\.0\.0\.1:\d+/mcp", line):
            self.kill()
            raise CheckFailed(f"the HTTP server printed no endpoint URL (got {line!r}){self.log()}")
        self.url = line
        ok(f"HTTP server ({mode}) listening at {self.url}")

    def log(self) -> str:
        self.stderr.seek(0)
        text = self.stderr.read().decode(errors="replace").strip()
        return f"\n    server stderr: {short(text, 2000)}" if text else ""

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def stop(self) -> None:
        """SIGINT, which the server handles as ctrl-c: it must exit 0 promptly."""
        if self.proc.poll() is not None:
            raise CheckFailed(f"the HTTP server died early with status {self.proc.returncode}{self.log()}")
        self.proc.send_signal(signal.SIGINT)
        try:
            code = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.kill()
            raise CheckFailed("the HTTP server did not exit within 10 s of SIGINT")
        check(code == 0, f"HTTP server ({self.mode}) exits with status 0 on SIGINT", f"status {code}{self.log()}")

    def __enter__(self) -> HttpServer:
        return self

    def __exit__(self, *exc: Any) -> None:
        if exc[0] is None:
            self.stop()
        else:
            self.kill()


def stdio_params(mode: str) -> StdioServerParameters:
    return StdioServerParameters(command=BINARY, args=["--agent", AGENT, "--mode", mode])


# --------------------------------------------------------------------------------------------
# MCP client helpers


class SkillsListRequest(types.Request[types.PaginatedRequestParams | None, Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"
    params: types.PaginatedRequestParams | None = None


class SkillsGetParams(types.RequestParams):
    uri: str


class SkillsGetRequest(types.Request[SkillsGetParams, Literal["skills/get"]]):
    method: Literal["skills/get"] = "skills/get"
    params: SkillsGetParams


RAW = TypeAdapter(dict[str, Any])


class Watcher:
    """A message_handler recording list_changed notifications and transport exceptions."""

    def __init__(self) -> None:
        self.list_changed = anyio.Event()
        self.list_changed_count = 0
        self.exceptions: list[BaseException] = []
        self.other: list[str] = []

    async def __call__(self, message: Any) -> None:
        if isinstance(message, Exception):
            self.exceptions.append(message)
        elif isinstance(message, types.ToolListChangedNotification):
            self.list_changed_count += 1
            self.list_changed.set()
        else:
            self.other.append(type(message).__name__)


def client(target: Any, watcher: Watcher, connect: str = "auto") -> Client:
    return Client(
        target,
        mode=connect,
        message_handler=watcher,
        read_timeout_seconds=REQUEST_TIMEOUT,
        client_info=types.Implementation(name="carnet-e2e", version="1"),
        extensions=[advertise(SKILLS_EXTENSION)],
    )


def payload(result: types.CallToolResult) -> Any:
    """The JSON a tool result carries in content[0].text."""
    if not result.content or not isinstance(result.content[0], types.TextContent):
        raise CheckFailed(f"the tool result has no text content: {short(result)}")
    try:
        return json.loads(result.content[0].text)
    except json.JSONDecodeError as e:
        raise CheckFailed(f"the tool result text is not JSON ({e}): {short(result.content[0].text)}")


def value_of(result: types.CallToolResult) -> Any:
    """What a tool returned: its structuredContent (objects), else its text (a string result
    is sent as plain text, other values as JSON text)."""
    if result.structured_content is not None:
        return result.structured_content
    text = result.content[0].text if result.content and isinstance(result.content[0], types.TextContent) else ""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def names(result: types.ListToolsResult) -> list[str]:
    return [t.name for t in result.tools]


async def call(c: Client, mode: str, tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
    """Calls a domain tool the way the mode asks: directly, or through callTool."""
    if mode == "dispatcher":
        return await c.call_tool("callTool", {"name": tool, "arguments": arguments})
    return await c.call_tool(tool, arguments)


def text_of(contents: Any) -> bytes:
    """The bytes of a resources/read content: text as UTF-8, blob base64-decoded."""
    if isinstance(contents, types.TextResourceContents):
        return contents.text.encode("utf-8")
    if isinstance(contents, types.BlobResourceContents):
        return base64.b64decode(contents.blob)
    raise CheckFailed(f"unexpected resource contents {short(contents)}")


async def read_bytes(c: Client, uri: str) -> bytes:
    result = await c.read_resource(uri)
    if len(result.contents) != 1:
        raise CheckFailed(f"resources/read {uri} returned {len(result.contents)} contents, expected 1")
    if str(result.contents[0].uri) != uri:
        raise CheckFailed(f"resources/read {uri} returned contents for {result.contents[0].uri}")
    return text_of(result.contents[0])


async def expect_mcp_error(awaitable: Any, code: int, what: str, contains: str = "") -> None:
    try:
        value = await awaitable
    except MCPError as e:
        check(
            e.error.code == code and contains in e.error.message,
            what,
            f"expected code {code} with {contains!r}; got {e.error.code}: {e.error.message}",
        )
        return
    raise CheckFailed(f"{what}\n    expected an MCPError {code}, got a result: {short(value)}")


# --------------------------------------------------------------------------------------------
# Scenario a: the whole surface, per transport and mode


async def session_scenario(target: Any, mode: str, connect: str = "auto") -> None:
    dynamic = mode == "dynamic"
    web = [t for s in initial_skills() for t in skill_tools(s)]
    data_tools = skill_tools("dataAnalysis")
    watcher = Watcher()
    async with client(target, watcher, connect) as c:
        # -- handshake
        if isinstance(target, StdioServerParameters) and not dynamic:
            # Over stdio the process is the session, and the dispatcher's tools/list is fixed:
            # the stateless revision is offered, and auto mode takes it.
            check_eq(c.protocol_version, MODERN_PROTOCOL, "negotiated protocol version (stdio + dispatcher: the stateless revision)")
        else:
            check_eq(c.protocol_version, PROTOCOL, "negotiated protocol version (a session: auto mode falls back to initialize, or legacy mode)")
        check_eq(c.server_info.name if c.server_info else None, SERVER_NAME, "serverInfo.name")
        caps = c.server_capabilities
        check_eq(caps.tools.list_changed if caps.tools else None, dynamic, "capabilities.tools.listChanged")
        check(
            caps.extensions and SKILLS_EXTENSION in caps.extensions,
            "capabilities advertise the skills extension",
            f"{caps.extensions!r}",
        )
        check(caps.resources is not None and caps.prompts is not None, "capabilities have resources and prompts")
        instructions = c.instructions or ""
        check(
            instructions.startswith("You are a careful research assistant working for Carnet Labs."),
            "initialize instructions are the agent's system prompt, with the default ORGANIZATION",
            short(instructions),
        )

        # -- tools/list before loading
        before = await c.list_tools(cache_mode="refresh")
        expected = META_TOOLS + (web if dynamic else ["callTool"])
        check_eq(names(before), expected, "tools/list before loading: meta-tools + " + ("initial skill's tools" if dynamic else "callTool"))
        for tool in before.tools:
            schema = tool.input_schema
            if schema.get("type") != "object":
                raise CheckFailed(f"tool {tool.name} has a non-object input schema: {schema!r}")
        load_schema = next(t for t in before.tools if t.name == "loadSkill").input_schema
        check_eq(load_schema.get("required"), ["skillName"], "loadSkill's input schema requires skillName")
        if not dynamic:
            schema = next(t for t in before.tools if t.name == "callTool").input_schema
            check_eq(sorted(schema.get("required", [])), ["arguments", "name"], "callTool's input schema requires name and arguments")

        # -- hints for hosts that defer tools behind their own search
        for tool in before.tools:
            if tool.name in META_TOOLS or tool.name == "callTool":
                check_eq((tool.meta or {}).get("anthropic/alwaysLoad"), True, f"meta-tool {tool.name} carries _meta anthropic/alwaysLoad")
            else:
                hint = (tool.meta or {}).get("anthropic/searchHint", "")
                check(any(hint.startswith(f"{s}: ") for s in initial_skills()), f"domain tool {tool.name} carries its skill's searchHint", hint)

        # -- prompt before loading
        prompts = await c.list_prompts()
        check_eq([p.name for p in prompts.prompts], [AGENT], "prompts/list has the agent's prompt")
        arguments = [(a.name, bool(a.required)) for a in prompts.prompts[0].arguments or []]
        check_eq(arguments, [("ORGANIZATION", False)], "the prompt's arguments: ORGANIZATION, optional")
        check(caps.completions is not None, "capabilities declare completions", caps)
        completed = await c.complete(
            types.PromptReference(type="ref/prompt", name=AGENT), {"name": "ORGANIZATION", "value": "Carnet"}
        )
        check_eq(completed.completion.values, ["Carnet Labs"], "completion/complete completes ORGANIZATION from its default")
        await expect_mcp_error(
            c.list_prompts(cursor="page-2", cache_mode="refresh"),
            -32602,
            "prompts/list with a cursor the server never gave: invalid params",
        )
        prompt = await c.get_prompt(AGENT)
        text0 = prompt.messages[0].content.text
        check_eq(text0, instructions, "prompts/get before loading equals the initialize instructions")
        check("dataAnalysis" not in prompt_section(text0, "Loaded Skills"), "the prompt shows no loaded dataAnalysis yet")

        # -- unexposed tool, unknown tool, unknown skill
        r = await call(c, mode, "convertUnits", {"value": 1, "from": "km", "to": "m"})
        body = payload(r)
        check(
            r.is_error and "unitConversion" in body.get("error", "") and "loadSkill" in body.get("error", ""),
            "calling convertUnits before loading unitConversion: isError, names the skill to load",
            short(r),
        )
        check_eq(body.get("skills"), ["unitConversion"], "the unexposed-tool error lists the skills that bring it")
        r = await call(c, mode, "analyzeStatistics", {"dataset": "monthly_sales", "column": "units"})
        check(
            r.is_error and "dataAnalysis" in payload(r).get("error", ""),
            "calling analyzeStatistics before loading dataAnalysis: isError, names dataAnalysis",
            short(r),
        )
        r = await c.call_tool("noSuchTool", {})
        check(r.is_error and "unknown tool" in payload(r).get("error", ""), "calling an unknown tool: isError 'unknown tool'", short(r))
        r = await c.call_tool("loadSkill", {"skillName": "noSuchSkill"})
        check(r.is_error and "noSuchSkill" in payload(r).get("error", ""), "loadSkill of an unknown skill: isError", short(r))
        r = await c.call_tool("loadSkill", {})
        check(r.is_error and "skillName" in payload(r).get("error", ""), "loadSkill without skillName: isError naming the field", short(r))
        check_eq(watcher.list_changed_count, 0, "no list_changed for calls that changed nothing")

        # -- loadSkill dataAnalysis
        r = await c.call_tool("loadSkill", {"skillName": "dataAnalysis"})
        body = payload(r)
        check(not r.is_error and body.get("success") is True, "loadSkill dataAnalysis succeeds", short(r))
        check_eq(r.structured_content, body, "structuredContent equals the JSON of content[0].text")
        check_eq(body.get("tools"), data_tools, "loadSkill reports the tools it brings")
        _, disk_body = frontmatter(CONTENT / "skills" / "dataAnalysis" / "SKILL.md")
        check_eq(body.get("content", "").strip(), disk_body.strip(), "loadSkill returns the SKILL.md instructions from disk")
        if dynamic:
            with anyio.fail_after(10):
                await watcher.list_changed.wait()
            ok("notifications/tools/list_changed received after loadSkill")
            after = await c.list_tools(cache_mode="refresh")
            check_eq(names(after), expected + data_tools, "tools/list after loading adds analyzeStatistics and visualizeData")
            stats_schema = next(t for t in after.tools if t.name == "analyzeStatistics").input_schema
            check_eq(sorted(stats_schema.get("required", [])), ["column", "dataset"], "analyzeStatistics requires dataset and column")
            # Annotations from TOOLSET.md, read through the SDK's own types.
            stats = next(t for t in after.tools if t.name == "analyzeStatistics")
            check_eq(stats.title, "Descriptive statistics", "analyzeStatistics' title")
            hints = stats.annotations
            check(
                hints is not None and hints.read_only_hint is True and hints.idempotent_hint is True
                and hints.open_world_hint is False and hints.destructive_hint is None,
                "analyzeStatistics' annotations: readOnly, idempotent, not open world (destructive not said)",
                repr(hints),
            )
            chart = next(t for t in after.tools if t.name == "visualizeData").annotations
            check(chart is not None and chart.destructive_hint is True and chart.read_only_hint is None, "visualizeData is destructive", repr(chart))
            load = next(t for t in after.tools if t.name == "loadSkill").annotations
            check(load is not None and load.read_only_hint is True and load.destructive_hint is False, "meta-tools are read-only", repr(load))
            plain = next(t for t in after.tools if t.name == "basicSearch")
            check(plain.annotations is None and plain.title is None, "a tool without hints has no annotations", repr(plain))
        else:
            await anyio.sleep(0.5)  # time for a stray notification to arrive
            check_eq(watcher.list_changed_count, 0, "dispatcher: no list_changed after loadSkill")
            after = await c.list_tools(cache_mode="refresh")
            check_eq(
                [t.model_dump() for t in after.tools],
                [t.model_dump() for t in before.tools],
                "dispatcher: tools/list after loading is identical to before",
            )

        # -- the loaded tool, with real data
        for column in ("units", "revenue"):
            r = await call(c, mode, "analyzeStatistics", {"dataset": "monthly_sales", "column": column})
            check(not r.is_error, f"analyzeStatistics monthly_sales/{column} succeeds" + (" via callTool" if not dynamic else ""), short(r))
            check_eq(r.structured_content, payload(r), "its structuredContent equals its text")
            check_stats(r.structured_content or {}, "monthly_sales", column, f"analyzeStatistics {column}: count/mean/median/std_dev/min/max match the CSV")
        r = await call(c, mode, "visualizeData", {"dataset": "monthly_sales", "column": "units", "kind": "line"})
        svg = (r.structured_content or {}).get("svg", "")
        check(not r.is_error and svg.startswith("<svg") and "<polyline" in svg, "visualizeData draws a line chart as SVG", short(r))
        target = Path(tempfile.gettempdir()) / f"carnet-e2e-{os.getpid()}.svg"
        r = await call(c, mode, "visualizeData", {"dataset": "monthly_sales", "column": "units", "path": str(target)})
        check(r.is_error and "does not write files" in payload(r).get("error", "") and not target.exists(),
              "visualizeData with a `path` is refused by the server's hook, and nothing is written", short(r))

        # -- bad arguments and tool failures
        r = await call(c, mode, "analyzeStatistics", {"dataset": "monthly_sales"})
        body = payload(r)
        check(r.is_error and "column" in body.get("error", "") and body.get("field") == "/column", "missing argument: isError naming `column`", short(r))
        r = await call(c, mode, "analyzeStatistics", {"dataset": "monthly_sales", "column": 5})
        body = payload(r)
        check(r.is_error and body.get("field") == "/column" and "string" in body.get("error", ""), "wrongly typed argument: isError naming `/column`", short(r))
        r = await call(c, mode, "analyzeStatistics", {"dataset": "monthly_sales", "column": "units", "extra": 1})
        check(r.is_error and "extra" in payload(r).get("error", ""), "unexpected argument: isError naming it", short(r))
        r = await call(c, mode, "analyzeStatistics", {"dataset": "monthly_sales", "column": "Units"})
        check(
            r.is_error and "units, revenue" in payload(r).get("error", ""),
            "unknown column (a tool failure): isError listing the columns",
            short(r),
        )
        if not dynamic:
            r = await c.call_tool("callTool", {"name": "analyzeStatistics"})
            check(r.is_error and "arguments" in payload(r).get("error", ""), "callTool without arguments: isError naming `arguments`", short(r))

        # -- resources
        listed = await c.list_resources()
        uris = {str(r.uri) for r in listed.resources}
        check_eq(uris, expected_uris(), "resources/list names every skill file on disk")
        disk = skill_files_on_disk("dataAnalysis")
        for path, data in disk.items():
            got = await read_bytes(c, f"skill://dataAnalysis/{path}")
            check(got == data, f"resources/read skill://dataAnalysis/{path} equals the file on disk", f"{len(got)} vs {len(data)} bytes")
        served = (await read_bytes(c, "skill://dataAnalysis/SKILL.md")).decode()
        fields, served_body = split_skill_md(served)
        disk_fields, disk_body = frontmatter(CONTENT / "skills" / "dataAnalysis" / "SKILL.md")
        check_eq(served_body.strip(), disk_body.strip(), "resources/read SKILL.md: instructions equal the file on disk")
        check_eq(
            (fields.get("name"), fields.get("description"), fields.get("toolsets")),
            (disk_fields["name"], disk_fields["description"], disk_fields["toolsets"]),
            "resources/read SKILL.md: frontmatter name, description, toolsets",
        )
        # 2026-07-28 turned "resource not found" into invalid params.
        missing = -32602 if c.protocol_version == MODERN_PROTOCOL else -32002
        await expect_mcp_error(c.read_resource("skill://dataAnalysis/nope.md"), missing, f"resources/read of an unknown uri: MCPError {missing}")

        # -- the prompt after loading
        text1 = (await c.get_prompt(AGENT)).messages[0].content.text
        check("**dataAnalysis**" in prompt_section(text1, "Loaded Skills"), "the prompt now lists dataAnalysis under Loaded Skills", short(text1[-1200:]))
        check("analyzeStatistics" in prompt_section(text1, "Available Domain Tools"), "the prompt now lists analyzeStatistics as available")
        check("Carnet Labs" in text1, "the prompt has the default ORGANIZATION")
        text2 = (await c.get_prompt(AGENT, {"ORGANIZATION": "Acme"})).messages[0].content.text
        check(
            "working for Acme." in text2 and "Carnet Labs" not in text2,
            "prompts/get with ORGANIZATION=Acme substitutes the variable",
        )
        check_eq(text2.replace("Acme", "Carnet Labs"), text1, "the ORGANIZATION argument changes nothing else")
        await expect_mcp_error(c.get_prompt("nope"), -32602, "prompts/get of an unknown prompt: MCPError -32602")

        # -- skills extension
        listing = await c.session.send_request(SkillsListRequest(), RAW)
        skills = listing.get("skills", [])
        check_eq(
            sorted(s.get("frontmatter", {}).get("name") for s in skills),
            sorted(skill_names()),
            "skills/list names every skill of the agent",
        )
        checked = 0
        for skill in skills:
            name = skill["frontmatter"]["name"]
            disk_fields, _ = frontmatter(CONTENT / "skills" / name / "SKILL.md")
            if skill["uri"] != f"skill://{name}/SKILL.md" or skill["frontmatter"].get("description") != disk_fields["description"]:
                raise CheckFailed(f"skills/list entry for {name} has a wrong uri or description: {short(skill)}")
            want = {f"skill://{name}/SKILL.md"} | {f"skill://{name}/{p}" for p in skill_files_on_disk(name)}
            got = {r["uri"] for r in skill["resources"]}
            if got != want:
                raise CheckFailed(f"skills/list resources of {name}: expected {sorted(want)}, got {sorted(got)}")
            for resource in skill["resources"]:
                data = await read_bytes(c, resource["uri"])
                digest = "sha256:" + hashlib.sha256(data).hexdigest()
                if resource["digest"] != digest or resource["size"] != len(data):
                    raise CheckFailed(
                        f"skills/list {resource['uri']}: digest/size {resource['digest']}/{resource['size']}"
                        f" do not match the bytes read ({digest}/{len(data)})"
                    )
                checked += 1
            got_skill = (await c.session.send_request(SkillsGetRequest(params=SkillsGetParams(uri=skill["uri"])), RAW)).get("skill")
            if got_skill != skill:
                raise CheckFailed(f"skills/get {skill['uri']} differs from its skills/list entry:\n    {short(got_skill)}\n    {short(skill)}")
        ok(f"skills/list: uri, description and file list match the disk; {checked} digests and sizes match resources/read")
        ok(f"skills/get of each of the {len(skills)} skills equals its skills/list entry")
        await expect_mcp_error(
            c.session.send_request(SkillsGetRequest(params=SkillsGetParams(uri="skill://noSuchSkill/SKILL.md")), RAW),
            -32602,
            "skills/get of an unknown skill: MCPError -32602",
        )

        # -- a second skill, loaded through loadToolset, and the session state at the end
        r = await c.call_tool("loadToolset", {"toolsetName": "units"})
        check(not r.is_error, "loadToolset units succeeds", short(r))
        r = await call(c, mode, "convertUnits", {"value": 26.2, "from": "mi", "to": "km"})
        check(not r.is_error and abs((r.structured_content or {}).get("result", 0) - 42.1648) < 1e-3, "convertUnits 26.2 mi -> 42.1648 km", short(r))
        if dynamic:
            with anyio.fail_after(10):
                while watcher.list_changed_count < 2:
                    await anyio.sleep(0.02)
            ok("a second list_changed after loadToolset")
            final = names(await c.list_tools(cache_mode="refresh"))
            check_eq(final, expected + data_tools + skill_tools("unitConversion"), "tools/list after loadToolset adds its tools")
        else:
            check_eq(watcher.list_changed_count, 0, "dispatcher: still no list_changed")
        check_eq(watcher.exceptions, [], "no transport exceptions")


# --------------------------------------------------------------------------------------------
# Scenario b: two concurrent sessions on one HTTP server


async def isolation_scenario(url: str) -> None:
    wa, wb = Watcher(), Watcher()
    async with client(url, wa) as a, client(url, wb) as b:
        base = names(await b.list_tools(cache_mode="refresh"))
        r = await a.call_tool("loadSkill", {"skillName": "dataAnalysis"})
        check(not r.is_error, "session A loads dataAnalysis", short(r))
        with anyio.fail_after(10):
            await wa.list_changed.wait()
        check("analyzeStatistics" in names(await a.list_tools(cache_mode="refresh")), "session A sees analyzeStatistics")
        check_eq(names(await b.list_tools(cache_mode="refresh")), base, "session B's tools/list is unchanged")
        r = await b.call_tool("analyzeStatistics", {"dataset": "monthly_sales", "column": "units"})
        check(r.is_error and "dataAnalysis" in payload(r).get("error", ""), "session B cannot call analyzeStatistics", short(r))
        text = (await b.get_prompt(AGENT)).messages[0].content.text
        check("dataAnalysis" not in prompt_section(text, "Loaded Skills"), "session B's prompt shows nothing loaded")
        r = await a.call_tool("analyzeStatistics", {"dataset": "monthly_sales", "column": "units"})
        check(not r.is_error, "session A still calls analyzeStatistics", short(r))
        await anyio.sleep(0.3)
        check_eq(wb.list_changed_count, 0, "session B received no list_changed")
        check_eq(wa.exceptions + wb.exceptions, [], "no transport exceptions")


# --------------------------------------------------------------------------------------------
# Scenario c: 50 concurrent sessions


async def concurrent_scenario(url: str, sessions: int = 50) -> None:
    skills = [s for s in skill_names() if s not in initial_skills()]
    base = META_TOOLS + [t for s in initial_skills() for t in skill_tools(s)]
    calls: dict[str, tuple[str, Callable[[int], dict[str, Any]], Callable[[int, Any], bool]]] = {
        "dataAnalysis": (
            "analyzeStatistics",
            lambda i: {"dataset": "monthly_sales", "column": ["units", "revenue"][i % 2]},
            lambda i, v: v.get("count") == 12 and abs(v.get("mean", 0) - round(csv_stats("monthly_sales", ["units", "revenue"][i % 2])["mean"], 2)) < 0.006,
        ),
        "unitConversion": (
            "convertUnits",
            lambda i: {"value": i, "from": "km", "to": "m"},
            lambda i, v: v.get("result") == i * 1000 and v.get("dimension") == "length",
        ),
        "reportWriting": (
            "formatCitation",
            lambda i: {"hit": {"title": f"Doc {i}", "domain": "example.org", "date": "2024-12-02", "snippet": "s", "score": 0.5}},
            lambda i, v: v == f"Doc {i}. (2024, December 2). example.org.",
        ),
    }
    for skill in skills:
        if skill not in calls:
            raise CheckFailed(f"no concurrent-session call defined for skill {skill}")
    connected = anyio.Event()
    loaded = anyio.Event()
    done = anyio.Event()
    counters = {"connected": 0, "loaded": 0, "done": 0}
    failures: list[str] = []
    results: list[str] = []

    async def barrier(name: str, event: anyio.Event) -> None:
        counters[name] += 1
        if counters[name] == sessions:
            event.set()
        with anyio.fail_after(60):
            await event.wait()

    async def one(i: int) -> None:
        skill = skills[i % len(skills)]
        watcher = Watcher()
        try:
            async with client(url, watcher) as c:
                await barrier("connected", connected)  # every session is open at once
                r = await c.call_tool("loadSkill", {"skillName": skill})
                if r.is_error:
                    raise CheckFailed(f"loadSkill {skill}: {short(r)}")
                with anyio.fail_after(10):
                    await watcher.list_changed.wait()
                await barrier("loaded", loaded)  # every session has loaded its skill
                tools = names(await c.list_tools(cache_mode="refresh"))
                if tools != base + skill_tools(skill):
                    raise CheckFailed(f"tools/list: expected {base + skill_tools(skill)}, got {tools}")
                tool, arguments, valid = calls[skill]
                r = await c.call_tool(tool, arguments(i))
                if r.is_error or not valid(i, value_of(r)):
                    raise CheckFailed(f"{tool} {arguments(i)}: {short(r)}")
                other = next(s for s in skills if s != skill)
                r = await c.call_tool(calls[other][0], calls[other][1](i))
                if not r.is_error:
                    raise CheckFailed(f"{calls[other][0]} of unloaded {other} did not fail: {short(r)}")
                _, disk_body = frontmatter(CONTENT / "skills" / skill / "SKILL.md")
                _, served_body = split_skill_md((await read_bytes(c, f"skill://{skill}/SKILL.md")).decode())
                if served_body.strip() != disk_body.strip():
                    raise CheckFailed(f"resources/read skill://{skill}/SKILL.md differs from disk")
                text = (await c.get_prompt(AGENT)).messages[0].content.text
                loaded_section = prompt_section(text, "Loaded Skills")
                if f"**{skill}**" not in loaded_section or any(f"**{s}**" in loaded_section for s in skills if s != skill):
                    raise CheckFailed(f"the prompt's Loaded Skills section is wrong: {short(loaded_section)}")
                if watcher.list_changed_count != 1 or watcher.exceptions:
                    raise CheckFailed(f"list_changed x{watcher.list_changed_count}, exceptions {watcher.exceptions!r}")
                await barrier("done", done)  # nobody leaves before everyone is done
            results.append(f"session {i:2} ({skill}): exactly its own tools, {tool} ok, other skill's tool refused, SKILL.md and prompt ok")
        except BaseException as e:  # noqa: BLE001 - every failure of every session is reported
            failures.append(f"session {i} ({skill}): {describe(e)}")
            for name, event in (("connected", connected), ("loaded", loaded), ("done", done)):
                if not event.is_set():
                    event.set()  # release the others: the scenario fails anyway
            if not isinstance(e, Exception):
                raise

    start = time.monotonic()
    async with anyio.create_task_group() as tg:
        for i in range(sessions):
            tg.start_soon(one, i)
    elapsed = time.monotonic() - start
    if failures:
        raise CheckFailed(f"{len(failures)} of {sessions} sessions failed:\n    " + "\n    ".join(failures[:10]))
    for line in sorted(results):
        ok(line)
    ok(f"{sessions} concurrent sessions, no errors ({elapsed:.1f} s)")


# --------------------------------------------------------------------------------------------
# Scenario d: raw lines over stdio


class RawStdio:
    def __init__(self, mode: str = "dynamic"):
        self.proc = subprocess.Popen(
            [BINARY, "--agent", AGENT, "--mode", mode],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=_die_with_parent,
        )
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.stderr = b""
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _read_stderr(self) -> None:
        self.stderr = self.proc.stderr.read()

    def send(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send_big(self, prefix: bytes, fill: bytes, total: int, suffix: bytes) -> None:
        """A line of exactly `total` bytes (newline excluded), written in 1 MiB chunks."""
        body = total - len(prefix) - len(suffix)
        chunk = fill * (1 << 20)
        self.proc.stdin.write(prefix)
        while body > 0:
            n = min(body, len(chunk))
            self.proc.stdin.write(chunk[:n])
            body -= n
        self.proc.stdin.write(suffix + b"\n")
        self.proc.stdin.flush()

    def request(self, id: Any, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(json.dumps(message).encode() + b"\n")

    def receive(self, timeout: float = REQUEST_TIMEOUT) -> dict[str, Any]:
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise CheckFailed(f"no message from the stdio server within {timeout} s")
        if line is None:
            raise CheckFailed(f"the stdio server closed its stdout (status {self.proc.poll()}); stderr: {short(self.stderr.decode(errors='replace'))}")
        try:
            return json.loads(line)
        except json.JSONDecodeError:
            raise CheckFailed(f"the stdio server wrote a line that is not JSON: {short(line)}")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def check_error(message: dict[str, Any], code: int, what: str, contains: str = "", id: Any = None) -> None:
    """A JSON-RPC error response with `code` (and `contains` in its message) answering `id`;
    with `id` None, the id could not be read: JSON-RPC 2.0 wants `"id": null` then."""
    error = message.get("error") or {}
    check(
        message.get("jsonrpc") == "2.0"
        and message.get("id") == id
        and (id is None or "id" in message)
        and error.get("code") == code
        and contains in error.get("message", ""),
        what,
        f"expected error {code} with id {id!r}{' containing ' + repr(contains) if contains else ''}; got {short(message)}",
    )
    if id is None:
        check("id" in message, "  ... and the response has an `id` member (null), as JSON-RPC 2.0 requires", short(message))


def check_invalid_params(message: dict[str, Any], id: Any, what: str) -> None:
    check(message.get("id") == id and "error" in message, what + ": an error response with its id", short(message))
    check(message["error"].get("code") == -32602, "  ... with code -32602 (invalid params)", short(message))


def stdio_malformed_scenario() -> None:
    s = RawStdio()
    try:
        s.request(1, "initialize", {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}})
        init = s.receive()
        check_eq(init.get("result", {}).get("protocolVersion"), PROTOCOL, "raw initialize answered with 2025-11-25")
        s.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')

        # (line, code, text the message contains, the id the answer carries, what)
        cases: list[tuple[bytes, int, str, Any, str]] = [
            (b"this is not json", -32700, "", None, "a non-JSON line"),
            (b'{"jsonrpc": "2.0", "id": 2, "method": "tools/list"', -32700, "", None, "a truncated JSON object"),
            (b"\xff\xfe\x00garbage", -32700, "", None, "invalid UTF-8"),
            (b'{"foo": 1}', -32600, "", None, "JSON that is not JSON-RPC"),
            (b'"just a string"', -32600, "", None, "a JSON string"),
            (b"42", -32600, "", None, "a JSON number"),
            (b'{"jsonrpc": "2.0", "id": 3}', -32600, "", 3, "an object with an id but neither method nor result"),
            (b'{"jsonrpc": "1.0", "id": "v1", "method": "ping"}', -32600, "", "v1", "a JSON-RPC 1.0 request"),
            (b'[{"jsonrpc": "2.0", "id": 4, "method": "ping"}]', -32600, "", None, "a batch (removed from MCP in 2025-06-18)"),
            (b'{"jsonrpc": "2.0", "id": null, "method": "ping"}', -32600, "", None, "a request with a null id (MCP forbids it)"),
        ]
        for line, code, contains, id, what in cases:
            s.send(line + b"\n")
            answer = s.receive()
            if id is None:
                check_error(answer, code, f"stdio: {what} -> error {code}, id null", contains)
            else:
                check_error(answer, code, f"stdio: {what} -> error {code} with its id {id!r}", contains, id=id)

        # Ignored: blank lines, whitespace, an unknown notification. The ping after them must
        # be the very next answer.
        s.send(b"\n   \t \n")
        s.send(b'{"jsonrpc":"2.0","method":"notifications/no_such_thing","params":{"x":1}}\n')
        s.request(10, "ping")
        reply = s.receive()
        check(reply.get("id") == 10 and reply.get("result") == {}, "stdio: blank lines and an unknown notification get no answer; ping answered", short(reply))

        s.request(11, "no/such/method")
        check_error(s.receive(), -32601, "stdio: an unknown method -> -32601 with the request's id", id=11)
        s.request(15, "tools/call", {"arguments": {}})
        check_invalid_params(s.receive(), 15, "stdio: tools/call without a tool name")
        s.request(16, "prompts/get", {})
        check_invalid_params(s.receive(), 16, "stdio: prompts/get without a prompt name")
        s.send(b'\xef\xbb\xbf{"jsonrpc":"2.0","id":12,"method":"ping"}\r\n')
        reply = s.receive()
        check(reply.get("id") == 12 and "result" in reply, "stdio: a ping with a UTF-8 BOM and CRLF is answered", short(reply))

        # The limit: a line of exactly MAX bytes is read; one byte more is refused.
        start = time.monotonic()
        s.send_big(b'{"jsonrpc":"2.0","id":13,"method":"ping"', b" ", MAX_MESSAGE_BYTES, b"}")
        reply = s.receive(timeout=60)
        check(reply.get("id") == 13 and "result" in reply, f"stdio: a ping line of exactly {MAX_MESSAGE_BYTES} bytes is answered ({time.monotonic() - start:.1f} s)", short(reply))
        start = time.monotonic()
        s.send_big(b'{"jsonrpc":"2.0","id":14,"method":"ping"', b" ", MAX_MESSAGE_BYTES + 1, b"}")
        check_error(s.receive(timeout=60), -32600, f"stdio: a line of {MAX_MESSAGE_BYTES + 1} bytes -> -32600 naming the limit ({time.monotonic() - start:.1f} s)", str(MAX_MESSAGE_BYTES))
        s.send_big(b"", b"x", MAX_MESSAGE_BYTES + 4096, b"")
        check_error(s.receive(timeout=60), -32600, f"stdio: {MAX_MESSAGE_BYTES + 4096} bytes of non-JSON -> -32600 (the size is checked first)", str(MAX_MESSAGE_BYTES))

        # Still serving, with its session intact.
        s.request(20, "tools/list")
        reply = s.receive()
        tools = [t["name"] for t in reply.get("result", {}).get("tools", [])]
        check(tools[: len(META_TOOLS)] == META_TOOLS, "stdio: tools/list still answered after the bad lines", short(reply))
        s.request(21, "tools/call", {"name": "loadSkill", "arguments": {"skillName": "unitConversion"}})
        first, second = s.receive(), s.receive()
        check_eq(first.get("method"), "notifications/tools/list_changed", "stdio: loadSkill sends list_changed before its response")
        check(second.get("id") == 21 and second.get("result", {}).get("isError") is False, "stdio: then the loadSkill response", short(second))
        s.request(22, "tools/call", {"name": "convertUnits", "arguments": {"value": 0, "from": "C", "to": "F"}})
        reply = s.receive()
        check_eq(reply.get("result", {}).get("structuredContent", {}).get("result"), 32, "stdio: convertUnits 0 C -> 32 F")

        s.proc.stdin.close()
        try:
            code = s.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            raise CheckFailed("the stdio server did not exit within 10 s of stdin closing")
        leftover = []
        while True:
            line = s.lines.get(timeout=5)
            if line is None:
                break
            leftover.append(line)
        check_eq(leftover, [], "stdio: nothing else was written (no answer to notifications)")
        check_eq(code, 0, "stdio: the server exits 0 when stdin closes")
    finally:
        s.close()


# --------------------------------------------------------------------------------------------
# Scenario e: raw HTTP


HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def http_messages(response: httpx2.Response) -> list[dict[str, Any]]:
    content_type = response.headers.get("content-type", "")
    if content_type.startswith("application/json"):
        return [response.json()] if response.content else []
    if content_type.startswith("text/event-stream"):
        return [json.loads(line[5:]) for line in response.text.splitlines() if line.startswith("data:") and line[5:].strip()]
    raise CheckFailed(f"unexpected response {response.status_code} {content_type!r}: {short(response.text)}")


def check_http_error(response: httpx2.Response, status: int, code: int, what: str, contains: str = "") -> None:
    detail = f"expected {status} with JSON-RPC error {code}; got {response.status_code} {response.headers.get('content-type')!r}: {short(response.text)}"
    if response.status_code != status or not response.headers.get("content-type", "").startswith("application/json"):
        raise CheckFailed(f"{what}\n    {detail}")
    try:
        body = response.json()
    except ValueError:
        raise CheckFailed(f"{what}\n    {detail}")
    check_error(body, code, what + f" (status {status})", contains)


def get_stream_has_list_changed(h: httpx2.Client, url: str, session_headers: dict[str, str]) -> bool:
    """Opens the session's standalone GET stream and reads it until a list_changed (5 s)."""
    headers = {k: v for k, v in session_headers.items() if k != "Content-Type"}
    headers["Accept"] = "text/event-stream"
    deadline = time.monotonic() + 5
    try:
        with h.stream("GET", url, headers=headers, timeout=5) as stream:
            if stream.status_code != 200:
                return False
            for line in stream.iter_lines():
                if line.startswith("data:") and "notifications/tools/list_changed" in line:
                    return True
                if time.monotonic() > deadline:
                    return False
    except httpx2.TimeoutException:
        return False
    return False


def http_malformed_scenario(url: str) -> None:
    with httpx2.Client(timeout=60) as h:
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}
        r = h.post(url, headers=HEADERS, json=init)
        session = r.headers.get("mcp-session-id")
        messages = http_messages(r)
        check(r.status_code == 200 and session and messages and messages[0].get("result", {}).get("protocolVersion") == PROTOCOL,
              "http: raw initialize answered, with a session id", f"{r.status_code} {short(r.text)}")
        sh = {**HEADERS, "Mcp-Session-Id": session, "MCP-Protocol-Version": PROTOCOL}
        r = h.post(url, headers=sh, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        check_eq(r.status_code, 202, "http: notifications/initialized accepted (202)")

        cases: list[tuple[dict[str, str], bytes, int, int, str]] = [
            (sh, b"this is not json", 400, -32700, "a non-JSON body"),
            (sh, b'{"jsonrpc": "2.0", "id": 2, "method": "tools/list"', 400, -32700, "a truncated JSON body"),
            (sh, b"\xff\xfe\x00garbage", 400, -32700, "an invalid UTF-8 body"),
            (sh, b"", 400, -32700, "an empty body"),
            (sh, b'{"foo": 1}', 400, -32600, "JSON that is not JSON-RPC"),
            (sh, b'"just a string"', 400, -32600, "a JSON string"),
            (sh, b'[{"jsonrpc": "2.0", "id": 4, "method": "ping"}]', 400, -32600, "a batch (removed from MCP in 2025-06-18)"),
            (sh, b'{"jsonrpc": "2.0", "id": null, "method": "ping"}', 400, -32600, "a request with a null id"),
            (HEADERS, b"this is not json", 400, -32700, "a non-JSON body without a session id"),
            (HEADERS, b'{"foo": 1}', 400, -32600, "JSON that is not JSON-RPC, without a session id"),
        ]
        for headers, body, status, code, what in cases:
            r = h.post(url, headers=headers, content=body)
            check_http_error(r, status, code, f"http: {what} -> {code}")

        r = h.post(url, headers=sh, json={"jsonrpc": "2.0", "id": 3, "method": "no/such/method"})
        messages = http_messages(r)
        check(messages and messages[0].get("id") == 3 and messages[0].get("error", {}).get("code") == -32601,
              "http: an unknown method -> -32601 with the request's id", f"{r.status_code} {short(r.text)}")

        r = h.post(url, headers=sh, json={"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"arguments": {}}})
        check_invalid_params(next(iter(http_messages(r)), {}), 8, "http: tools/call without a tool name")

        # Only /mcp is the endpoint.
        other = url.rsplit("/", 1)[0] + "/not-mcp"
        r = h.post(other, headers=sh, json={"jsonrpc": "2.0", "id": 9, "method": "ping"})
        check(r.status_code == 404, "http: a POST to /not-mcp is 404", f"{r.status_code} {short(r.text)}")

        # The limit: exactly MAX bytes is served; one byte more is 413.
        pad = MAX_MESSAGE_BYTES - len(b'{"jsonrpc":"2.0","id":4,"method":"tools/list"}')
        exact = b'{"jsonrpc":"2.0","id":4,"method":"tools/list"' + b" " * pad + b"}"
        assert len(exact) == MAX_MESSAGE_BYTES
        r = h.post(url, headers=sh, content=exact)
        messages = http_messages(r) if r.status_code == 200 else []
        check(messages and messages[0].get("id") == 4 and "tools" in messages[0].get("result", {}),
              f"http: a tools/list body of exactly {MAX_MESSAGE_BYTES} bytes is served", f"{r.status_code} {short(r.text)}")
        over = exact[:-1] + b" }"
        r = h.post(url, headers=sh, content=over)
        check_http_error(r, 413, -32600, f"http: a {len(over)}-byte body (Content-Length) -> 413, -32600 naming the limit", str(MAX_MESSAGE_BYTES))

        def chunks():
            for i in range(0, len(over), 1 << 20):
                yield over[i : i + (1 << 20)]

        r = h.post(url, headers=sh, content=chunks())
        check_http_error(r, 413, -32600, f"http: a {len(over)}-byte chunked body -> 413, -32600 naming the limit", str(MAX_MESSAGE_BYTES))

        # The session still serves.
        r = h.post(url, headers=sh, json={"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                                          "params": {"name": "loadSkill", "arguments": {"skillName": "dataAnalysis"}}})
        messages = http_messages(r)
        response = next((m for m in messages if m.get("id") == 5), {})
        check(r.status_code == 200 and response.get("result", {}).get("isError") is False,
              "http: the same session still serves tools/call after the bad posts", f"{r.status_code} {short(r.text)}")
        # Over HTTP rmcp sends notifications that answer no request on the session's standalone
        # GET stream (carnet::mcp documents it); a client that never opened it gets it there later.
        on_post = [m.get("method", m.get("id")) for m in messages] == ["notifications/tools/list_changed", 5]
        if not on_post:
            check(get_stream_has_list_changed(h, url, sh), "http: list_changed is delivered on the GET stream (buffered until it opens)")
        r = h.post(url, headers=sh, json={"jsonrpc": "2.0", "id": 6, "method": "tools/list"})
        tools = [t["name"] for t in http_messages(r)[0].get("result", {}).get("tools", [])]
        check("analyzeStatistics" in tools, "http: and keeps its state (analyzeStatistics listed)", short(tools))
        r = h.delete(url, headers=sh)
        check(200 <= r.status_code < 300, "http: DELETE of the session is accepted", f"{r.status_code} {short(r.text)}")
        check(r.status_code in (200, 204), "  ... with 200 or 204, as the Python SDK expects", str(r.status_code))
        r = h.post(url, headers=sh, json={"jsonrpc": "2.0", "id": 7, "method": "tools/list"})
        check(r.status_code == 404, "http: the deleted session id is refused (404)", f"{r.status_code} {short(r.text)}")


async def fresh_client_works(url: str) -> None:
    watcher = Watcher()
    async with client(url, watcher) as c:
        r = await c.call_tool("loadSkill", {"skillName": "dataAnalysis"})
        r2 = await c.call_tool("analyzeStatistics", {"dataset": "monthly_sales", "column": "units"})
        check(not r.is_error and not r2.is_error and (r2.structured_content or {}).get("count") == 12,
              "http: a fresh mcp.Client session works after the bad posts", short(r2))


# --------------------------------------------------------------------------------------------
# Driver


# --------------------------------------------------------------------------------------------
# Scenario f: `carnet serve-mcp` on Agent Skills folders, binary files included


CORPUS = ROOT / "tests" / "corpus" / "agentskills"


async def cli_corpus_scenario(content: Path) -> None:
    """`carnet serve-mcp` over stdio on a directory of third-party Agent Skills (copied from
    tests/corpus with an agent added): resources are the files on disk, fonts come back as
    blobs with the bytes and digests of the files, and skills load."""
    skill = "canvas-design"
    folder = content / "skills" / skill
    on_disk = {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
    watcher = Watcher()
    params = StdioServerParameters(command=CARNET, args=["--dir", str(content), "serve-mcp", "designer"])
    async with client(stdio_client(params, errlog=open(os.devnull, "w")), watcher) as c:
        check_eq(c.server_info.name, "designer", "serve-mcp: serverInfo.name is the agent served")
        check_eq(names(await c.list_tools()), META_TOOLS, "serve-mcp: the corpus declares no toolsets, so tools/list is the meta-tools")
        listed = (await c.list_resources()).resources
        uris = {str(r.uri) for r in listed if str(r.uri).startswith(f"skill://{skill}/")}
        expected = {f"skill://{skill}/{path}" for path in on_disk if path != "SKILL.md"} | {f"skill://{skill}/SKILL.md"}
        check_eq(uris, expected, f"serve-mcp: resources/list names every file of {skill} on disk ({len(on_disk)})")
        fonts = sorted(path for path in on_disk if path.endswith(".ttf"))
        check(len(fonts) >= 2, f"serve-mcp: {skill} has fonts ({len(fonts)})")
        listing = await c.session.send_request(SkillsGetRequest(params=SkillsGetParams(uri=f"skill://{skill}/SKILL.md")), RAW)
        digests = {entry["uri"]: entry for entry in listing["skill"]["resources"]}
        for font in fonts:
            uri = f"skill://{skill}/{font}"
            result = await c.read_resource(uri)
            contents = result.contents[0]
            check(isinstance(contents, types.BlobResourceContents) and contents.mime_type == "font/ttf",
                  f"serve-mcp: {font} is a font/ttf blob", short(contents, 200))
            data = base64.b64decode(contents.blob)
            check(data == on_disk[font], f"serve-mcp: {font}: the blob decodes to the file's {len(data)} bytes")
            entry = digests.get(uri, {})
            check(entry.get("digest") == "sha256:" + hashlib.sha256(data).hexdigest() and entry.get("size") == len(data),
                  f"serve-mcp: {font}: skills/get has its sha256 and size", short(entry))
        r = await c.call_tool("loadSkill", {"skillName": skill})
        body = payload(r)
        check(not r.is_error and body.get("success") is True, f"serve-mcp: loadSkill {skill}", short(body, 200))
        r = await c.call_tool("loadSkillFile", {"skillName": skill, "path": fonts[0]})
        file = payload(r)
        check(not r.is_error and base64.b64decode(file.get("content", "")) == on_disk[fonts[0]],
              f"serve-mcp: loadSkillFile returns {fonts[0]} base64-encoded, byte for byte", short(file, 200))
        check(watcher.list_changed_count == 0 and not watcher.exceptions,
              "serve-mcp: no list_changed (no tools were added) and no transport errors",
              f"{watcher.list_changed_count} {watcher.exceptions}")


def cli_corpus() -> None:
    with tempfile.TemporaryDirectory(prefix="carnet-e2e-corpus-") as tmp:
        content = Path(tmp)
        shutil.copytree(CORPUS / "canvas-design", content / "skills" / "canvas-design")
        agent = content / "agents" / "designer"
        agent.mkdir(parents=True)
        (agent / "AGENT.md").write_text(
            "---\nname: designer\ndescription: Designs posters\nskills: [canvas-design]\n---\n\nYou design posters.\n"
        )
        run_async(lambda: cli_corpus_scenario(content))


def run_async(fn: Callable[[], Any]) -> None:
    async def bounded() -> None:
        with anyio.fail_after(SCENARIO_TIMEOUT):
            await fn()

    anyio.run(bounded)


def scenario_list() -> list[tuple[str, Callable[[], None]]]:
    scenarios: list[tuple[str, Callable[[], None]]] = []
    for mode in ("dynamic", "dispatcher"):
        scenarios.append((f"session-stdio-{mode}", lambda mode=mode: run_async(lambda: session_scenario(stdio_params(mode), mode))))

        def http(mode: str = mode) -> None:
            with HttpServer(mode) as server:
                # Over HTTP in dispatcher mode, auto mode takes the stateless revision, whose
                # conversations travel as sealed handles (tests/mcp/replicas.py); this scenario
                # checks the 2025 session, so it asks for it.
                connect = "legacy" if mode == "dispatcher" else "auto"
                run_async(lambda: session_scenario(server.url, mode, connect))

        scenarios.append((f"session-http-{mode}", http))

    def isolation() -> None:
        with HttpServer("dynamic") as server:
            run_async(lambda: isolation_scenario(server.url))

    def concurrent() -> None:
        with HttpServer("dynamic") as server:
            run_async(lambda: concurrent_scenario(server.url))

    def http_malformed() -> None:
        with HttpServer("dynamic") as server:
            http_malformed_scenario(server.url)
            run_async(lambda: fresh_client_works(server.url))

    scenarios += [
        ("isolation", isolation),
        ("concurrent", concurrent),
        ("stdio-malformed", stdio_malformed_scenario),
        ("http-malformed", http_malformed),
        ("serve-mcp-corpus", cli_corpus),
    ]
    return scenarios


def main() -> int:
    global BINARY, CARNET, _scenario
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", default=os.environ.get("MCP_SERVER", str(ROOT / "target" / "debug" / "mcp-server")))
    parser.add_argument("--carnet", default=os.environ.get("CARNET_BIN", str(ROOT / "target" / "debug" / "carnet")))
    parser.add_argument("--only", action="append", default=[], help="run only the scenarios whose name contains this")
    args = parser.parse_args()
    BINARY = str(Path(args.server).resolve())
    CARNET = str(Path(args.carnet).resolve())
    if not os.access(BINARY, os.X_OK):
        print(f"FAIL: no server binary at {BINARY} (cargo build -p mcp-server)", file=sys.stderr)
        return 2
    if not os.access(CARNET, os.X_OK):
        print(f"FAIL: no carnet binary at {CARNET} (cargo build -p carnet-cli)", file=sys.stderr)
        return 2
    # The SDK warns when a dispatcher-mode tool result has no listed tool to validate against.
    logging.basicConfig(level=logging.ERROR)
    # SIGTERM (from run.sh or timeout) unwinds like ctrl-c, so every server gets stopped.
    def interrupted(*_: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupted)

    timings = []
    total = time.monotonic()
    for name, scenario in scenario_list():
        if args.only and not any(o in name for o in args.only):
            continue
        _scenario = name
        start = time.monotonic()
        faulthandler.dump_traceback_later(SCENARIO_TIMEOUT + WATCHDOG_SLACK, exit=True)
        try:
            scenario()
        except BaseException as e:
            if isinstance(e, KeyboardInterrupt):
                print(f"FAIL [{name}] interrupted", flush=True)
                return 130
            failed = [x for x in leaves(e) if isinstance(x, CheckFailed)]
            if failed:
                print(f"FAIL [{name}] {failed[0]}", flush=True)
            elif all(isinstance(x, TimeoutError) for x in leaves(e)):
                print(f"FAIL [{name}] timed out after {SCENARIO_TIMEOUT:.0f} s", flush=True)
            else:
                print(f"FAIL [{name}] unexpected exception: {describe(e)}", flush=True)
                import traceback

                traceback.print_exc()
            return 1
        finally:
            faulthandler.cancel_dump_traceback_later()
        timings.append((name, time.monotonic() - start))
    print(f"\nall {_passed} checks passed, in {time.monotonic() - total:.1f} s", flush=True)
    for name, seconds in timings:
        print(f"  {name:24} {seconds:6.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
