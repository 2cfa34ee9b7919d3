"""Expanders whose widgets are drawn only when the expander is open, or already hold a value.

A new page's time is mostly the browser drawing elements, not the app's script (issue 27), and the
collapsed expanders hold many of them: in the sidebar a file uploader, a select box and three text
fields; in the tabs the answer mode, the handoff report and the profile's three downloads, drawn
(hidden) on every page and again on every rerun. An expander that reports its
state (``on_change="rerun"``) is drawn empty while collapsed; opening it reruns the page, which
then draws its widgets. Widgets that hold a value stay drawn while collapsed: Streamlit forgets the
value of a widget a run does not draw, and an uploaded baseline or a typed GPU budget must stay.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

BASELINE, READING, BUDGET = "box_baseline", "box_reading", "box_budget"
ANSWER, EXPORTS = "box_answer", "box_exports"
"""The expanders' keys: ``st.session_state[key] = True`` opens one (what a test does before it sets a widget):
the sidebar's three, the Ask tab's answer mode and handoff report, the Flame graph tab's profile downloads."""


def expander(st: Any, label: str, key: str, holds_value: Callable[[], bool]) -> tuple[Any, bool]:
    """The expander, and whether to draw its widgets: unless it is known to be collapsed and
    ``holds_value()`` says none of them holds anything."""
    box = st.expander(label, key=key, on_change="rerun")
    # None: the expander does not report its state (a stand-in in a test, another Streamlit): draw
    return box, getattr(box, "open", None) is not False or holds_value()


def has_any(st: Any, *keys: str, empty: object = None) -> Callable[[], bool]:
    """Whether any of the widgets ``keys`` holds a value other than ``empty`` (or "")."""
    return lambda: any(st.session_state.get(k, empty) not in (empty, "") for k in keys)
