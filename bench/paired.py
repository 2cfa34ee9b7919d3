#!/usr/bin/env python3
"""Two commands timed in turn (A B A B ...): the median of the pairwise ratios B/A, wall and CPU, with the load.

usage: python bench/paired.py [--pairs 9] [--env-a K=V ...] [--env-b K=V ...] -- A ARGS... --- B ARGS...

Each run is its own process; its CPU is the child's user+system time (``os.wait4``). A pair's ratio
cancels most of a shared machine's drift, and the median of the ratios what is left; the 1-minute
load average is printed beside the figures. Used for issue 27's "ask at most 1.08x analyze"
(``bench/results.md``, "Issue 27: ask's start-up").
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``argv`` (its output discarded)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"exit {proc.returncode}: {' '.join(argv)}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=9)
    parser.add_argument("--env-a", action="append", default=[], metavar="K=V", help="environment of A only")
    parser.add_argument("--env-b", action="append", default=[], metavar="K=V", help="environment of B only")
    parser.add_argument("commands", nargs=argparse.REMAINDER, help="-- A ARGS... --- B ARGS...")
    args = parser.parse_args()
    words = args.commands[1:] if args.commands[:1] == ["--"] else args.commands
    if "---" not in words:
        parser.error("give two commands: -- A ARGS... --- B ARGS...")
    cut = words.index("---")
    a, b = words[:cut], words[cut + 1 :]
    env_a = {**os.environ, **dict(kv.split("=", 1) for kv in args.env_a)}
    env_b = {**os.environ, **dict(kv.split("=", 1) for kv in args.env_b)}
    timed(a, env_a), timed(b, env_b)  # warm the page cache once, not counted
    walls: list[float] = []
    cpus: list[float] = []
    a_walls: list[float] = []
    b_walls: list[float] = []
    loads = [os.getloadavg()[0]]
    for _ in range(args.pairs):
        wall_a, cpu_a = timed(a, env_a)
        wall_b, cpu_b = timed(b, env_b)
        walls.append(wall_b / wall_a)
        cpus.append(cpu_b / cpu_a)
        a_walls.append(wall_a)
        b_walls.append(wall_b)
        loads.append(os.getloadavg()[0])
    print(f"A: {' '.join(a)}\nB: {' '.join(b)}")
    print(
        f"B/A median of {args.pairs} pairwise ratios: {statistics.median(walls):.3f}x wall, "
        f"{statistics.median(cpus):.3f}x CPU; A median {statistics.median(a_walls):.3f} s, "
        f"B median {statistics.median(b_walls):.3f} s; load {min(loads):.2f}-{max(loads):.2f}"
    )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
