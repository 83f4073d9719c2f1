"""Replicas of the MCP server behind haproxy, driven by the official Python SDK.

Three `mcp-server --mode dispatcher --http` processes share one CARNET_SESSION_KEY behind
haproxy on loopback:

- `stateless`: round-robin, each request to the next replica. A 2026-07-28 client (mcp 2.3.0,
  mode="2026-07-28") runs a conversation whose state travels as the sealed `session` handle;
  haproxy's log shows its calls landing on different replicas; one replica is killed
  (SIGKILL) mid-conversation and the conversation goes on; restarted, it serves the same
  conversation again.
- `sticky`: a 2025-11-25 client (legacy sessions, held in one process) through a frontend that
  routes on `Mcp-Session-Id` (a stick table learnt from the `initialize` response): every
  request of the session lands on the replica that created it.
- The A2A agent card at /.well-known/agent-card.json, fetched through the balancer with the
  official a2a-sdk client (A2ACardResolver) and parsed strictly into its protobuf AgentCard.

Everything binds 127.0.0.1; ports are probed free; every process is killed on exit; the run
is bounded (REPLICAS_TIMEOUT, default 180 s, enforced by replicas.sh and here).

    python replicas.py --server target/debug/mcp-server [--haproxy haproxy]
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import httpx
from a2a.client import A2ACardResolver
from a2a.types.a2a_pb2 import AgentCard
from google.protobuf.json_format import ParseDict
from mcp import types
from mcp.client import Client

AGENT = "researcher"
DEADLINE = time.monotonic() + float(os.environ.get("REPLICAS_TIMEOUT", "180"))
PROCS: list[subprocess.Popen[bytes]] = []
PASSED = 0
FAILED = 0


def check(condition: Any, what: str, detail: str = "") -> None:
    global PASSED, FAILED
    if condition:
        PASSED += 1
        print(f"PASS {what}", flush=True)
    else:
        FAILED += 1
        print(f"FAIL {what}: {detail}", flush=True)
        raise SystemExit(f"FAIL {what}")


def _die_with_parent() -> None:
    """preexec_fn: SIGKILL this child when the test process dies, however it dies (Linux)."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what: str, probe, timeout: float = 20.0) -> None:
    end = min(time.monotonic() + timeout, DEADLINE)
    while time.monotonic() < end:
        try:
            if probe():
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise SystemExit(f"FAIL timed out waiting for {what}")


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.load(response)


class Replica:
    def __init__(self, binary: str, name: str, port: int, key: str, public_url: str):
        self.name, self.port = name, port
        self.args = [binary, "--agent", AGENT, "--mode", "dispatcher", "--http", f"127.0.0.1:{port}", "--public-url", public_url]
        self.env = dict(os.environ, CARNET_SESSION_KEY=key)
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(self.args, env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, preexec_fn=_die_with_parent)
        PROCS.append(self.proc)
        line = self.proc.stdout.readline().decode().strip() if self.proc.stdout else ""
        check(line == f"http://127.0.0.1:{self.port}/mcp", f"replica {self.name} listens on 127.0.0.1:{self.port}", line)

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)


HAPROXY_CFG = """
global
    log stdout format raw local0
    maxconn 512
    stats socket {sock} mode 600 level user

defaults
    mode http
    log global
    option httplog
    timeout connect 2s
    timeout client 30s
    timeout server 30s
    retries 3
    option redispatch 1

# 2026-07-28: no sessions, any replica; a request that cannot reach one goes to the next.
frontend stateless
    bind 127.0.0.1:{lb}
    default_backend replicas

backend replicas
    balance roundrobin
    option httpchk GET /.well-known/agent-card.json
    default-server inter 250ms fall 1 rise 1
{servers}

# 2025 revisions: a session lives in the replica that answered `initialize`; stick to it.
frontend sticky
    bind 127.0.0.1:{sticky}
    default_backend legacy

backend legacy
    balance roundrobin
    stick-table type string len 128 size 100k expire 30m
    stick match req.hdr(mcp-session-id)
    stick store-response res.hdr(mcp-session-id)
    option httpchk GET /.well-known/agent-card.json
    default-server inter 250ms fall 1 rise 1
{servers}
"""


