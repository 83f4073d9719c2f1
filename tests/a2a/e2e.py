"""The official A2A Python SDK (a2a-sdk 1.3.0) judging `carnet serve-a2a`.

Started by tests/a2a/run.sh: CARNET_BIN is the `carnet` binary. For each binding (JSON-RPC,
then HTTP+JSON) the SDK's client resolves the card, sends a message, streams a second one
in the same context (the skill the first loaded is still loaded), gets, lists, cancels and
subscribes; every answer is parsed by the SDK's own protobuf types, and the raw JSON of
each kind of answer is parsed again strictly (unknown fields are errors).
"""

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
from google.protobuf import json_format
from a2a.client import A2ACardResolver, ClientConfig, create_client
from a2a.types import (
    AgentCard,
    CancelTaskRequest,
    GetTaskRequest,
    ListTasksRequest,
    ListTasksResponse,
    Message,
    Part,
    Role,
    SendMessageRequest,
    SendMessageResponse,
    StreamResponse,
    SubscribeToTaskRequest,
    Task,
    TaskPushNotificationConfig,
    TaskState,
)
from a2a.utils.errors import (
    PushNotificationNotSupportedError,
    TaskNotCancelableError,
    TaskNotFoundError,
)

HERE = Path(__file__).resolve().parent
CARNET = os.environ.get("CARNET_BIN", str(HERE.parent.parent / "target/debug/carnet"))
V1 = {"A2A-Version": "1.0"}
checks = 0


def check(condition, what):
    global checks
    if not condition:
        raise AssertionError(what)
    checks += 1


def strict(message_type, data):
    """Parses `data` (a dict) as `message_type`, refusing unknown fields."""
    return json_format.ParseDict(data, message_type())


def meta(message):
    return json_format.MessageToDict(message.metadata).get("carnet", {})


def user(text, context_id=None, task_id=None):
    message = Message(role=Role.ROLE_USER, message_id=f"m-{time.monotonic_ns()}", parts=[Part(text=text)])
    if context_id:
        message.context_id = context_id
    if task_id:
        message.task_id = task_id
    return message


