#!/usr/bin/env python3
"""Figures for `carnet serve-mcp` as a gateway to remote toolsets (issue 25, item 8).

Run with target/remote/venv/bin/python after tests/remote/setup.sh (bench/gateway/run.sh does
both):

    bench.py --carnet PATH [--calls N] [--batch N] [--cold N] [--mem-reps N] [--json FILE]

One client for every arm: the official MCP Python SDK (stdio_client + ClientSession), the
same process, the same event loop. The arms are interleaved so that machine noise hits both.

1. Added latency per call. N calls (--calls, default 2000) of a tool (a) straight to the
   upstream server over stdio, (b) through `carnet --dir tests/remote/desk serve-mcp desk`
   after `loadSkill`, one warm-up call each, then batches of --batch calls (default 100)
   alternating between the arms (the first arm of each batch alternates too). Two pairs:
   the time server's `get_current_time {"timezone": "UTC"}`, and the filesystem server's
   `read_text_file` on a small file (--file-bytes, default 1024), a content-carrying result.
   Reported per arm: p50, p90, p99, mean (µs), and gateway minus direct. Also carnet's own CPU
   time (utime + stime from /proc/PID/stat) per gateway call.
2. Cold start (--cold runs, default 10, alternating arms). Gateway: a fresh serve-mcp is
   started and initialized (not timed, reported apart as "carnet start"), then the time from
   sending `loadSkill clock` to the result of the first `get_current_time`; the upstream server
   must start in between. Direct: the time from spawning time-server to the result of its
   first `get_current_time` (spawn, initialize, call), with the same SDK client.
3. Idle memory (--mem-reps, default 3, interleaved). A generated content directory: one agent,
   twenty skills, twenty remote toolsets, each toolset running target/remote/bin/time-server
   with a pin copied from tests/remote/desk/toolsets/time (tools renamed `NAME_NN` and the
   digest recomputed: twenty toolsets offering the same tool names in one agent is E0010).
   serve-mcp over it: initialize, tools/list, then VmRSS and VmHWM of the carnet process and
   its child processes (must be none: no upstream started). Beside it the same over
   tests/remote/desk with nothing loaded, and a bare time-server (and fs-server) after
   initialize + tools/list: a floor.

Every upstream goes through its wrapper with CARNET_TEST_MARKERS set to a directory of its
own, so the bench knows which upstream servers started (and checks that none outlives carnet).
Every process the bench starts is killed when it ends, also on error or Ctrl-C (the bench is
a child subreaper, so orphans come back to it). Exit status: 0, 1 on a failure, 2 on a usage
or setup error.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import datetime
import faulthandler
import hashlib
import json
import math
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, AsyncIterator

ROOT = Path(__file__).resolve().parents[2]
REMOTE = Path(os.environ.get("CARNET_REMOTE_DIR") or ROOT / "target" / "remote")
BIN = REMOTE / "bin"
DESK_CONTENT = ROOT / "tests" / "remote" / "desk"
TIME_PIN = DESK_CONTENT / "toolsets" / "time" / "mcp.lock.json"
AGENT = "desk"
REQUEST_TIMEOUT = 30.0  # seconds, one request
SIGNATURES = {"fs": b"server-filesystem", "time": b"mcp_server_time"}  # in /proc/PID/cmdline

try:
    import anyio
    import mcp_types as types
    from mcp import StdioServerParameters
    from mcp.client.session import ClientSession
    from mcp.client.stdio import stdio_client
except ImportError as e:  # pragma: no cover - setup problem
    print(
        f"bench: cannot import the MCP Python SDK ({e}).\n"
        f"  run `bash tests/remote/setup.sh`, then this script with {REMOTE / 'venv' / 'bin' / 'python'}\n"
        "  (bench/gateway/run.sh does both)",
        file=sys.stderr,
    )
    sys.exit(2)


class Failed(Exception):
    pass


def check(cond: Any, what: str, detail: Any = "") -> None:
    if not cond:
        text = repr(detail)
        if len(text) > 600:
            text = text[:600] + f"... ({len(text)} chars)"
        raise Failed(what + (f"\n    got: {text}" if detail != "" else ""))


# --------------------------------------------------------------------------------------------
# Processes: find, measure, kill


def proc_stat(pid: int) -> tuple[str, int, int, int] | None:
    """(state, ppid, utime, stime) of PID, or None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return fields[0], int(fields[1]), int(fields[11]), int(fields[12])


