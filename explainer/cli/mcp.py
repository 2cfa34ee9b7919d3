"""``explainer mcp``: the analyzer as an MCP server for coding assistants (Claude Desktop, VS Code, Cursor).

stdio by default (the assistant starts the process); ``--transport http`` serves streamable HTTP
on 127.0.0.1. Files are opened only under ``--root`` (default: the working directory); a
Pyroscope server is the operator's choice (``--server`` and the usual auth options), never the
assistant's. See docs/mcp.md for the client configuration snippets.
"""

from __future__ import annotations

import argparse
import os
from typing import TextIO

from explainer.cli.argtypes import byte_count
from explainer.cli.server_args import add_connection_arguments, server_source
from explainer.errors import QueryError
from explainer.netbind import check_bind, is_loopback
from explainer.pyroscope.auth import ENV_URL
from explainer.readers.limits import DEFAULT_MAX_DECOMPRESSED

DEFAULT_HOST, DEFAULT_PORT = "127.0.0.1", 8765
ENV_MCP_TOKEN = "EXPLAINER_MCP_TOKEN"


def _token(args: argparse.Namespace) -> str:
    """The HTTP bearer token: from a file (never a flag's value), else the environment."""
    if args.auth_token_file:
        from explainer.pyroscope.auth import read_secret_file

        token = read_secret_file(args.auth_token_file, "MCP token")
        if not token:
            raise QueryError(f"the MCP token file {args.auth_token_file} is empty")
        return token
    return os.environ.get(ENV_MCP_TOKEN, "").strip()


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "mcp",
        help="serve the analyzer to coding assistants (Model Context Protocol, stdio or HTTP)",
        description="Run an MCP server with read-only tools: analyze, top_functions, function_details, "
        "call_chain, callers_callees, symbol_meaning, search_functions, diff, handoff and ask (offline), and on "
        "the server given here profile_types, label_names, label_values, top_by_label and series. Every call names "
        "its source; profiles are read only under --root; 'pyroscope' sources query the server given here.",
    )
    p.add_argument("--transport", choices=("stdio", "http"), default="stdio", help="stdio (default) or http")
    p.add_argument("--host", default=DEFAULT_HOST, metavar="ADDR", help=f"HTTP bind address (default {DEFAULT_HOST})")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, metavar="N", help=f"HTTP port (default {DEFAULT_PORT})")
    p.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a --host other than loopback (anyone who reaches it may call)",
    )
    p.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a Host name clients use to reach the HTTP server (repeatable; loopback names are always allowed)",
    )
    p.add_argument(
        "--auth-token-file",
        metavar="FILE",
        help=f"HTTP clients must send 'Authorization: Bearer' with the token in FILE (or ${ENV_MCP_TOKEN})",
    )
    p.add_argument(
        "--root",
        action="append",
        default=[],
        metavar="DIR",
        help="a directory whose profiles the tools may read (repeatable; default: the working directory)",
    )
    p.add_argument(
        "--max-size",
        type=byte_count,
        default=DEFAULT_MAX_DECOMPRESSED,
        metavar="BYTES",
        help=f"largest decompressed profile to accept (default {DEFAULT_MAX_DECOMPRESSED:,})",
    )
    add_connection_arguments(p)
    p.add_argument("--profile-type", default="gpu-memory", metavar="ID", help="default profile type of queries")
    p.set_defaults(run=run)


def run(args: argparse.Namespace, out: TextIO) -> int:
    from explainer.mcp_server.server import serve
    from explainer.mcp_server.sources import Access

    if not 1 <= args.port <= 65535:
        raise QueryError(f"--port must be between 1 and 65535, got {args.port}")
    token = ""
    if args.transport == "http":
        check_bind(args.host, args.allow_remote, "the MCP server")
        token = _token(args)
        if not token and not is_loopback(args.host):
            from explainer.notices import warn_once

            warn_once("mcp-no-token", f"the MCP server has no bearer token; set --auth-token-file or ${ENV_MCP_TOKEN}")
    configured = args.server or os.environ.get(ENV_URL) or getattr(args, "server_fallback", None)
    server = server_source(args) if configured else None
    access = Access.under(args.root or [os.getcwd()], server=server, max_size=args.max_size)
    serve(access, args.transport, args.host, args.port, allowed_hosts=args.allowed_host, token=token)
    return 0