class Haproxy:
    def __init__(self, binary: str, replicas: list[Replica], lb: int, sticky: int):
        servers = "\n".join(f"    server {r.name} 127.0.0.1:{r.port} check" for r in replicas)
        self.dir = tempfile.mkdtemp(prefix="carnet-haproxy-")
        self.cfg = Path(self.dir) / "haproxy.cfg"
        self.sock = Path(self.dir) / "admin.sock"
        self.cfg.write_text(HAPROXY_CFG.format(lb=lb, sticky=sticky, servers=servers, sock=self.sock))
        self.log = Path(self.dir) / "haproxy.log"
        self.log_file = open(self.log, "wb")
        self.proc = subprocess.Popen([binary, "-db", "-f", str(self.cfg)], stdin=subprocess.DEVNULL, stdout=self.log_file, stderr=subprocess.STDOUT, preexec_fn=_die_with_parent)
        PROCS.append(self.proc)

    def lines(self) -> list[str]:
        self.log_file.flush()
        return self.log.read_text(errors="replace").splitlines()

    def servers_of(self, backend: str, method: str = "POST", since: int = 0) -> list[str]:
        """The replica of each logged request of `backend` (httplog: `backend/server`)."""
        found = []
        for line in self.lines()[since:]:
            m = re.search(rf" {backend}/(\S+) .*\"{method} /mcp ", line)
            if m:
                found.append(m.group(1))
        return found


def value(result: types.CallToolResult) -> dict[str, Any]:
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


async def stateless_conversation(lb_url: str, replicas: list[Replica], proxy: Haproxy) -> None:
    start = len(proxy.lines())
    async with Client(lb_url, mode="2026-07-28", read_timeout_seconds=20) as c:
        check(c.protocol_version == "2026-07-28", "the client speaks 2026-07-28 through the balancer", str(c.protocol_version))
        first = await c.list_tools()
        again = await c.list_tools()
        names = [t.name for t in first.tools]
        check("callTool" in names and "loadSkill" in names, "tools/list: meta-tools and callTool", str(names))
        check(
            all("session" in (t.input_schema.get("properties") or {}) for t in first.tools),
            "every tool takes the optional `session` argument",
        )
        check([t.model_dump() for t in first.tools] == [t.model_dump() for t in again.tools], "tools/list is the same on every request")

        r = await c.call_tool("callTool", {"name": "analyzeStatistics", "arguments": {"dataset": "monthly_sales", "column": "units"}})
        check(r.is_error and "dataAnalysis" in value(r).get("error", ""), "without a handle, a tool of an unloaded skill is refused", str(value(r)))

        r = await c.call_tool("loadSkill", {"skillName": "dataAnalysis"})
        handle = value(r).get("session")
        check(not r.is_error and isinstance(handle, str) and handle.startswith("cs1."), "loadSkill returns the sealed session handle", str(value(r))[:300])
        check(len(handle) < 1024, f"the handle is small ({len(handle)} bytes)")

        async def stats(handle: str, what: str) -> None:
            r = await c.call_tool(
                "callTool",
                {"name": "analyzeStatistics", "arguments": {"dataset": "monthly_sales", "column": "units"}, "session": handle},
            )
            body = value(r)
            check(not r.is_error and "mean" in json.dumps(body), what, json.dumps(body)[:300])

        for i in range(4):
            await stats(handle, f"analyzeStatistics with the handle, call {i + 1}")
        r = await c.call_tool("loadSkill", {"skillName": "unitConversion", "session": handle})
        handle = value(r).get("session", "")
        check(not r.is_error and handle.startswith("cs1."), "loadSkill unitConversion continues the conversation and returns a new handle")
        r = await c.call_tool("callTool", {"name": "convertUnits", "arguments": {"value": 1, "from": "km", "to": "m"}, "session": handle})
        check(not r.is_error, "convertUnits with the new handle", json.dumps(value(r))[:300])

        before = proxy.servers_of("replicas", since=start)
        check(len(set(before)) == 3, f"the calls landed on all three replicas: {before}")

        # One replica dies mid-conversation; the balancer notices, the others go on.
        victim = replicas[1]
        victim.kill()
        killed_at = len(proxy.lines())
        for i in range(6):
            await stats(handle, f"after killing {victim.name}: analyzeStatistics, call {i + 1}")
        after = proxy.servers_of("replicas", since=killed_at)
        check(victim.name not in after and len(set(after)) == 2, f"after the kill the two others serve it: {after}")

        # Restarted with the same key, it serves the same conversation: nothing was lost.
        victim.start()
        wait_for(f"haproxy to see {victim.name} up again", lambda: victim.name in up_servers(proxy), 15)
        back_at = len(proxy.lines())
        for i in range(6):
            await stats(handle, f"after restarting {victim.name}: analyzeStatistics, call {i + 1}")
        check(victim.name in proxy.servers_of("replicas", since=back_at), f"the restarted {victim.name} serves the conversation again")

        forged = handle[:-4] + ("AAAA" if not handle.endswith("AAAA") else "BBBB")
        r = await c.call_tool("callTool", {"name": "convertUnits", "arguments": {"value": 1, "from": "km", "to": "m"}, "session": forged})
        check(r.is_error and value(r).get("code") == "session_forged", "a forged handle is refused on any replica", json.dumps(value(r))[:300])


