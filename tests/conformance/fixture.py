#!/usr/bin/env python3
"""carnet's own fixture server for the MCP conformance suite's server scenarios, written with the
official Python SDK's low-level server (`mcp` 2.3.0) and served over stdio.

The suite (`@modelcontextprotocol/conformance`) calls tools, resources and prompts named
`test_*` / `test://...`; the requirements of each are in the scenario descriptions inside the
npm package (`dist/index.js`, "Server Implementation Requirements"). This server offers them so
that the suite can be run against `carnet serve-mcp` with this server behind it as a remote
toolset (tests/conformance/content): what the suite then judges is the gateway's pass-through.

    python fixture.py          # stdio
    python fixture.py --http   # streamable HTTP on a free loopback port; prints its URL first
"""

from __future__ import annotations

import base64
import json
import socket
import struct
import sys
from typing import Any

import anyio
import mcp_types as types
from mcp import MCPError
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

# A 1x1 red PNG and a short silent WAV (generated below), as base64.
RED_PIXEL_PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)


def silent_wav(samples: int = 800, rate: int = 8000) -> str:
    """A mono 8-bit WAV of `samples` silent samples."""
    data = bytes([128]) * samples
    header = b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVE"
    fmt = b"fmt " + struct.pack("<IHHIIHH", 16, 1, 1, rate, rate, 1, 8)
    return base64.b64encode(header + fmt + b"data" + struct.pack("<I", len(data)) + data).decode()


SCHEMA_2020_12 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {"type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}
    },
    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
    "additionalProperties": False,
}

NO_ARGUMENTS: dict[str, Any] = {"type": "object", "properties": {}}


def tool(name: str, description: str, schema: dict[str, Any] | None = None) -> types.Tool:
    return types.Tool(name=name, description=description, input_schema=schema or NO_ARGUMENTS)


TOOLS = [
    tool("test_simple_text", "Returns one text block"),
    tool("test_image_content", "Returns a PNG image"),
    tool("test_audio_content", "Returns a WAV sound"),
    tool("test_embedded_resource", "Returns an embedded text resource"),
    tool("test_multiple_content_types", "Returns text, an image and an embedded resource"),
    tool("test_tool_with_logging", "Logs three messages while it runs"),
    tool("test_error_handling", "Always fails with a tool error"),
    tool("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100"),
    tool(
        "test_sampling",
        "Asks the client's model",
        {"type": "object", "properties": {"prompt": {"type": "string"}}, "required": ["prompt"]},
    ),
    tool(
        "test_elicitation",
        "Asks the user",
        {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]},
    ),
    tool("test_elicitation_sep1034_defaults", "Asks the user, with defaults for every primitive type"),
    tool("test_elicitation_sep1330_enums", "Asks the user, with every kind of enum"),
    tool("json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features", SCHEMA_2020_12),
    # The multi round-trip scenarios (SEP-2322) of the suite's next version, at 2026-07-28: this
    # server speaks the 2025 revisions to carnet and asks in the middle of the call; carnet asks
    # its host with `input_required` results (docs/mcp-gateway.md, "Input at the stateless
    # revision"). No roots tool: carnet does not relay `roots/list` (tests/conformance/run.sh).
    tool("test_input_required_result_elicitation", "Asks the user's name"),
    tool("test_input_required_result_sampling", "Asks the client's model a question"),
    tool("test_input_required_result_request_state", "Asks the user to confirm"),
    tool("test_input_required_result_multi_round", "Asks the user twice, one question after the other"),
    tool("test_input_required_result_tampered_state", "Asks the user to confirm"),
    tool("test_input_required_result_capabilities", "Asks the user, or the client's model when it cannot ask the user"),
]


def text(value: str) -> types.TextContent:
    return types.TextContent(type="text", text=value)


