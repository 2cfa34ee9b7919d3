"""The app's gate takes what the shared cache already holds at once (no worker thread), and makes the
rest within its bounds (explainer/ui/gate.py, explainer/ui/cache.py)."""

from __future__ import annotations

import threading
from typing import Any

from explainer.demo import demo_profile
from explainer.ui import gate
from explainer.ui.cache import SharedCache


class _St:
    def __init__(self) -> None:
        self.errors: list[str] = []

    def error(self, text: str, icon: str = "") -> None:
        self.errors.append(text)


def test_a_known_value_is_returned_without_making_it_or_a_thread() -> None:
    threads = threading.active_count()

    def make() -> str:
        raise AssertionError("not made: the cache already holds it")

    assert gate.shown(_St(), make, lambda: "cached") == "cached"
    assert threading.active_count() == threads


def test_an_unknown_value_is_made_through_the_gate() -> None:
    made: list[str] = []

    def make() -> str:
        made.append(threading.current_thread().name)
        return "made"

    assert gate.shown(_St(), make, lambda: None) == "made"
    assert gate.shown(_St(), make) == "made"
    assert len(made) == 2 and all(name != threading.current_thread().name for name in made), made


def test_known_sees_only_what_derived_made_for_that_very_profile() -> None:
    cache, profile = SharedCache(), demo_profile()
    assert cache.known(profile, "flame") is None
    value: Any = cache.derived(profile, "flame", lambda: ["tree"])
    assert cache.known(profile, "flame") is value
    assert cache.known(profile, "table") is None
    assert cache.known(demo_profile(), "flame") is None, "another object with the same content is not it"
