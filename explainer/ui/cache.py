"""Analysis shared by every session of the app process: read, summarise, build the tree once.

Streamlit runs every session in one process, and without sharing each new session on the same
500k-stack profile would read it again, summarise it twice and build its call tree (seconds, and
~190 MiB each). Here a profile is read once per *content* and its derived data (summary, the
chat's prepared context, flame graph, table) is made once per profile object, in one bounded LRU;
``explainer app FILE`` fills it for FILE while the server starts (:mod:`explainer.ui.serve`).

Why this cannot leak one user's data to another: a profile is found only by the key of the
bytes and the read options that produced it (sha256 digest, options, file name, kind), so a
session gets a shared profile only by presenting the very same input; derived data is found only
by the profile object itself, which a session holds only if it read or uploaded that input.
Everything kept is immutable (profiles, summaries, trees); per-session state stays in
:mod:`explainer.ui.state`.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from explainer.analysis.summary import Summary, summarize
from explainer.explain.context import ProfileContext
from explainer.model import Profile
from explainer.readers.limits import Data

T = TypeVar("T")
MAX_PROFILES = 4
"""Profiles (with their derived data) kept at once; a 500k-stack profile is ~180 MiB."""


class SharedCache:
    """A thread-safe LRU of profiles by input key, and of derived data by profile object.

    Each entry is made once even when sessions ask at the same moment: later callers wait for
    the first one's result instead of repeating the work.
    """

    def __init__(self, max_profiles: int = MAX_PROFILES) -> None:
        self.max_profiles = max_profiles
        self._lock = threading.Lock()
        self._profiles: OrderedDict[Hashable, Profile] = OrderedDict()
        # id(profile) -> (the profile, which keeps the id from being reused, and its derived data)
        self._derived: OrderedDict[int, tuple[Profile, dict[str, Any]]] = OrderedDict()
        self._making: dict[Hashable, threading.Lock] = {}
        # (path, options, file version) -> input key: a file named on the command line is hashed once
        self._file_keys: OrderedDict[Hashable, tuple[Hashable, ...]] = OrderedDict()

    def profile(self, key: Hashable, read: Callable[[], Profile]) -> Profile:
        """The profile read from the input named by ``key`` (``read()`` on the first call only)."""

        def find() -> Profile | None:
            hit = self._profiles.get(key)
            if hit is not None:
                self._profiles.move_to_end(key)
            return hit

        def store(profile: Profile) -> None:
            self._profiles[key] = profile
            while len(self._profiles) > self.max_profiles:
                self._profiles.popitem(last=False)

        return self._once(("profile", key), find, read, store)

    def file_profile(
        self, path: str, options: Hashable, read: Callable[[], Data], parse: Callable[[Data], Profile]
    ) -> Profile:
        """The profile of the file at ``path``, keyed by its content's digest like any input.

        Every new session opens on the command line's file; hashing its bytes each time costs a
        read and a digest (70 ms at 30 MB), so the digest is remembered per file version (device,
        inode, size, modification time in ns). A file replaced or rewritten is a new version, read
        and hashed again; only after an eviction is a known version read again, to parse it.
        """
        try:
            st = os.stat(path)
            version: Hashable = (path, options, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        except OSError:
            version = None  # no such file: `read` says so in its own words
        with self._lock:
            key = self._file_keys.get(version) if version is not None else None
        if key is not None:
            return self.profile(key, lambda: parse(read()))
        data = read()
        key = input_key(data, options, path, "file")
        with self._lock:
            self._file_keys[version] = key
            while len(self._file_keys) > self.max_profiles:
                self._file_keys.popitem(last=False)
        return self.profile(key, lambda: parse(data))

    def derived(self, profile: Profile, name: str, make: Callable[[], T]) -> T:
        """``make()`` once per (profile object, name) across sessions."""

        def find() -> Any:
            values = self._entry(profile)
            return None if values is None else values.get(name)

        def store(value: Any) -> None:
            values = self._entry(profile)
            if values is None:
                values = {}
                self._derived[id(profile)] = (profile, values)
            values[name] = value
            while len(self._derived) > self.max_profiles:
                self._derived.popitem(last=False)

        result: T = self._once(("derived", id(profile), name), find, make, store)
        return result

    def known(self, profile: Profile, name: str) -> Any:
        """What :meth:`derived` has already made for (profile, name), else None; never makes it."""
        with self._lock:
            values = self._entry(profile)
            return None if values is None else values.get(name)

    def _entry(self, profile: Profile) -> dict[str, Any] | None:
        """What is derived of ``profile`` (the very object, not another at a reused id), marked as the
        last used so that it is the last evicted; called under the lock."""
        known = self._derived.get(id(profile))
        if known is None or known[0] is not profile:
            return None
        self._derived.move_to_end(id(profile))
        return known[1]

    def _once(self, key: Hashable, find: Callable[[], Any], make: Callable[[], T], store: Callable[[T], None]) -> T:
        """``find()`` under the lock, else ``make()`` once: concurrent callers of one key wait for it."""
        with self._lock:
            hit = find()
            if hit is not None:
                return hit  # type: ignore[no-any-return]
            gate = self._making.setdefault(key, threading.Lock())
        with gate:
            try:
                with self._lock:
                    hit = find()  # made by the caller we waited for
                    if hit is not None:
                        return hit  # type: ignore[no-any-return]
                value = make()  # outside the lock, so other keys go on meanwhile; errors are not cached
                with self._lock:
                    store(value)
                return value
            finally:
                with self._lock:
                    self._making.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._profiles.clear()
            self._derived.clear()
            self._file_keys.clear()


def input_key(data: bytes | bytearray, *parts: Hashable) -> tuple[Hashable, ...]:
    """The key of an input: its content digest plus everything else that shapes the profile read."""
    return (hashlib.sha256(data).hexdigest(), *parts)


SHARED = SharedCache()
"""The app process's one cache (Streamlit keeps this module loaded across sessions and reruns)."""


def summary(profile: Profile) -> Summary:
    """The profile's summary with default options, made once for the page and every chat of it."""
    return SHARED.derived(profile, "summary", lambda: summarize(profile))


def context(profile: Profile) -> ProfileContext:
    """The chat's prepared context of the profile (no baseline), shared by every session's conversations.

    It holds only immutable analysis (summary, reading, name indexes) and memos of pure look-ups
    (chains, sandwiches), so sharing it costs no isolation; a session's chat history and topic
    stay in its own :class:`~explainer.explain.Conversation`.
    """
    return SHARED.derived(profile, "context", lambda: ProfileContext(profile, summary=summary(profile)).prepare())
