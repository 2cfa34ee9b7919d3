"""Exact answers from a server: a flame graph whose ``other`` nodes hold a real share of the total
is replaced by the full profile, or, where the server cannot send that, by a larger node budget.

Pyroscope's ``maxNodes`` merges every subtree below a size into ``other`` nodes. On a wide profile
(many distinct allocation sites, as large services have) that is most of the total: the top
functions and every share computed from the flame graph are then wrong, not just rounded. The
file path has no such budget, so the server path fetches what the file would hold.
"""

from __future__ import annotations

from dataclasses import replace

from explainer import units
from explainer.errors import BadResponseError, ExplainerError
from explainer.model import Profile
from explainer.pyroscope.client import PyroscopeClient
from explainer.pyroscope.query import MAX_NODES_LIMIT, Query
from explainer.pyroscope.transport import Deadline, Event

OTHER_SHARE = 0.01
"""Above this share of the total in ``other``, a flame graph is not an exact answer."""

BUDGET_STEP = 16  # a wider budget, when no full profile can be had: one more query, not a search


def other_share(profile: Profile) -> float:
    t = profile.truncation
    return t.other_value / profile.total if profile.total else 0.0


def exact_profile(
    client: PyroscopeClient,
    query: Query,
    *,
    deadline: Deadline | None = None,
    share: float = OTHER_SHARE,
    on_event: Event | None = None,
) -> Profile:
    """The flame graph when its ``other`` holds at most ``share`` of the total; else the full
    profile (binary pprof); else, when the server has no full profile to give, it is over the
    size cap or it does not decode, the flame graph again with a larger node budget. The profile's ``source.note`` says
    which was done and why."""
    event = on_event or (lambda _text: None)
    deadline = deadline or client.deadline()
    graph = client.flame_graph(query, deadline=deadline)
    if other_share(graph) <= share:
        return graph
    why = _merged(graph, query.max_nodes)
    event(f"{why}: fetching the full profile")
    try:
        full = client.profile(query, deadline=deadline)
    except BadResponseError as exc:  # no such call here, over --max-size, or an answer that does not decode
        failed = exc
    else:
        return _noted(full, f"{why}, so the full profile was fetched instead (exact, no node budget)")
    budget = min(MAX_NODES_LIMIT, query.max_nodes * BUDGET_STEP)
    if budget <= query.max_nodes:
        return _noted(graph, f"{why}; the full profile could not be fetched ({_reason(failed)})")
    event(f"no full profile ({_reason(failed)}): asking for {budget:,} nodes")
    wider = client.flame_graph(replace(query, max_nodes=budget), deadline=deadline)
    left = other_share(wider)
    after = (
        f"{units.format_share(left, 1)} of the total is still in 'other'" if left > 0 else "nothing is left in 'other'"
    )
    return _noted(
        wider,
        f"{why}; the full profile could not be fetched ({_reason(failed)}), so the node budget was raised "
        f"to {budget:,} and {after}",
    )


def _merged(graph: Profile, max_nodes: int) -> str:
    t = graph.truncation
    return (
        f"the server's flame graph (maxNodes {max_nodes:,}) merged {units.format_share(t.other_value, graph.total)} "
        f"of the total into {t.other_nodes:,} 'other' node(s)"
    )


def _reason(exc: ExplainerError) -> str:
    return str(exc.args[0]) if exc.args else type(exc).__name__


def _noted(profile: Profile, note: str) -> Profile:
    return replace(profile, source=replace(profile.source, note=note))
