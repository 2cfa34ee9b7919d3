"""The app's shared analysis cache: once per content, never across different inputs, bounded.

GIVEN sessions that present inputs (bytes + read options + name), WHEN they ask for the profile
and its derived data, THEN the same input is read once and shared, a different input (even one
byte, another name or other options) is never served another's profile, derived data follows the
profile object only, the cache stays within its bound, and concurrent sessions wait for one maker.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import streamlit
from streamlit.testing.v1 import AppTest

from explainer.errors import SourceNotFoundError
from explainer.model import Profile, ProfileBuilder, SampleType
from explainer.readers import ReadOptions, read_bytes
from explainer.ui import cache, serve, sources
from explainer.ui.cache import SharedCache, input_key
from explainer.writers import to_folded, to_pprof

APP = str(Path(__file__).resolve().parent.parent / "app.py")


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
    data = folded("GPUModelRunner._allocate_kv_cache_tensors")
    sessions = []
    for _ in range(2):
        at = AppTest.from_file(APP, default_timeout=60).run()
        at.radio(key="source_kind").set_value(sources.UPLOAD).run()
        at.file_uploader(key="upload_main").set_value(("same.txt", data, "text/plain"))
        sessions.append(at.run())
    first, second = (at.session_state["explainer"] for at in sessions)
    assert first.uploads["main"].profile is second.uploads["main"].profile
    assert first is not second and not any(at.exception for at in sessions)
    chats = [s.conversations for s in (first, second)]
    assert chats[0] is not chats[1]  # each session keeps its own chat


def pprof_file(path: Path, top: str) -> Path:
    b = ProfileBuilder(SampleType("alloc_space", "bytes"))
    b.add(["main", "Worker.run", top], 9_000_000_000)
    b.add(["main", "other_path"], 1_000_000_000)
    path.write_bytes(to_pprof(b.build()))
    return path


def test_the_command_line_file_is_hashed_once_per_version(tmp_path: Path) -> None:
    shared, reads, path = SharedCache(max_profiles=2), [], pprof_file(tmp_path / "p.pb.gz", "First.alloc")

    def open_it() -> Profile:
        def read() -> bytes:
            reads.append(path.stat().st_size)
            return path.read_bytes()

        return shared.file_profile(str(path), ReadOptions(), read, lambda data: read_bytes(data, location=str(path)))

    first = open_it()
    assert open_it() is first and len(reads) == 1, "a known version is neither read nor hashed again"
    pprof_file(path, "Second.alloc_other")  # rewritten: another size and time, another content
    second = open_it()
    assert len(reads) == 2 and second is not first and "Second.alloc_other" in second.names
    os.utime(path, ns=(1, 1))  # touched: a new version whose bytes are the same, so the same profile
    assert open_it() is second and len(reads) == 3
    assert len(shared._file_keys) == 2, "the digests remembered are bounded like the profiles"


def test_two_sessions_on_the_command_line_file_share_one_analysis(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sources.SHARED.clear()
    path = pprof_file(tmp_path / "start.pb.gz", "GPUModelRunner._allocate_kv_cache_tensors")
    monkeypatch.setattr(sys, "argv", [APP, str(path)])  # as `explainer app FILE` runs the script
    sessions = [AppTest.from_file(APP, default_timeout=60).run() for _ in range(2)]
    assert not any(at.exception for at in sessions)
    first, second = (at.session_state["explainer"] for at in sessions)
    assert first.demo is second.demo and first.demo.source.location == str(path)
    one, two = (s.conversations["offline"] for s in (first, second))
    assert one is not two and one.ctx is two.ctx is cache.context(first.demo), "one prepared context for both"
    assert one.ctx.summary is cache.summary(first.demo)
    payloads = [json.loads(at.get("bidi_component")[0].proto.json) for at in sessions]
    assert payloads[0]["id"] == payloads[1]["id"], "one flame graph payload for both"
    sessions[0].chat_input[0].set_value("What uses the most GPU memory?").run()
    assert len(first.history) == 2 and not second.history, "each session keeps its own chat"


def test_the_warm_up_makes_everything_a_first_page_asks_for(tmp_path: Path) -> None:
    sources.SHARED.clear()
    path = str(pprof_file(tmp_path / "warm.pb.gz", "Warm.alloc"))
    serve.warm([path])
    profile = sources.SHARED.file_profile(
        path, sources.app_options(), lambda: pytest.fail("read again"), lambda _: pytest.fail("parsed again")
    )
    assert profile is sources.start_file([path])
    for name in ("summary", "context", "flame", "table"):
        sources.SHARED.derived(profile, name, lambda name=name: pytest.fail(f"{name} made again"))  # type: ignore[misc]


def test_the_launcher_is_streamlits_own_command_line() -> None:
    from explainer.cli.app import streamlit_command

    args = argparse.Namespace(profile=None, demo=False, host="127.0.0.1", port=8501)
    assert streamlit_command(args)[1:4] == ["-m", "explainer.ui.serve", "run"]
    out = subprocess.run(
        [sys.executable, "-m", "explainer.ui.serve", "version"], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0 and f"Streamlit, version {streamlit.__version__}" in out.stdout


def test_a_warm_up_on_a_bad_file_caches_nothing_and_only_logs(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    sources.SHARED.clear()
    missing = str(tmp_path / "gone.pb.gz")
    with pytest.raises(SourceNotFoundError):
        serve.warm([missing])
    assert not sources.SHARED._profiles, "the page reads again and says what is wrong in its own words"
    serve._started("analysis", lambda: serve.warm([missing])).join(timeout=30)
    assert "warm-up: analysis failed" in caplog.text


def test_streamlits_run_is_passed_through_and_starts_the_warm_up(tmp_path: Path) -> None:
    sources.SHARED.clear()
    path = str(pprof_file(tmp_path / "start.pb.gz", "Started.alloc"))
    calls: list[tuple[object, ...]] = []
    run = serve.warming_run(lambda *a, **k: calls.append((a, k)) or "served")
    assert run(APP, False, [path], {"server.port": 8501}, extra=1) == "served"
    assert calls == [((APP, False, [path], {"server.port": 8501}), {"extra": 1})], "Streamlit's call, unchanged"
    for thread in threading.enumerate():
        if thread.name == "explainer-warm-analysis":
            thread.join(timeout=60)
    # the warmed analysis was frozen out of Streamlit's after-run collections (issue 27)
    assert gc.get_freeze_count() > 0
    gc.unfreeze()  # this is a test process: give the collector its objects back
    profile = sources.start_file([path])
    sources.SHARED.derived(profile, "flame", lambda: pytest.fail("the warm-up made the flame graph"))
