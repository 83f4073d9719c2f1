"""A small agent built on the official Python SDK's server (a2a-sdk 1.3.0, JSON-RPC binding,
streaming): what a carnet agent delegates to in tests/a2a/delegate.sh.

    python delegate_agent.py LOGFILE     # prints its base URL, then serves

Its one skill, `forecast`, answers every message with an artifact naming the message and
how many messages its A2A context has had ("Forecast #N for 'TEXT': ..."), after a short
delay, in a task that goes submitted -> working -> completed. Every HTTP request is
appended to LOGFILE ("METHOD PATH"), so the test can tell when carnet first contacted it.
"""

import asyncio
import socket
import sys
from collections import defaultdict

import uvicorn
from a2a.helpers.proto_helpers import new_task_from_user_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill
from starlette.applications import Starlette

TURNS: dict[str, int] = defaultdict(int)


class Forecaster(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task
        if task is None:
            task = new_task_from_user_message(context.message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        await updater.start_work()
        text = context.get_user_input()
        TURNS[task.context_id] += 1
        await asyncio.sleep(0.3)
        answer = f"Forecast #{TURNS[task.context_id]} for '{text}': sunny, 21 C"
        await updater.add_artifact([new_text_part(answer)], name="forecast")
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task
        if task is not None:
            await TaskUpdater(event_queue, task.id, task.context_id).cancel()


def main() -> None:
    log_path = sys.argv[1]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    card = AgentCard(
        name="Forecaster",
        description="Weather forecasts for any city",
        version="1.0.0",
        supported_interfaces=[AgentInterface(url=f"{base}/a2a", protocol_binding="JSONRPC", protocol_version="1.0")],
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[
            AgentSkill(
                id="forecast",
                name="Forecast",
                description="The weather of a city for the coming days",
                tags=["weather"],
                examples=["Will it rain in Paris tomorrow?"],
            )
        ],
    )
    handler = DefaultRequestHandler(agent_executor=Forecaster(), task_store=InMemoryTaskStore(), agent_card=card)
    app = Starlette(routes=create_agent_card_routes(card) + create_jsonrpc_routes(handler, rpc_url="/a2a"))

    async def logged(scope, receive, send):
        if scope["type"] == "http":
            with open(log_path, "a") as f:
                f.write(f"{scope['method']} {scope['path']}\n")
        await app(scope, receive, send)

    print(base, flush=True)
    uvicorn.run(logged, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()
