#!/usr/bin/env python3
"""The a2a-sdk 1.3.0 side of bench/a2a: the SDK's own server (DefaultRequestHandler, its
JSON-RPC routes on Starlette, uvicorn) with an executor doing the job `carnet serve-a2a
--model scripted:bench/a2a/script.json` does for a message: a task submitted, working, an
artifact `answer` holding the scripted text (`you said: {input}`), completed with the same
text as its status message; tasks kept in the SDK's InMemoryTaskStore.

    sdk_agent.py PORT

Serves http://127.0.0.1:PORT until killed (JSON-RPC at `/`, the card at the well-known
path). uvicorn as the SDK's samples run it: one process, asyncio, no access log (carnet logs
nothing per request either).
"""

import sys

import uvicorn
from starlette.applications import Starlette

from a2a.helpers.proto_helpers import new_task_from_user_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Part

# The text bench/a2a/script.json has carnet's scripted model answer.
ANSWER = "you said: {input}"


class Scripted(AgentExecutor):
    """Answers every message with the scripted text, as a task."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task
        if task is None:
            task = new_task_from_user_message(context.message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        await updater.start_work()
        text = ANSWER.replace("{input}", context.get_user_input())
        await updater.add_artifact([Part(text=text)], name="answer")
        await updater.complete(updater.new_agent_message([Part(text=text)]))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task
        if task is not None:
            await TaskUpdater(event_queue, task.id, task.context_id).cancel()


def main() -> None:
    port = int(sys.argv[1])
    url = f"http://127.0.0.1:{port}"
    card = AgentCard(
        name="echo",
        description="Answers with the scripted text",
        version="1.0.0",
        supported_interfaces=[AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="1.0")],
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="echo", name="echo", description="Echoes", tags=["echo"])],
    )
    handler = DefaultRequestHandler(agent_executor=Scripted(), task_store=InMemoryTaskStore(), agent_card=card)
    app = Starlette(routes=create_agent_card_routes(card) + create_jsonrpc_routes(handler, "/"))
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
