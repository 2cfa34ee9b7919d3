"""The MCP server: the tools of :mod:`.tools` on the official MCP Python SDK, read-only.

Arguments are typed and length-capped in the schema the SDK publishes and validates; row counts
are clamped, not rejected. A result's content is the short Markdown view then the data as JSON
text (for clients that ignore structured content); ``structuredContent`` holds the same data.
Every :class:`ExplainerError` becomes an error result with its one line; anything else is
logged and reported without internals.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from explainer import __version__
from explainer.errors import ExplainerError, QueryError
from explainer.explain import toolset
from explainer.explain.context import ProfileContext
from explainer.mcp_server import cluster_tools, tools
from explainer.mcp_server.errors import describe
from explainer.mcp_server.sources import PYROSCOPE, Access, ServerQuery
from explainer.model import Profile, once_per_profile
from explainer.work_gate import WorkGate

log = logging.getLogger(__name__)

INSTRUCTIONS = (
    "explainer reads GPU-memory and CPU profiles (pprof, Pyroscope flame-graph JSON, folded stacks, or the "
    "operator's Pyroscope server) and answers with the analyzer's exact numbers. self = what a function uses "
    "directly; total = what flows through it and its callees (counted once per stack). Quote numbers from the "
    "results, with their unit. Every call names its source (a file, 'demo', or 'pyroscope'); there is no "
    "default. " + tools.UNTRUSTED
)

Source = Annotated[
    str | None,
    Field(
        min_length=1,
        max_length=4096,
        description="required: a profile file under the allowed roots (relative to a root, or absolute), 'demo' "
        "for the bundled vLLM GPU-memory demo, or 'pyroscope' to query the configured server with `query`",
    ),
]
Name = Annotated[
    str, Field(min_length=1, max_length=tools.MAX_NAME_CHARS, description="a function name, or part of one")
]
Limit = Annotated[int, Field(description=f"rows per list (clamped to 1..{tools.MAX_ROWS})")]
Rows = Annotated[int, Field(description=f"rows per list (clamped to 1..{toolset.MAX_ROWS})")]
SampleType = Annotated[
    str | None, Field(max_length=200, description="pprof sample type to read (default: the profile's default)")
]


class Query(BaseModel):
    """A Pyroscope query on the operator's server (used when source is 'pyroscope')."""

    model_config = ConfigDict(extra="forbid")
    profile_type: str | None = Field(None, max_length=300, description="a profile type ID, or gpu-memory / cpu")
    selector: str | None = Field(None, max_length=2000, description='label selector, e.g. {k8s_namespace="x"}')
    start: str | None = Field(None, max_length=64, description="window start: now-1h, now-1d/d, RFC 3339")
    end: str | None = Field(None, max_length=64, description="window end (default now); at most 24 h after start")


def _as_result(result: tools.Result) -> CallToolResult:
    text = json.dumps(result.data, ensure_ascii=False)
    return CallToolResult(
        content=[TextContent(type="text", text=result.markdown), TextContent(type="text", text=text)],
        structured_content=result.data,
    )


_GATE: list[WorkGate] = []  # time per call and calls in flight (explainer.work_gate), made on first use


def _run(make: Callable[[], tools.Result]) -> CallToolResult:
    try:
        if not _GATE:
            _GATE.append(WorkGate.from_env("the MCP server"))
        return _as_result(_GATE[0].run(make))
    except ExplainerError as exc:
        raise ToolError(describe(exc)) from exc
    except Exception as exc:  # a bug: logged here, never a traceback or internals to the caller
        log.exception("tool failed")
        raise ToolError(f"the tool failed on this profile (unexpected {type(exc).__name__}; logged)") from exc


REQUIRED = ("source", "base", "new")
"""The profiles a call names: published as required, though the functions take None, so that a call
without one gets the error that says what to pass (:func:`missing_source`), not a bare validation error."""


def required_profiles(made: Tool) -> Tool:
    """``made`` with its profile arguments in the schema's ``required``, typed as the strings they must be."""
    properties = made.parameters.get("properties", {})
    named = [name for name in REQUIRED if name in properties]
    for name in named:
        prop = properties[name]
        prop.pop("default", None)
        text = [branch for branch in prop.pop("anyOf", []) if branch.get("type") != "null"]
        if text:  # "a string", no longer "a string or null"
            prop.update(text[0])
    if named:
        made.parameters["required"] = [*named, *(n for n in made.parameters.get("required", []) if n not in named)]
    return made


