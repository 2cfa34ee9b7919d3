"""The views beside the chat: the profile's headline, the top table and the heaviest chain.

Untrusted names are shown only in data grids (drawn as text on a canvas) or as Markdown code
spans made by :func:`explainer.markdown.code`; never as HTML. Numbers come from :mod:`explainer.units`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd

from explainer import markdown, units
from explainer.analysis.summary import Summary
from explainer.reading import runtime_of
from explainer.report.analyze import truncation_notes
from explainer.symbols import clean, decode

TABS = ("Ask", "Flame graph", "Top functions", "Sandwich", "Call chain")
"""The page's tabs; the chat comes first and gets the full width, so answer tables never squeeze."""

TABLE_ROWS = 500
"""Rows handed to the grid after searching; the caption says how many matched in all."""


NAME_COLUMN = 72
"""Characters of a name in a table cell; longer ones keep their start and end (where C++ and
Python names say what they are) with an ellipsis in the middle. The full name is one click away
(the row opens its sandwich view) and in the flame graph's tooltip."""


def elide_middle(name: str, limit: int = NAME_COLUMN) -> str:
    """``torch::autograd::…::THPVariable_linear``: the cleaned name, cut in the middle to ``limit``."""
    shown = clean(name)
    if len(shown) <= limit:
        return shown
    head = (limit - 1) // 2
    return shown[:head] + "…" + shown[len(shown) - (limit - 1 - head) :]


def display_scale(total: int, unit: str) -> tuple[str, float]:
    """One unit for a whole numeric column (``GB``, ``ms``...) so the column sorts as numbers.

    Chosen by formatting the grand total with :mod:`units` and reading its suffix back, so the
    table and the chat agree on what "55.1 GB" means.
    """
    text = units.format_value(total, unit)
    suffix = text.split(" ")[-1] if " " in text else ""
    factor = units.parse_quantity("1", suffix) if suffix else None
    if factor is None:
        return (suffix or unit or "count"), 1.0
    return suffix, factor / units.to_base(1, unit)


def function_table(summary: Summary) -> pd.DataFrame:
    """Every function with a value: name, meaning, self and total (scaled), and shares."""
    stats, names, total = summary.stats, summary.profile.names, summary.total
    ids = stats.present
    self_v = stats.self_values[ids]
    total_v = stats.total_values[ids]
    suffix, factor = display_scale(total, summary.unit)
    runtime = runtime_of(summary.profile)
    frame = pd.DataFrame(
        {
            "id": ids,  # not shown: what a click on the row selects (names are cleaned for display)
            "function": [elide_middle(names[i]) for i in ids],
            "name": [clean(names[i]) for i in ids],  # not shown: the whole name, for the search
            f"self ({suffix})": self_v / factor,
            "self %": 100.0 * self_v / max(total, 1),
            f"total ({suffix})": total_v / factor,
            "total %": 100.0 * total_v / max(total, 1),
            "meaning": [decode(names[i], runtime).meaning for i in ids],
        }
    )
    return frame.sort_values(["self %", "total %"], ascending=False, kind="stable").reset_index(drop=True)


def shared_table(summary: Summary) -> pd.DataFrame:
    """:func:`function_table` of the summary's profile, made once for every session."""
    from explainer.ui.cache import SHARED

    return SHARED.derived(summary.profile, "table", lambda: function_table(summary))


def search(frame: pd.DataFrame, query: str) -> pd.DataFrame:
    """Rows whose name or meaning contains ``query`` (case-insensitive, plain text, no regex)."""
    q = query.strip().lower()
    if not q:
        return frame
    hit = frame["name"].str.lower().str.contains(q, regex=False) | frame["meaning"].str.lower().str.contains(
        q, regex=False
    )
    return frame[hit]


def headline(st: Any, summary: Summary, label: str) -> None:
    p = summary.profile
    cols = st.columns(4)
    cols[0].metric("Total", units.format_value(summary.total, summary.unit))
    cols[1].metric("Sample type", str(p.sample_type))
    cols[2].metric("Functions", units.format_count(summary.stats.function_count))
    cols[3].metric("Distinct stacks", units.format_count(p.stack_count))
    st.caption(f"Source: {markdown.code(label)} ({clean(p.source.kind, 20)}, {clean(p.source.format, 40)})")
    for note in truncation_notes(summary):
        st.warning(f"Not everything is shown: {clean(note, 300)}", icon="⚠️")


def top_table(st: Any, frame: pd.DataFrame, unit_suffix: str, on_pick: Callable[[int], None] | None = None) -> None:
    """The searchable table of every function; clicking a row calls ``on_pick(function id)``."""
    query = st.text_input("Search functions", key="table_search", placeholder="name or meaning, e.g. kv_cache")
    found = search(frame, query)
    shown = found.head(TABLE_ROWS)
    ids = shown["id"].tolist()

    def picked() -> None:
        rows = st.session_state["top_table"].selection.rows
        if rows and on_pick is not None:
            on_pick(int(ids[rows[0]]))

    st.dataframe(
        shown,
        hide_index=True,
        width="stretch",
        height=420,
        key="top_table",
        on_select=picked,
        selection_mode="single-row",
        column_config={
            "id": None,
            "name": None,
            "function": st.column_config.TextColumn("function", width="large"),
            "meaning": st.column_config.TextColumn("decoded meaning", width="large"),
            f"self ({unit_suffix})": st.column_config.NumberColumn(
                format="%.3f", help="what the function itself holds"
            ),
            "self %": st.column_config.NumberColumn(format="%.1f%%"),
            f"total ({unit_suffix})": st.column_config.NumberColumn(
                format="%.3f", help="the function and everything it calls"
            ),
            "total %": st.column_config.NumberColumn(format="%.1f%%"),
        },
    )
    matched = len(found)
    what = f"matching {markdown.code(query.strip())}" if query.strip() else "in the profile"
    more = f"; the first {TABLE_ROWS:,} are listed" if matched > TABLE_ROWS else ""
    st.caption(
        f"{matched:,} of {len(frame):,} functions {what}{more}. Click a column header to sort, "
        "a row for its sandwich view (callers and callees)."
    )


def chain_table(summary: Summary) -> pd.DataFrame | None:
    chain = summary.chain
    if chain is None:
        return None
    unit, total = summary.unit, summary.total
    runtime = runtime_of(summary.profile)
    return pd.DataFrame(
        {
            "function": [elide_middle(s.name) for s in chain.steps],
            "bar width": [units.format_value(s.width, unit) for s in chain.steps],
            "share": [units.format_share(s.width, total) for s in chain.steps],
            "self": [units.format_value(s.self, unit) for s in chain.steps],
            "meaning": [decode(s.name, runtime).meaning for s in chain.steps],
        }
    )


def heaviest_chain(st: Any, summary: Summary) -> None:
    frame = chain_table(summary)
    if frame is None:
        st.caption("No call chain: the profile is empty.")
        return
    chain = summary.chain
    assert chain is not None
    st.caption(
        f"The widest path to {markdown.code(chain.target)}, entry point first: "
        f"{units.format_value(chain.value, summary.unit)} of its "
        f"{units.format_value(chain.target_total, summary.unit)} arrive this way."
    )
    st.dataframe(
        frame, hide_index=True, width="stretch", column_config={"function": st.column_config.TextColumn(width="medium")}
    )
