"""The program's warm-up (explainer/cli/warmup.py) and the GIL-free fold it overlaps with.

While a command reads its profile, a thread imports the modules the command needs next. What is
pinned here: the output is the same with and without it, the main thread imports nothing while the
thread may run (so two threads never import at once), a failing warm-up changes nothing and prints
nothing, what the thread imported is frozen with the rest, and the compiled fold really lets another
thread run (progress counted, never timed).
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from pyroscope_server import PyroscopeServer

from conftest import REPO
from explainer.cli import warmup
from explainer.cli.main import VERBS
from explainer.model import Profile
from explainer.readers import limits

DEMO = REPO / "fixtures" / "demo_vllm_gpu.pb.gz"
ASK = ("ask", str(DEMO), "--llm", "offline", "What uses the most GPU memory?")
HANDOFF = ("handoff", str(DEMO), "--llm", "offline")
ANALYZE = ("analyze", str(DEMO), "--format", "json")

# Runs `explainer ARGV` as the program (main.run) with a finder that tells which thread imported what
# while the warm-up's window was open; prints one JSON line on stderr.
PROBE = """
import contextlib, gc, io, json, os, sys, threading
main_thread = threading.get_ident()
state = {"open": False, "warmups": []}
seen = {"main_in_window": [], "thread": []}
class Recorder:  # first on sys.meta_path: asked about every module not yet imported, by any route
    @staticmethod
    def find_spec(name, path=None, target=None):
        if threading.get_ident() != main_thread:
            seen["thread"].append(name)
        elif state["open"]:
            seen["main_in_window"].append(name)
        return None
sys.meta_path.insert(0, Recorder)
from explainer.cli import warmup
start, close = warmup.Warmup.start, warmup.Warmup.close
def opened(self):
    state["warmups"].append(self)
    start(self)
    state["open"] = True
def closed(self):
    state["open"] = False
    close(self)
warmup.Warmup.start, warmup.Warmup.close = opened, closed
if os.environ.get("PROBE_SMALL"):  # the 1 KB fixtures stand in for a large profile: no size floor
    import explainer.cli.passes, explainer.readers
    explainer.readers.OVERLAP_MIN = 0
    explainer.readers._THREADED_DIGEST = 0
    explainer.cli.passes.BESIDE_MIN_FRAMES = 0
import explainer.readers
digest_and_inflate, gunzip = explainer.readers._digest_and_inflate, explainer.readers.limits.gunzip
def reading(*args):  # the read begins: has anything imported numpy yet?
    state.setdefault("numpy_before_read", "numpy" in sys.modules)
    return digest_and_inflate(*args)
def inflating(*args):
    state.setdefault("inflated_on", "main" if threading.get_ident() == main_thread else "thread")
    return gunzip(*args)
explainer.readers._digest_and_inflate, explainer.readers.limits.gunzip = reading, inflating
extra = json.loads(os.environ.get("PROBE_STEPS", "null"))
if extra is not None:
    warmup.WARMS[sys.argv[1]] = tuple(extra) + warmup.WARMS[sys.argv[1]]
from explainer.cli.main import run
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = run()
frozen = "explainer.report.analyze" in sys.modules and not any(
    o is sys.modules["explainer.report.analyze"].__dict__ for o in gc.get_objects())