def build_server(access: Access) -> MCPServer:
    tools_made: list[Tool] = []
    # one prepared reading per profile object: a conversation's calls on one profile share it
    contexts = once_per_profile(ProfileContext)

    def load(source: str | None, sample_type: str | None = None, query: Query | None = None) -> Profile:
        if source is None or not source.strip():
            raise QueryError(missing_source(access))
        q = ServerQuery(**query.model_dump()) if query else None
        return access.load(source, sample_type, q)

    def shared(
        tool_name: str, /, source: str | None, sample_type: str | None, query: Query | None, **arguments: Any
    ) -> CallToolResult:
        return _run(lambda: tools.run_shared(contexts(load(source, sample_type, query)), tool_name, arguments))

    # read-only; "open world" only when a Pyroscope server is configured (then a tool reaches it)
    hints = ToolAnnotations(
        read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=access.server is not None
    )

    def tool(fn: Callable[..., CallToolResult]) -> Callable[..., CallToolResult]:
        tools_made.append(required_profiles(Tool.from_function(fn, annotations=hints, structured_output=False)))
        return fn

    @tool
    def analyze(
        source: Source = None, limit: Limit = 10, sample_type: SampleType = None, query: Query | None = None
    ) -> CallToolResult:
        """Analyse a profile: total, top functions by self and by total, the heaviest call chain, GPU-memory
        categories, coverage and truncation. Numbers are raw integers in the profile's unit."""
        return _run(lambda: tools.analyze(load(source, sample_type, query), limit))

    @tool
    def top_functions(
        source: Source = None,
        order: Literal["self", "total"] = "self",
        limit: Rows = 10,
        sample_type: SampleType = None,
        query: Query | None = None,
    ) -> CallToolResult:
        """The functions using the most by self (directly) or by total (with callees), with coverage."""
        return shared("top_functions", source, sample_type, query, order=order, limit=limit)

    @tool
    def function_details(
        name: Name, source: Source = None, sample_type: SampleType = None, query: Query | None = None
    ) -> CallToolResult:
        """One function: self, total, what the frame is, its GPU-memory category and the knobs that change it."""
        return shared("function_details", source, sample_type, query, name=name)

    @tool
    def call_chain(
        source: Source = None, name: Name | None = None, sample_type: SampleType = None, query: Query | None = None
    ) -> CallToolResult:
        """The heaviest call chain to a function, entry point first (interpreter and address frames left out);
        without a name, to the biggest self."""
        return shared("call_chain", source, sample_type, query, name=name)

    @tool
    def callers_callees(
        name: Name,
        source: Source = None,
        limit: Rows = 8,
        sample_type: SampleType = None,
        query: Query | None = None,
    ) -> CallToolResult:
        """Who calls a function and what it calls, heaviest first, over every place it appears."""
        return shared("callers_callees", source, sample_type, query, name=name, limit=limit)

    @tool
    def symbol_meaning(
        name: Name, source: Source = None, sample_type: SampleType = None, query: Query | None = None
    ) -> CallToolResult:
        """What a frame label means by the naming conventions (read with the profile's runtime) and the knowledge
        base; works for names that are not in the profile."""
        return shared("symbol_meaning", source, sample_type, query, name=name)

    @tool
    def search_functions(
        text: Annotated[str, Field(min_length=2, max_length=tools.MAX_NAME_CHARS)],
        source: Source = None,
        limit: Rows = 10,
        sample_type: SampleType = None,
        query: Query | None = None,
    ) -> CallToolResult:
        """Functions whose name contains the text (case-insensitive), heaviest first."""
        return shared("search_functions", source, sample_type, query, text=text, limit=limit)

    @tool
    def diff(
        base: Source = None, new: Source = None, limit: Limit = 10, sample_type: SampleType = None
    ) -> CallToolResult:
        """What changed from a baseline profile to a new one, function by function, above a noise floor."""
        return _run(lambda: tools.diff(load(base, sample_type), load(new, sample_type), limit))

    @tool
    def handoff(
        source: Source = None, baseline: Source = None, limit: Limit = 5, query: Query | None = None
    ) -> CallToolResult:
        """The on-call handoff report (Markdown): scope, headline numbers, top consumers, changes, next steps."""
        if source == PYROSCOPE:  # with a section on the pods, asked of the same server
            q = ServerQuery(**query.model_dump()) if query else None
            return _run(
                lambda: cluster_tools.handoff(
                    access, load(source, None, query), load(baseline) if baseline else None, limit, q
                )
            )
        return _run(lambda: tools.handoff(load(source, None, query), load(baseline) if baseline else None, limit))

    @tool
    def ask(
        question: Annotated[str, Field(min_length=1, max_length=tools.MAX_QUESTION_CHARS)],
        source: Source = None,
        sample_type: SampleType = None,
        query: Query | None = None,
    ) -> CallToolResult:
        """An offline answer to a question about a profile (no model is called; numbers are the analyzer's).
        With source 'pyroscope', questions about pods, namespaces and services are answered by the server."""
        if source == PYROSCOPE:
            q = ServerQuery(**query.model_dump()) if query else None
            return _run(lambda: cluster_tools.ask(access, load(source, sample_type, query), question, q))
        return _run(lambda: tools.ask(load(source, sample_type, query), question))

    _discovery_tools(tool, access)
    return MCPServer("explainer", version=__version__, instructions=INSTRUCTIONS, tools=tools_made)


