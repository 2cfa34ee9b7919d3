#!/usr/bin/env python3
"""What ``ask`` adds to ``analyze`` in one process: its imports and first-use work, in CPU milliseconds.

usage: python bench/ask_extra.py [--runs 12] [--tree DIR] [FILE]

Each run is a fresh interpreter (run with ``PYTHONPATH=DIR``, default this checkout) that runs
``analyze FILE --format json`` three times, then ``ask FILE "What uses the most GPU memory?" --llm
offline`` once, through ``explainer.cli.main.main``: the ask's CPU time less the last analyze's is
what the question's path costs beyond reading and summarising the profile (the reader, lexicon,
offline answers and checks imported and first used, the name indexes built). FILE defaults to the
1 KB demo profile, where that is nearly all of it. Prints the median and the spread with the load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
QUESTION = "What uses the most GPU memory?"
PROBE = """
import contextlib, io, json, sys, time
from explainer.cli.main import main
file, question = sys.argv[1], sys.argv[2]
def cpu(argv):
    t = time.process_time()
    with contextlib.redirect_stdout(io.StringIO()):
        main(argv)
    return time.process_time() - t
for _ in range(3):
    analyze = cpu(["analyze", file, "--format", "json"])
ask = cpu(["ask", file, question, "--llm", "offline"])
print(json.dumps({"analyze": analyze, "ask": ask}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", default=str(REPO / "fixtures" / "demo_vllm_gpu.pb.gz"))
    parser.add_argument("--runs", type=int, default=12)
    parser.add_argument("--tree", default=str(REPO), help="the checkout to measure (default: this one)")
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": args.tree}
    extra: list[float] = []
    loads = [os.getloadavg()[0]]
    for _ in range(args.runs):
        done = subprocess.run(
            [sys.executable, "-c", PROBE, args.file, QUESTION],
            capture_output=True,
            text=True,
            check=True,
            env=env,
            cwd=args.tree,  # "-c" puts the working directory first on the path
        )
        times = json.loads(done.stdout.strip().splitlines()[-1])
        extra.append((times["ask"] - times["analyze"]) * 1000)
        loads.append(os.getloadavg()[0])
    print(
        f"{args.tree}: ask's extra CPU over analyze, median {statistics.median(extra):.0f} ms "
        f"(min {min(extra):.0f}, max {max(extra):.0f}, {args.runs} runs), load {min(loads):.2f}-{max(loads):.2f}"
    )


if __name__ == "__main__":
    main()
