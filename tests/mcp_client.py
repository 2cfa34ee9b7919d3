"""Drive `explainer mcp` over stdio with the official MCP SDK client: one server process per batch.

``session(command, calls)`` starts the server, lists its tools, makes every call in order and
returns plain data, so a test module pays for one server start and asserts on the results.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters


@dataclass(frozen=True)
class Call:
    markdown: str
    data: dict[str, Any] | None
    is_error: bool
    texts: tuple[str, ...]


@dataclass(frozen=True)
class Session:
    tools: dict[str, Any]  # name -> the SDK's Tool (input_schema, annotations, description)
    calls: list[Call]


def session(command: list[str], calls: list[tuple[str, dict[str, Any]]], cwd: str | None = None) -> Session:
    async def run() -> Session:
        params = StdioServerParameters(
            command=command[0], args=command[1:], cwd=cwd, env={"PATH": os.environ.get("PATH", "")}
        )
        with anyio.fail_after(300):  # a hung server fails the test instead of hanging the run
            return await _calls(params)

    async def _calls(params: StdioServerParameters) -> Session:
        async with Client(params, read_timeout_seconds=120) as client:
            listed = await client.list_tools()
            results = []
            for name, arguments in calls:
                r = await client.call_tool(name, arguments)
                texts = tuple(getattr(c, "text", "") for c in r.content)
                results.append(Call(texts[0] if texts else "", r.structured_content, bool(r.is_error), texts))
            return Session({t.name: t for t in listed.tools}, results)

    return anyio.run(run)
