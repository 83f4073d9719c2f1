"""Asks a carnet agent served by `carnet serve-a2a` (whose skill brings an `a2a:` toolset) two
questions about the weather in one A2A context, with a2a-sdk 1.3.0's client, and checks that
the remote agent (logged to LOGFILE) was contacted only once the skill loaded, and that the
answers came from it in one remote context.

    python delegate.py URL LOGFILE|- EXPECTED

EXPECTED is what the remote agent's answer holds, `N` standing for the message's number in
the remote context and `Q` for the question.
"""

import asyncio
import sys
import time
from pathlib import Path

import httpx
from a2a.client import A2ACardResolver, ClientConfig, create_client
from a2a.types import Message, Part, Role, SendMessageRequest, TaskState


def check(condition, what):
    if not condition:
        raise SystemExit(f"FAIL: {what}")


def user(text, context_id=None):
    message = Message(role=Role.ROLE_USER, message_id=f"m-{time.monotonic_ns()}", parts=[Part(text=text)])
    if context_id:
        message.context_id = context_id
    return message


def contacted(log: Path | None) -> list[str]:
    """The requests the remote agent logged (`-`: it logs none; checked by the answers only)."""
    if log is None:
        return ["POST (not logged)"]
    return log.read_text().splitlines() if log.exists() else []


async def answer(client, text, context=None):
    events = [e async for e in client.send_message(SendMessageRequest(message=user(text, context)))]
    check(len(events) == 1 and events[0].HasField("task"), f"one task back: {events}")
    task = events[0].task
    check(task.status.state == TaskState.TASK_STATE_COMPLETED, f"completed: {task.status}")
    return task.artifacts[0].parts[0].text, task.context_id


async def main():
    url, log, expected = sys.argv[1], None if sys.argv[2] == "-" else Path(sys.argv[2]), sys.argv[3]
    async with httpx.AsyncClient(timeout=60) as http:
        card = await A2ACardResolver(http, url).get_agent_card()
        client = await create_client(card, ClientConfig(streaming=False, supported_protocol_bindings=["JSONRPC"]))
        text, context = await answer(client, "hello")
        check(text.startswith("you said") or text.startswith("I plan trips"), f"no delegation yet: {text!r}")
        check(log is None or contacted(log) == [], f"the remote agent was contacted before the skill loaded: {contacted(log)}")
        question = "What is the weather in Paris tomorrow?"
        first, context = await answer(client, question, context)
        check(first.startswith("The forecaster says: "), f"the answer came back: {first!r}")
        wanted = expected.replace("N", "1").replace("Q", question)
        check(wanted in first, f"{wanted!r} in {first!r}")
        check(any(line.startswith("POST") for line in contacted(log)), f"a message reached it: {contacted(log)}")
        question = "and the weather the day after?"
        second, _ = await answer(client, question, context)
        wanted = expected.replace("N", "2").replace("Q", question)
        check(wanted in second, f"the same remote context: {wanted!r} in {second!r}")
    print(f"PASS delegation: {first!r} then {second!r}")


asyncio.run(main())
