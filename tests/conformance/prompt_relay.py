#!/usr/bin/env python3
"""A prompt's server asking for input while it answers `prompts/get`, through the gateway, judged
by the official MCP Python SDK as the host (tests/conformance/run.sh runs it).

    prompt_relay.py URL --legacy      # a 2025-11-25 session: the question reaches the host
    prompt_relay.py URL --stateless   # 2026-07-28: refused at once, as for a host without it

`URL` is `carnet serve-mcp conformance` with carnet's fixture server behind it, whose prompt
`test_prompt_asking` elicits a topic in the middle of the request (tests/conformance/fixture.py).
In a session, the elicitation goes to the host that asked for the prompt, and its answer reaches
the prompt's text. At the stateless revision no request reaches a host (carnet asks with
`input_required` results during tool calls only): the server's question is refused, and the
host gets an error, not a hang (the fixture re-raises the refusal's `-32601`, which carnet takes
for "not this server's prompt": the host reads that no server has it). Prints PASS lines; exits 1 on the first failure.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import anyio
import mcp_types as types
from mcp import Client, MCPError

PROMPT = "test_prompt_asking"


def check(ok: Any, what: str, detail: Any = "") -> None:
    if not ok:
        print(f"FAIL prompt relay: {what}: {detail}", flush=True)
        sys.exit(1)
    print(f"PASS prompt relay: {what}", flush=True)


async def main(url: str, stateless: bool) -> None:
    asked: list[types.ElicitRequestParams] = []

    async def on_elicit(_context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        return types.ElicitResult(action="accept", content={"topic": "lighthouses"})

    mode = "auto" if stateless else "legacy"
    async with Client(url, mode=mode, read_timeout_seconds=30, elicitation_callback=on_elicit) as c:
        label = f"{c.protocol_version}"
        started = time.monotonic()
        if not stateless:
            got = await c.get_prompt(PROMPT)
            check(len(asked) == 1 and "topic" in str(asked[0]), f"{label}: the server's question reached the host", asked)
            said = " ".join(getattr(m.content, "text", "") for m in got.messages)
            check("lighthouses" in said, f"{label}: the host's answer reached the prompt", said)
            return
        check(c.protocol_version == "2026-07-28", "the host speaks 2026-07-28", c.protocol_version)
        try:
            got = await c.get_prompt(PROMPT)
            refused: Any = None
        except MCPError as e:
            refused = e
        check(
            refused is not None and not asked and time.monotonic() - started < 20,
            f"{label}: the server's question is refused at once and the host gets an error ({refused})",
            refused or got,
        )


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], "--stateless" in sys.argv[2:])