def start_server():
    process = subprocess.Popen(
        [CARNET, "--dir", str(HERE / "carnet"), "serve-a2a", "helper", "--http", "127.0.0.1:0",
         "--model", f"scripted:{HERE / 'script.json'}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    pidfile = os.environ.get("E2E_PIDFILE")
    if pidfile:
        with open(pidfile, "a") as f:
            f.write(f"{process.pid}\n")
    url = process.stdout.readline().strip()
    if not url.startswith("http://"):
        process.kill()
        raise SystemExit(f"the server did not start: {url!r} {process.stderr.read()}")
    return process, url


async def collect(stream):
    return [event async for event in stream]


async def binding_round(url, binding, http):
    # The card, as the SDK resolves it, and strictly.
    card = await A2ACardResolver(http, url).get_agent_card()
    raw_card = (await http.get(f"{url}/.well-known/agent-card.json")).json()
    strict(AgentCard, raw_card)
    check(card.name == "helper", "card name")
    check([i.protocol_binding for i in card.supported_interfaces] == ["JSONRPC", "HTTP+JSON"], "bindings")
    check(all(i.url == url and i.protocol_version == "1.0" for i in card.supported_interfaces), "interface urls")
    check(card.capabilities.streaming and not card.capabilities.push_notifications, "capabilities")
    check([s.id for s in card.skills] == ["greet", "patience"], "skills")
    check(list(card.skills[0].tags) == ["greeting", "people", "hello"], "tags from the frontmatter")
    check(list(card.skills[0].examples) == ["Say hello to Ada"], "examples from the frontmatter")

    plain = await create_client(card, ClientConfig(streaming=False, supported_protocol_bindings=[binding]))
    streaming = await create_client(card, ClientConfig(streaming=True, supported_protocol_bindings=[binding]))
    polling = await create_client(
        card, ClientConfig(streaming=False, polling=True, supported_protocol_bindings=[binding])
    )

    # A message that loads a skill.
    events = await collect(plain.send_message(SendMessageRequest(message=user("hello"))))
    check(len(events) == 1 and events[0].HasField("task"), "one task back")
    task = events[0].task
    check(task.status.state == TaskState.TASK_STATE_COMPLETED, f"completed: {task.status}")
    check(task.artifacts[0].parts[0].text == "Hello! greet is loaded.", "the answer as an artifact")
    check(task.status.message.parts[0].text == "Hello! greet is loaded.", "the answer as the final message")
    check(meta(task)["loadedSkills"] == ["greet"], "greet loaded")
    context = task.context_id

    # A second message, streamed, in the same context: the skill is still loaded.
    events = await collect(streaming.send_message(SendMessageRequest(message=user("and again", context))))
    kinds = [e.WhichOneof("payload") for e in events]
    check(kinds[0] == "task", f"the stream starts with the task: {kinds}")
    check("artifact_update" in kinds, f"an artifact update: {kinds}")
    last = events[-1]
    check(last.HasField("status_update") and last.status_update.status.state == TaskState.TASK_STATE_COMPLETED,
          "the stream ends completed")
    second_id = events[0].task.id
    check(events[0].task.context_id == context, "same context")
    answer = next(e.artifact_update.artifact for e in events if e.HasField("artifact_update"))
    check(answer.parts[0].text == "you said: and again", "streamed answer")
    check(meta(last.status_update)["loadedSkills"] == ["greet"], "the skill loaded by the first message is still loaded")

    # GetTask, with historyLength.
    got = await plain.get_task(GetTaskRequest(id=second_id, history_length=1))
    check(len(got.history) == 1 and got.history[0].role == Role.ROLE_AGENT, "historyLength 1")
    check(meta(got)["loadedSkills"] == ["greet"], "the stored task says so too")
    full = await plain.get_task(GetTaskRequest(id=second_id))
    check(len(full.history) == 2, "the whole history")
    try:
        await plain.get_task(GetTaskRequest(id="no-such-task"))
        check(False, "unknown task")
    except TaskNotFoundError:
        check(True, "")

    # ListTasks, paginated.
    page = await plain.list_tasks(ListTasksRequest(context_id=context, page_size=1))
    check(page.total_size == 2 and len(page.tasks) == 1 and page.next_page_token, f"first page: {page}")
    check(page.tasks[0].id == second_id, "the most recent first")
    rest = await plain.list_tasks(
        ListTasksRequest(context_id=context, page_size=1, page_token=page.next_page_token, include_artifacts=True)
    )
    check(len(rest.tasks) == 1 and rest.tasks[0].id == task.id and not rest.next_page_token, "last page")
    check(len(rest.tasks[0].artifacts) == 1, "artifacts on request")
    check(len(page.tasks[0].artifacts) == 0, "no artifacts unless asked")

    # A slow task: subscribed to, then canceled.
    events = await collect(polling.send_message(SendMessageRequest(message=user("wait for it"))))
    slow = events[0].task
    check(slow.status.state in (TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING), "returned at once")
    subscribed = asyncio.Event()

    async def follow():
        seen = []
        async for event in streaming.subscribe(SubscribeToTaskRequest(id=slow.id)):
            seen.append(event)
            subscribed.set()
        return seen

    subscription = asyncio.create_task(follow())
    # Canceled once the subscription has its first event, so it sees the cancel.
    await asyncio.wait_for(subscribed.wait(), 10)
    canceled = await plain.cancel_task(CancelTaskRequest(id=slow.id))
    check(canceled.status.state == TaskState.TASK_STATE_CANCELED, f"canceled: {canceled.status}")
    seen = await asyncio.wait_for(subscription, 10)
    check(seen[0].HasField("task") and seen[0].task.id == slow.id, "the subscription starts with the task")
    check(seen[-1].status_update.status.state == TaskState.TASK_STATE_CANCELED, "the subscription sees the cancel")
    try:
        await plain.cancel_task(CancelTaskRequest(id=slow.id))
        check(False, "a canceled task is not cancelable")
    except TaskNotCancelableError:
        check(True, "")
    try:
        await plain.create_task_push_notification_config(
            TaskPushNotificationConfig(task_id=slow.id, url="https://example.com/hook")
        )
        check(False, "push notifications are not supported")
    except PushNotificationNotSupportedError:
        check(True, "")
    for client in (plain, streaming, polling):
        await client.close()
    return task.id, second_id


async def raw_checks(url, http, task_id):
    """The raw JSON of every kind of answer, parsed strictly; the version header."""
    def rpc(method, params, headers=V1):
        return http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params}, headers=headers)

    send = (await rpc("SendMessage", {"message": {"messageId": "raw", "role": "ROLE_USER", "parts": [{"text": "x"}]}})).json()
    strict(SendMessageResponse, send["result"])
    strict(Task, (await rpc("GetTask", {"id": task_id})).json()["result"])
    strict(ListTasksResponse, (await rpc("ListTasks", {"includeArtifacts": True})).json()["result"])
    async with http.stream("POST", url, headers=V1, json={"jsonrpc": "2.0", "id": 2, "method": "SendStreamingMessage",
                           "params": {"message": {"messageId": "raw2", "role": "ROLE_USER", "parts": [{"text": "hello"}]}}}) as response:
        check(response.headers["content-type"].startswith("text/event-stream"), "SSE")
        events = [json.loads(line[6:]) async for line in response.aiter_lines() if line.startswith("data: ")]
    for event in events:
        check(event["id"] == 2, "each event answers the request")
        strict(StreamResponse, event["result"])
    rest = (await http.get(f"{url}/tasks/{task_id}", headers=V1)).json()
    strict(Task, rest)
    no_version = (await rpc("GetTask", {"id": task_id}, headers={})).json()
    check(no_version["error"]["code"] == -32009, "no A2A-Version is 0.3: VersionNotSupportedError")
    check((await rpc("Nope", {})).json()["error"]["code"] == -32601, "unknown method")
    garbage = (await http.post(url, content=b"{not json", headers={**V1, "Content-Type": "application/json"})).json()
    check(garbage["error"]["code"] == -32700, "parse error")


async def main():
    process, url = start_server()
    try:
        async with httpx.AsyncClient(timeout=30) as http:
            for binding in ("JSONRPC", "HTTP+JSON"):
                first, _ = await binding_round(url, binding, http)
                print(f"ok: {binding}: card, send, stream in the same context, get, list, subscribe, cancel, errors")
            await raw_checks(url, http, first)
            print("ok: raw answers parse strictly; version, method and JSON errors")
    finally:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
    print(f"a2a e2e: {checks} checks passed")


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except AssertionError as e:
        print(f"FAILED: {e}", file=sys.stderr)
        sys.exit(1)
