"""One input budget for every source, and inflation with memory near the cap.

GIVEN a device, a FIFO, a socket, a directory, an endless stdin or a gzip bomb, WHEN explainer
reads it, THEN it ends at once (or at the cap) with one line and exit 2, and the process's peak
memory, measured in a subprocess as ``ru_maxrss``, stays near the cap.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import tracemalloc
import zlib
from pathlib import Path
from typing import Any

import pytest

from conftest import profile_of
from explainer.errors import DecodeError, SizeLimitError, SourceNotFoundError
from explainer.readers import ReadOptions, read_bytes, read_file_bytes, sniff
from explainer.readers.limits import DEFAULT_MAX_DECOMPRESSED, gunzip, read_capped
from explainer.writers import to_folded, to_pprof

pytestmark = pytest.mark.slow  # devices, FIFOs, gzip bombs and peak memory, in subprocesses

EXPLAINER = [sys.executable, "-m", "explainer.cli.main"]
SMALL = profile_of({"main;a;b": 5, "main;a;c": 3}, unit="bytes", sample_type="alloc_space")
GIB = 2**30
RSS_BOUND_MB = 600
PROCESS_DEADLINE_S = 10.0  # a subprocess that has not ended by then is hung (the bug was: forever)


# The child is started by a small launcher, not by pytest itself: Linux keeps the high-water mark
# of the memory a process had before exec in its ru_maxrss, and a child forked from a pytest that
# has grown to hundreds of MB would report that, not its own peak.
_LAUNCHER = """
import os, subprocess, sys
child = subprocess.Popen(sys.argv[2:])
_pid, status, usage = os.wait4(child.pid, 0)
with open(sys.argv[1], "w") as report:
    report.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def _measure(args: list[str], stdin: Any = subprocess.DEVNULL, flood: bool = False) -> tuple[int, str, int]:
    """Exit status, stderr and the child's peak RSS in KiB (``ru_maxrss`` from ``wait4``).

    ``flood`` writes zeros to the child's stdin until it stops reading.
    """
    with tempfile.TemporaryFile() as err_file, tempfile.NamedTemporaryFile("r") as report:
        proc = subprocess.Popen(
            [sys.executable, "-c", _LAUNCHER, report.name, *EXPLAINER, *args],
            stdin=subprocess.PIPE if flood else stdin,
            stdout=subprocess.DEVNULL,
            stderr=err_file,
            start_new_session=True,  # its own process group: a hang is killed with the launcher
        )
        if flood:
            threading.Thread(target=_flood, args=(proc.stdin,), daemon=True).start()
        try:
            code = proc.wait(timeout=PROCESS_DEADLINE_S)  # a hang fails the test instead of blocking it
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        err_file.seek(0)
        err = err_file.read().decode()
        peak_kib = int(report.read() or 0)
    return code, err, peak_kib


def _flood(pipe: Any) -> None:
    try:
        while True:
            pipe.write(bytes(65536))
    except (BrokenPipeError, ValueError, OSError):
        pass
    finally:
        with contextlib.suppress(OSError):
            pipe.close()


def _one_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("explainer: error: "), err
    assert "Traceback" not in err
    return lines[0]


# not a regular file -------------------------------------------------------------------------


def _unix_socket(path: Path) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(path))
    return sock


