"""Two `carnet serve-a2a` replicas sharing Redis behind haproxy, judged by the official A2A
Python SDK (a2a-sdk 1.3.0).

Started by tests/a2a/replicas.sh: CARNET_BIN is the `carnet` binary; `redis-server` and
`haproxy` are on PATH. Everything binds 127.0.0.1 on free ports; every child dies with this
process; the run is bounded (REPLICAS_TIMEOUT, default 120 s, enforced here and by the
script).

- The card resolved through the balancer names the balancer; two messages of one context
  sent through it land on both replicas (haproxy's log), and the second still has the skill
  the first loaded.
- A slow task started through the balancer is read and subscribed to through each replica
  directly, and canceled through the one that does not run it (Redis names the runner):
  both subscriptions end canceled.
- Another slow task: the replica running it is killed (SIGKILL); through the survivor, and
  through the balancer, the task ends failed with a reason naming the dead replica, a
  subscription on the survivor ends with it, and no task is left working.
"""

from __future__ import annotations

import asyncio
import ctypes
import os
import re
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import httpx
from a2a.client import A2ACardResolver, ClientConfig, create_client
from a2a.types import (
    AgentCard,
    CancelTaskRequest,
    GetTaskRequest,
    ListTasksRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    SubscribeToTaskRequest,
    TaskState,
)
from google.protobuf import json_format

HERE = Path(__file__).resolve().parent
CARNET = os.environ.get("CARNET_BIN", str(HERE.parent.parent / "target/debug/carnet"))
TIMEOUT = float(os.environ.get("REPLICAS_TIMEOUT", "120"))
DEADLINE = time.monotonic() + TIMEOUT
LEASE = 2
PROCS: list[subprocess.Popen] = []
checks = 0


def check(condition, what):
    global checks
    if not condition:
        raise AssertionError(what)
    checks += 1
    print(f"ok: {what}", flush=True)


def _die_with_parent():
    """preexec_fn: SIGKILL this child when the test process dies, however it dies (Linux)."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spawn(args, **kwargs):
    process = subprocess.Popen(args, stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent, **kwargs)
    PROCS.append(process)
    return process


def wait_port(port, what, timeout=15, process=None):
    """Whether `what` listens on `port` in time; False when `process` exits first."""
    end = min(time.monotonic() + timeout, DEADLINE)
    while time.monotonic() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return True
        except OSError:
            if process is not None and process.poll() is not None:
                print(f"note: {what} exited ({process.returncode}) before listening on {port}", flush=True)
                return False
            time.sleep(0.05)
    raise SystemExit(f"FAIL: {what} did not listen on {port} in time")


def redis_get(port, key):
    """GET over raw RESP: what Redis holds at `key` (the runner of a task), or None."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(f"*2\r\n$3\r\nGET\r\n${len(key)}\r\n{key}\r\n".encode())
        data = b""
        while True:
            head, sep, rest = data.partition(b"\r\n")
            if sep and head == b"$-1":
                return None
            if sep and head.startswith(b"$") and len(rest) >= int(head[1:]) + 2:
                return rest[: int(head[1:])].decode()
            chunk = s.recv(4096)
            if not chunk:
                raise SystemExit(f"FAIL: Redis answered GET {key} with {data!r}")
            data += chunk


class Replica:
    def __init__(self, name, redis_url, public_url):
        self.name, self.port = name, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = spawn(
            [CARNET, "--dir", str(HERE / "carnet"), "serve-a2a", "helper",
             "--http", f"127.0.0.1:{self.port}", "--public-url", public_url,
             "--model", f"scripted:{HERE / 'script.json'}",
             "--store", redis_url, "--replica", name, "--lease", str(LEASE)],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )
        line = self.process.stdout.readline().strip()
        check(line == self.url, f"replica {name} serves {self.url}")

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)


HAPROXY = """
global
    log stdout format raw local0
    maxconn 256

defaults
    mode http
    log global
    option httplog
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    retries 3
    option redispatch 1

frontend a2a
    bind 127.0.0.1:{lb}
    default_backend replicas

backend replicas
    balance roundrobin
    option httpchk GET /.well-known/agent-card.json
    default-server inter 250ms fall 1 rise 1
{servers}
"""


def user(text, context_id=None):
    message = Message(role=Role.ROLE_USER, message_id=f"m-{time.monotonic_ns()}", parts=[Part(text=text)])
    if context_id:
        message.context_id = context_id
    return message


