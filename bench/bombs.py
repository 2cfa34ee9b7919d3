"""Gzip bombs against ``explainer analyze``: how long until the one-line refusal, at what peak memory.

`.venv/bin/python bench/bombs.py [--repeat N]` builds 1 GiB of zeros in one gzip member (about
1 MB) and the same gzipped again (about 2 KB) in bench/.work/, runs ``explainer analyze`` on each
as a separate process ``--repeat`` times (default 3), and prints the median wall time and the
maximum peak RSS (``ru_maxrss`` from ``wait4``) beside a tiny valid profile, whose time is the
process start-up both include. Targets (issue 12): refused with exit 2 in under 2 s, peak RSS
under 600 MB. Exit status 0 when both hold, 1 when not, 2 when the benchmark cannot run.
"""

from __future__ import annotations

import argparse
import gzip
import os
import statistics
import sys
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # its sibling run.py
from run import run_child

WORK = Path(__file__).resolve().parent / ".work"
TARGET_S, TARGET_MB = 2.0, 600.0
GIB = 2**30


def bombs() -> dict[str, Path]:
    WORK.mkdir(exist_ok=True)
    paths = {"single 1 GiB": WORK / "bomb-1gib.gz", "nested 1 GiB": WORK / "bomb-1gib-nested.gz"}
    if not all(p.exists() for p in paths.values()):
        packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        block = bytes(16 * 2**20)
        single = b"".join(packer.compress(block) for _ in range(GIB // len(block))) + packer.flush()
        paths["single 1 GiB"].write_bytes(single)
        paths["nested 1 GiB"].write_bytes(gzip.compress(single, 9))
    tiny = WORK / "tiny.folded"
    tiny.write_text("main;work 1\n")
    return {"tiny valid profile (start-up)": tiny, **paths}


def run(path: Path) -> tuple[int, float, float]:
    """Exit status, wall seconds and peak RSS in MB of ``explainer analyze PATH``."""
    child = run_child([str(Path(sys.executable).parent / "explainer"), "analyze", str(path)], timeout_s=60)
    return child.status, child.wall_s, child.max_rss_kib * 1024 / 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    if not (Path(sys.executable).parent / "explainer").exists():
        print("bombs: explainer is not installed in this venv: run `make install` first", file=sys.stderr)
        return 2
    ok = True
    print(f"| input | size | exit | wall s (median of {args.repeat}) | peak RSS MB (max) |")
    print("|---|---:|---:|---:|---:|")
    for name, path in bombs().items():
        runs = [run(path) for _ in range(args.repeat)]
        codes = {c for c, _, _ in runs}
        wall = statistics.median(w for _, w, _ in runs)
        peak = max(m for _, _, m in runs)
        print(f"| {name} | {path.stat().st_size:,} B | {','.join(map(str, sorted(codes)))} | {wall:.2f} | {peak:.0f} |")
        if "bomb" in path.name:
            ok &= codes == {2} and wall < TARGET_S and peak < TARGET_MB
    load = os.getloadavg()[0]
    print(f"\ntargets: refused (exit 2) in < {TARGET_S:g} s and < {TARGET_MB:g} MB: {'PASS' if ok else 'FAIL'}")
    print(f"load average {load:.1f} on {os.cpu_count()} cores")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
