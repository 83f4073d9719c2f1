#!/usr/bin/env python3
"""A2A figures (issue 52, item 4): `carnet serve-a2a` against a2a-sdk's own server doing
the same job, and the floor beside them. Run by bench/a2a/run.sh, which builds what it needs:

    bench.py --carnet BIN --load BIN [--rounds N] [--clients 1,16] [--messages N]
             [--warmup N] [--contexts N] [--delegation-rounds N] [--delegation-messages N]
             [--json FILE]

Three servers on 127.0.0.1, each its own process, started once:

- carnet: `carnet --dir tests/a2a/carnet serve-a2a helper --model scripted:bench/a2a/script.json`
  (release build, tokio on the machine's cores); the scripted model answers
  `you said: {input}` at once; every message runs the agent loop in a new session.
- a2a-sdk: bench/a2a/sdk_agent.py, the SDK's DefaultRequestHandler and JSON-RPC routes on
  uvicorn, an executor answering the same text as a task with the same artifact.
- floor: `a2a-load echo`, a hyper HTTP/1.1 server answering every request with the bytes of
  one real carnet answer: what moving the same bytes through HTTP on loopback costs.

1. Messages. One client for all (`a2a-load load`, Rust, one thread): for each round and each
   concurrency in --clients, the three servers in turn (the order rotating each round),
   --warmup messages then --messages `SendMessage` requests over that many keep-alive
   connections, each a new context. Reported: messages per second, p50 / p99 latency, and the
   server's CPU time per message (utime + stime from /proc/PID/stat).
2. Memory per open context. A fresh carnet (--max-contexts and --max-tasks above --contexts)
   and a fresh a2a-sdk server; 100 messages to warm them up, then VmRSS; --contexts
   messages, each in a context of its own (`a2a-load contexts`), then VmRSS again: the growth
   divided by the contexts. carnet holds a session and its conversation per context, and the
   task; a2a-sdk holds the task (it has no conversation of its own).

3. The cost of a delegation. A remote agent (carnet serve-a2a of tests/a2a/carnet, the same
   scripted answer) and a front agent (carnet serve-a2a of a generated content directory: a
   skill `delegate` bringing an `a2a:` toolset on the remote agent, pinned with `carnet a2a
   pin` at the start; its scripted model loads `delegate`, calls the remote skill `greet` with
   the message, and answers the call's result). The same load client sends the same messages
   to the remote agent directly and to the front agent, interleaved (--delegation-rounds):
   the difference is what a delegation adds, the front agent's two more model steps (load,
   call) and session work included; the answers are the same text either way.

Every process started is killed at the end, also on error; the temporary directory (the
floor's body) is removed. Exit status 0, 1 on a failure, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CONTENT = ROOT / "tests" / "a2a" / "carnet"
SCRIPT = HERE / "script.json"
SDK_AGENT = HERE / "sdk_agent.py"

processes: list[subprocess.Popen] = []


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(url: str, process: subprocess.Popen, what: str) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"bench: {what} exited with {process.returncode} before serving")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"bench: {what} did not answer {url} within 30 s")


def start_carnet(carnet: str, extra: list[str]) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen(
        [carnet, "--dir", str(CONTENT), "serve-a2a", "helper", "--http", "127.0.0.1:0",
         "--model", f"scripted:{SCRIPT}", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    processes.append(process)
    url = process.stdout.readline().strip()
    if not url.startswith("http://"):
        raise SystemExit(f"bench: carnet serve-a2a did not print its URL: {url!r}")
    wait_for(f"{url}/.well-known/agent-card.json", process, "carnet serve-a2a")
    return process, url


def start_sdk(python: str) -> tuple[subprocess.Popen, str]:
    port = free_port()
    process = subprocess.Popen([python, str(SDK_AGENT), str(port)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    processes.append(process)
    url = f"http://127.0.0.1:{port}"
    wait_for(f"{url}/.well-known/agent-card.json", process, "the a2a-sdk server")
    return process, url


def start_floor(load: str, body: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    process = subprocess.Popen([load, "echo", "--port", str(port), "--body", str(body)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    processes.append(process)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process, url
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                raise SystemExit("bench: the floor server did not start")
            time.sleep(0.05)


def send_message(url: str, text: str) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {
        "message": {"messageId": "bench-body", "role": "ROLE_USER", "parts": [{"text": text}]}}}).encode()
    request = urllib.request.Request(url, data=body, method="POST", headers={
        "Content-Type": "application/json", "A2A-Version": "1.0"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.read()


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise SystemExit(f"bench: no VmRSS for {pid}")


def run_load(load: str, url: str, clients: int, messages: int, warmup: int, label: str, pid: int,
             floor: bool) -> dict:
    before = cpu_seconds(pid)
    command = [load, "load", "--url", url, "--clients", str(clients), "--messages", str(messages),
               "--warmup", str(warmup), "--label", label]
    if floor:
        command.append("--floor")
    out = subprocess.run(command, capture_output=True, text=True, timeout=1800)
    if out.returncode != 0:
        raise SystemExit(f"bench: a2a-load against {label} failed: {out.stderr.strip()}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    # The warm-up's CPU is counted too: per message of warm-up and run together.
    result["cpu_us_per_message"] = (cpu_seconds(pid) - before) * 1e6 / (messages + warmup)
    return result


def memory(args, python: str) -> list[dict]:
    rows = []
    cap = str(args.contexts * 2 + 1000)
    for arm in ("carnet", "a2a-sdk"):
        if arm == "carnet":
            process, url = start_carnet(args.carnet, ["--max-contexts", cap, "--max-tasks", cap])
        else:
            process, url = start_sdk(python)
        for i in range(100):
            send_message(url, f"warm {i}")
        time.sleep(0.5)
        before = rss_kib(process.pid)
        out = subprocess.run([args.load, "contexts", "--url", url, "--contexts", str(args.contexts),
                              "--clients", "4"], capture_output=True, text=True, timeout=1800)
        if out.returncode != 0:
            raise SystemExit(f"bench: a2a-load contexts against {arm} failed: {out.stderr.strip()}")
        time.sleep(0.5)
        after = rss_kib(process.pid)
        rows.append({"server": arm, "contexts": args.contexts, "rss_before_kib": before, "rss_after_kib": after,
                     "kib_per_context": (after - before) / args.contexts})
        stop(process)
    return rows


FRONT_AGENT = """---
name: front
description: Answers by asking the remote agent
skills: [delegate]
---
Load a skill before you use it.
"""
FRONT_SKILL = """---
name: delegate
description: Ask the remote agent
toolsets: [remote]
---
Call `greet` with the whole message.
"""
FRONT_TOOLSET = """---
name: remote
description: The remote agent (carnet serve-a2a of tests/a2a/carnet)
a2a:
  url: ${REMOTE_URL}