def embedded(uri: str, value: str) -> types.EmbeddedResource:
    return types.EmbeddedResource(
        type="resource", resource=types.TextResourceContents(uri=uri, mime_type="text/plain", text=value)
    )


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    name, arguments = params.name, params.arguments or {}
    image = types.ImageContent(type="image", data=RED_PIXEL_PNG, mime_type="image/png")
    if name == "test_simple_text":
        return types.CallToolResult(content=[text("This is a simple text response for testing.")])
    if name == "test_image_content":
        return types.CallToolResult(content=[image])
    if name == "test_audio_content":
        return types.CallToolResult(content=[types.AudioContent(type="audio", data=silent_wav(), mime_type="audio/wav")])
    if name == "test_embedded_resource":
        return types.CallToolResult(content=[embedded("test://embedded-resource", "This is an embedded resource content.")])
    if name == "test_multiple_content_types":
        return types.CallToolResult(
            content=[text("Multiple content types test:"), image, embedded("test://mixed-content-resource", '{"test": "data"}')]
        )
    if name == "test_tool_with_logging":
        for i, message in enumerate(["Tool execution started", "Tool processing data", "Tool execution completed"]):
            if i:
                await anyio.sleep(0.05)
            await ctx.session.send_log_message(
                level="info", data=message, logger="fixture", related_request_id=ctx.request_id
            )
        return types.CallToolResult(content=[text("Tool with logging executed successfully")])
    if name == "test_error_handling":
        return types.CallToolResult(content=[text("This tool intentionally returns an error for testing")], is_error=True)
    if name == "test_tool_with_progress":
        meta = ctx.meta or {}
        token = meta.get("progress_token", meta.get("progressToken"))
        for i, progress in enumerate([0, 50, 100]):
            if i:
                await anyio.sleep(0.05)
            if token is not None:
                await ctx.session.send_progress_notification(
                    progress_token=token, progress=progress, total=100, related_request_id=str(ctx.request_id)
                )
        return types.CallToolResult(content=[text("Tool with progress executed successfully")])
    if name == "test_sampling":
        result = await ctx.session.create_message(
            messages=[types.SamplingMessage(role="user", content=text(str(arguments.get("prompt", ""))))],
            max_tokens=100,
            related_request_id=ctx.request_id,
        )
        answer = getattr(result.content, "text", json.dumps(result.model_dump(mode="json")))
        return types.CallToolResult(content=[text(f"LLM response: {answer}")])
    if name in ("test_elicitation", "test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums"):
        schema = ELICITATION_SCHEMAS[name]
        message = str(arguments.get("message", "Please review and update the form fields with defaults"))
        result = await ctx.session.elicit(message=message, requested_schema=schema, related_request_id=ctx.request_id)
        content = json.dumps(result.content or {}, sort_keys=True)
        prefix = "User response" if name == "test_elicitation" else "Elicitation completed"
        return types.CallToolResult(content=[text(f"{prefix}: action={result.action}, content={content}")])
    if name.startswith("test_input_required_result_"):
        return await input_required(ctx, name.removeprefix("test_input_required_result_"))
    if name == "json_schema_2020_12_tool":
        return types.CallToolResult(content=[text(f"Received: {json.dumps(arguments, sort_keys=True)}")])
    return types.CallToolResult(content=[text(f"unknown tool {name}")], is_error=True)


def asking(*fields: tuple[str, str]) -> dict[str, Any]:
    """A form asking for `fields` (name, JSON type), all required."""
    return {
        "type": "object",
        "properties": {field: {"type": kind} for field, kind in fields},
        "required": [field for field, _ in fields],
    }