sys.stderr.write("\\n" + json.dumps({
    "code": code, "out": out.getvalue(), "main_in_window": seen["main_in_window"], "thread": seen["thread"],
    "windows": len(state["warmups"]), "failed": [f for w in state["warmups"] for f in w.failed],
    "gc": [gc.isenabled(), gc.get_freeze_count() > 0], "report_frozen": frozen,
    "numpy_before_read": state.get("numpy_before_read"), "inflated_on": state.get("inflated_on"),
}) + "\\n")
"""


def program(
    argv: tuple[str, ...],
    *,
    warm: bool = True,
    stdin: bytes | None = None,
    steps: list[str] | None = None,
    small: bool = True,
) -> dict[str, object]:
    """``small``: the read overlaps whatever its size (the fixtures are 1 KB; the program's floor is 1 MiB)."""
    env = {**os.environ, "PYTHONPATH": str(REPO), warmup.ENV: "1" if warm else "0"}
    if small:
        env["PROBE_SMALL"] = "1"
    if steps is not None:
        env["PROBE_STEPS"] = json.dumps(steps)
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], input=stdin, capture_output=True, timeout=120, env=env, check=False
    )
    lines = done.stderr.decode().strip().splitlines()
    report: dict[str, object] = json.loads(lines[-1])
    report["stderr"] = "\n".join(lines[:-1]).strip()
    return report


@pytest.fixture(autouse=True)
def _disarmed() -> Iterator[None]:
    """Arming is process state (the program arms once): no test leaves it armed for the next."""
    warmup.disarm()
    yield
    warmup.disarm()


def test_every_verb_warms_only_what_exists() -> None:
    for verb, steps in warmup.WARMS.items():
        assert verb in VERBS, verb
        for step in steps:
            module, _, function = step.partition(":")
            loaded = __import__(module, fromlist=["_"])
            assert not function or callable(getattr(loaded, function)), step


@pytest.mark.slow
@pytest.mark.parametrize("argv", [ANALYZE, HANDOFF, ASK], ids=["analyze", "handoff", "ask"])
def test_the_main_thread_imports_nothing_while_the_warmup_runs(argv: tuple[str, ...]) -> None:
    report = program(argv)
    assert report["code"] == 0, report["stderr"]
    assert report["windows"] == 1
    assert report["main_in_window"] == []  # the read imported its reader before the window opened
    assert report["thread"], "the warm-up imported nothing: the table or the verb's imports moved"
    assert report["failed"] == []
    assert report["gc"] == [True, True]  # the collector is back on, and the start-up is frozen


@pytest.mark.slow
@pytest.mark.parametrize("argv", [ANALYZE, HANDOFF, ASK], ids=["analyze", "handoff", "ask"])
def test_numpy_and_the_reader_load_while_the_input_inflates(argv: tuple[str, ...]) -> None:
    """Nothing before the read imports numpy (about 0.1 s with protobuf and the model): the read imports
    it, and its reader, on the main thread while a thread inflates the input."""
    report = program(argv)
    assert report["code"] == 0, report["stderr"]
    assert report["numpy_before_read"] is False
    assert report["inflated_on"] == "thread"
    assert report["main_in_window"] == [] and report["windows"] == 1


@pytest.mark.slow
def test_every_format_imports_its_reader_before_the_window(tmp_path: Path) -> None:
    """JSON and folded stacks (UTF-16 with a BOM: a codec loads on first use) read without a main-thread
    import in the window, as pprof does."""
    as_json, as_folded = tmp_path / "p.json", tmp_path / "p.folded"
    made = program(("analyze", str(DEMO), "--output", f"json={as_json}", "--output", f"folded={as_folded}"), warm=False)
    assert made["code"] == 0, made["stderr"]
    utf16 = tmp_path / "p16.folded"
    utf16.write_bytes(as_folded.read_text("utf-8").encode("utf-16"))
    for path in (as_json, utf16):
        argv = ("analyze", str(path), "--format", "json", "--unit", "bytes")
        report = program(argv)
        assert report["code"] == 0, report["stderr"]
        assert report["windows"] == 1 and report["main_in_window"] == [], path.name
        assert report["out"] == program(argv, warm=False)["out"]


@pytest.mark.slow
def test_a_small_file_reads_without_a_window_and_the_same() -> None:
    report = program(ANALYZE, small=False)
    assert report["code"] == 0 and report["windows"] == 0 and report["gc"] == [True, True]
    assert report["out"] == program(ANALYZE, warm=False)["out"]


