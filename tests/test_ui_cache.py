"""The app's shared analysis cache: once per content, never across different inputs, bounded.

GIVEN sessions that present inputs (bytes + read options + name), WHEN they ask for the profile
and its derived data, THEN the same input is read once and shared, a different input (even one
byte, another name or other options) is never served another's profile, derived data follows the
profile object only, the cache stays within its bound, and concurrent sessions wait for one maker.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from explainer.model import Profile, ProfileBuilder, SampleType
from explainer.readers import ReadOptions, read_bytes
from explainer.ui import sources
from explainer.ui.cache import SharedCache, input_key
from explainer.writers import to_folded


def folded(top: str) -> bytes:
    b = ProfileBuilder(SampleType("samples", "count"))
    b.add(["main", top], 7)
    b.add(["main", "other_fn"], 3)
    return to_folded(b.build()).encode()


def reader(data: bytes, name: str, calls: list[str]):  # type: ignore[no-untyped-def]
    def read() -> Profile:
        calls.append(name)
        return read_bytes(data, location=name, kind="upload")

    return read


def test_the_same_input_is_read_once_and_shared() -> None:
    cache, calls, data = SharedCache(), [], folded("hot")
    first = cache.profile(input_key(data, ReadOptions(), "a.txt"), reader(data, "a.txt", calls))
    second = cache.profile(input_key(data, ReadOptions(), "a.txt"), reader(data, "a.txt", calls))
    assert first is second and calls == ["a.txt"]


@pytest.mark.parametrize(
    "other",
    [
        (folded("hot") + b"\n", ReadOptions(), "a.txt"),  # other bytes
        (folded("hot"), ReadOptions(unit="bytes"), "a.txt"),  # other read options
        (folded("hot"), ReadOptions(), "b.txt"),  # another name: never show A's file name to B
    ],
    ids=["bytes", "options", "name"],
)
def test_a_different_input_never_gets_anothers_profile(other: tuple[bytes, ReadOptions, str]) -> None:
    cache, calls = SharedCache(), []
    data = folded("hot")
    mine = cache.profile(input_key(data, ReadOptions(), "a.txt"), reader(data, "a.txt", calls))
    theirs = cache.profile(input_key(other[0], other[1], other[2]), reader(other[0], other[2], calls))
    assert theirs is not mine and len(calls) == 2
    assert theirs.source.location == other[2]


def test_derived_data_follows_the_profile_object_not_equal_content() -> None:
    cache, data = SharedCache(), folded("hot")
    a, b = read_bytes(data, location="x"), read_bytes(data, location="x")  # equal content, two objects
    assert cache.derived(a, "summary", lambda: "of a") == "of a"
    assert cache.derived(a, "summary", lambda: "again") == "of a"
    assert cache.derived(b, "summary", lambda: "of b") == "of b"


def test_the_cache_is_bounded_and_forgets_the_least_recently_used() -> None:
    cache = SharedCache(max_profiles=2)
    profiles = [read_bytes(folded(f"f{i}"), location=f"{i}") for i in range(3)]
    for i, p in enumerate(profiles):
        cache.profile(("k", i), lambda p=p: p)  # type: ignore[misc]
        cache.derived(p, "n", lambda i=i: i)  # type: ignore[misc]
    cache.profile(("k", 1), lambda: pytest.fail("1 was used last but one: still cached"))
    assert len(cache._profiles) == 2 and len(cache._derived) == 2
    made: list[int] = []
    cache.profile(("k", 0), lambda: made.append(0) or profiles[0])  # type: ignore[func-returns-value]
    assert made == [0]  # the oldest was evicted and is read again


def test_concurrent_sessions_wait_for_one_maker() -> None:
    cache, made = SharedCache(), []
    profile = read_bytes(folded("hot"), location="x")

    def slow() -> str:
        made.append("x")
        time.sleep(0.2)
        return "tree"

    results: list[str] = []
    threads = [threading.Thread(target=lambda: results.append(cache.derived(profile, "flame", slow))) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert made == ["x"] and results == ["tree"] * 6


def test_a_failed_read_is_not_cached() -> None:
    cache, data = SharedCache(), folded("hot")

    def broken() -> Profile:
        raise ValueError("disk went away")

    with pytest.raises(ValueError):
        cache.profile(("k",), broken)
    assert cache.profile(("k",), lambda: read_bytes(data, location="x")).stack_count == 2


def test_two_app_sessions_share_the_profile_and_its_analysis() -> None:
    sources.SHARED.clear()
    app = str(Path(__file__).resolve().parent.parent / "app.py")
    data = folded("GPUModelRunner._allocate_kv_cache_tensors")
    sessions = []
    for _ in range(2):
        at = AppTest.from_file(app, default_timeout=60).run()
        at.radio(key="source_kind").set_value(sources.UPLOAD).run()
        at.file_uploader(key="upload_main").set_value(("same.txt", data, "text/plain"))
        sessions.append(at.run())
    first, second = (at.session_state["explainer"] for at in sessions)
    assert first.uploads["main"].profile is second.uploads["main"].profile
    assert first is not second and not any(at.exception for at in sessions)
    chats = [s.conversations for s in (first, second)]
    assert chats[0] is not chats[1]  # each session keeps its own chat