def at(card, url):
    """The card with its interfaces at `url`: a client of one replica, past the balancer."""
    copy = AgentCard()
    copy.CopyFrom(card)
    for interface in copy.supported_interfaces:
        interface.url = url
    return copy


async def client(card, streaming=False, polling=False):
    return await create_client(
        card, ClientConfig(streaming=streaming, polling=polling, supported_protocol_bindings=["JSONRPC"])
    )


async def within(awaitable, seconds, what):
    try:
        return await asyncio.wait_for(awaitable, min(seconds, max(DEADLINE - time.monotonic(), 1)))
    except asyncio.TimeoutError:
        raise SystemExit(f"FAIL: {what} took more than {seconds} s")


async def start_slow(via):
    events = [e async for e in via.send_message(SendMessageRequest(message=user("wait for it")))]
    task = events[0].task
    check(task.status.state in (TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING),
          "a slow task returned at once")
    return task


async def follow(streaming, task_id, started):
    seen = []
    async for event in streaming.subscribe(SubscribeToTaskRequest(id=task_id)):
        seen.append(event)
        started.set()
    return seen


def last_state(events):
    last = events[-1]
    if last.HasField("status_update"):
        return last.status_update.status
    return last.task.status


async def main(tmp):
    redis_port = free_port()
    spawn(["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
           "--dir", tmp], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_port(redis_port, "redis-server")
    redis_url = f"redis://127.0.0.1:{redis_port}"
    # haproxy on a free port; picked again if another process took it first.
    cfg = Path(tmp) / "haproxy.cfg"
    log = Path(tmp) / "haproxy.log"
    for _ in range(3):
        lb = free_port()
        lb_url = f"http://127.0.0.1:{lb}"
        # Their cards name the balancer.
        replicas = [Replica("r1", redis_url, lb_url), Replica("r2", redis_url, lb_url)]
        servers = "\n".join(f"    server {r.name} 127.0.0.1:{r.port} check" for r in replicas)
        cfg.write_text(HAPROXY.format(lb=lb, servers=servers))
        with open(log, "w") as log_file:
            haproxy = spawn(["haproxy", "-f", str(cfg)], stdout=log_file, stderr=subprocess.STDOUT)
        if wait_port(lb, "haproxy", process=haproxy):
            break
        for replica in replicas:
            replica.kill()
    else:
        raise SystemExit("FAIL: haproxy did not start three times")
    by_name = {r.name: r for r in replicas}
    await asyncio.sleep(0.6)  # two health checks: both replicas up

    async with httpx.AsyncClient(timeout=10) as http:
        card = await within(A2ACardResolver(http, lb_url).get_agent_card(), 10, "the card")
    check(all(i.url == lb_url for i in card.supported_interfaces), "the card names the balancer")

    # Through the balancer: two messages of one context, on both replicas, the skill kept.
    plain = await client(card)
    events = [e async for e in plain.send_message(SendMessageRequest(message=user("hello")))]
    first = events[0].task
    check(first.status.state == TaskState.TASK_STATE_COMPLETED, f"completed through the balancer ({TaskState.Name(first.status.state)})")
    carnet = json_format.MessageToDict(first.metadata).get("carnet", {})
    check(carnet.get("loadedSkills") == ["greet"], "greet loaded")
    events = [e async for e in plain.send_message(SendMessageRequest(message=user("and again", first.context_id)))]
    second = events[0].task
    carnet = json_format.MessageToDict(second.metadata).get("carnet", {})
    check(carnet.get("loadedSkills") == ["greet"], "the next message of the context still has greet")
    served = set(re.findall(r"replicas/(r[12])", log.read_text()))
    check(served == {"r1", "r2"}, f"round-robin: both replicas served the context ({served})")

    direct = {r.name: await client(at(card, r.url)) for r in replicas}
    streams = {r.name: await client(at(card, r.url), streaming=True) for r in replicas}
    for name, c in direct.items():
        got = await within(c.get_task(GetTaskRequest(id=first.id)), 10, "GetTask")
        check(got.status.state == TaskState.TASK_STATE_COMPLETED and got.artifacts[0].parts[0].text
              == "Hello! greet is loaded.", f"the first task read through {name}")
        page = await within(c.list_tasks(ListTasksRequest(context_id=first.context_id)), 10, "ListTasks")
        check(page.total_size == 2, f"both tasks of the context listed through {name}")

    # A slow task: read and subscribed through each replica, canceled through the other.
    polling = await client(card, polling=True)
    slow = await within(start_slow(polling), 10, "a slow message")
    runner = redis_get(redis_port, f"carnet:a2a:lease:{slow.id}")
    check(runner in by_name, f"Redis names the replica running the slow task ({runner})")
    other = "r2" if runner == "r1" else "r1"
    for name, c in direct.items():
        got = await within(c.get_task(GetTaskRequest(id=slow.id)), 10, "GetTask")
        check(got.status.state == TaskState.TASK_STATE_WORKING, f"the slow task is working, read through {name}")
    started = {name: asyncio.Event() for name in streams}
    subscriptions = {name: asyncio.create_task(follow(s, slow.id, started[name])) for name, s in streams.items()}
    for name in streams:
        await within(started[name].wait(), 10, f"the subscription through {name}")
    canceled = await within(direct[other].cancel_task(CancelTaskRequest(id=slow.id)), 15, "CancelTask")
    check(canceled.status.state == TaskState.TASK_STATE_CANCELED, f"canceled through {other}, not its runner")
    for name, subscription in subscriptions.items():
        seen = await within(subscription, 15, f"the end of the subscription through {name}")
        check(seen[0].HasField("task") and seen[0].task.id == slow.id, f"the subscription through {name} starts with the task")
        check(last_state(seen).state == TaskState.TASK_STATE_CANCELED, f"the subscription through {name} ends canceled")

    # Another slow task: its replica killed; the survivor fails it, naming the dead one.
    doomed_task = await within(start_slow(polling), 10, "a slow message")
    runner = redis_get(redis_port, f"carnet:a2a:lease:{doomed_task.id}")
    check(runner in by_name, f"Redis names the replica running the second slow task ({runner})")
    survivor = "r2" if runner == "r1" else "r1"
    started = asyncio.Event()
    subscription = asyncio.create_task(follow(streams[survivor], doomed_task.id, started))
    await within(started.wait(), 10, "the subscription through the survivor")
    by_name[runner].kill()
    killed = time.monotonic()
    state = None
    while time.monotonic() - killed < LEASE + 8:
        got = await within(direct[survivor].get_task(GetTaskRequest(id=doomed_task.id)), 10, "GetTask")
        state = got.status.state
        if state != TaskState.TASK_STATE_WORKING:
            break
        await asyncio.sleep(0.2)
    check(state == TaskState.TASK_STATE_FAILED, f"the task of the killed replica failed through {survivor} "
          f"({time.monotonic() - killed:.1f} s after the kill)")
    reason = got.status.message.parts[0].text
    check(f"replica `{runner}`" in reason and "lease" in reason, f"the reason names the dead replica: {reason!r}")
    seen = await within(subscription, 15, "the end of the subscription through the survivor")
    check(last_state(seen).state == TaskState.TASK_STATE_FAILED, "the subscription through the survivor ends failed")
    through_lb = await within(plain.get_task(GetTaskRequest(id=doomed_task.id)), 10, "GetTask through the balancer")
    check(through_lb.status.state == TaskState.TASK_STATE_FAILED, "failed, read through the balancer")
    working = await within(
        plain.list_tasks(ListTasksRequest(status=TaskState.TASK_STATE_WORKING)), 10, "ListTasks through the balancer"
    )
    check(working.total_size == 0, "no task left working")

    for c in [plain, polling, *direct.values(), *streams.values()]:
        await c.close()


def run():
    with tempfile.TemporaryDirectory(prefix="carnet-a2a-replicas-") as tmp:
        try:
            asyncio.run(asyncio.wait_for(main(tmp), TIMEOUT))
        except asyncio.TimeoutError:
            raise SystemExit(f"FAIL: the replica test did not finish within {TIMEOUT} s")
        except BaseException:
            log = Path(tmp) / "haproxy.log"
            if log.exists():
                print(f"haproxy's log:\n{log.read_text()[-4000:]}", flush=True)
            raise
        finally:
            for process in PROCS:
                if process.poll() is None:
                    process.kill()
                    process.wait(timeout=10)
    print(f"ok: {checks} checks: two replicas sharing Redis behind haproxy (read, subscribe and cancel "
          f"through either; a killed replica's task failed with a reason)")


if __name__ == "__main__":
    run()