@pytest.mark.slow
def test_stdin_overlaps_as_a_file_does() -> None:
    report = program(("analyze", "-", "--format", "json"), stdin=DEMO.read_bytes())
    plain = program(ANALYZE, warm=False)
    assert report["code"] == 0 and report["windows"] == 1 and report["main_in_window"] == []
    assert json.loads(str(report["out"]))["top_self"] == json.loads(str(plain["out"]))["top_self"]


@pytest.mark.slow
def test_a_server_read_overlaps_with_the_http_wait(demo: Profile) -> None:
    with PyroscopeServer({"process_cpu:malloc:bytes::": demo}) as server:
        argv = ("analyze", "--server", server.url, "--profile-type", "gpu-memory", "--format", "json")
        report = program(argv)
        plain = program(argv, warm=False)
    assert report["code"] == 0, report["stderr"]
    assert report["windows"] == 1 and report["main_in_window"] == [] and report["failed"] == []
    assert report["out"] == plain["out"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "argv", [ANALYZE, HANDOFF, ASK, ("analyze", str(DEMO))], ids=["json", "handoff", "ask", "text"]
)
def test_the_output_is_the_same_without_the_warmup(argv: tuple[str, ...]) -> None:
    warm, cold = program(argv), program(argv, warm=False)
    assert cold["windows"] == 0 and warm["windows"] == 1
    assert warm["code"] == cold["code"] == 0
    assert warm["out"] == cold["out"] and warm["out"]
    assert warm["stderr"] == cold["stderr"] == ""


@pytest.mark.slow
def test_a_failing_warmup_changes_nothing_and_prints_nothing() -> None:
    bad = ["explainer.no_such_module", "explainer.knowledge.classify:no_such_table"]
    report = program(ANALYZE, steps=bad)
    assert report["code"] == 0 and report["failed"] == bad
    assert report["stderr"] == ""  # no traceback from the thread
    assert report["out"] == program(ANALYZE, warm=False)["out"]


@pytest.mark.slow
def test_what_the_thread_imported_is_frozen_with_the_rest() -> None:
    report = program(("analyze", str(DEMO), "--format", "json"))
    assert "explainer.report.analyze" in report["thread"]  # type: ignore[operator]
    assert report["report_frozen"] is True and report["gc"] == [True, True]


@pytest.mark.slow
def test_the_demo_has_no_window_and_still_settles_the_collector() -> None:
    report = program(("analyze", "--demo", "--format", "json"))
    assert report["code"] == 0 and report["windows"] == 0 and report["gc"] == [True, True]


def test_a_warmup_swallows_its_failures_and_closes_once() -> None:
    closed: list[int] = []
    w = warmup.Warmup(("json", "explainer.no_such_module", "json:no_such_function"), lambda: closed.append(1))
    w.start()
    w.close()
    w.close()
    assert w.failed == ["explainer.no_such_module", "json:no_such_function"] and closed == [1]


def test_reading_opens_only_an_armed_window_and_only_once(monkeypatch: pytest.MonkeyPatch) -> None:
    with warmup.reading() as overlap:  # nothing armed: an in-process caller
        assert overlap is None
    monkeypatch.setenv(warmup.ENV, "0")
    assert warmup.arm("analyze") is None
    monkeypatch.setenv(warmup.ENV, "1")
    assert warmup.arm("contexts") is None  # reads no profile
    closed: list[int] = []
    armed = warmup.arm("analyze", lambda: closed.append(1))
    assert armed is not None
    with warmup.reading() as overlap:
        assert overlap is not None
        overlap()
    assert closed == [1] and armed.failed == []
    with warmup.reading() as overlap:  # a second read (a baseline) reads plainly
        assert overlap is None


def test_beside_runs_only_in_the_program_joins_and_swallows(monkeypatch: pytest.MonkeyPatch) -> None:
    ran: list[str] = []
    with warmup.beside(lambda: ran.append("outside")):  # an in-process caller: not run at all
        pass
    assert ran == []
    monkeypatch.setattr(warmup, "_program", True)
    with warmup.beside(lambda: ran.append(threading.current_thread().name)):
        pass
    assert ran == ["explainer-beside"]  # joined when the block ends

    def fails() -> None:
        raise RuntimeError("swallowed")

    with warmup.beside(fails):
        pass


