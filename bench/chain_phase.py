#!/usr/bin/env python3
"""The handoff's chain walks in one process: one batch on one thread against both cores, wall and CPU.

usage: python bench/chain_phase.py [--runs 21] [FILE]

Reads FILE (default: the 500k bench profile in bench/.work), makes its summary and reading, and asks for the
chains the handoff shows (``queries/handoff.chain_targets``) again and again, the walks forgotten each time,
alternating two ways: ``batch`` (one ``heaviest_chains`` call: the pass from each leaf and the walks, on this
thread) and ``both cores`` (``cli/passes.walk_chains``, as the program runs it: each thread finds the calls in
half of the frames, then the first chain beside and the rest here). Prints the medians of wall and process CPU
(both threads) and the fastest wall, with the load. Run with ``PYTHONPATH`` set to the tree to measure.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

DEFAULT = Path(__file__).resolve().parent / ".work" / "gpu-500000-seed1-2e022f73.pb.gz"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", nargs="?", default=str(DEFAULT))
    ap.add_argument("--runs", type=int, default=21)
    args = ap.parse_args()

    from explainer.analysis import chain
    from explainer.analysis.summary import Options, summarize
    from explainer.cli import passes, warmup
    from explainer.queries.handoff import chain_targets
    from explainer.readers import read_path
    from explainer.reading import read

    summary = summarize(read_path(args.file), Options(top=5))
    targets = chain_targets(read(summary), 5)
    profile, stats = summary.profile, summary.stats
    warmup.arm("handoff")  # as main.run does: warmup.beside runs its work on a second thread
    ways: dict[str, Callable[[], object]] = {
        "batch": lambda: chain.heaviest_chains(profile, stats, targets),
        "both cores": lambda: passes.walk_chains(summary, targets),
    }
    times: dict[str, list[tuple[float, float]]] = {way: [] for way in ways}
    load = os.getloadavg()[0]
    for _ in range(args.runs):
        for way, walk in ways.items():
            chain._CHAINS.pop(profile, None)  # walked afresh each time
            wall, cpu = time.perf_counter(), time.process_time()
            walk()
            times[way].append((time.perf_counter() - wall, time.process_time() - cpu))
            assert all(t in chain._CHAINS[profile] for t in targets)
    print(f"{len(profile.frames):,} frames, targets {targets}, load {load:.1f}-{os.getloadavg()[0]:.1f}")
    for way, runs in times.items():
        wall = statistics.median(r[0] for r in runs) * 1000
        cpu = statistics.median(r[1] for r in runs) * 1000
        fastest = min(r[0] for r in runs) * 1000
        print(f"{way:10s} wall {wall:6.1f} ms, CPU {cpu:6.1f} ms (medians of {args.runs}), fastest {fastest:.1f} ms")


if __name__ == "__main__":
    main()
