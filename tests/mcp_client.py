"""Drive `explainer mcp` over stdio with the official MCP SDK client: one server process per batch.

``session(command, calls)`` starts the server, lists its tools, makes every call in order and
returns plain data, so a test module pays for one server start and asserts on the results.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from conftest import stop


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


def session(server: list[str] | str, calls: list[tuple[str, dict[str, Any]]], cwd: str | None = None) -> Session:
    """``server`` is a command to start over stdio, or the URL of a streamable-HTTP server."""

    async def run() -> Session:
        target: StdioServerParameters | str = (
            server
            if isinstance(server, str)
            else StdioServerParameters(command=server[0], args=server[1:], cwd=cwd, env=_environment())
        )
        with anyio.fail_after(300):  # a hung server fails the test instead of hanging the run
            return await _calls(target)

    async def _calls(target: StdioServerParameters | str) -> Session:
        async with Client(target, read_timeout_seconds=120) as client:
            listed = await client.list_tools()
            results = []
            for name, arguments in calls:
                r = await client.call_tool(name, arguments)
                texts = tuple(getattr(c, "text", "") for c in r.content)
                results.append(Call(texts[0] if texts else "", r.structured_content, bool(r.is_error), texts))
            return Session({t.name: t for t in listed.tools}, results)

    return anyio.run(run)


def _environment() -> dict[str, str]:
    """Only what the server needs; PYTHONPATH too, so a checkout run from its own path tests its own code."""
    keep = ("PATH", "PYTHONPATH")
    return {k: os.environ[k] for k in keep if k in os.environ}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def http_server(command: list[str], port: int, log: Path) -> Iterator[str]:
    """``command`` (an ``explainer mcp --transport http`` on ``port``) running until the block ends."""
    with log.open("wb") as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 60
            while True:
                with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"explainer mcp did not start: {log.read_text(errors='replace')[-2000:]}")
                time.sleep(0.2)
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            stop(proc)
