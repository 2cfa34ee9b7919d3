"""Everything one browser session remembers, kept in ``st.session_state`` under one key.

Nothing here is module-global and mutable: Streamlit runs every session's script in the
same process, so a module-level dict keyed by anything a session does not hold would leak one
user's profile into another user's page. The immutable analysis of a profile (the profile read,
its summary, chat context, call tree and table) is shared in :mod:`explainer.ui.cache`, found
only by the input's content or the profile object; what a session does (chat, focus, zoom) lives
here.

Secrets never live here: API keys come from ``st.secrets``/the environment on every run, and
Pyroscope credentials stay in their password widgets only.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from explainer.model import Profile

STATE_KEY = "explainer"
FLAME, ICICLE = "flame", "icicle"
"""The flame graph's two orientations: the classic root at the bottom, or Grafana's root at the top."""
MAX_TURNS = 40
"""Messages kept on screen per session; older ones drop off (memory stays bounded)."""

T = TypeVar("T")


@dataclass
class Turn:
    """One chat message as shown: markdown plus the answer's honesty markers."""

    role: str  # "user" or "assistant"
    markdown: str
    mode: str = ""  # "offline" or the model's name
    checked: int = 0  # numbers checked against the profile
    unverified: tuple[str, ...] = ()
    verdicts: tuple[int, int, int, int] = (0, 0, 0, 0)  # numbers verified, derived, unbound, wrong
    notice: str = ""
    incomplete: bool = False


@dataclass
class Loaded:
    """A parsed upload, remembered so a rerun does not parse the same bytes again."""

    key: tuple[Any, ...]
    profile: Profile | None
    error: str = ""


@dataclass
class SessionData:
    history: deque[Turn] = field(default_factory=lambda: deque(maxlen=MAX_TURNS))
    pending: str | None = None  # a question waiting for "send to model" or a suggestion click
    focus: str = ""  # the function the last answer was about, highlighted in the flame graph
    baseline_rev: int = 0  # bumped by "Clear baseline": the baseline uploader starts empty again
    orientation: str = FLAME  # as this browser draws the flame graph (it remembers the choice and says so)
    selected: str = ""  # the function in focus: the sandwich's, highlighted in the flame graph
    selected_by: str = ""  # what chose it, as the flame graph says it ("the last answer's function"...)
    answered: str = ""  # the last answer's function already taken into ``selected``
    uploads: dict[str, Loaded] = field(default_factory=dict)  # per uploader slot
    server: dict[str, Any] = field(default_factory=dict)  # Pyroscope lists, keyed without secrets
    demo: Profile | None = None  # the start profile: the demo or the file named on the command line
    start_error: str = ""
    remote: Profile | None = None  # the last profile fetched from Pyroscope
    conversations: dict[str, Any] = field(default_factory=dict)  # mode -> explainer.explain.Conversation
    conversation_key: tuple[int, ...] = ()  # (profile, baseline) the conversations are about
    _derived: dict[tuple[int, str], tuple[Profile, Any]] = field(default_factory=dict)

    def derived(self, profile: Profile, name: str, make: Callable[[], T]) -> T:
        """``make()`` once per (profile, name) in this session; a new profile drops the old cache.

        Keyed by ``id(profile)``; the entry holds the profile itself, so that id cannot be
        reused by another object while the entry exists.
        """
        key = (id(profile), name)
        if key not in self._derived:
            self._derived[key] = (profile, make())
        return self._derived[key][1]  # type: ignore[no-any-return]

    def keep_only(self, *profiles: Profile | None) -> None:
        """Forget derived data of profiles no longer on the page (memory stays bounded)."""
        live = {id(p) for p in profiles if p is not None}
        self._derived = {k: v for k, v in self._derived.items() if k[0] in live}

    def add(self, turn: Turn) -> None:
        self.history.append(turn)


def session(store: MutableMapping[str, Any]) -> SessionData:
    """This session's data (``store`` is ``st.session_state``), created on first use."""
    data = store.get(STATE_KEY)
    if not isinstance(data, SessionData):
        data = SessionData()
        store[STATE_KEY] = data
    return data