ServerSource = Annotated[
    str | None,
    Field(
        min_length=1,
        max_length=64,
        description="required: 'pyroscope', the operator's Pyroscope server (profile files have no labels)",
    ),
]


def _discovery_tools(tool: Callable[..., Any], access: Access) -> None:
    """What the server holds (types, labels, values), totals per label and the course over time."""

    def q(query: Query | None) -> ServerQuery | None:
        return ServerQuery(**query.model_dump()) if query else None

    @tool
    def profile_types(source: ServerSource = None, query: Query | None = None) -> CallToolResult:
        """The profile types with data in the window (IDs for query.profile_type)."""
        return _run(lambda: cluster_tools.profile_types(access, source, q(query)))

    @tool
    def label_names(source: ServerSource = None, query: Query | None = None) -> CallToolResult:
        """The label names in the window (e.g. k8s_podName, k8s_namespace, service_name), for selectors."""
        return _run(lambda: cluster_tools.label_names(access, source, q(query)))

    @tool
    def label_values(
        name: Annotated[str, Field(min_length=1, max_length=200, description="a label name from label_names")],
        source: ServerSource = None,
        limit: Annotated[int, Field(description="values to list (clamped to 1..200)")] = 100,
        query: Query | None = None,
    ) -> CallToolResult:
        """The values of one label in the window (e.g. every pod name)."""
        return _run(lambda: cluster_tools.label_values(access, source, name, q(query), limit))

    @tool
    def top_by_label(
        source: ServerSource = None,
        label: Annotated[
            str | None,
            Field(
                max_length=200, description="label to total by (default k8s_podName for GPU memory, else service_name)"
            ),
        ] = None,
        limit: Limit = 10,
        query: Query | None = None,
    ) -> CallToolResult:
        """Totals per label value (which pod, namespace or service uses the most), largest first, with each
        share of the window and what the list leaves out; computed by the server (raw integers)."""
        return _run(lambda: cluster_tools.top_by_label(access, source, label, q(query), limit))

    @tool
    def series(
        source: ServerSource = None,
        function: Annotated[
            str | None, Field(max_length=tools.MAX_NAME_CHARS, description="only the stacks through this function")
        ] = None,
        query: Query | None = None,
    ) -> CallToolResult:
        """The selection (or one function) over the window at a round step: when it rose, its peak, its trend."""
        return _run(lambda: cluster_tools.series(access, source, function, q(query)))


def missing_source(access: Access) -> str:
    """What to pass when a call names no source (never a silent default: the demo's numbers are not the cluster's)."""
    server = " or 'pyroscope' with query {profile_type, selector, start, end} for the operator's server"
    return (
        "source is required: pass a profile file under the allowed roots "
        f"({access.describe_roots()}), 'demo' for the bundled demo profile"
        + (server if access.server is not None else "")
    )


def serve(
    access: Access, transport: str, host: str, port: int, *, allowed_hosts: list[str] | None = None, token: str = ""
) -> None:
    server = build_server(access)
    if transport == "stdio":
        server.run("stdio")
    else:
        from explainer.mcp_http import serve_http

        serve_http(server, host, port, extra_hosts=allowed_hosts or [], token=token)