def test_the_head_is_what_the_inflate_starts_with() -> None:
    raw = os.urandom(1 << 17) + b"tail"
    assert limits.head(gzip.compress(raw)) == raw[: 1 << 16]
    assert limits.head(gzip.compress(gzip.compress(raw))) == raw[: 1 << 16]  # through nested layers
    assert limits.head(gzip.compress(gzip.compress(raw)), 10) == raw[:10]
    assert limits.head(raw, 7) == raw[:7]
    cut = gzip.compress(raw)[:2000]  # damaged or cut short: what came before, never an error
    assert raw.startswith(limits.head(cut))


def _repeated_samples(n: int, depth: int = 24) -> bytes:
    """``n`` identical Sample records (field 2) of ``depth`` one-byte location ids and one value."""
    ids = bytes(range(1, depth + 1))
    body = b"\x0a" + bytes([depth]) + ids + b"\x12\x01\x05"  # location_id packed, value packed
    return (b"\x12" + bytes([len(body)]) + body) * n


def progress_while(call: Callable[[], object], tries: int = 20) -> tuple[int, int]:
    """Ticks of a second Python thread while ``call`` runs, and while a C call that keeps the GIL runs
    (the control): the thread can move only when the main thread releases the GIL. Retried a few times,
    as a busy machine may not schedule the thread within one short call; never timed."""
    ticks = [0]
    stop = threading.Event()
    control_data = bytes(1 << 24)

    def count() -> None:
        while not stop.is_set():
            ticks[0] += 1
            time.sleep(0)  # hands the GIL back at once: the counter runs only while the main thread lets it

    old = sys.getswitchinterval()
    sys.setswitchinterval(100.0)  # the main thread is never made to yield: only a released GIL lets it in
    counter = threading.Thread(target=count, daemon=True)
    held = released = 0
    try:
        counter.start()
        while ticks[0] == 0:
            time.sleep(0.001)
        for _ in range(tries):
            before = ticks[0]
            control_data.count(b"\x01\x02")  # C that keeps the GIL: the counter must not move
            held += ticks[0] - before
            before = ticks[0]
            call()
            released += ticks[0] - before
            if released:
                break
    finally:
        stop.set()
        sys.setswitchinterval(old)
        counter.join()
    return held, released


def test_the_fold_lets_another_thread_run() -> None:
    fold = pytest.importorskip("explainer._fold")
    depth, n = 24, 400_000
    data = _repeated_samples(n, depth)
    lookup = np.arange(-1, depth, dtype=np.int32)  # id i -> location i - 1; id 0 does not exist
    loc_start = np.arange(depth + 1, dtype=np.int64)
    flat = np.arange(depth, dtype=np.int32)
    outs: list[tuple[bytes, ...]] = []

    def call() -> None:
        outs.append(fold.fold_samples(data, n, 0, 1, lookup, loc_start, flat, 2, 1 << 40, depth))

    held, released = progress_while(call)
    assert held == 0 and released > 0
    out = outs[-1]
    offsets, frames = np.frombuffer(out[0], dtype=np.int64), np.frombuffer(out[1], dtype=np.uint16)
    assert offsets[-1] == n * depth and list(frames[:depth]) == list(range(depth - 1, -1, -1))
    assert np.frombuffer(out[3], dtype=np.int64)[0] == 5 * n  # the leaf (location 1, name 0) holds every value