async def input_required(ctx: Any, case: str) -> types.CallToolResult:
    """The `test_input_required_result_*` tools: what each asks, as the scenarios describe it."""
    session, request = ctx.session, ctx.request_id

    async def elicit(message: str, *fields: tuple[str, str]) -> dict[str, Any]:
        result = await session.elicit(message=message, requested_schema=asking(*fields), related_request_id=request)
        return result.content or {}

    async def sample(question: str, max_tokens: int) -> str:
        message = types.SamplingMessage(role="user", content=text(question))
        result = await session.create_message(messages=[message], max_tokens=max_tokens, related_request_id=request)
        return getattr(result.content, "text", "")

    if case == "elicitation":
        answer = await elicit("What is your name?", ("name", "string"))
        return types.CallToolResult(content=[text(f"Hello, {answer.get('name')}!")])
    if case == "sampling":
        return types.CallToolResult(content=[text(await sample("What is the capital of France?", 100))])
    if case in ("request_state", "tampered_state"):
        answer = await elicit("Please confirm", ("ok", "boolean"))
        return types.CallToolResult(content=[text(f"state-ok: confirmed={answer.get('ok')}")])
    if case == "multi_round":
        name = (await elicit("Step 1: What is your name?", ("name", "string"))).get("name")
        color = (await elicit("Step 2: What is your favorite color?", ("color", "string"))).get("color")
        return types.CallToolResult(content=[text(f"{name} likes {color}")])
    if case == "capabilities":
        try:
            answer = await elicit("What is your name?", ("name", "string"))
            return types.CallToolResult(content=[text(f"Hello, {answer.get('name')}!")])
        except MCPError:
            # The client cannot ask its user: its model answers instead.
            return types.CallToolResult(content=[text(await sample("Pick a name", 20))])
    return types.CallToolResult(content=[text(f"unknown tool test_input_required_result_{case}")], is_error=True)


ELICITATION_SCHEMAS: dict[str, dict[str, Any]] = {
    "test_elicitation": {
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"},
        },
        "required": ["username", "email"],
    },
    "test_elicitation_sep1034_defaults": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "score": {"type": "number", "default": 95.5},
            "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
            "verified": {"type": "boolean", "default": True},
        },
    },
    "test_elicitation_sep1330_enums": {
        "type": "object",
        "properties": {
            "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
            "titledSingle": {
                "type": "string",
                "oneOf": [
                    {"const": "value1", "title": "First Option"},
                    {"const": "value2", "title": "Second Option"},
                    {"const": "value3", "title": "Third Option"},
                ],
            },
            "legacyEnum": {
                "type": "string",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"],
            },
            "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
            "titledMulti": {
                "type": "array",
                "items": {
                    "anyOf": [
                        {"const": "value1", "title": "First Choice"},
                        {"const": "value2", "title": "Second Choice"},
                        {"const": "value3", "title": "Third Choice"},
                    ]
                },
            },
        },
    },
}


async def list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


STATIC_TEXT = "This is the content of the static text resource."


async def list_resources(_ctx: Any, _params: Any) -> types.ListResourcesResult:
    return types.ListResourcesResult(
        resources=[
            types.Resource(uri="test://static-text", name="static-text", mime_type="text/plain"),
            types.Resource(uri="test://static-binary", name="static-binary", mime_type="image/png"),
        ]
    )


async def list_resource_templates(_ctx: Any, _params: Any) -> types.ListResourceTemplatesResult:
    template = types.ResourceTemplate(uri_template="test://template/{id}/data", name="template", mime_type="application/json")
    return types.ListResourceTemplatesResult(resource_templates=[template])


