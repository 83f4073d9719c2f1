#!/usr/bin/env python3
"""Checks that every wrapper in target/remote/bin answers `initialize` and `tools/list` (all
pages) over stdio, with the official MCP Python SDK's ClientSession. Run with
target/remote/venv/bin/python (tests/remote/setup.sh runs it after an install).

    check_servers.py [--bin DIR] [--quiet] [--json-dir DIR] [--markdown FILE]

--json-dir writes each server's initialize and tools/list results as <name>.json;
--markdown writes the table of tests/remote/servers-tools.md (server, version, protocol, tools).
Exits non-zero, naming the server, when one does not answer within 60 s.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import StdioServerParameters
from mcp.client.session import ClientSession
from mcp.client.stdio import stdio_client

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
TIMEOUT = 60.0

# wrapper -> (package, extra arguments)
SERVERS: dict[str, tuple[str, list[str]]] = {
    "fs-server": ("@modelcontextprotocol/server-filesystem", ["{desk}"]),
    "memory-server": ("@modelcontextprotocol/server-memory", []),
    "everything-server": ("@modelcontextprotocol/server-everything", []),
    "time-server": ("mcp-server-time", []),
    "git-server": ("mcp-server-git", []),
}


def dump(model: Any) -> Any:
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


async def probe(command: Path, args: list[str], env: dict[str, str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    params = StdioServerParameters(command=str(command), args=args, env=env)
    with open(os.devnull, "w") as devnull:
        async with stdio_client(params, errlog=devnull) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=TIMEOUT) as session:
                init = await session.initialize()
                tools: list[dict[str, Any]] = []
                cursor = None
                while True:
                    page = await session.list_tools(
                        params=types.PaginatedRequestParams(cursor=cursor) if cursor else None
                    )
                    tools.extend(dump(t) for t in page.tools)
                    cursor = page.next_cursor
                    if not cursor:
                        break
                return dump(init), tools


async def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(ROOT / "target" / "remote" / "bin"))
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--json-dir")
    ap.add_argument("--markdown")
    ap.add_argument("--only", action="append")
    opts = ap.parse_args()

    rows = []
    failed = False
    with tempfile.TemporaryDirectory(prefix="carnet-remote-check-") as tmp:
        desk = Path(tmp) / "desk"
        desk.mkdir()
        (desk / "hello.txt").write_text("hello from the desk\n")
        env = {"MEMORY_FILE_PATH": str(Path(tmp) / "memory.jsonl")}
        for name, (package, extra) in SERVERS.items():
            if opts.only and name not in opts.only:
                continue
            args = [a.format(desk=desk) for a in extra]
            try:
                with anyio.fail_after(TIMEOUT):
                    init, tools = await probe(Path(opts.bin) / name, args, env)
            except BaseException as e:  # noqa: BLE001 - report and go on to the next server
                if isinstance(e, KeyboardInterrupt):
                    raise
                print(f"FAIL {name}: no initialize + tools/list answer: {type(e).__name__}: {e}", file=sys.stderr)
                failed = True
                continue
            info = init.get("serverInfo", {})
            names = [t["name"] for t in tools]
            rows.append((name, package, info, init.get("protocolVersion"), names))
            if not opts.quiet:
                print(f"ok {name}: {info.get('name')} {info.get('version')} protocol {init.get('protocolVersion')}: {len(names)} tools")
            if opts.json_dir:
                out = Path(opts.json_dir)
                out.mkdir(parents=True, exist_ok=True)
                (out / f"{name}.json").write_text(
                    json.dumps({"initialize": init, "tools": tools}, indent=2, sort_keys=True) + "\n"
                )

    if opts.markdown and not failed:
        lines = [
            "| wrapper | package | serverInfo (name, version) | protocol | tools |",
            "| --- | --- | --- | --- | --- |",
        ]
        for name, package, info, protocol, names in rows:
            tools_cell = ", ".join(f"`{n}`" for n in names)
            lines.append(
                f"| `{name}` | `{package}` | {info.get('name')} {info.get('version')} | {protocol} | {tools_cell} |"
            )
        Path(opts.markdown).write_text("\n".join(lines) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
