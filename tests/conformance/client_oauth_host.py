"""An MCP host (the official Python SDK's client) calling a tool of a remote toolset behind
OAuth through `carnet serve-mcp` (carnet-cli/tests/oauth_login.rs): loads skill `s`, then
calls the tool whose name ends in `echo` with `text`; prints the result's text.

    python client_oauth_host.py GATEWAY_URL TEXT
"""

from __future__ import annotations

import sys

import anyio
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client


async def main(url: str, text: str) -> None:
    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            loaded = await session.call_tool("loadSkill", {"skillName": "s"})
            assert not loaded.is_error, loaded
            tools = [t.name for t in (await session.list_tools()).tools]
            echo = next(name for name in tools if name.endswith("echo"))
            result = await session.call_tool(echo, {"text": text})
            assert not result.is_error, result
            print("".join(getattr(block, "text", "") for block in result.content))


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], sys.argv[2])
