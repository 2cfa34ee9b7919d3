"""What a baseline changes on the page: a "comparing with" banner with a way to clear it, and
the Diff tab with a diff flame graph (red growth, blue shrinkage, grey under the noise floor)
and a before/after table, both from the same noise floor as :mod:`explainer.analysis.diff`.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from explainer import markdown, units
from explainer.analysis.diff import Diff, FunctionChange, diff_profiles
from explainer.analysis.difftree import diff_tree
from explainer.model import Profile
from explainer.symbols import clean
from explainer.ui import flamegraph, gate, tables
from explainer.ui.sources import friendly
from explainer.ui.state import SessionData
from explainer.ui.views import full_name
from explainer.work_gate import BusyError

TAB = "Diff"
TABLE_ROWS = 200


def label_of(profile: Profile) -> str:
    return clean(profile.source.location or profile.source.kind, 120)


def clear(state: SessionData) -> None:
    """Forget the baseline: its uploader gets a new key, so the next run starts without one."""
    state.baseline_rev += 1
    state.uploads.pop("baseline", None)


def banner(st: Any, state: SessionData, baseline: Profile) -> None:
    cols = st.columns([5, 1], vertical_alignment="center")
    cols[0].info(
        f"Comparing with the baseline {markdown.code(label_of(baseline))}: answers and the Diff tab show what changed.",
        icon="⚖️",
    )
    cols[1].button("Clear baseline", key="clear_baseline", icon=":material/close:", on_click=clear, args=(state,))


def _relative(change: FunctionChange) -> str:
    rel = change.relative("self")
    if rel is None:
        return "new" if change.self_after else "—"
    return f"{rel:+.0%}".replace("-", "−")


VALUES = ("self before", "self after", "total before", "total after")


def table(diff: Diff) -> pd.DataFrame:
    rows = diff.ranked("self", significant=False)[:TABLE_ROWS]
    return pd.DataFrame(
        {
            "function": [full_name(c.name) for c in rows],
            "self before": [int(c.self_before) for c in rows],
            "self after": [int(c.self_after) for c in rows],
            "self change": [int(c.delta("self")) for c in rows],
            "relative": [_relative(c) for c in rows],
            "total before": [int(c.total_before) for c in rows],
            "total after": [int(c.total_after) for c in rows],
            "verdict": ["noise" if c.noise("self") else "grew" if c.delta("self") > 0 else "shrank" for c in rows],
        }
    )


def show(st: Any, state: SessionData, profile: Profile, baseline: Profile) -> None:
    slot: dict[str, Any] = state.derived(profile, "diff", dict)  # one entry: the current baseline's
    if slot.get("baseline") is not baseline:
        slot.clear()
        try:
            slot.update(
                gate.analyse(
                    lambda: {
                        "diff": diff_profiles(baseline, profile),
                        "data": flamegraph.diff_payload(diff_tree(baseline, profile)),
                    }
                )
            )
        except BusyError as exc:  # a bound of the moment: said once, tried again on the next run
            slot.clear()
            st.error(clean(str(exc), 400), icon="⏳")
            return
        except Exception as exc:  # different units and the like: one line, the rest of the page stays
            slot["error"] = friendly(exc)
        slot["baseline"] = baseline
    if "error" in slot:
        st.error(f"Cannot compare with this baseline: {slot['error']}", icon="🚫")
        return
    diff, data = slot["diff"], slot["data"]
    unit = profile.unit
    st.caption(
        f"Baseline {units.format_value(diff.total_before, unit)} → now {units.format_value(diff.total_after, unit)}. "
        "Red bars grew, blue bars shrank (told apart with red-green colour blindness too), grey bars moved less "
        "than the noise floor "
        f"({diff.floor.min_share:.0%} of the larger total and {diff.floor.min_relative:.0%} of the value before). "
        "Bar width is before + after."
    )
    flamegraph.draw(
        data[0],
        "diff_flame",
        orientation=state.orientation,
        on_orientation=flamegraph.orientation_follower(st, state, "diff_flame"),
    )
    for note in diff.notes:
        st.warning(clean(note, 300), icon="⚠️")
    frame = table(diff)
    st.dataframe(
        tables.styled(frame, unit, values=VALUES, signed=("self change",)),
        hide_index=True,
        width="stretch",
        row_height=50,
        column_config={"function": st.column_config.TextColumn(width="large")},
    )
    st.download_button(
        "Download CSV (exact values)",
        data=lambda: tables.csv_bytes(frame, unit, values=(*VALUES, "self change")),
        file_name="explainer-diff.csv",
        mime="text/csv",
        icon=":material/download:",
        on_click="ignore",  # no rerun: a rerun can drop the lazy file before the browser fetches it
        key="diff_csv",
    )
    moved = len(diff.ranked("self", significant=False))
    more = f"; the first {TABLE_ROWS} rows are listed" if moved > TABLE_ROWS else ""
    st.caption(
        f"Ranked by the change in self; {len(diff.ranked('self')):,} change(s) above the noise floor, "
        f"{diff.noise_count('self'):,} under it{more}."
    )
