"""The compiled fold on two threads gives the serial fold's answer, byte for byte.

From readers/pprof.py's SPLIT_FOLD_BYTES on, the samples are decoded in two halves, the second on a
thread of its own, and joined (explainer/_fold_kernels.h, K(fold)); when the second half fails or
meets anything unusual, the first thread decodes it as the serial fold would. GIVEN profiles (the real
corpus, generated ones with inlined lines and errors in either half, every prefix and bit flip of one),
WHEN the fold runs serially and forced to split, THEN the arrays, the sums and the errors are the same.
"""

from __future__ import annotations

import contextlib
import gzip
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import profile_of
from explainer.errors import ExplainerError
from explainer.readers import pprof, read_bytes, read_path
from explainer.readers.pprof_schema import MESSAGES
from explainer.writers import to_pprof

if pprof._fold is None:  # pragma: no cover - depends on the build
    pytest.skip("the compiled fold is not built", allow_module_level=True)
FOLD = pprof._fold
SERIAL, FORCED = -1, 0  # fold_samples' split_min: never, and from the first byte on


class Recorder:
    """The compiled module as the reader sees it, keeping the arguments of every fold_samples call."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(FOLD, name)

    def fold_samples(self, *args: Any) -> Any:
        self.calls.append(args[:-1])  # the reader's own split_min is left out
        return FOLD.fold_samples(*args)


def fold_calls(read: Any, monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """The fold_samples arguments the reader passes while ``read()`` runs (its errors are left out)."""
    recorder = Recorder()
    with monkeypatch.context() as patch:
        patch.setattr(pprof, "_fold", recorder)
        with contextlib.suppress(ExplainerError):
            read()
    return recorder.calls


def outcome(args: tuple[Any, ...], split_min: int, stop_second: bool = True) -> Any:
    try:
        return FOLD.fold_samples(*args, split_min, stop_second)
    except (ValueError, MemoryError) as exc:
        return type(exc), str(exc)


def assert_split_is_serial(args: tuple[Any, ...]) -> Any:
    """Split, both ways: the first thread stops the second when its half is done (on a small profile, most
    often before the second has begun) and decodes the rest, or waits for the whole second half."""
    serial = outcome(args, SERIAL)
    assert outcome(args, FORCED) == serial
    assert outcome(args, FORCED, stop_second=False) == serial
    return serial


def test_the_real_corpus_folds_the_same_on_two_threads(real_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folded = 0
    for path in sorted(p for p in real_dir.rglob("*") if p.is_file() and p.suffix not in (".md", ".txt")):
        for args in fold_calls(lambda: read_path(path), monkeypatch):  # noqa: B023 - called at once
            assert_split_is_serial(args)
            folded += 1
    assert folded >= 10


def _profile(samples: list[tuple[list[int], list[int]]], lines: list[int]) -> bytes:
    """A serialized pprof Profile: location i + 1 holds lines[i] inlined lines (of functions 1 to 3),
    and each sample is (location ids, values) as given, whether they exist or not."""
    msg = MESSAGES["Profile"]()
    msg.string_table.extend([b"", b"space", b"bytes", b"f1", b"f2", b"f3"])
    msg.sample_type.add(type=1, unit=2)
    for f in (1, 2, 3):
        msg.function.add(id=f, name=2 + f)
    for i, n in enumerate(lines):
        location = msg.location.add(id=i + 1)
        for line in range(n):
            location.line.add(function_id=1 + (i + line) % 3)
    for ids, values in samples:
        msg.sample.add(location_id=ids, value=values)
    return bytes(msg.SerializeToString())


def _fold_args(data: bytes, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, ...] | None:
    calls = fold_calls(lambda: read_bytes(data), monkeypatch)
    return calls[0] if calls else None


samples_strategy = st.lists(
    st.tuples(
        st.lists(st.integers(1, 9), min_size=1, max_size=8),  # ids past the locations: "does not exist"
        st.lists(st.integers(-2, 10**6), min_size=1, max_size=2),  # two values or a negative one: errors
    ),
    min_size=2,
    max_size=30,
)


@settings(max_examples=300, deadline=None)
@given(samples=samples_strategy, lines=st.lists(st.integers(1, 40), min_size=8, max_size=8))
def test_generated_profiles_with_inlined_lines_fold_the_same(
    samples: list[tuple[list[int], list[int]]], lines: list[int]
) -> None:
    """Errors anywhere, in either half or both (the first wins), locations of up to 40 inlined lines,
    and frame bounds that either half, or only the two together, pass."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        args = _fold_args(_profile(samples, lines), monkeypatch)
    if args is None:  # the location table was refused before the samples were read
        return
    serial = assert_split_is_serial(args)
    if isinstance(serial[0], bytes):  # and under a frame bound that the second half passes
        frames = len(serial[1]) // args[7]
        for bound in (frames - 1, frames // 2, 1):
            assert_split_is_serial((*args[:8], bound, args[9]))


@pytest.mark.parametrize("inlined_half", ["first", "second"])
def test_a_half_of_many_inlined_lines_folds_the_same(inlined_half: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """One half's samples name a location of 500 inlined lines, many more frames than bytes: the first
    half grows its buffer (taking the GIL) while the second runs; the second half, past its mapping,
    is decoded by the first thread."""
    plain, inlined = [([1, 2], [5])] * 50, [([3, 1], [7])] * 50
    samples = inlined + plain if inlined_half == "first" else plain + inlined
    args = _fold_args(_profile(samples, [1, 1, 500]), monkeypatch)
    assert args is not None
    out = assert_split_is_serial(args)
    offsets = np.frombuffer(out[0], dtype=np.int64)
    assert offsets[-1] == 50 * 2 + 50 * 501 and len(out[1]) == offsets[-1] * args[7]


def test_every_prefix_and_bit_flip_of_the_samples_folds_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fold reads hostile bytes: given the tables of a valid profile, any bytes in its place end
    in the same error (or the same arrays) on one thread and on two."""
    stacks = {f"main;a{i % 7};b{i % 5};c{i}": i + 1 for i in range(40)}
    valid = gzip.decompress(to_pprof(profile_of(stacks, unit="bytes", sample_type="alloc_space")))
    args = _fold_args(valid, monkeypatch)
    assert args is not None and args[0] == valid
    rng = random.Random(27)
    cases = [valid[:i] for i in range(0, len(valid), 3)]
    for _ in range(600):
        flipped = bytearray(valid)
        flipped[rng.randrange(len(flipped))] ^= 1 << rng.randrange(8)
        cases.append(bytes(flipped))
    kinds = set()
    for data in cases:
        serial = assert_split_is_serial((data, *args[1:]))
        kinds.add(serial[0] if isinstance(serial[0], str) else "arrays")
    assert {"arrays", "profile", "sample", "location"} <= kinds


def test_the_reader_splits_from_its_constant_and_reads_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    stacks = {f"main;a{i % 7};b{i}": i + 1 for i in range(300)}
    data = to_pprof(profile_of(stacks))
    serial = read_bytes(data)
    monkeypatch.setattr(pprof, "SPLIT_FOLD_BYTES", 0)
    if pprof.split_fold_bytes() < 0:
        pytest.skip("one usable CPU: the reader never splits")
    split = read_bytes(data)
    for name in ("offsets", "frames", "values"):
        assert np.array_equal(getattr(split, name), getattr(serial, name))
    assert split.names == serial.names


def test_one_usable_cpu_never_splits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pprof.os, "sched_getaffinity", lambda pid: {0}, raising=False)
    monkeypatch.setattr(pprof.os, "cpu_count", lambda: 1)
    assert pprof.split_fold_bytes() == -1


@pytest.mark.slow  # a profile of more than 65,535 names
def test_int32_frames_fold_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """More names than uint16 holds: the fold's other width."""
    monkeypatch.setenv("EXPLAINER_MAX_NAMES", "80000")
    stacks = {f"main;mid{i % 13};leaf_{i}": i + 1 for i in range(70_000)}
    args = _fold_args(gzip.decompress(to_pprof(profile_of(stacks))), monkeypatch)
    assert args is not None and args[7] == 4
    assert isinstance(assert_split_is_serial(args)[0], bytes)


def test_a_second_thread_stopped_midway_leaves_the_rest_to_the_first() -> None:
    """Large enough for both threads to run at once: the second is stopped wherever it is when the first
    half is done (its records before that joined, the rest decoded by the first thread), or has finished."""
    depth, n = 12, 200_000
    body = b"\x0a" + bytes([depth]) + bytes(range(1, depth + 1)) + b"\x12\x01\x05"  # packed ids and value
    data = (b"\x12" + bytes([len(body)]) + body) * n
    lookup = np.arange(-1, depth, dtype=np.int32)  # id i -> location i - 1
    args = (data, n, 0, 1, lookup, np.arange(depth + 1, dtype=np.int64), np.arange(depth, dtype=np.int32), 2)
    args += (1 << 40, depth)
    serial = outcome(args, SERIAL)
    for _ in range(5):
        assert outcome(args, FORCED) == serial