def all_procs() -> dict[int, tuple[str, int]]:
    """pid -> (state, ppid) for every process."""
    out = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            st = proc_stat(int(entry))
            if st:
                out[int(entry)] = (st[0], st[1])
    return out


def children_of(pid: int, procs: dict[int, tuple[str, int]] | None = None, live_only: bool = True) -> list[int]:
    procs = all_procs() if procs is None else procs
    return sorted(p for p, (state, ppid) in procs.items() if ppid == pid and not (live_only and state in "ZX"))


def descendants_of(pid: int, live_only: bool = False) -> list[int]:
    procs = all_procs()
    found, todo = [], [pid]
    while todo:
        kids = children_of(todo.pop(), procs, live_only=False)
        found += kids
        todo += kids
    return [p for p in found if not (live_only and procs[p][0] in "ZX")]


def alive(pid: int, signature: bytes | None = None) -> bool:
    st = proc_stat(pid)
    if not st or st[0] in "ZX":
        return False
    if signature is None:
        return True
    try:
        return signature in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def vm_status(pid: int) -> dict[str, float]:
    """VmRSS and VmHWM of PID in MiB."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
            out[key] = int(value.split()[0]) / 1024.0  # kB -> MiB
    return out


def cpu_ticks(pid: int) -> int:
    st = proc_stat(pid)
    return (st[2] + st[3]) if st else 0


CLK_TCK = os.sysconf("SC_CLK_TCK")


def kill_everything_we_started() -> int:
    """SIGKILL every descendant of this process, then reap. Returns how many were alive."""
    first = descendants_of(os.getpid(), live_only=True)
    for _ in range(5):
        left = descendants_of(os.getpid(), live_only=True)
        if not left:
            break
        for pid in left:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.05)
    return len(first)


def reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def become_subreaper() -> None:
    """Orphaned descendants (an upstream whose carnet died) are reparented to us: we find and
    kill them at the end."""
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER


# --------------------------------------------------------------------------------------------
# Sessions


class Env:
    """Temp directory: desk (the file the fs server reads), per-session markers and logs."""

    def __init__(self, file_bytes: int, keep: bool) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="carnet-bench-gateway-"))
        self.keep = keep
        self.desk = self.tmp / "desk"
        self.desk.mkdir()
        line = "The quick brown fox jumps over the lazy dog, 0123456789.\n"
        text = (line * (file_bytes // len(line) + 1))[:file_bytes]
        self.file_text = text
        self.file = self.desk / "small.txt"
        self.file.write_text(text)
        self.log = self.tmp / "stderr.log"
        self.counter = 0
        self.orphans: list[str] = []

    def markers(self) -> Path:
        self.counter += 1
        path = self.tmp / "markers" / f"{self.counter:04d}"
        path.mkdir(parents=True)
        return path

    def env(self, markers: Path) -> dict[str, str]:
        return {
            **os.environ,
            "CARNET_TEST_FS_SERVER": str(BIN / "fs-server"),
            "CARNET_TEST_TIME_SERVER": str(BIN / "time-server"),
            "CARNET_TEST_DESK": str(self.desk),
            "CARNET_TEST_MARKERS": str(markers),
            "NO_COLOR": "1",
        }

    def stderr_tail(self, lines: int = 25) -> str:
        try:
            text = self.log.read_text(errors="replace").splitlines()
        except OSError:
            return "    | (no stderr)"
        return "\n".join("    | " + line for line in text[-lines:]) or "    | (empty)"

    def cleanup(self) -> None:
        if not self.keep:
            shutil.rmtree(self.tmp, ignore_errors=True)


def marker_pids(markers: Path) -> dict[str, list[int]]:
    out = {}
    for name in SIGNATURES:
        path = markers / f"{name}.pid"
        if path.exists():
            out[name] = [int(p) for p in path.read_text().split()]
    return out


class Proc:
    """A server process under a ClientSession: its PID and its markers directory."""

    def __init__(self, session: ClientSession, pid: int, markers: Path, label: str) -> None:
        self.s = session
        self.pid = pid
        self.markers = markers
        self.label = label

    def upstreams(self) -> dict[str, list[int]]:
        return marker_pids(self.markers)


@contextlib.asynccontextmanager
async def open_session(env: Env, argv: list[str], label: str) -> AsyncIterator[Proc]:
    """Spawns argv under stdio_client and a ClientSession (not initialized). After it closes,
    any upstream server it started and that still runs is killed and recorded as an orphan."""
    markers = env.markers()
    before = set(children_of(os.getpid()))
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env.env(markers))
    with open(env.log, "a") as errlog:
        errlog.write(f"--- {label}: {' '.join(argv)}\n")
        errlog.flush()
        async with stdio_client(params, errlog=errlog) as (read, write):
            new = [p for p in children_of(os.getpid()) if p not in before]
            check(len(new) == 1, f"{label}: one new child process after spawning {argv[0]}", new)
            async with ClientSession(read, write, read_timeout_seconds=REQUEST_TIMEOUT) as s:
                yield Proc(s, new[0], markers, label)
    # the server has exited (or was killed by the SDK): nothing it started may still run
    deadline = time.monotonic() + 3.0
    while True:
        left = [(n, p) for n, pids in marker_pids(markers).items() for p in pids if alive(p, SIGNATURES[n])]
        if not left or time.monotonic() > deadline:
            break
        await anyio.sleep(0.05)
    for name, pid in left:
        env.orphans.append(f"{label}: {name} server {pid} outlived its parent")
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def carnet_argv(carnet: str, content: Path, agent: str) -> list[str]:
    return [carnet, "--dir", str(content), "serve-mcp", agent]


async def call(s: ClientSession, name: str, args: dict[str, Any], what: str) -> types.CallToolResult:
    r = await s.call_tool(name, args)
    check(isinstance(r, types.CallToolResult), f"{what}: {name} returns a CallToolResult", r)
    check(not r.is_error, f"{what}: {name} is not an error result", r)
    return r


def texts(r: types.CallToolResult) -> str:
    return "\n".join(c.text for c in r.content if isinstance(c, types.TextContent))


async def list_tools(s: ClientSession) -> list[str]:
    names: list[str] = []
    cursor = None
    for _ in range(100):
        page = await s.list_tools(params=types.PaginatedRequestParams(cursor=cursor) if cursor else None)
        names += [t.name for t in page.tools]
        cursor = page.next_cursor
        if not cursor:
            return names
    raise Failed("tools/list: more than 100 pages")


# --------------------------------------------------------------------------------------------
# Statistics


def pct(sorted_xs: list[float], q: float) -> float:
    """Percentile q (0..100), linear interpolation between closest ranks."""
    if not sorted_xs:
        return math.nan
    k = (len(sorted_xs) - 1) * q / 100.0
    lo, hi = math.floor(k), math.ceil(k)
    return sorted_xs[lo] + (sorted_xs[hi] - sorted_xs[lo]) * (k - lo)


def summary(xs: list[float]) -> dict[str, float]:
    s = sorted(xs)
    return {
        "n": len(s),
        "p50": pct(s, 50),
        "p90": pct(s, 90),
        "p99": pct(s, 99),
        "mean": statistics.fmean(s) if s else math.nan,
        "min": s[0] if s else math.nan,
        "max": s[-1] if s else math.nan,
        "stdev": statistics.stdev(s) if len(s) > 1 else 0.0,
    }


# --------------------------------------------------------------------------------------------
# 1. Added latency per call


async def latency_pair(
    opts: argparse.Namespace,
    env: Env,
    key: str,
    direct_argv: list[str],
    skill: str,
    tool: str,
    args: dict[str, Any],
    validate: Any,
) -> dict[str, Any]:
    async with contextlib.AsyncExitStack() as stack:
        d = await stack.enter_async_context(open_session(env, direct_argv, f"{key} direct"))
        g = await stack.enter_async_context(
            open_session(env, carnet_argv(opts.carnet, DESK_CONTENT, AGENT), f"{key} gateway")
        )
        await d.s.initialize()
        await g.s.initialize()
        await call(g.s, "loadSkill", {"skillName": skill}, f"{key} gateway")
        for p in (d, g):  # warm-up, and the result is what we expect
            validate(await call(p.s, tool, args, f"{p.label} warm-up"), p.label)
        check(len(g.upstreams().get(skill_server(skill), [])) == 1, f"{key}: carnet started one upstream", g.upstreams())

        samples: dict[str, list[float]] = {"direct": [], "gateway": []}
        arms = {"direct": d, "gateway": g}
        cpu0 = cpu_ticks(g.pid)
        done, batch_no = 0, 0
        while done < opts.calls:
            n = min(opts.batch, opts.calls - done)
            order = ["direct", "gateway"] if batch_no % 2 == 0 else ["gateway", "direct"]
            for arm in order:
                s, out = arms[arm].s, samples[arm]
                for _ in range(n):
                    t0 = time.perf_counter_ns()
                    r = await s.call_tool(tool, args)
                    t1 = time.perf_counter_ns()
                    if not isinstance(r, types.CallToolResult) or r.is_error:
                        raise Failed(f"{key} {arm}: call {len(out) + 1} failed: {r!r}"[:800])
                    out.append((t1 - t0) / 1000.0)  # µs
            done += n
            batch_no += 1
        cpu1 = cpu_ticks(g.pid)
        validate(r, f"{key} last")
        check(g.upstreams() == {skill_server(skill): g.upstreams()[skill_server(skill)]}, f"{key}: no other upstream started", g.upstreams())
        check(len(children_of(g.pid)) == 1, f"{key}: carnet has one child (the upstream)", children_of(g.pid))

    res = {"direct": summary(samples["direct"]), "gateway": summary(samples["gateway"])}
    res["added"] = {q: res["gateway"][q] - res["direct"][q] for q in ("p50", "p90", "p99", "mean")}
    res["carnet_cpu_us_per_call"] = (cpu1 - cpu0) / CLK_TCK * 1e6 / max(1, len(samples["gateway"]))
    res["tool"] = tool
    res["arguments"] = args
    res["batches"] = batch_no
    return res


def skill_server(skill: str) -> str:
    return {"clock": "time", "files": "fs"}[skill]


def validate_time(r: types.CallToolResult, what: str) -> None:
    sc = r.structured_content or {}
    check(sc.get("timezone") == "UTC" and "datetime" in sc, f"{what}: get_current_time gives a UTC time", r)


def make_validate_file(env: Env) -> Any:
    def validate(r: types.CallToolResult, what: str) -> None:
        check(texts(r) == env.file_text or env.file_text.strip() in texts(r), f"{what}: read_text_file gives the file's text", r)

    return validate


# --------------------------------------------------------------------------------------------
# 2. Cold start


async def cold_gateway(opts: argparse.Namespace, env: Env) -> dict[str, float]:
    t_spawn = time.perf_counter()
    async with open_session(env, carnet_argv(opts.carnet, DESK_CONTENT, AGENT), "cold gateway") as g:
        await g.s.initialize()
        t_ready = time.perf_counter()
        check(not g.upstreams(), "cold gateway: no upstream before loadSkill", g.upstreams())
        t0 = time.perf_counter()
        await call(g.s, "loadSkill", {"skillName": "clock"}, "cold gateway")
        t_loaded = time.perf_counter()
        r = await call(g.s, "get_current_time", {"timezone": "UTC"}, "cold gateway")
        t1 = time.perf_counter()
        validate_time(r, "cold gateway")
        check(len(g.upstreams().get("time", [])) == 1, "cold gateway: one time server started", g.upstreams())
    return {
        "first_result_ms": (t1 - t0) * 1e3,
        "load_skill_ms": (t_loaded - t0) * 1e3,
        "carnet_start_ms": (t_ready - t_spawn) * 1e3,
    }


async def cold_direct(opts: argparse.Namespace, env: Env) -> dict[str, float]:
    t0 = time.perf_counter()
    async with open_session(env, [str(BIN / "time-server")], "cold direct") as d:
        await d.s.initialize()
        t_ready = time.perf_counter()
        r = await call(d.s, "get_current_time", {"timezone": "UTC"}, "cold direct")
        t1 = time.perf_counter()
        validate_time(r, "cold direct")
    return {"first_result_ms": (t1 - t0) * 1e3, "initialize_ms": (t_ready - t0) * 1e3}


async def cold_start(opts: argparse.Namespace, env: Env) -> dict[str, Any]:
    runs: dict[str, list[dict[str, float]]] = {"gateway": [], "direct": []}
    for i in range(opts.cold):
        order = ["gateway", "direct"] if i % 2 == 0 else ["direct", "gateway"]
        for arm in order:
            runs[arm].append(await (cold_gateway if arm == "gateway" else cold_direct)(opts, env))

    def col(arm: str, key: str) -> dict[str, float]:
        return summary([r[key] for r in runs[arm]])

    g, d = col("gateway", "first_result_ms"), col("direct", "first_result_ms")
    return {
        "runs": opts.cold,
        "gateway_load_to_first_result_ms": g,
        "gateway_load_skill_ms": col("gateway", "load_skill_ms"),
        "gateway_carnet_start_ms": col("gateway", "carnet_start_ms"),
        "direct_spawn_to_first_result_ms": d,
        "direct_initialize_ms": col("direct", "initialize_ms"),
        "gateway_share_p50_ms": g["p50"] - d["p50"],
        "gateway_share_max_ms": g["max"] - d["max"],
        "raw": runs,
    }


# --------------------------------------------------------------------------------------------
# 3. Idle memory


def make_twenty(root: Path, count: int) -> Path:
    """One agent `idle`, skills sNN, remote toolsets tNN running time-server; valid pins."""
    content = root / "twenty"
    pin = json.loads(TIME_PIN.read_text())
    (content / "agents" / "idle").mkdir(parents=True)
    ids = [f"{i:02d}" for i in range(1, count + 1)]
    (content / "agents" / "idle" / "AGENT.md").write_text(
        "---\nname: idle\ndescription: An agent with twenty remote toolsets, none loaded\n"
        f"skills: [{', '.join('s' + i for i in ids)}]\n---\nLoad a skill before using its tools.\n"
    )
    for i in ids:
        (content / "skills" / f"s{i}").mkdir(parents=True)
        (content / "skills" / f"s{i}" / "SKILL.md").write_text(
            f"---\nname: s{i}\ndescription: Tell the time, copy {i}.\ntoolsets: [t{i}]\n---\nUse IANA names.\n"
        )
        ts = content / "toolsets" / f"t{i}"
        ts.mkdir(parents=True)
        ts.joinpath("TOOLSET.md").write_text(
            f"---\nname: t{i}\ndescription: The time server, copy {i}\nmcp:\n"
            f"  command: {json.dumps(str(BIN / 'time-server'))}\n---\nThe official MCP time server.\n"
        )
        tools = json.loads(json.dumps(pin["tools"]))
        for t in tools:  # one agent may not reach two tools of the same name (E0010)
            t["name"] = f"{t['name']}_{i}"
        tools.sort(key=lambda t: t["name"])
        copy = {k: v for k, v in pin.items() if k != "digest"}
        copy["tools"] = tools
        # The digest covers the whole pin but `digest`, as compact JSON with sorted keys.
        compact = json.dumps(copy, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        copy["digest"] = "sha256:" + hashlib.sha256(compact.encode()).hexdigest()
        ts.joinpath("mcp.lock.json").write_text(json.dumps(copy, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    return content


async def idle_memory_one(env: Env, argv: list[str], label: str, expect_tools: Any) -> dict[str, Any]:
    async with open_session(env, argv, label) as p:
        await p.s.initialize()
        names = await list_tools(p.s)
        expect_tools(names)
        await anyio.sleep(0.3)  # let anything started in the background settle
        vm = vm_status(p.pid)
        kids = children_of(p.pid)
        ups = p.upstreams()
    return {**vm, "children": len(kids), "upstreams_started": sum(len(v) for v in ups.values()), "tools_listed": len(names)}


async def idle_memory(opts: argparse.Namespace, env: Env) -> dict[str, Any]:
    twenty = make_twenty(env.tmp, opts.toolsets)
    chk = subprocess.run(
        [opts.carnet, "--dir", str(twenty), "--color", "never", "check"], capture_output=True, text=True, timeout=120
    )
    check(chk.returncode == 0, f"`carnet check` accepts the generated {opts.toolsets}-toolset directory {twenty}", chk.stdout + chk.stderr)

    def meta_only(label: str) -> Any:
        def expect(names: list[str]) -> None:
            check("loadSkill" in names, f"{label}: tools/list has loadSkill", names)
            check(not any(n.startswith(("get_current_time", "convert_time", "read_")) for n in names),
                  f"{label}: no remote tool listed before loadSkill", names)
        return expect

    def any_tools(label: str) -> Any:
        return lambda names: check(names, f"{label}: tools/list is not empty", names)

    arms = [
        ("twenty", carnet_argv(opts.carnet, twenty, "idle"), meta_only(f"serve-mcp over {opts.toolsets} remote toolsets")),
        ("desk", carnet_argv(opts.carnet, DESK_CONTENT, AGENT), meta_only("serve-mcp over tests/remote/desk")),
        ("time_server", [str(BIN / "time-server")], any_tools("time-server")),
        ("fs_server", [str(BIN / "fs-server"), str(env.desk)], any_tools("fs-server")),
    ]
    reps: dict[str, list[dict[str, Any]]] = {k: [] for k, _, _ in arms}
    for rep in range(opts.mem_reps):
        order = arms if rep % 2 == 0 else list(reversed(arms))
        for key, argv, expect in order:
            reps[key].append(await idle_memory_one(env, argv, f"memory {key}", expect))
    for key in ("twenty", "desk"):
        for r in reps[key]:
            check(r["children"] == 0 and r["upstreams_started"] == 0, f"memory {key}: carnet started no upstream server", r)
    out: dict[str, Any] = {"toolsets": opts.toolsets, "reps": opts.mem_reps}
    for key in reps:
        out[key] = {
            "VmRSS_MiB": statistics.median(r["VmRSS"] for r in reps[key]),
            "VmHWM_MiB": statistics.median(r["VmHWM"] for r in reps[key]),
            "children_max": max(r["children"] for r in reps[key]),
            "upstreams_started": sum(r["upstreams_started"] for r in reps[key]),
            "tools_listed": reps[key][0]["tools_listed"],
            "raw": reps[key],
        }
    return out


# --------------------------------------------------------------------------------------------
# Report


def machine(opts: argparse.Namespace) -> dict[str, Any]:
    cpu = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    git = {}
    with contextlib.suppress(Exception):
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10)
        git = {"commit": head.stdout.strip(), "dirty": bool(dirty.stdout.strip())}
    version = ""
    with contextlib.suppress(Exception):
        version = subprocess.run([opts.carnet, "--version"], capture_output=True, text=True, timeout=10).stdout.strip()
    from importlib.metadata import version as pkg_version

    binary = Path(opts.carnet)
    return {
        "nproc": len(os.sched_getaffinity(0)),
        "cpu_count": os.cpu_count(),
        "cpu_model": cpu,
        "loadavg_start": os.getloadavg(),
        "kernel": platform.release(),
        "python": platform.python_version(),
        "mcp_sdk": pkg_version("mcp"),
        "carnet": str(binary),
        "carnet_version": version,
        "carnet_mtime": datetime.datetime.fromtimestamp(binary.stat().st_mtime, datetime.timezone.utc).isoformat(),
        "debug_build": "target/debug" in str(binary),
        "git": git,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }


def print_report(res: dict[str, Any]) -> None:
    m = res["machine"]
    print()
    print("carnet serve-mcp as a gateway: figures")
    print(f"  carnet   {m['carnet']} ({m['carnet_version']}){'  DEBUG BUILD: not the figures to report' if m['debug_build'] else ''}")
    print(f"  machine  {m['nproc']} CPUs, {m['cpu_model']}, Linux {m['kernel']}, load {m['loadavg_start'][0]:.2f} at start, "
          f"{m['loadavg_end'][0]:.2f} at end")
    print(f"  client   MCP Python SDK {m['mcp_sdk']} (stdio_client + ClientSession), Python {m['python']}")
    if "latency" in res:
        lat = res["latency"]
        first = next(iter(lat.values()))
        print()
        print(f"1. Latency per call, µs ({first['direct']['n']} calls per arm, batches of {res['options']['batch']} alternating)")
        print(f"   {'':44} {'p50':>8} {'p90':>8} {'p99':>8} {'mean':>8}")
        for key, r in lat.items():
            title = {"time": "time get_current_time {timezone: UTC}",
                     "fs": f"filesystem read_text_file ({res['options']['file_bytes']} B)"}[key]
            print(f"   {title}")
            for arm in ("direct", "gateway", "added"):
                row = r[arm]
                name = {"direct": "direct (stdio)", "gateway": "through carnet", "added": "added (gateway - direct)"}[arm]
                print(f"     {name:42} {row['p50']:8.0f} {row['p90']:8.0f} {row['p99']:8.0f} {row['mean']:8.0f}")
            print(f"     {'carnet CPU per gateway call':42} {r['carnet_cpu_us_per_call']:8.0f}")
        print("   goal (issue 25): under 1000 µs added at p50 over stdio")
    if "cold" in res:
        c = res["cold"]
        print()
        print(f"2. Cold start, ms ({c['runs']} runs per arm, alternating)")
        print(f"   {'':58} {'p50':>8} {'max':>8}")
        rows = [
            ("gateway: loadSkill sent -> first get_current_time result", c["gateway_load_to_first_result_ms"]),
            ("  of which loadSkill's own answer", c["gateway_load_skill_ms"]),
            ("direct: spawn time-server -> first result (SDK)", c["direct_spawn_to_first_result_ms"]),
            ("  of which spawn + initialize", c["direct_initialize_ms"]),
            ("carnet's own start: spawn serve-mcp -> initialized", c["gateway_carnet_start_ms"]),
        ]
        for name, s in rows:
            print(f"   {name:58} {s['p50']:8.1f} {s['max']:8.1f}")
        print(f"   {'gateway share (gateway - direct)':58} {c['gateway_share_p50_ms']:8.1f} {c['gateway_share_max_ms']:8.1f}")
    if "memory" in res:
        mem = res["memory"]
        print()
        print(f"3. Idle memory, MiB (after initialize + tools/list; median of {mem['reps']})")
        print(f"   {'':46} {'VmRSS':>8} {'VmHWM':>8} {'children':>9} {'tools':>6}")
        rows = [
            (f"serve-mcp, {mem['toolsets']} remote toolsets, none loaded", mem["twenty"]),
            ("serve-mcp, tests/remote/desk, none loaded", mem["desk"]),
            ("bare time-server (Python) floor", mem["time_server"]),
            ("bare fs-server (Node)", mem["fs_server"]),
        ]
        for name, r in rows:
            print(f"   {name:46} {r['VmRSS_MiB']:8.1f} {r['VmHWM_MiB']:8.1f} {r['children_max']:9d} {r['tools_listed']:6d}")
    if res.get("orphans"):
        print()
        print("upstream servers that outlived carnet (killed):")
        for o in res["orphans"]:
            print(f"   {o}")
    print()
    print(f"total {res['seconds']:.1f} s")


# --------------------------------------------------------------------------------------------


async def run(opts: argparse.Namespace, env: Env, res: dict[str, Any]) -> None:
    parts = opts.only or ["latency", "cold", "memory"]
    if "latency" in parts:
        res["latency"] = {}
        print(f"bench: latency, time server ({opts.calls} calls per arm)...", file=sys.stderr, flush=True)
        res["latency"]["time"] = await latency_pair(
            opts, env, "time", [str(BIN / "time-server")], "clock", "get_current_time", {"timezone": "UTC"}, validate_time
        )
        print(f"bench: latency, filesystem server ({opts.calls} calls per arm)...", file=sys.stderr, flush=True)
        res["latency"]["fs"] = await latency_pair(
            opts, env, "fs", [str(BIN / "fs-server"), str(env.desk)], "files", "read_text_file",
            {"path": str(env.file)}, make_validate_file(env)
        )
    if "cold" in parts:
        print(f"bench: cold start ({opts.cold} runs per arm)...", file=sys.stderr, flush=True)
        res["cold"] = await cold_start(opts, env)
    if "memory" in parts:
        print(f"bench: idle memory ({opts.mem_reps} reps)...", file=sys.stderr, flush=True)
        res["memory"] = await idle_memory(opts, env)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--carnet", default=os.environ.get("CARNET_BIN"), help="the carnet binary (default $CARNET_BIN, "
                    "else target/release/carnet, else target/debug/carnet)")
    ap.add_argument("--calls", type=int, default=2000, help="calls per arm for the latency pairs (default 2000)")
    ap.add_argument("--batch", type=int, default=100, help="calls per batch, arms alternating (default 100)")
    ap.add_argument("--cold", type=int, default=10, help="cold starts per arm (default 10)")
    ap.add_argument("--mem-reps", type=int, default=3, help="memory measurements per process (default 3)")
    ap.add_argument("--toolsets", type=int, default=20, help="remote toolsets in the idle-memory directory (default 20)")
    ap.add_argument("--file-bytes", type=int, default=1024, help="size of the file read_text_file reads (default 1024)")
    ap.add_argument("--only", action="append", choices=["latency", "cold", "memory"], help="run only this part (repeatable)")
    ap.add_argument("--json", metavar="FILE", help="write every figure to FILE")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds for the whole run (default 600)")
    ap.add_argument("--keep", action="store_true", help="keep the temp directory (content, markers, stderr log)")
    opts = ap.parse_args()
    if opts.calls < 1 or opts.batch < 1 or opts.cold < 1 or opts.mem_reps < 1 or not 1 <= opts.toolsets <= 99:
        ap.error("--calls, --batch, --cold, --mem-reps must be >= 1 and --toolsets within 1..99")

    if not opts.carnet:
        for cand in ("target/release/carnet", "target/debug/carnet"):
            if os.access(ROOT / cand, os.X_OK):
                opts.carnet = str(ROOT / cand)
                break
    if not opts.carnet or not (Path(opts.carnet).is_file() and os.access(opts.carnet, os.X_OK)):
        print(f"bench: no carnet binary at {opts.carnet or 'target/release/carnet or target/debug/carnet'}\n"
              "  build it with: cargo build --release -p carnet-cli", file=sys.stderr)
        return 2
    opts.carnet = str(Path(opts.carnet).resolve())
    for path in (BIN / "time-server", BIN / "fs-server"):
        if not os.access(path, os.X_OK):
            print(f"bench: no {path}: run `bash tests/remote/setup.sh` first", file=sys.stderr)
            return 2
    for path in (DESK_CONTENT / "agents" / AGENT / "AGENT.md", TIME_PIN):
        if not path.is_file():
            print(f"bench: missing {path}", file=sys.stderr)
            return 2

    become_subreaper()
    env = Env(opts.file_bytes, opts.keep)

    def hard_stop() -> None:  # the soft deadline failed: dump, kill, leave
        print(f"bench: watchdog: still running after {opts.timeout + 30:.0f} s; stacks:", file=sys.stderr)
        faulthandler.dump_traceback(all_threads=True)
        kill_everything_we_started()
        os._exit(3)

    watchdog = threading.Timer(opts.timeout + 30, hard_stop)
    watchdog.daemon = True
    watchdog.start()

    def on_term(signum: int, _frame: Any) -> None:
        print(f"bench: {signal.Signals(signum).name}: stopping every process it started", file=sys.stderr)
        kill_everything_we_started()
        reap()
        env.cleanup()
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGHUP, on_term)
    signal.signal(signal.SIGINT, on_term)

    res: dict[str, Any] = {"options": {k: v for k, v in vars(opts).items()}}
    res["machine"] = machine(opts)
    if res["machine"]["debug_build"]:
        print(f"bench: warning: {opts.carnet} is a debug build: these are not the figures to report", file=sys.stderr)
    start = time.monotonic()
    status = 0

    async def bounded() -> None:
        with anyio.fail_after(opts.timeout):
            await run(opts, env, res)

    try:
        anyio.run(bounded)
    except Failed as e:
        print(f"bench: FAIL: {e}", file=sys.stderr)
        print(f"  stderr of the servers ({env.log}):\n{env.stderr_tail()}", file=sys.stderr)
        status = 1
    except TimeoutError:
        print(f"bench: FAIL: did not finish within {opts.timeout:.0f} s (--timeout)", file=sys.stderr)
        print(f"  stderr of the servers ({env.log}):\n{env.stderr_tail()}", file=sys.stderr)
        status = 1
    except KeyboardInterrupt:
        print("bench: interrupted", file=sys.stderr)
        status = 130
    except Exception as e:  # noqa: BLE001 - an SDK or transport error
        print(f"bench: FAIL: {type(e).__name__}: {e}", file=sys.stderr)
        for sub in getattr(e, "exceptions", [])[:3]:
            print(f"    {type(sub).__name__}: {sub}", file=sys.stderr)
        print(f"  stderr of the servers ({env.log}):\n{env.stderr_tail()}", file=sys.stderr)
        status = 1
    finally:
        left = kill_everything_we_started()
        reap()
        watchdog.cancel()
    if left:
        env.orphans.append(f"{left} process(es) still running at the end (killed)")
    res["orphans"] = env.orphans
    res["seconds"] = time.monotonic() - start
    res["machine"]["loadavg_end"] = os.getloadavg()
    if status == 0:
        print_report(res)
        if opts.json:
            Path(opts.json).write_text(json.dumps(res, indent=2) + "\n")
            print(f"bench: wrote {opts.json}", file=sys.stderr)
    if opts.keep or status:
        print(f"bench: temp directory kept: {env.tmp}", file=sys.stderr)
    else:
        env.cleanup()
    return status


if __name__ == "__main__":
    sys.exit(main())
