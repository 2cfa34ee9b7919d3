"""The label breakdown in the sidebar: bars per pod (or namespace, service) for the query as it stands,
and "Load" on one of them to open that pod's profile beside the chat.

The totals are the server's (:func:`explainer.pyroscope.cluster.top_by_label`: grouped series, no
per-pod merge). Label values are untrusted: they reach the page only as chart data (drawn as text
by Vega) and as select-box options (plain text), never as Markdown or HTML.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from explainer import units
from explainer.symbols import clean
from explainer.ui.state import SessionData

ServerCall = Callable[..., tuple[Any, str]]


def default_label(labels: list[str], meaning: str) -> int:
    from explainer.pyroscope.cluster import POD, SERVICE

    for wanted in (POD, SERVICE) if meaning == "gpu-memory" else (SERVICE, POD):
        if wanted in labels:
            return labels.index(wanted)
    return 0


def panel(st: Any, state: SessionData, ptype: Any, query_of: Callable[[Any], Any], server_call: ServerCall) -> str:
    """The breakdown for ``ptype`` and the selector; returns an error line or ""."""

    labels = list(state.server.get("labels") or [])
    if not labels:
        return ""
    ss = st.session_state
    label = st.selectbox(
        "Break down by", labels, index=default_label(labels, ptype.meaning), key="pyro_by", format_func=clean
    )
    asked = (ptype.id, label, ss.get("pyro_selector"), ss.get("pyro_window"), ss.get("pyro_from"), ss.get("pyro_until"))
    if st.button("Show the breakdown", key="pyro_breakdown", icon=":material/bar_chart:"):
        found, err = server_call(st, lambda c, w: fetch_breakdown(c, query_of(w), label))
        if err:
            return err
        state.server["breakdown"] = (asked, *found)
    shown = state.server.get("breakdown")
    if shown is None or shown[0] != asked:
        return ""
    found, over_time, step = shown[1], shown[2], shown[3]
    if not found.rows:
        st.caption("No series with data for this query in the window.")
        return ""
    chart(st, found)
    timeline(st, found, over_time, step)
    rows = [r for r in found.rows if r.value]
    if not rows:
        return ""
    pick = st.selectbox(
        f"Load the profile of one {clean(label, 40)}",
        range(len(rows)),
        key="pyro_pick",
        format_func=lambda i: f"{clean(rows[i].value, 80)}: {row_text(rows[i].total, found)}",
    )
    if st.button("Load its profile", key="pyro_load_value", icon=":material/open_in_browser:"):
        return load_value(st, state, ptype, label, rows[pick].value, query_of, server_call)
    return ""


TIMELINE_SERIES = 5  # lines in the chart over time: the largest values only


def fetch_breakdown(client: Any, query: Any, label: str) -> tuple[Any, Any, int]:
    """The totals per value (grouped series over the whole window) and the largest values over time."""
    from explainer.pyroscope.cluster import sensible_step, top_by_label

    found = top_by_label(client, query, label, limit=10)
    step = sensible_step(query.window)
    over_time = client.series(query, step, group_by=(label,), limit=TIMELINE_SERIES)
    return found, over_time, step


def timeline(st: Any, found: Any, series: Any, step: int) -> None:
    """One line per value (the largest few), each point a step's total."""
    import altair as alt
    import pandas as pd

    from explainer.report.cluster import shown_value

    rows = [
        {"time": t, "value": v, "of": shown_value(dict(s.labels).get(found.label, ""), found.label)}
        for s in series
        for t, v in s.points
    ]
    if not rows:
        return
    frame = pd.DataFrame(rows)
    frame["time"] = pd.to_datetime(frame["time"], unit="ms", utc=True)
    lines = (
        alt.Chart(frame)
        .mark_line(point=True)
        .encode(
            x=alt.X("time:T", title=None),
            y=alt.Y("value:Q", title=None, axis=alt.Axis(labels=False)),
            color=alt.Color("of:N", title=None, legend=alt.Legend(orient="top", columns=2)),
            tooltip=[alt.Tooltip("of:N", title=found.label), alt.Tooltip("time:T", format="%H:%M:%S")],
        )
    )
    st.altair_chart(lines, height=260)
    st.caption(f"Over time, {units.format_duration_ns(step * 10**9)} steps, the {len(series)} largest.")


def row_text(total: int, found: Any) -> str:
    unit = found.query.profile_type.sample_unit
    return f"{units.format_value(total, unit)} ({units.format_share(total, found.whole)})"


def chart(st: Any, found: Any) -> None:
    """Horizontal bars, largest on top; values and shares as the CLI prints them."""
    import altair as alt
    import pandas as pd

    from explainer.report.cluster import shown_value

    frame = pd.DataFrame(
        {
            "value": [shown_value(r.value, found.label) for r in found.rows],
            "total": [r.total for r in found.rows],
            "shown": [row_text(r.total, found) for r in found.rows],
        }
    )
    bars = (
        alt.Chart(frame)
        .mark_bar(color="#f97316")
        .encode(
            x=alt.X("total:Q", title=None, axis=alt.Axis(labels=False, ticks=False)),
            y=alt.Y("value:N", sort="-x", title=None, axis=alt.Axis(labelOverlap=False, labelLimit=140)),
            tooltip=[alt.Tooltip("value:N", title=found.label), alt.Tooltip("shown:N", title="total")],
        )
    )
    st.altair_chart(bars, height=max(90, 36 * len(frame)))
    unit = found.query.profile_type.sample_unit
    left = f"; {found.left_out_values} more left out" if found.left_out_values else ""
    # numbers only: a label value in a caption would be read as Markdown
    st.caption(f"Whole selection {units.format_value(found.whole, unit)}{left}.")


def load_value(
    st: Any,
    state: SessionData,
    ptype: Any,
    label: str,
    value: str,
    query_of: Callable[[Any], Any],
    server_call: ServerCall,
) -> str:
    """That one value's merged profile (the selector narrowed to ``label="value"``) becomes the page's."""
    from dataclasses import replace

    from explainer.pyroscope.cluster import with_label

    def fetch(client: Any, w: Any) -> Any:
        query = query_of(w)
        return client.flame_graph(replace(query, selector=with_label(query.selector, label, value)))

    profile, err = server_call(st, fetch)
    if err:
        return err
    state.remote = profile
    return ""
