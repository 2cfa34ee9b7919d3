#!/usr/bin/env python3
"""Two commands timed in turn as whole processes (A B A B ...): the median of the pairwise ratios B/A.

usage: python bench/pairs.py [--pairs 9] [--label TEXT] -- COMMAND_A -- COMMAND_B

Each command is a shell line (run with ``sh -c``, output discarded). Every pair runs A then B, so a
change in the machine's load hits both sides of a pair alike; the ratio of each pair is taken and
their median reported, for wall time and for CPU time (the children's user + system), with the
1-minute load average before the first and after the last pair. One Markdown row on stdout:

    | label | median B/A wall | median B/A CPU | median A wall | median B wall | load |

Used for bench/results.md's "Issue 27: the second core" (the warm-up overlaps imports with the read,
so CPU time can rise while wall time falls: both are shown).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time


def timed(command: str) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``command``; a failing command stops the benchmark."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(["sh", "-c", command], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {command}\n{done.stderr.decode(errors='replace')[-400:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=9)
    parser.add_argument("--label", default="B vs A")
    parser.add_argument("commands", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    words = args.commands
    if words[:1] == ["--"]:
        words = words[1:]
    if "--" not in words:
        parser.error("give two commands: -- COMMAND_A -- COMMAND_B")
    cut = words.index("--")
    a, b = " ".join(words[:cut]), " ".join(words[cut + 1 :])
    load_before = os.getloadavg()[0]
    timed(a), timed(b)  # one unrecorded run each: the page cache and the byte-code cache are warm for both
    runs: list[tuple[tuple[float, float], tuple[float, float]]] = []
    for _ in range(args.pairs):
        runs.append((timed(a), timed(b)))
    load_after = os.getloadavg()[0]
    wall = statistics.median(rb[0] / ra[0] for ra, rb in runs)
    cpu = statistics.median(rb[1] / ra[1] for ra, rb in runs)
    a_wall = statistics.median(ra[0] for ra, _ in runs)
    b_wall = statistics.median(rb[0] for _, rb in runs)
    print(
        f"| {args.label} | {wall:.2f}x | {cpu:.2f}x | {a_wall:.3f} s | {b_wall:.3f} s "
        f"| {load_before:.1f}-{load_after:.1f} |"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
