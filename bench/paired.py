"""Two commands timed in turn (A B A B ...): the median of the pairwise B/A ratios, wall and CPU.

Other jobs on a shared machine slow whichever command runs while they do; running the two in turn
and taking the median of the ratios of each pair cancels most of that, where two separate series
would not. The 1-minute load average is recorded at the start and the end.

    python bench/paired.py --pairs 9 --a "python -m explainer analyze F --format json" \\
        --b "python -m explainer handoff F --llm offline"

Each command runs with its output discarded; a non-zero exit stops the run.
"""

from __future__ import annotations

import argparse
import os
import resource
import shlex
import statistics
import subprocess
import sys
import time


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU (user + system of the child) seconds of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", required=True, help="the reference command")
    ap.add_argument("--b", required=True, help="the command compared with it")
    ap.add_argument("--a-path", default="", help="PYTHONPATH for A (a tree to compare with)")
    ap.add_argument("--b-path", default="", help="PYTHONPATH for B")
    ap.add_argument("--pairs", type=int, default=9)
    ap.add_argument("--label", default="")
    args = ap.parse_args(argv)
    envs = []
    for path in (args.a_path, args.b_path):
        env = dict(os.environ)
        if path:
            env["PYTHONPATH"] = path
        envs.append(env)
    cmds = [shlex.split(args.a), shlex.split(args.b)]
    for cmd, env in zip(cmds, envs, strict=True):  # warm the page cache and the byte-code once
        run(cmd, env)
    load_start = os.getloadavg()[0]
    a_runs, b_runs = [], []
    for _ in range(args.pairs):
        a_runs.append(run(cmds[0], envs[0]))
        b_runs.append(run(cmds[1], envs[1]))
    load_end = os.getloadavg()[0]
    wall = statistics.median(b[0] / a[0] for a, b in zip(a_runs, b_runs, strict=True))
    cpu = statistics.median(b[1] / a[1] for a, b in zip(a_runs, b_runs, strict=True))

    def med(runs: list[tuple[float, float]], i: int) -> float:
        return statistics.median(r[i] for r in runs)

    print(
        f"{args.label or 'B/A'}: {wall:.3f}x wall, {cpu:.3f}x CPU ({args.pairs} pairs); "
        f"A median {med(a_runs, 0):.3f} s wall {med(a_runs, 1):.3f} s CPU, fastest {min(r[0] for r in a_runs):.3f} s; "
        f"B median {med(b_runs, 0):.3f} s wall {med(b_runs, 1):.3f} s CPU, fastest {min(r[0] for r in b_runs):.3f} s; "
        f"load {load_start:.1f}-{load_end:.1f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
