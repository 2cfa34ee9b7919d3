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
from explainer.report.analyze import truncation_notes
from explainer.symbols import clean, guess_runtime
from explainer.ui import tables
from explainer.ui.flamegraph import tooltip_meaning

TABS = ("Ask", "Flame graph", "Top functions", "Sandwich", "Call chain")
"""The page's tabs; the chat comes first and gets the full width, so answer tables never squeeze."""

TABLE_ROWS = 500
"""Rows handed to the grid after searching; the caption says how many matched in all."""


def full_name(name: str) -> str:
    """A name as a table cell shows it: cleaned (no control or bidi characters), never shortened, since
    in these tables the name is the point; a long one wraps in its wide column."""
    return clean(name)


def function_table(summary: Summary) -> pd.DataFrame:
    """Every function with a value: name, self and total (raw, in the profile's unit), shares, meaning."""
    stats, names, total = summary.stats, summary.profile.names, summary.total
    ids = stats.present
    self_v = stats.self_values[ids]
    total_v = stats.total_values[ids]
    runtime = guess_runtime(names)
    frame = pd.DataFrame(
        {
            "id": ids,  # not shown: what a click on the row selects (names are cleaned for display)
            "function": [full_name(names[i]) for i in ids],
            "name": [clean(names[i]) for i in ids],  # not shown: the whole name, for the search
            "self": self_v,
            "self %": 100.0 * self_v / max(total, 1),
            "total": total_v,
            "total %": 100.0 * total_v / max(total, 1),
            "meaning": [tooltip_meaning(names[i], runtime) for i in ids],
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
    # one line of Markdown rather than four metrics in a row: two elements for the browser to draw on
    # every page instead of five (a later page's time is mostly the browser's, issue 27)
    figures = (
        ("Total", units.format_value(summary.total, summary.unit)),
        ("Sample type", markdown.code(str(p.sample_type))),
        ("Functions", units.format_count(summary.stats.function_count)),
        ("Distinct stacks", units.format_count(p.stack_count)),
    )
    st.markdown(" · ".join(f"**{name}** {value}" for name, value in figures))
    st.caption(f"Source: {markdown.code(label)} ({clean(p.source.kind, 20)}, {clean(p.source.format, 40)})")
    for note in truncation_notes(summary):
        st.warning(f"Not everything is shown: {clean(note, 300)}", icon="⚠️")


def top_table(st: Any, frame: pd.DataFrame, unit: str, on_pick: Callable[[int], None] | None = None) -> None:
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
        tables.styled(shown, unit, values=("self", "total"), shares=("self %", "total %")),
        hide_index=True,
        width="stretch",
        height=420,
        row_height=50,  # room for a long name to wrap onto a second line instead of being cut
        key="top_table",
        on_select=picked,
        selection_mode="single-row",
        column_config={
            "id": None,
            "name": None,
            "function": st.column_config.TextColumn("function", width="large"),
            "meaning": st.column_config.TextColumn("decoded meaning", width="large"),
            "self": st.column_config.NumberColumn(help="what the function itself holds; sorts by the exact value"),
            "self %": st.column_config.NumberColumn(help="self as a share of the whole profile"),
            "total": st.column_config.NumberColumn(
                help="the function and everything it calls; sorts by the exact value"
            ),
            "total %": st.column_config.NumberColumn(help="total as a share of the whole profile"),
        },
    )
    matched = len(found)
    what = f"matching {markdown.code(query.strip())}" if query.strip() else "in the profile"
    more = f"; the first {TABLE_ROWS:,} are listed" if matched > TABLE_ROWS else ""
    st.caption(
        f"{matched:,} of {len(frame):,} functions {what}{more}. Click a column header to sort, "
        "a row for its sandwich view (callers and callees)."
    )
    st.download_button(
        "Download CSV (exact values)",
        data=lambda: tables.csv_bytes(found, unit, values=("self", "total"), hidden=("id", "name")),
        file_name="explainer-functions.csv",
        mime="text/csv",
        icon=":material/download:",
        on_click="ignore",  # no rerun: a rerun can drop the lazy file before the browser fetches it
        key="top_table_csv",
        help="Every function listed (all matches, not only the first rows shown), with exact values.",
    )


def chain_table(summary: Summary) -> pd.DataFrame | None:
    chain = summary.chain
    if chain is None:
        return None
    total = summary.total
    runtime = guess_runtime(summary.profile.names)
    return pd.DataFrame(
        {
            "function": [full_name(s.name) for s in chain.steps],
            "bar width": [int(s.width) for s in chain.steps],
            "share": [100.0 * s.width / max(total, 1) for s in chain.steps],
            "self": [int(s.self) for s in chain.steps],
            "meaning": [tooltip_meaning(s.name, runtime) for s in chain.steps],
        }
    )


def chain_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of a chain the grid gets: all, or the first and last ``TABLE_ROWS / 2`` of a deeper one
    (a 26 KB profile can hold a 4,096-step chain)."""
    if len(frame) <= TABLE_ROWS:
        return frame
    return pd.concat((frame.head(TABLE_ROWS // 2), frame.tail(TABLE_ROWS // 2)))


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
    shown = chain_rows(frame)
    st.dataframe(
        tables.styled(shown, summary.unit, values=("bar width", "self"), shares=("share",)),
        hide_index=True,
        width="stretch",
        row_height=50,
        column_config={"function": st.column_config.TextColumn(width="large")},
    )
    if len(shown) < len(frame):
        st.caption(
            f"The chain has {len(frame):,} steps: the first and last {TABLE_ROWS // 2:,} are listed, "
            f"{len(frame) - len(shown):,} in the middle are left out here; the CSV has every step."
        )
    st.download_button(
        "Download CSV (exact values)",
        data=lambda: tables.csv_bytes(frame, summary.unit, values=("bar width", "self")),
        file_name="explainer-call-chain.csv",
        mime="text/csv",
        icon=":material/download:",
        on_click="ignore",  # no rerun: a rerun can drop the lazy file before the browser fetches it
        key="chain_csv",
    )
