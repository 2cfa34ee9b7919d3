"""Small files that ask for a great deal of work, against ``explainer analyze`` (issue 26, item 5).

`.venv/bin/python bench/amplify.py [--repeat N] [--vllm FILE]` writes each amplifier to
bench/.work/amplify/, runs ``explainer analyze FILE --format json`` on it as a separate process
``--repeat`` times (default 3) and prints the file's size, the exit status, the median wall time,
the largest peak RSS (``ru_maxrss`` from ``wait4``) and the first line of any error. Target: each
one refused (exit 2, one line naming the bound) or answered (exit 0) in under 2 s and 600 MB.

Then the profiles the defaults must let through: every file of ``../shared/profiles/real`` and,
with ``--vllm FILE``, the 2M-stack profile of ``gen_gpu_profile.py --stacks 2000000 --seed 1``
(bench/run.py caches it in bench/.work/); each must exit 0. Exit status 0 when every row holds,
1 when one does not, 2 when the benchmark cannot run.
"""

from __future__ import annotations

import argparse
import gzip
import os
import random
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # its sibling run.py
from run import run_child

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "bench" / ".work" / "amplify"
REAL = Path(os.environ.get("EXPLAINER_SHARED", ROOT.parent / "shared")) / "profiles" / "real"
TARGET_S, TARGET_MB = 2.0, 600.0


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def pprof(types: int, samples: int, functions: int = 1, depth: int = 1) -> bytes:
    """A valid, gzipped pprof: ``types`` sample types, ``samples`` samples of ``depth`` frames each
    (all zero values but the first), ``functions`` functions (one location each)."""
    strings = [b"", b"space", b"bytes"] + [f"f{i}".encode() for i in range(functions)]
    sample_type = _field(1, b"\x08\x01\x10\x02")  # type = "space", unit = "bytes"
    values = _varint(1) + bytes(types - 1)  # packed varints: 1 then zeros
    locs = b"".join(_varint(1 + (i % functions)) for i in range(depth))
    sample = _field(2, _field(1, locs) + _field(2, values))
    location = b"".join(
        _field(4, b"\x08" + _varint(i + 1) + _field(4, b"\x08" + _varint(i + 1))) for i in range(functions)
    )
    function = b"".join(_field(5, b"\x08" + _varint(i + 1) + b"\x10" + _varint(i + 3)) for i in range(functions))
    table = b"".join(_field(6, s) for s in strings)
    body = sample_type * types + sample * samples + location + function + table
    return gzip.compress(body, 9, mtime=0)


def folded_names(count: int) -> bytes:
    return gzip.compress(b"".join(b"main;f%d 1\n" % i for i in range(count)), 9, mtime=0)


def folded_recursion(size: int) -> bytes:
    """Lines of growing depth through one frame: a deep, recursive tree from ``size`` bytes."""
    lines, used, depth = [], 0, 1
    while used < size:
        line = b";".join([b"r"] * depth) + b" 1\n"
        lines.append(line)
        used, depth = used + len(line), depth + 1
    return b"".join(lines)


def folded_random(size: int, pool: int) -> bytes:
    """Lines of 80 frames drawn from ``pool`` names: many distinct stacks and names from ``size`` bytes."""
    rng = random.Random(1)
    lines, used = [], 0
    while used < size:
        line = (";".join(f"n{rng.randrange(pool)}" for _ in range(80)) + " 1\n").encode()
        lines.append(line)
        used += len(line)
    return b"".join(lines)


def pprof_recursion(depth: int, samples: int) -> bytes:
    """A valid, gzipped pprof of ``samples`` samples, each ``depth`` frames of one function (location
    id 1 repeated): a 26 KB file of 20M frames at 4,000 x 5,000."""
    strings = [b"", b"space", b"bytes", b"f0"]
    sample = _field(2, _field(1, b"\x01" * depth) + _field(2, b"\x01"))
    location = _field(4, b"\x08\x01" + _field(4, b"\x08\x01"))
    function = _field(5, b"\x08\x01\x10\x03")
    body = _field(1, b"\x08\x01\x10\x02") + sample * samples + location + function
    return gzip.compress(body + b"".join(_field(6, s) for s in strings), 9, mtime=0)