@pytest.mark.parametrize("kernel", ["self_and_total", "attribute", "stacks_with", "heaviest_paths"])
def test_the_other_long_kernels_let_another_thread_run(kernel: str) -> None:
    fold = pytest.importorskip("explainer._fold")
    depth, n = 24, 400_000
    offsets = np.arange(n + 1, dtype=np.int64) * depth
    frames = np.tile(np.arange(depth, dtype=np.uint16), n)
    values = np.ones(n, dtype=np.int64)
    none = np.zeros(depth, dtype=np.uint8)  # no frame decides, none is wanted: every frame is read
    calls: dict[str, Callable[[], object]] = {
        "self_and_total": lambda: fold.self_and_total(offsets, frames, values, depth, 2),
        "attribute": lambda: fold.attribute(offsets, frames, none, np.zeros(depth, dtype=np.int64), 0, 0, 0, 2),
        "stacks_with": lambda: fold.stacks_with(offsets, frames, none, 2),
        "heaviest_paths": lambda: fold.heaviest_paths(offsets, frames, values, np.array([0], np.int32), depth, 2),
    }
    held, released = progress_while(calls[kernel])
    assert held == 0 and released > 0
    # and the answers are still right
    if kernel == "self_and_total":
        self_values, total = (
            np.frombuffer(b, dtype=np.int64) for b in fold.self_and_total(offsets, frames, values, depth, 2)
        )
        assert self_values[depth - 1] == n and list(total) == [n] * depth
    if kernel == "stacks_with":
        assert calls[kernel]() == bytes(n)


def test_the_kernels_still_refuse_bad_frames_and_offsets() -> None:
    fold = pytest.importorskip("explainer._fold")
    offsets = np.array([0, 2, 4], dtype=np.int64)
    frames = np.array([0, 1, 0, 9], dtype=np.uint16)  # 9: past the 2 names
    values = np.ones(2, dtype=np.int64)
    for call in (
        lambda: fold.self_and_total(offsets, frames, values, 2, 2),
        lambda: fold.attribute(offsets, frames, np.zeros(2, np.uint8), np.zeros(2, np.int64), 0, 0, 0, 2),
        lambda: fold.stacks_with(offsets, frames, np.zeros(2, np.uint8), 2),
        lambda: fold.heaviest_paths(offsets, frames, values, np.array([1], np.int32), 2, 2),
    ):
        with pytest.raises(ValueError, match="bad frame id"):
            call()
    bad_offsets = np.array([0, 3, 2], dtype=np.int64)
    with pytest.raises(ValueError, match="bad offsets"):
        fold.self_and_total(bad_offsets, frames[:2], values, 2, 2)
    with pytest.raises(ValueError, match="bad offsets"):
        fold.stacks_with(bad_offsets, frames[:2], np.zeros(2, np.uint8), 2)


def test_fold_errors_still_name_the_sample_after_the_gil_is_taken_back() -> None:
    fold = pytest.importorskip("explainer._fold")
    data = _repeated_samples(3, 4) + b"\x12\x03\x0a\x01\x63"  # a fourth sample naming location 99
    lookup = np.arange(-1, 4, dtype=np.int32)
    out = fold.fold_samples(
        data, 4, 0, 1, lookup, np.arange(5, dtype=np.int64), np.arange(4, dtype=np.int32), 2, 1 << 40, 4
    )
    assert out[:2] == ("value", 3)  # no value field: checked before the location
    bad = _repeated_samples(3, 4) + b"\x12\x06\x0a\x01\x63\x12\x01\x05"
    out = fold.fold_samples(
        bad, 4, 0, 1, lookup, np.arange(5, dtype=np.int64), np.arange(4, dtype=np.int32), 2, 1 << 40, 4
    )
    assert out[:2] == ("location", 3)


def test_the_program_reads_the_same_profile_through_the_window(tmp_path: Path) -> None:
    # a small gzip that is not the first member of its file: the head sniff and the read agree
    path = tmp_path / "p.pb.gz"
    path.write_bytes(gzip.compress(gzip.decompress(DEMO.read_bytes())))
    report = program(("analyze", str(path), "--format", "json"))
    assert report["code"] == 0 and report["main_in_window"] == []