---
"""
FRONT_SCRIPT = {"replies": [{"steps": [
    {"calls": [{"name": "loadSkill", "arguments": {"skillName": "delegate"}}]},
    {"calls": [{"name": "greet", "arguments": {"message": "{input}"}}]},
    {"text": "{result}"},
]}]}


def delegation(args, work: Path) -> list[dict]:
    remote, remote_url = start_carnet(args.carnet, [])
    content = work / "front"
    for path, text in (("agents/front/AGENT.md", FRONT_AGENT), ("skills/delegate/SKILL.md", FRONT_SKILL),
                       ("toolsets/remote/TOOLSET.md", FRONT_TOOLSET)):
        (content / path).parent.mkdir(parents=True, exist_ok=True)
        (content / path).write_text(text)
    script = work / "front.json"
    script.write_text(json.dumps(FRONT_SCRIPT))
    env = dict(os.environ, REMOTE_URL=remote_url)
    pinned = subprocess.run([args.carnet, "--dir", str(content), "a2a", "pin"], env=env, capture_output=True,
                            text=True, timeout=60)
    if pinned.returncode != 0:
        raise SystemExit(f"bench: carnet a2a pin failed: {pinned.stderr.strip()}")
    front = subprocess.Popen(
        [args.carnet, "--dir", str(content), "serve-a2a", "front", "--http", "127.0.0.1:0", "--model",
         f"scripted:{script}"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    processes.append(front)
    front_url = front.stdout.readline().strip()
    if not front_url.startswith("http://"):
        raise SystemExit(f"bench: the front agent did not print its URL: {front_url!r}")
    wait_for(f"{front_url}/.well-known/agent-card.json", front, "the front agent")
    rows = []
    arms = [("direct", remote_url, remote.pid), ("delegated", front_url, front.pid)]
    for round_ in range(1, args.delegation_rounds + 1):
        for clients in [int(c) for c in args.clients.split(",") if c]:
            order = arms if round_ % 2 else arms[::-1]
            for label, url, pid in order:
                r = run_load(args.load, url, clients, args.delegation_messages, args.warmup, label, pid, False)
                r["round"] = round_
                rows.append(r)
                print(f"bench: delegation round {round_}, {clients} clients, {label}: {r['per_second']:,.0f} "
                      f"messages/s, p50 {r['p50_us']} µs, p99 {r['p99_us']} µs", file=sys.stderr)
    stop(front)
    stop(remote)
    return rows


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def table(results: list[dict], memory_rows: list[dict], delegation_rows: list[dict]) -> str:
    lines = ["| round | clients | server | messages/s | p50 µs | p99 µs | server CPU µs/message |",
             "| ---: | ---: | --- | ---: | ---: | ---: | ---: |"]
    for r in results:
        lines.append(f"| {r['round']} | {r['clients']} | {r['label']} | {r['per_second']:,.0f} | "
                     f"{r['p50_us']:,} | {r['p99_us']:,} | {r['cpu_us_per_message']:,.0f} |")
    lines += ["", "| clients | server | median messages/s | median p50 µs | median p99 µs | throughput vs a2a-sdk |",
              "| ---: | --- | ---: | ---: | ---: | ---: |"]
    for clients in sorted({r["clients"] for r in results}):
        medians = {}
        for label in ("carnet", "a2a-sdk", "floor"):
            rows = [r for r in results if r["clients"] == clients and r["label"] == label]
            medians[label] = {k: statistics.median(r[k] for r in rows) for k in ("per_second", "p50_us", "p99_us")}
        for label, m in medians.items():
            ratio = m["per_second"] / medians["a2a-sdk"]["per_second"]
            lines.append(f"| {clients} | {label} | {m['per_second']:,.0f} | {m['p50_us']:,.0f} | "
                         f"{m['p99_us']:,.0f} | {ratio:.1f}× |")
    if memory_rows:
        lines += ["", "| server | contexts | RSS before | RSS after | per context |", "| --- | ---: | ---: | ---: | ---: |"]
        for m in memory_rows:
            lines.append(f"| {m['server']} | {m['contexts']:,} | {m['rss_before_kib'] / 1024:.1f} MiB | "
                         f"{m['rss_after_kib'] / 1024:.1f} MiB | {m['kib_per_context']:.1f} KiB |")
    if delegation_rows:
        lines += ["", "| clients | messages to | median messages/s | median p50 µs | median p99 µs | CPU µs/message of the server addressed |",
                  "| ---: | --- | ---: | ---: | ---: | ---: |"]
        for clients in sorted({r["clients"] for r in delegation_rows}):
            for label in ("direct", "delegated"):
                rows = [r for r in delegation_rows if r["clients"] == clients and r["label"] == label]
                m = {k: statistics.median(r[k] for r in rows) for k in ("per_second", "p50_us", "p99_us", "cpu_us_per_message")}
                lines.append(f"| {clients} | {label} | {m['per_second']:,.0f} | {m['p50_us']:,.0f} | {m['p99_us']:,.0f} | "
                             f"{m['cpu_us_per_message']:,.0f} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--carnet", required=True)
    parser.add_argument("--load", required=True)
    parser.add_argument("--python", default=sys.executable, help="the Python with a2a-sdk[http-server] and uvicorn")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", default="1,16")
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--contexts", type=int, default=2000)
    parser.add_argument("--delegation-rounds", type=int, default=3)
    parser.add_argument("--delegation-messages", type=int, default=1000)
    parser.add_argument("--json")
    args = parser.parse_args()
    concurrency = [int(c) for c in args.clients.split(",") if c]
    if args.rounds < 1 or not concurrency or min(concurrency) < 1 or args.messages < max(concurrency):
        parser.error("--rounds ≥ 1, --clients a list of counts ≥ 1, --messages ≥ the largest count")

    work = Path(tempfile.mkdtemp(prefix="carnet-a2a-bench-"))
    try:
        carnet, carnet_url = start_carnet(args.carnet, [])
        sdk, sdk_url = start_sdk(args.python)
        # The floor answers what carnet answers a message, byte for byte.
        body = work / "answer.json"
        body.write_bytes(send_message(carnet_url, "message 0-0"))
        floor, floor_url = start_floor(args.load, body)
        arms = [("carnet", carnet_url, carnet.pid), ("a2a-sdk", sdk_url, sdk.pid), ("floor", floor_url, floor.pid)]
        results = []
        for round_ in range(1, args.rounds + 1):
            for clients in concurrency:
                shift = (round_ - 1) % len(arms)
                for label, url, pid in arms[shift:] + arms[:shift]:
                    r = run_load(args.load, url, clients, args.messages, args.warmup, label, pid, label == "floor")
                    r["round"] = round_
                    results.append(r)
                    print(f"bench: round {round_}, {clients} clients, {label}: {r['per_second']:,.0f} messages/s, "
                          f"p50 {r['p50_us']} µs, p99 {r['p99_us']} µs", file=sys.stderr)
        for process in (carnet, sdk, floor):
            stop(process)
        memory_rows = memory(args, args.python) if args.contexts > 0 else []
        delegation_rows = delegation(args, work) if args.delegation_rounds > 0 else []
        print(table(results, memory_rows, delegation_rows))
        if args.json:
            Path(args.json).write_text(json.dumps({
                "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
                "args": vars(args), "messages": results, "memory": memory_rows, "delegation": delegation_rows,
                "answer_bytes": body.stat().st_size,
            }, indent=2))
        return 0
    finally:
        for process in processes:
            stop(process)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
