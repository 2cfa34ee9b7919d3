"""Time per analysis and analyses in flight, for the app (issue 26): every session shares one process.

Reading an upload, its summary, the flame graph's tree, the top table, a sandwich and a diff run
through one :class:`~explainer.work_gate.WorkGate`: at most ``EXPLAINER_APP_MAX_ANALYSES`` (2,
one per core of a small host) at a time, each waited for at most ``EXPLAINER_APP_TIMEOUT`` seconds
(60), the wait for a free slot included. Past either bound the page says so in one line naming the
variable; a given-up analysis
finishes in the background and lands in the shared cache (:mod:`explainer.ui.cache`), so asking
again later is answered from there. Only pure analysis runs in the gate's thread, never a Streamlit
call (those need the script's own thread).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from explainer.symbols import clean
from explainer.work_gate import BusyError, WorkGate

T = TypeVar("T")
ENV_TIMEOUT, ENV_SLOTS = "EXPLAINER_APP_TIMEOUT", "EXPLAINER_APP_MAX_ANALYSES"
DEFAULT_TIMEOUT, DEFAULT_SLOTS = 60.0, 2


@functools.cache
def _gate() -> WorkGate:
    """Read once per process (an invalid value is not cached: each analysis says what is wrong)."""
    bounds = (ENV_TIMEOUT, ENV_SLOTS), (DEFAULT_TIMEOUT, DEFAULT_SLOTS)
    return WorkGate.from_env("the app's analysis", None, *bounds, queue=True)


def analyse(make: Callable[[], T]) -> T:
    """``make()`` within the app's time bound and slots; :class:`~explainer.work_gate.BusyError` past either."""
    return _gate().run(make)


def reset() -> None:
    """Forget the gate, so the next analysis reads the variables again (tests)."""
    _gate.cache_clear()


def shown(st: Any, make: Callable[[], T], known: Callable[[], T | None] | None = None) -> T | None:
    """:func:`analyse`, or None after one line on the page saying which bound stopped it.

    ``known()``: the value if it is already made (the shared cache), returned at once without the
    gate's worker thread, whose start and join cost a later page 0.1-0.2 s under load (issue 27)."""
    hit = known() if known is not None else None
    if hit is not None:
        return hit
    try:
        return analyse(make)
    except BusyError as exc:
        st.error(clean(str(exc), 400), icon="⏳")
        return None
