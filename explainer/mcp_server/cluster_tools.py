"""The assistant's discovery tools on the operator's Pyroscope server: profile types, label names,
label values, top by label and the series over time. Their ``source`` is required and must be
``pyroscope``: a file has no labels, and a missing source is an error saying what to pass (never
the demo's numbers reported as the cluster's). Hints name these tools, not CLI commands.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from explainer import markdown
from explainer.errors import QueryError
from explainer.mcp_server.sources import PYROSCOPE, Access, ServerQuery
from explainer.mcp_server.tools import UNTRUSTED, Result, clamp, fit
from explainer.symbols import clean

if TYPE_CHECKING:
    from explainer.model import Profile
    from explainer.pyroscope.client import PyroscopeClient
    from explainer.pyroscope.query import Query, TimeRange

MAX_VALUES = 200
NEED_SOURCE = (
    "source is required: pass source='pyroscope' to ask the operator's Pyroscope server (the discovery tools "
    "read labels, which profile files do not have)"
)


class ToolQueryError(QueryError):
    """A query error whose hint names the MCP tools (an assistant cannot run our CLI); the hint is part
    of the message, which is what :func:`explainer.mcp_server.errors.describe` shows."""

    def __init__(self, message: str, *, hint: str = "") -> None:
        super().__init__(f"{message}; {hint}" if hint else message)


@dataclass
class Server:
    client: PyroscopeClient
    window: TimeRange
    selector: str
    wanted_type: str

    def query(self) -> Query:
        from explainer.pyroscope.query import Query

        # an unknown type's error lists the server's types; describe() adds "pass one as query.profile_type"
        return Query(self.client.resolve_type(self.wanted_type, self.window), self.selector, self.window)


def require_pyroscope(source: str | None) -> None:
    if not source:
        raise ToolQueryError(NEED_SOURCE)
    if source != PYROSCOPE:
        raise ToolQueryError(
            f"source {clean(source, 100)!r} is a profile file or the demo, which has no labels; " + NEED_SOURCE
        )


@contextmanager
def server(access: Access, source: str | None, query: ServerQuery | None) -> Iterator[Server]:
    """The operator's server with the assistant's window, selector and type over the operator's defaults."""
    require_pyroscope(source)
    if access.server is None:
        raise ToolQueryError("no Pyroscope server is configured (the operator starts explainer mcp with --server URL)")
    import requests

    from explainer.pyroscope.selector import build_selector

    q = query or ServerQuery()
    source_ = access.server.query(q.profile_type, q.selector, q.start, q.end)
    with requests.Session() as session:
        client = source_.client(session)
        yield Server(client, source_.window(), build_selector(source_.selector, []), source_.profile_type)


def _envelope(tool: str, s: Server, **data: Any) -> dict[str, Any]:
    return {
        "tool": tool,
        "untrusted": UNTRUSTED,
        "source": {"kind": "pyroscope", "location": s.client.base_url},
        "selector": s.selector,
        "from_ms": s.window.start_ms,
        "until_ms": s.window.end_ms,
        **data,
    }


def _listing(values: list[str], limit: int) -> tuple[list[str], int]:
    shown = sorted(values)[:limit]
    return shown, len(values) - len(shown)


def profile_types(access: Access, source: str | None, query: ServerQuery | None) -> Result:
    with server(access, source, query) as s:
        types = sorted(s.client.profile_types(s.window), key=lambda t: t.id)
    rows = [{"id": t.id, "sample_type": t.sample_type, "unit": t.sample_unit, "meaning": t.meaning} for t in types]
    lines = [f"- {markdown.code(r['id'])} {clean(r['sample_type'])}/{clean(r['unit'])}" for r in rows]
    md = "Profile types with data in the window:\n\n" + ("\n".join(lines) or "(none)")
    return fit(Result(_envelope("profile_types", s, profile_types=rows), md))


def label_names(access: Access, source: str | None, query: ServerQuery | None) -> Result:
    with server(access, source, query) as s:
        names = [n for n in s.client.label_names(s.window, s.selector) if not n.startswith("__")]
    shown, more = _listing(names, MAX_VALUES)
    md = "Label names: " + (", ".join(markdown.code(n) for n in shown) or "(none)")
    md += f" and {more} more" if more else ""
    hint = "call label_values with one of these names, or top_by_label to total by one"
    return fit(Result(_envelope("label_names", s, names=shown, left_out=more, next=hint), md))


def label_values(access: Access, source: str | None, name: str, query: ServerQuery | None, limit: int) -> Result:
    with server(access, source, query) as s:
        values = s.client.label_values(name, s.window, s.selector)
    shown, more = _listing(values, clamp(limit, 1, MAX_VALUES))
    md = f"Values of {markdown.code(name)}: " + (", ".join(markdown.code(v) for v in shown) or "(none)")
    md += f" and {more} more" if more else ""
    if not values:
        md += " (call label_names to see which labels exist in this window)"
    return fit(Result(_envelope("label_values", s, name=name, values=shown, left_out=more), md))


def top_by_label(
    access: Access, source: str | None, label: str | None, query: ServerQuery | None, limit: int
) -> Result:
    from explainer.pyroscope.cluster import default_label
    from explainer.pyroscope.cluster import top_by_label as top
    from explainer.report.cluster import top_json, top_text

    with server(access, source, query) as s:
        q = s.query()
        found = top(s.client, q, label or default_label(q.profile_type), clamp(limit, 1, 50))
    md = "```\n" + top_text(found).replace("`", "'") + "```"
    return fit(Result(_envelope("top_by_label", s, **top_json(found)), md))


def series(access: Access, source: str | None, function: str | None, query: ServerQuery | None) -> Result:
    from explainer.pyroscope.cluster import call_site, course, sensible_step
    from explainer.report.cluster import course_json, course_lines

    with server(access, source, query) as s:
        q = s.query()
        step = sensible_step(q.window)
        site: tuple[str, ...] = ()
        if function:
            site = call_site(list(s.client.flame_graph(q).stacks()), function)
            if not site:
                raise ToolQueryError(
                    f"no stack in the selection goes through {clean(function, 100)!r}",
                    hint="call top_functions with source='pyroscope' for the names in this selection",
                )
        found = course(s.client.series(q, step, call_site=site), step)
    if found is None:
        raise ToolQueryError("nothing was recorded in this window", hint="widen query.start, or call profile_types")
    unit = q.profile_type.sample_unit
    md = "\n".join(f"- {line}" for line in course_lines(found, unit))
    data = _envelope("series", s, unit=unit, call_site=list(site), **course_json(found))
    return fit(Result(data, md))


def ask(access: Access, profile: Profile, question: str, query: ServerQuery | None) -> Result:
    """The ask tool on a server source: cluster questions go to the server, the rest to the profile."""
    from explainer.explain.cluster import ClusterDesk
    from explainer.mcp_server import tools

    with server(access, PYROSCOPE, query) as s:
        return tools.ask(profile, question, cluster=ClusterDesk.for_profile(s.client, profile))


def handoff(
    access: Access, profile: Profile, baseline: Profile | None, limit: int, query: ServerQuery | None
) -> Result:
    """The handoff report of a server profile, with the pods section (top pods, far replicas, when it rose)."""
    from explainer.explain.cluster import ClusterDesk
    from explainer.mcp_server import tools
    from explainer.report.cluster import pods_section

    with server(access, PYROSCOPE, query) as s:
        desk = ClusterDesk.for_profile(s.client, profile)
        pods = pods_section(desk.client, desk.query, clamp(limit, 1, 20)) if desk is not None else None
    return tools.handoff(profile, baseline, limit, pods=pods)