def up_servers(proxy: Haproxy) -> set[str]:
    """Servers of the `replicas` backend haproxy's health checks find UP (its stats socket)."""
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(2)
        s.connect(str(proxy.sock))
        s.sendall(b"show stat\n")
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    up = set()
    lines = data.decode(errors="replace").splitlines()
    header = lines[0].lstrip("# ").split(",") if lines else []
    status = header.index("status") if "status" in header else 17
    for line in lines[1:]:
        fields = line.split(",")
        if len(fields) > status and fields[0] == "replicas" and fields[1] not in ("FRONTEND", "BACKEND") and fields[status].startswith("UP"):
            up.add(fields[1])
    return up


async def sticky_conversation(sticky_url: str, proxy: Haproxy) -> None:
    start = len(proxy.lines())
    async with Client(sticky_url, mode="legacy", read_timeout_seconds=20) as c:
        check(c.protocol_version == "2025-11-25", "a 2025-11-25 client opens a session through the sticky frontend", str(c.protocol_version))
        r = await c.call_tool("loadSkill", {"skillName": "dataAnalysis"})
        check(not r.is_error, "legacy: loadSkill (held in the replica's memory)")
        for i in range(5):
            r = await c.call_tool("callTool", {"name": "analyzeStatistics", "arguments": {"dataset": "monthly_sales", "column": "revenue"}})
            check(not r.is_error, f"legacy: analyzeStatistics without a handle, call {i + 1}", json.dumps(value(r))[:300])
    served = proxy.servers_of("legacy", since=start)
    check(len(served) >= 7 and len(set(served)) == 1, f"every request of the session went to one replica: {served}")


async def agent_card(lb_base: str, lb_url: str) -> None:
    async with httpx.AsyncClient(timeout=10) as http:
        card = await A2ACardResolver(http, lb_base).get_agent_card()
    check(isinstance(card, AgentCard) and card.name == AGENT, "a2a-sdk resolves the agent card through the balancer", str(card)[:300])
    check(card.supported_interfaces[0].url == lb_url, "the card names the balancer's endpoint", card.supported_interfaces[0].url)
    ids = [s.id for s in card.skills]
    check("dataAnalysis" in ids and all(s.description for s in card.skills), f"the card lists the agent's skills: {ids}")
    raw = get_json(lb_base + "/.well-known/agent-card.json")
    ParseDict(raw, AgentCard())  # strict: every field is one A2A 1.0 knows
    check(True, "the card parses strictly as an A2A 1.0 AgentCard (no unknown field)")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--haproxy", default="haproxy")
    args = parser.parse_args()
    key = secrets.token_urlsafe(32)
    lb, sticky = free_port(), free_port()
    lb_base, lb_url = f"http://127.0.0.1:{lb}", f"http://127.0.0.1:{lb}/mcp"
    replicas = [Replica(args.server, f"r{i}", free_port(), key, lb_url) for i in (1, 2, 3)]
    try:
        for r in replicas:
            r.start()
        proxy = Haproxy(args.haproxy, replicas, lb, sticky)
        wait_for("haproxy to see three replicas up", lambda: up_servers(proxy) == {"r1", "r2", "r3"})
        check(True, "haproxy balances three replicas")
        asyncio.run(asyncio.wait_for(stateless_conversation(lb_url, replicas, proxy), timeout=max(10, DEADLINE - time.monotonic())))
        asyncio.run(asyncio.wait_for(sticky_conversation(f"http://127.0.0.1:{sticky}/mcp", proxy), timeout=max(10, DEADLINE - time.monotonic())))
        asyncio.run(asyncio.wait_for(agent_card(lb_base, lb_url), timeout=30))
    except SystemExit as e:
        print(e, file=sys.stderr)
        return 1
    finally:
        for p in PROCS:
            if p.poll() is None:
                p.kill()
                p.wait(timeout=10)
    print(f"{PASSED} passed, {FAILED} failed")
    return 0 if FAILED == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
