"""The sandwich view of one function (Grafana's name): its callees above it, its callers below,
and its own self and total between them, from :func:`explainer.analysis.sandwich.sandwich`.

One selected function per session (``SessionData.selected``), set from the flame graph's
"Sandwich view" button, a row of the top table, the button under the last answer, or a row of
this view itself; the Sandwich tab is opened when it changes, so every entry point lands here.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from explainer import markdown, units
from explainer.analysis.sandwich import ENTRY, SELF, Neighbour, sandwich, sandwich_walks
from explainer.analysis.summary import Summary
from explainer.analysis.tree import build_tree
from explainer.model import Profile
from explainer.reading import runtime_of
from explainer.symbols import clean
from explainer.ui import flamegraph, gate, tables
from explainer.ui.state import SessionData
from explainer.ui.views import full_name

TAB = "Sandwich"
PANEL_KEY = "panel"  # the key of the page's tabs
LIMIT = 25
_PLACES = {ENTRY: "the function is where these stacks start", SELF: "what the function holds itself"}


def select(st: Any, state: SessionData, name: str, by: str = "the selected function") -> None:
    """Make ``name`` the function in focus and open the Sandwich tab (used inside widget callbacks)."""
    if name:
        state.selected, state.selected_by = name, by
        st.session_state[PANEL_KEY] = TAB


def follow_answers(state: SessionData) -> None:
    """A new answer about a function puts that function in focus (without leaving the chat), so the
    flame graph, the sandwich and the answer stay on the same function."""
    if state.focus and state.focus != state.answered:
        state.selected, state.selected_by, state.answered = state.focus, "the last answer's function", state.focus


def answer_button(st: Any, state: SessionData) -> None:
    """Under the chat: the last answer's function, one click from its sandwich view."""
    if state.focus:
        st.button(
            f"Sandwich view of {clean(state.focus, 60)}",
            key="sandwich_from_answer",
            icon=":material/call_split:",
            on_click=select,
            args=(st, state, state.focus, "the last answer's function"),
            help="Its callers and callees, with its self and total",
        )


def table_rows(profile: Profile, neighbours: tuple[Neighbour, ...], whole: int) -> pd.DataFrame:
    """Callers or callees as a table; each meaning read with the profile's runtime, as the flame
    graph's tooltips and the top table read it."""
    runtime = runtime_of(profile)
    return pd.DataFrame(
        {
            "function": [full_name(n.name) for n in neighbours],
            "value": [int(n.value) for n in neighbours],
            "share of it": [100.0 * n.value / max(whole, 1) for n in neighbours],
            "meaning": [_PLACES.get(n.name) or flamegraph.tooltip_meaning(n.name, runtime) for n in neighbours],
        }
    )


def _table(st: Any, state: SessionData, frame: pd.DataFrame, raw: list[str], key: str, unit: str) -> None:
    def follow() -> None:  # a click on a neighbour moves the sandwich to it
        rows = st.session_state[key].selection.rows
        if rows and raw[rows[0]] not in _PLACES:
            select(st, state, raw[rows[0]], "the sandwich's function")

    st.dataframe(
        tables.styled(frame, unit, values=("value",), shares=("share of it",)),
        hide_index=True,
        width="stretch",
        row_height=50,
        key=key,
        on_select=follow,
        selection_mode="single-row",
        column_config={
            "function": st.column_config.TextColumn(width="large"),
            "value": st.column_config.NumberColumn(width="small"),
            "share of it": st.column_config.NumberColumn(width="small"),
            "meaning": st.column_config.TextColumn(width="large"),
        },
    )


def _graphs(state: SessionData, profile: Profile, fid: int) -> tuple[Any, Any]:
    """The callees and callers flame graph payloads of one function, kept for the current one only."""
    slot: dict[str, Any] = state.derived(profile, "sandwich", dict)
    if slot.get("fid") != fid:
        callees, callers = sandwich_walks(profile, fid)
        n, grand = len(profile.names), profile.total
        slot.clear()
        slot["fid"] = fid
        slot["above"] = flamegraph.payload(build_tree(profile, walk=callees), n, rooted=True, grand=grand)
        slot["below"] = flamegraph.payload(build_tree(profile, walk=callers), n, rooted=True, grand=grand)
        slot["above"][0]["flip"] = True  # callees grow upwards from the function, as in a flame graph
    return slot["above"], slot["below"]


def _graph(st: Any, state: SessionData, data: Any, key: str) -> None:
    def recentre() -> None:  # "Sandwich view" on a bar here moves the sandwich to that function
        chosen = getattr(st.session_state[key], "sandwich", None)
        raw, marker = data[1], data[0]["otherId"]
        if isinstance(chosen, int) and 0 <= chosen < len(raw) and chosen != marker:
            select(st, state, raw[chosen], "the sandwich's function")

    flamegraph.draw(data[0], key, on_sandwich=recentre)


def show(st: Any, state: SessionData, summary: Summary) -> None:
    profile = summary.profile
    fid = profile.function_id(state.selected) if state.selected else None
    if fid is None:
        st.info(
            "Pick a function: click a bar and then 'Sandwich view' in the flame graph, click a row of the top "
            "table, or use the button under an answer.",
            icon="🥪",
        )
        return
    made = gate.shown(st, lambda: (sandwich(profile, fid, limit=LIMIT), _graphs(state, profile, fid)))
    if made is None:
        return
    view, (above, below) = made
    self_v, total_v = int(summary.stats.self_values[fid]), int(summary.stats.total_values[fid])
    unit, grand = profile.unit, summary.total
    st.markdown(f"**Callees of** {markdown.code(view.function)}: what it calls, above it")
    _graph(st, state, above, "sandwich_callees_graph")
    st.markdown(f"#### {markdown.code(view.function)}")
    cols = st.columns(2)
    cols[0].metric("Self", f"{units.format_value(self_v, unit)} ({units.format_share(self_v, grand)})")
    cols[1].metric("Total", f"{units.format_value(total_v, unit)} ({units.format_share(total_v, grand)})")
    st.markdown(f"**Callers of** {markdown.code(view.function)}: who calls it, below it")
    _graph(st, state, below, "sandwich_callers_graph")
    st.caption("Its direct callees and callers as tables (a row moves the sandwich to that function):")
    _table(
        st, state, table_rows(profile, view.callees, total_v), [n.name for n in view.callees], "sandwich_callees", unit
    )
    _table(
        st, state, table_rows(profile, view.callers, total_v), [n.name for n in view.callers], "sandwich_callers", unit
    )
    st.caption(
        f"Shares are of the function's total, {units.format_value(total_v, unit)}; each edge is counted once per "
        f"stack (pprof's rule); the {LIMIT} heaviest callers and callees are listed."
    )