async def read_resource(_ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
    uri = str(params.uri)
    if uri == "test://static-text":
        contents: Any = types.TextResourceContents(uri=uri, mime_type="text/plain", text=STATIC_TEXT)
    elif uri == "test://static-binary":
        contents = types.BlobResourceContents(uri=uri, mime_type="image/png", blob=RED_PIXEL_PNG)
    elif uri.startswith("test://template/") and uri.endswith("/data"):
        id_ = uri.removeprefix("test://template/").removesuffix("/data")
        data = json.dumps({"id": id_, "templateTest": True, "data": f"Data for ID: {id_}"}, separators=(",", ":"))
        contents = types.TextResourceContents(uri=uri, mime_type="application/json", text=data)
    else:
        raise MCPError(code=-32602, message=f"no resource at {uri}")
    return types.ReadResourceResult(contents=[contents])


# The URIs the client subscribed to (`resources/subscribe`; the suite's scenarios ask that they be
# tracked): the server has nothing that changes, so it never sends an update.
SUBSCRIBED: set[str] = set()


async def subscribe_resource(_ctx: Any, params: types.SubscribeRequestParams) -> types.EmptyResult:
    SUBSCRIBED.add(str(params.uri))
    return types.EmptyResult()


async def unsubscribe_resource(_ctx: Any, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
    SUBSCRIBED.discard(str(params.uri))
    return types.EmptyResult()


def argument(name: str, description: str) -> types.PromptArgument:
    return types.PromptArgument(name=name, description=description, required=True)


PROMPTS = [
    types.Prompt(name="test_simple_prompt", description="A prompt without arguments"),
    types.Prompt(
        name="test_prompt_with_arguments",
        description="A prompt with two arguments",
        arguments=[argument("arg1", "First test argument"), argument("arg2", "Second test argument")],
    ),
    types.Prompt(
        name="test_prompt_with_embedded_resource",
        description="A prompt embedding a resource",
        arguments=[argument("resourceUri", "URI of the resource to embed")],
    ),
    types.Prompt(name="test_prompt_with_image", description="A prompt with an image"),
    # Not a scenario's: tests/conformance/prompt_relay.py reads it through the gateway.
    types.Prompt(name="test_prompt_asking", description="Asks the user for its topic while it answers"),
]


async def list_prompts(_ctx: Any, _params: Any) -> types.ListPromptsResult:
    return types.ListPromptsResult(prompts=PROMPTS)


def user(content: Any) -> types.PromptMessage:
    return types.PromptMessage(role="user", content=content)


async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
    arguments = params.arguments or {}
    if params.name == "test_simple_prompt":
        messages = [user(text("This is a simple prompt for testing."))]
    elif params.name == "test_prompt_with_arguments":
        arg1, arg2 = arguments.get("arg1", ""), arguments.get("arg2", "")
        messages = [user(text(f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"))]
    elif params.name == "test_prompt_with_embedded_resource":
        uri = arguments.get("resourceUri", "test://example-resource")
        messages = [
            user(embedded(uri, "Embedded resource content for testing.")),
            user(text("Please process the embedded resource above.")),
        ]
    elif params.name == "test_prompt_with_image":
        image = types.ImageContent(type="image", data=RED_PIXEL_PNG, mime_type="image/png")
        messages = [user(image), user(text("Please analyze the image above."))]
    elif params.name == "test_prompt_asking":
        # Asks in the middle of the request, as a server of the 2025 revisions does.
        answer = await ctx.session.elicit(
            message="Which topic?", requested_schema=asking(("topic", "string")), related_request_id=ctx.request_id
        )
        messages = [user(text(f"Write about {(answer.content or {}).get('topic')}."))]
    else:
        raise MCPError(code=-32602, message=f"no prompt named {params.name}")
    return types.GetPromptResult(messages=messages)


async def complete(_ctx: Any, params: types.CompleteRequestParams) -> types.CompleteResult:
    typed = params.argument.value
    values = [v for v in ["paris", "park", "party"] if v.startswith(typed)]
    return types.CompleteResult(completion=types.Completion(values=values, total=len(values), has_more=False))


async def main() -> None:
    server = Server(
        "carnet-conformance-fixture",
        version="1.0.0",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_resource_templates,
        on_read_resource=read_resource,
        on_subscribe_resource=subscribe_resource,
        on_unsubscribe_resource=unsubscribe_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
        on_completion=complete,
    )
    if "--http" in sys.argv[1:]:
        import uvicorn

        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        print(f"http://127.0.0.1:{listener.getsockname()[1]}/mcp", flush=True)
        config = uvicorn.Config(server.streamable_http_app(), log_level="warning")
        await uvicorn.Server(config).serve(sockets=[listener])
        return
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
