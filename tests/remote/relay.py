#!/usr/bin/env python3
"""The gateway's pass-through (issue 53 item 1), judged by the official MCP Python SDK as the host.

    relay.py --carnet target/debug/carnet [--only stdio|http]

`carnet serve-mcp relay` serves the content in tests/remote/relay: one remote toolset, the official
"everything" server (npm `@modelcontextprotocol/server-everything`, installed by setup.sh). The SDK
host connects over stdio and over streamable HTTP (a 2025-11-25 session each: sampling and
elicitation are requests of the handshake-era revisions), loads the skill, and calls the upstream
tools through carnet. It must receive, from the upstream server and through carnet:

- progress notifications of `trigger-long-running-operation`, under its own progress token (the
  SDK routes them to the call's `progress_callback` by that token);
- log messages (`toggle-simulated-logging`, then a call during which the server logs), after the
  host set its level with `logging/setLevel` (declared: carnet has a remote toolset);
- an elicitation request (`trigger-elicitation-request`) that the host answers: the answer
  reaches the server, whose result quotes it;
- a sampling request (`trigger-sampling-request`) that the host serves: its text reaches the
  server, whose result quotes it.

Resources: after loading, the upstream's resources and prompts are listed beside carnet's (and
the load itself is announced: `notifications/resources/list_changed` and `prompts/list_changed`);
a resource the host subscribes to (`resources/subscribe`) sends it `notifications/resources/updated`
(`toggle-subscriber-updates` makes the server send them every 5 s) until it unsubscribes; a
resource the server adds (`gzip-file-as-resource`) becomes `notifications/resources/list_changed`.
Over HTTP, where one carnet serves several sessions with one upstream connection, a second
session that loaded the skill but asked the server nothing receives the list change and no
update, and a third that did not load it receives nothing at all.

Then a host that declares neither capability gets the tools' requests refused (the server's
result says so) and nothing hangs.

At the stateless revision (2026-07-28, `--mode dispatcher`), where no request reaches a host, the
same tools ask the host with `input_required` results (SEP-2322): the SDK, which drives the rounds
itself, answers the elicitation and the sampling request through its callbacks and the server's
result quotes the answers; driven by hand, a round names the request (`elicitation-1`) and a
sealed `requestState`, and a retry with an altered state, another tool's name or no answer is
refused `-32602` or asked again; an answered state is refused afterwards; a host that declared
neither capability has the server's request refused.

Every check prints `PASS`; the first failure prints `FAIL` and exits 1. Environment:
CARNET_TEST_EVERYTHING_SERVER (set by run.sh).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = Path(__file__).resolve().parents[2]
CONTENT = ROOT / "tests" / "remote" / "relay"
AGENT = "relay"
TIMEOUT = 60.0
SAMPLED = "Sampled by the host: forty-two"
NAME = "Ada Lovelace"


class Failed(Exception):
    pass


def check(ok: Any, what: str, detail: Any = "") -> None:
    if not ok:
        raise Failed(f"{what}\n    got: {str(detail)[:1500]}")
    print(f"PASS {what}", flush=True)


def texts(result: Any) -> str:
    return "\n".join(getattr(block, "text", "") or "" for block in result.content)


class Host:
    """What the SDK host received through carnet."""

    def __init__(self) -> None:
        self.logs: list[types.LoggingMessageNotificationParams] = []
        self.elicited: list[types.ElicitRequestParams] = []
        self.sampled: list[types.CreateMessageRequestParams] = []
        # Every notification but logs and progress: (method, uri or None).
        self.notes: list[tuple[str, str | None]] = []

    async def on_message(self, message: Any) -> None:
        method = getattr(message, "method", None)
        if method and method not in ("notifications/message", "notifications/progress"):
            uri = getattr(getattr(message, "params", None), "uri", None)
            self.notes.append((method, None if uri is None else str(uri)))

    def count(self, method: str, uri: str | None = None) -> int:
        return sum(1 for m, u in self.notes if m == method and (uri is None or u == uri))

    async def on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logs.append(params)

    async def on_elicit(self, _context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.elicited.append(params)
        return types.ElicitResult(action="accept", content={"name": NAME, "check": True})

    async def on_sample(self, _context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        self.sampled.append(params)
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text=SAMPLED), model="host-model"
        )


async def scenario(transport: Any, label: str) -> None:
    host = Host()
    async with Client(
        transport,
        mode="legacy",
        read_timeout_seconds=TIMEOUT,
        logging_callback=host.on_log,
        elicitation_callback=host.on_elicit,
        sampling_callback=host.on_sample,
        message_handler=host.on_message,
    ) as c:
        caps = c.server_capabilities
        check(caps.logging is not None, f"{label}: carnet declares `logging` (it has a remote toolset)", caps)
        own = {str(r.uri) for r in (await c.list_resources(cache_mode="refresh")).resources}
        own_prompts = {p.name for p in (await c.list_prompts(cache_mode="refresh")).prompts}
        check(
            caps.resources.subscribe and caps.resources.list_changed and caps.prompts.list_changed,
            f"{label}: carnet declares resource subscriptions and resource and prompt list changes",
            caps,
        )
        loaded = await c.call_tool("loadSkill", {"skillName": "everything"})
        check(not loaded.is_error, f"{label}: loadSkill everything", texts(loaded))
        await until(lambda: host.count(PROMPTS_CHANGED) and host.count(RESOURCES_CHANGED))
        check(
            host.count(RESOURCES_CHANGED) == 1 and host.count(PROMPTS_CHANGED) == 1,
            f"{label}: the load announced the new resource and prompt lists",
            host.notes,
        )

        # The upstream's resources and prompts, once its skill is loaded, beside carnet's own.
        listed = (await c.list_resources(cache_mode="refresh")).resources
        theirs = [r for r in listed if str(r.uri) not in own]
        check(
            theirs and not any(str(r.uri).startswith("skill://") for r in theirs) and own <= {str(r.uri) for r in listed},
            f"{label}: after loading, resources/list has the upstream's resources ({len(theirs)}) beside carnet's ({len(own)})",
            [str(r.uri) for r in listed][:10],
        )
        read = await c.read_resource(str(theirs[0].uri))
        check(
            read.contents and str(read.contents[0].uri) == str(theirs[0].uri),
            f"{label}: resources/read of {theirs[0].uri} reaches the upstream",
            read,
        )
        prompts = (await c.list_prompts(cache_mode="refresh")).prompts
        new_prompts = [p for p in prompts if p.name not in own_prompts]
        check(new_prompts, f"{label}: after loading, prompts/list has the upstream's prompts", [p.name for p in prompts])
        simple = next((p for p in new_prompts if not any(a.required for a in p.arguments or [])), None)
        if simple is not None:
            got = await c.get_prompt(simple.name)
            check(got.messages, f"{label}: prompts/get {simple.name} reaches the upstream", got)
        check(WATCHED in {str(r.uri) for r in theirs}, f"{label}: the upstream lists {WATCHED}", theirs)
        await subscriptions(c, host, WATCHED, label)
        await c.set_logging_level("debug")

        progress: list[tuple[float, float | None, str | None]] = []

        async def on_progress(p: float, total: float | None, message: str | None) -> None:
            progress.append((p, total, message))

        started = time.monotonic()
        r = await c.call_tool("toggle-simulated-logging", {})
        check(not r.is_error, f"{label}: toggle-simulated-logging", texts(r))
        # The server logs every 5 s: a 6 s operation is in flight for at least one of them.
        r = await c.call_tool(
            "trigger-long-running-operation", {"duration": 6, "steps": 3}, progress_callback=on_progress
        )
        check(not r.is_error, f"{label}: trigger-long-running-operation completes", texts(r))
        check(
            len(progress) >= 2 and progress[-1][1] == 3,
            f"{label}: progress of the upstream call reached the host under its token ({len(progress)} notifications)",
            progress,
        )
        check(
            all(a[0] < b[0] for a, b in zip(progress, progress[1:])),
            f"{label}: progress increases",
            progress,
        )
        check(
            any("message" in str(log.data).lower() for log in host.logs),
            f"{label}: the upstream's log messages reached the host ({len(host.logs)} in "
            f"{time.monotonic() - started:.1f} s)",
            [(log.level, log.data) for log in host.logs],
        )
        r = await c.call_tool("toggle-simulated-logging", {})

        r = await c.call_tool("trigger-elicitation-request", {})
        check(len(host.elicited) == 1, f"{label}: the upstream's elicitation reached the host", (host.elicited, texts(r)))
        check(
            not r.is_error and NAME in texts(r),
            f"{label}: the host's answer reached the upstream (its result quotes it)",
            texts(r),
        )

        r = await c.call_tool("trigger-sampling-request", {"prompt": "What is six times seven?", "maxTokens": 20})
        check(len(host.sampled) == 1, f"{label}: the upstream's sampling request reached the host", (host.sampled, texts(r)))
        prompt = str(host.sampled[0].messages[0].content)
        check("six times seven" in prompt, f"{label}: the sampling request is the upstream's", prompt)
        check(
            not r.is_error and SAMPLED in texts(r),
            f"{label}: the host's completion reached the upstream (its result quotes it)",
            texts(r),
        )

    # A host that declares neither capability: the requests are refused, nothing hangs.
    async with Client(transport_again(label), mode="legacy", read_timeout_seconds=TIMEOUT) as c:
        # Another session, which has not loaded the skill: none of the upstream's resources.
        others = {str(r.uri) for r in (await c.list_resources(cache_mode="refresh")).resources}
        check(others == own, f"{label}: another session that did not load the skill sees carnet's resources only", others - own)
        try:
            await c.subscribe_resource(WATCHED)
            refusal = None
        except MCPError as e:
            refusal = e
        check(
            refusal is not None and refusal.code == -32002,
            f"{label}: nor can it subscribe to the upstream's resources ({refusal})",
            refusal,
        )
        await c.call_tool("loadSkill", {"skillName": "everything"})
        started = time.monotonic()
        r = await c.call_tool("trigger-elicitation-request", {})
        refused = texts(r)
        print(f"    the upstream's result: {refused[:200]!r}")
        check(
            r.is_error and "elicitation" in refused and NAME not in refused and time.monotonic() - started < 20,
            f"{label}: without the host's `elicitation`, the upstream's request is refused at once",
            refused,
        )


async def stateless(transport: Any, label: str) -> None:
    host = Host()
    async with Client(
        transport,
        read_timeout_seconds=TIMEOUT,
        elicitation_callback=host.on_elicit,
        sampling_callback=host.on_sample,
    ) as c:
        check(c.protocol_version == "2026-07-28", f"{label}: the host speaks 2026-07-28", c.protocol_version)
        loaded = await c.call_tool("loadSkill", {"skillName": "everything"})
        session = (loaded.structured_content or {}).get("session")
        check(not loaded.is_error and session, f"{label}: loadSkill everything gives a session handle", texts(loaded))
        elicit = {"session": session}

        # The SDK drives the rounds: its callbacks answer, the server's result quotes the answers.
        r = await c.call_tool("trigger-elicitation-request", elicit)
        check(len(host.elicited) == 1, f"{label}: the upstream's elicitation reached the host as an input request", texts(r))
        check(not r.is_error and NAME in texts(r), f"{label}: the host's answer reached the upstream", texts(r))
        sample = {"prompt": "What is six times seven?", "maxTokens": 20, "session": session}
        r = await c.call_tool("trigger-sampling-request", sample)
        check(len(host.sampled) == 1, f"{label}: the upstream's sampling request reached the host", texts(r))
        check("six times seven" in str(host.sampled[0].messages[0].content), f"{label}: it is the upstream's", host.sampled)
        check(not r.is_error and SAMPLED in texts(r), f"{label}: the host's completion reached the upstream", texts(r))

        # By hand: what a round says, and what a retry may bring.
        s = c.session
        name = "trigger-elicitation-request"
        first = await s.call_tool(name, elicit, allow_input_required=True)
        check(
            isinstance(first, types.InputRequiredResult)
            and list(first.input_requests or {}) == ["elicitation-1"]
            and first.input_requests["elicitation-1"].method == "elicitation/create"
            and (first.request_state or "").startswith("cr1."),
            f"{label}: a round names the upstream's request and a sealed requestState",
            first,
        )
        accept = types.ElicitResult(action="accept", content={"name": NAME, "check": True})

        async def refused(tool: str, state: str, responses: Any, what: str, says: str) -> None:
            try:
                got: Any = await s.call_tool(
                    tool, elicit, input_responses=responses, request_state=state, allow_input_required=True
                )
            except MCPError as e:
                got = e
            check(
                isinstance(got, MCPError) and got.code == -32602 and says in str(got),
                f"{label}: {what} is refused -32602 ({got})",
                got,
            )

        state = first.request_state
        await refused(name, state + "-TAMPERED", {"elicitation-1": accept}, "an altered requestState", "not one this server gave")
        await refused("echo", state, {"elicitation-1": accept}, "another tool's retry", "not `echo`")
        again = await s.call_tool(
            name, elicit, input_responses={"unrelated": accept}, request_state=state, allow_input_required=True
        )
        check(
            isinstance(again, types.InputRequiredResult)
            and list(again.input_requests or {}) == ["elicitation-1"]
            and again.request_state != state,
            f"{label}: a retry without the answer is asked again, under a new requestState",
            again,
        )
        await refused(name, state, {"elicitation-1": accept}, "a requestState already answered", "no call waits")
        done = await s.call_tool(name, elicit, input_responses={"elicitation-1": accept}, request_state=again.request_state)
        check(
            isinstance(done, types.CallToolResult) and not done.is_error and NAME in texts(done),
            f"{label}: the answer given by hand reaches the upstream",
            done,
        )

    # A host that declares neither capability: the server's request is refused, nothing hangs.
    async with Client(transport_again(label), read_timeout_seconds=TIMEOUT) as c:
        loaded = await c.call_tool("loadSkill", {"skillName": "everything"})
        started = time.monotonic()
        r = await c.call_tool("trigger-elicitation-request", {"session": loaded.structured_content["session"]})
        check(
            r.is_error and "elicitation" in texts(r) and NAME not in texts(r) and time.monotonic() - started < 20,
            f"{label}: without the host's `elicitation`, the upstream's request is refused at once",
            texts(r),
        )


# A resource of the everything server's.
WATCHED = "demo://resource/static/document/architecture.md"
RESOURCES_CHANGED = "notifications/resources/list_changed"
PROMPTS_CHANGED = "notifications/prompts/list_changed"
UPDATED = "notifications/resources/updated"


async def until(condition: Any, seconds: float = 8.0) -> None:
    """Waits until `condition()` holds, for at most `seconds` (the caller checks it)."""
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        await anyio.sleep(0.05)


async def subscriptions(c: Client, host: Host, watched: str, label: str) -> None:
    """Subscriptions and list changes, judged by `c` (which loaded the skill) and, over HTTP, by
    two more sessions of the same carnet."""
    async with contextlib.AsyncExitStack() as stack:
        bystanders: list[tuple[str, Host]] = []
        if label == "http":
            for loads in (True, False):
                other = Host()
                session = await stack.enter_async_context(
                    Client(transport_again(label), mode="legacy", read_timeout_seconds=TIMEOUT, message_handler=other.on_message)
                )
                if loads:
                    # It asks the server nothing: having it in reach is enough to be told.
                    await session.call_tool("loadSkill", {"skillName": "everything"})
                    # What the load announced is not what is judged here.
                    await until(lambda: other.count(RESOURCES_CHANGED))
                    other.notes.clear()
                bystanders.append(("a session that loaded the skill" if loads else "a session that did not", other))
        await c.subscribe_resource(watched)
        r = await c.call_tool("toggle-subscriber-updates", {})
        check(not r.is_error, f"{label}: toggle-subscriber-updates", texts(r))
        try:
            await until(lambda: host.count(UPDATED, watched))
            check(host.count(UPDATED, watched), f"{label}: the update of {watched} reached the subscribed host", host.notes)
            await c.unsubscribe_resource(watched)
            seen = host.count(UPDATED)
            # The server sends the next update 5 s after the first.
            await anyio.sleep(5.5)
            check(host.count(UPDATED) == seen, f"{label}: after resources/unsubscribe, no more updates", host.notes)
        finally:
            await c.call_tool("toggle-subscriber-updates", {})

        # A resource the server adds: its list change reaches the sessions that have it in reach.
        r = await c.call_tool(
            "gzip-file-as-resource",
            {"name": "relay.txt.gz", "data": "data:text/plain;base64,cmVsYXllZA==", "outputType": "resourceLink"},
        )
        check(not r.is_error, f"{label}: gzip-file-as-resource adds a resource upstream", texts(r))
        await until(lambda: host.count(RESOURCES_CHANGED) >= 2 and all(o.count(RESOURCES_CHANGED) for _, o in bystanders[:1]))
        check(host.count(RESOURCES_CHANGED) == 2, f"{label}: the server's resource list change reached the host", host.notes)
        listed = {str(resource.uri) for resource in (await c.list_resources(cache_mode="refresh")).resources}
        check(any("relay.txt.gz" in uri for uri in listed), f"{label}: the new resource is listed", sorted(listed))
        await anyio.sleep(0.5)
        for what, other in bystanders:
            updates, changes = other.count(UPDATED), other.count(RESOURCES_CHANGED)
            if what.startswith("a session that loaded"):
                check(
                    updates == 0 and changes == 1,
                    f"{label}: {what} and asked its server nothing got the list change and no update",
                    other.notes,
                )
            else:
                check(not other.notes, f"{label}: {what} received nothing of the server's", other.notes)


_transports: dict[str, Any] = {}


def transport_again(label: str) -> Any:
    return _transports[label]()


def stdio_transport(carnet: str, env: dict[str, str], errlog: Any, *mode: str) -> Any:
    params = StdioServerParameters(command=carnet, args=["--dir", str(CONTENT), "serve-mcp", AGENT, *mode], env=env)
    return stdio_client(params, errlog=errlog)


def start_http(carnet: str, env: dict[str, str], errlog: Any, *mode: str) -> tuple[subprocess.Popen[bytes], str]:
    proc = subprocess.Popen(
        [carnet, "--dir", str(CONTENT), "serve-mcp", AGENT, *mode, "--http", "127.0.0.1:0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=errlog,
        env=env,
    )
    assert proc.stdout is not None
    url = proc.stdout.readline().decode().strip()
    if not url.startswith("http://127.0.0.1:"):
        proc.kill()
        raise Failed(f"serve-mcp --http printed no endpoint: {url!r}")
    return proc, url


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--carnet", default=str(ROOT / "target" / "debug" / "carnet"))
    parser.add_argument("--only", choices=["stdio", "http", "stateless"])
    args = parser.parse_args()
    env = dict(os.environ)
    if not env.get("CARNET_TEST_EVERYTHING_SERVER"):
        print("FAIL: CARNET_TEST_EVERYTHING_SERVER is not set (tests/remote/run.sh sets it)", file=sys.stderr)
        return 2
    log = ROOT / "target" / "remote" / "relay.log"
    with open(log, "w") as errlog:

        async def over_stdio(label: str, run: Any, seconds: float, *mode: str) -> None:
            _transports[label] = lambda: stdio_transport(args.carnet, env, errlog, *mode)
            with anyio.fail_after(seconds):
                await run(transport_again(label), label)

        async def over_http(label: str, run: Any, seconds: float, *mode: str) -> None:
            proc, url = start_http(args.carnet, env, errlog, *mode)
            try:
                _transports[label] = lambda: url
                with anyio.fail_after(seconds):
                    await run(url, label)
            finally:
                proc.terminate()
                proc.wait(timeout=10)

        try:
            if args.only in (None, "stdio"):
                await over_stdio("stdio", scenario, 180)
            if args.only in (None, "http"):
                await over_http("http", scenario, 180)
            if args.only in (None, "stateless"):
                dispatcher = ("--mode", "dispatcher")
                await over_stdio("stateless stdio", stateless, 120, *dispatcher)
                await over_http("stateless http", stateless, 120, *dispatcher)
        except (Failed, TimeoutError) as e:
            print(f"FAIL {e}\n(carnet's and the servers' stderr: {log})", flush=True)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