def folded_long_names(count: int, length: int, shape: bytes = b"a.") -> bytes:
    """``count`` names of ``length`` characters (``shape`` repeated: dotted module paths by default,
    each a form the classifier strips), gzipped."""
    body = shape * (length // len(shape))
    return gzip.compress(b"".join(b"main;n%d%s 1\n" % (i, body) for i in range(count)), 9, mtime=0)


def folded_deep_distinct(count: int) -> bytes:
    """One stack of ``count`` distinct frames: a chain and a graph as deep as the reader keeps."""
    return gzip.compress((";".join(f"f{i}" for i in range(count)) + " 1\n").encode(), 9, mtime=0)


UPLOADS: dict[str, Callable[[], bytes]] = {
    "pprof, 4,000-frame recursion x 5,000 samples": lambda: pprof_recursion(4_000, 5_000),
    "pprof, one stack of 20M frames": lambda: pprof_recursion(20_000_000, 1),
    "folded, one stack of 9,999 distinct names": lambda: folded_deep_distinct(9_999),
    "folded, 40 'a.a.a' names of 40,000 characters": lambda: folded_long_names(40, 40_000),
    "folded, 1,000 names of 40,000 characters": lambda: folded_long_names(1_000, 40_000, b"01234"),
    "folded, 240 '<a>::' names of 4,000 characters (at the bound)": lambda: folded_long_names(240, 4_000, b"<a>::"),
    "pprof, 256 types x 65k samples (at the bound)": lambda: pprof(256, 65_000),
    "folded, 9,999 distinct names (at the bound)": lambda: folded_names(9_999),
}
"""Small uploads that ask the app for a great deal (issue 26: a 44 KB upload once took the server to
927 MB): each is at most 80 KB; tests/test_hostile_uploads.py and bench/redteam.py read them."""


CASES: dict[str, Callable[[], bytes]] = {
    "tiny valid profile (start-up)": lambda: b"main;work 1\n",
    "pprof, 1,000,000 sample types": lambda: pprof(1_000_000, 1),
    "pprof, 200 sample types x 600k samples": lambda: pprof(200, 600_000),
    "pprof, 256 types x 65k samples (at the bound)": lambda: pprof(256, 65_000),
    "pprof, 1,000,000 functions": lambda: pprof(1, 1, functions=1_000_000),
    "folded, 1,000,000 distinct names (gzip)": lambda: folded_names(1_000_000),
    "folded, 10,000 distinct names (at the bound, gzip)": lambda: folded_names(9_999),  # + main
    "folded, 462 KB of recursion": lambda: folded_recursion(462_000),
    "folded, 462 KB of 80-frame stacks over 5k names": lambda: folded_random(462_000, 5_000),
    "folded, 462 KB of 80-frame stacks over 10k names (at the bound)": lambda: folded_random(462_000, 10_000),
    "folded, 462 KB of 80-frame stacks over 20k names": lambda: folded_random(462_000, 20_000),
}


def measure(path: Path, repeat: int) -> tuple[int, float, float, str]:
    cmd = [sys.executable, "-m", "explainer", "analyze", str(path), "--format", "json"]
    runs = [run_child(cmd, timeout_s=120) for _ in range(repeat)]
    error = runs[-1].stderr.decode(errors="replace").strip().splitlines()[:1]
    wall = statistics.median(r.wall_s for r in runs)
    return runs[-1].status, wall, max(r.max_rss_kib for r in runs) / 1024.0, error[0] if error else ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--vllm", type=Path, help="the 2M-stack vLLM profile (must pass)")
    parser.add_argument("--only", help="run the amplifiers whose name contains this text")
    args = parser.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    ok = True
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (wall times include Python start-up)\n")
    print("| amplifier | file | exit | wall (s) | peak RSS (MB) | holds | message |\n|---|---:|---:|---:|---:|---|---|")
    for name, make in CASES.items():
        if args.only and args.only not in name:
            continue
        slug = "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-")[:60]
        path = WORK / f"{slug}.bin"
        if not path.exists():
            path.write_bytes(make())
        status, wall, mb, error = measure(path, args.repeat)
        named = status == 0 or "bound" in error or "cap" in error
        holds = status in (0, 2) and wall < TARGET_S and mb < TARGET_MB and named
        ok &= holds
        mark = "yes" if holds else "NO"
        print(f"| {name} | {path.stat().st_size:,} B | {status} | {wall:.2f} | {mb:.0f} | {mark} | {error[:110]} |")
    must_pass = sorted(p for p in REAL.rglob("*") if p.is_file() and p.name != "MANIFEST.md") if REAL.is_dir() else []
    if args.vllm:
        must_pass.append(args.vllm)
    failed = []
    for path in must_pass:
        status, wall, mb, error = measure(path, 1)
        if status != 0 and "over the bound" in error:  # other refusals are the reader's, not a cost bound
            failed.append(f"{path.name}: exit {status}: {error}")
        if path == args.vllm:
            print(f"\n2M-stack vLLM profile: exit {status}, {wall:.2f} s, {mb:.0f} MB")
    print(f"\nprofiles that must pass: {len(must_pass) - len(failed)} of {len(must_pass)} did")
    for line in failed:
        print(f"  FAILED {line}")
    return 0 if ok and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