@pytest.mark.parametrize("kind", ["device", "fifo", "socket", "directory"])
def test_only_regular_files_are_read_and_the_rest_fails_at_once(kind: str, tmp_path: Path) -> None:
    path = tmp_path / kind
    if kind == "device":
        path = Path("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(path)  # nobody ever writes: opening it for reading would block forever
    elif kind == "socket":
        sock = _unix_socket(path)
    else:
        path.mkdir()
    code, err, _rss = _measure(["analyze", str(path), "--max-size", "1000000"])
    if kind == "socket":
        sock.close()
    assert code == 2
    words = {"device": "character device", "fifo": "FIFO", "socket": "socket", "directory": "directory"}[kind]
    assert words in _one_line(err)


def test_read_file_bytes_refuses_a_fifo_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(SourceNotFoundError, match="FIFO"):
        read_file_bytes(fifo)


def test_stdin_from_a_device_is_refused() -> None:
    with open("/dev/zero", "rb") as zero:
        code, err, _rss = _measure(["analyze", "-"], stdin=zero)
    assert code == 2 and "stdin is a character device" in _one_line(err)


def test_an_endless_stdin_stops_at_max_size_with_memory_near_it() -> None:
    """The raw bytes are capped by --max-size too: 1 MB here, while the writer never stops."""
    code, err, peak_kib = _measure(["analyze", "-", "--max-size", "1000000"], flood=True)
    assert code == 2 and "stdin is larger than the 1,000,000-byte limit" in _one_line(err)
    assert peak_kib < 150 * 1024, f"peak RSS {peak_kib / 1024:.0f} MiB for a 1 MB cap"


def test_raw_input_is_capped_by_max_size_before_anything_is_parsed(tmp_path: Path) -> None:
    path = tmp_path / "big.folded"
    path.write_text("a;b 1\n" * 400_000)  # 2.4 MB, not compressed
    with pytest.raises(SizeLimitError, match="1,000,000-byte limit"):
        read_file_bytes(path, ReadOptions(max_decompressed=1_000_000))
    with pytest.raises(SizeLimitError):
        read_bytes(path.read_bytes(), ReadOptions(max_decompressed=1_000_000))


def test_a_file_is_read_into_one_buffer(tmp_path: Path) -> None:
    path = tmp_path / "p.folded"
    path.write_text("main;a;b 5\n" * 2_000_000)  # 22 MB
    size = path.stat().st_size
    tracemalloc.start()
    try:
        data = read_file_bytes(path)
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(data) == size
    assert peak < size + 2**20, f"reading {size:,} bytes peaked at {peak:,} bytes of Python memory"


@pytest.mark.parametrize(
    "hint", [0, 10, 255_999, 256_000, 4 << 20], ids=["pipe", "grew", "grew-by-1", "exact", "shrank"]
)
def test_a_read_keeps_exactly_the_bytes_it_was_given(hint: int) -> None:
    """The read's buffer is not zeroed first (``_fold.read_buffer``): only what the read wrote is kept, whether
    the file grew past the size it was stated at or shrank below it (the rest of the buffer is dropped)."""
    payload = bytes(range(256)) * 1000
    assert read_capped(io.BytesIO(payload), 1 << 30, "f", size_hint=hint) == payload


def test_sniff_reads_in_place() -> None:
    data = b" " * (32 * 2**20) + b"main;a 1\n"  # leading blanks: data.strip() would copy 32 MiB
    tracemalloc.start()
    try:
        fmt = sniff(data)
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert fmt == "pprof"  # the first 4 KiB are blanks; what matters here is the copy
    assert peak < 2**20, f"sniff allocated {peak:,} bytes for a {len(data):,}-byte input"


# inflation ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bombs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """1 GiB of zeros in one gzip member (about 1 MB) and the same gzipped again (about 2 KB)."""
    folder = tmp_path_factory.mktemp("bombs")
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = bytes(16 * 2**20)
    single = b"".join(packer.compress(block) for _ in range(GIB // len(block))) + packer.flush()
    paths = {"single": folder / "single.gz", "nested": folder / "nested.gz"}
    paths["single"].write_bytes(single)
    paths["nested"].write_bytes(gzip.compress(single, 9))
    return paths


@pytest.mark.parametrize("kind", ["single", "nested"])
def test_a_1_gib_bomb_peaks_under_600_mb_in_a_subprocess(kind: str, bombs: dict[str, Path]) -> None:
    assert bombs[kind].stat().st_size < 1_100_000
    code, err, peak_kib = _measure(["analyze", str(bombs[kind])])
    assert code == 2 and f"larger than the {DEFAULT_MAX_DECOMPRESSED:,}-byte limit" in _one_line(err)
    peak_mb = peak_kib * 1024 / 1e6
    assert peak_mb < RSS_BOUND_MB, f"{kind} 1 GiB bomb: peak RSS {peak_mb:.0f} MB (bound {RSS_BOUND_MB} MB)"


def test_inflation_stops_within_one_chunk_of_the_cap() -> None:
    limit = 3 * 2**20 + 17
    exact = gzip.compress(bytes(limit))
    assert len(gunzip(exact, limit)) == limit  # at the cap: accepted
    with pytest.raises(SizeLimitError):
        gunzip(gzip.compress(bytes(limit + 1)), limit)  # one byte over: refused
    bomb = gzip.compress(bytes(64 * 2**20))
    tracemalloc.start()
    try:
        with pytest.raises(SizeLimitError):
            gunzip(bomb, limit)
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # the buffer (with bytearray's 1/8 growth slack) plus a few 1 MiB inflation steps in flight
    assert peak < limit * 5 // 4 + 4 * 2**20, f"a 64 MiB bomb under a {limit:,}-byte cap peaked at {peak:,} bytes"


def test_multi_member_nested_and_trailing_bytes() -> None:
    raw = gzip.decompress(to_pprof(SMALL))
    thirds = [raw[: len(raw) // 3], raw[len(raw) // 3 : 2 * len(raw) // 3], raw[2 * len(raw) // 3 :]]
    members = b"".join(gzip.compress(part) for part in thirds)
    assert bytes(gunzip(members)) == raw
    assert bytes(gunzip(gzip.compress(members))) == raw  # nested, the inner layer multi-member
    assert bytes(gunzip(members + b"\x00\x00garbage")) == raw  # as gzip(1): trailing bytes ignored
    assert bytes(gunzip(members + b"\x1f")) == raw
    folded = to_folded(SMALL).encode()
    assert sorted(read_bytes(gzip.compress(gzip.compress(folded))).stacks()) == sorted(SMALL.stacks())


def test_a_member_split_across_input_slices_and_a_truncated_stream() -> None:
    raw = os.urandom(300_000)  # incompressible: the member spans several 64 KiB input slices
    data = gzip.compress(raw) + gzip.compress(raw)
    assert bytes(gunzip(data)) == raw + raw
    with pytest.raises(DecodeError, match="truncated"):
        gunzip(data[:-100])
    with pytest.raises(DecodeError, match="nested more than 4"):
        blob = b"x"
        for _ in range(5):
            blob = gzip.compress(blob)
        gunzip(blob)


def test_server_bodies_go_through_the_same_inflater() -> None:
    """One inflater for every source: a Pyroscope body inflates exactly as a file does."""
    from explainer.pyroscope.wire import Inflater

    raw = to_folded(SMALL).encode() * 1000
    body = gzip.compress(raw[:5000]) + gzip.compress(raw[5000:]) + b"\x00garbage"
    inflater = Inflater("gzip", 10 * len(raw), "test")
    for start in range(0, len(body), 333):  # arbitrary network chunks, members split across them
        inflater.feed(body[start : start + 333])
    assert bytes(inflater.finish()) == bytes(gunzip(body)) == raw
    capped = Inflater("gzip", 2**20, "test")
    capped.feed(gzip.compress(bytes(64 * 2**20)))
    assert capped.over and len(capped.partial()) == 2**20
