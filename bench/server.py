#!/usr/bin/env python3
"""Side-by-side benchmark of the server path against the same profile from a file (issue 27).

usage: python bench/server.py [--sizes 50000,500000] [--repeat 3] [--no-record]

Per size: the bench profile (bench/run.py's generator and cache) is read once and served by the test
server of tests/pyroscope_server.py, which speaks Pyroscope's wire format (binary and JSON) and, here,
answers a repeated request from memory, so each timed run charges the client, not the stand-in
server. Then, interleaved, best of ``--repeat``, each its own process:

  file   explainer analyze FILE --format json
  full   explainer analyze --server URL --profile-type ID --full-profile --format json
  auto   explainer analyze --server URL --profile-type ID --format json  (the default: flame graph
         first, the full profile when its 'other' holds more than 1% of the total)

and, once, ``--keep-other`` (the flame graph alone) for the share it leaves in 'other'. Checks: full
and auto at most 1.5x the file, full under 600 MiB at 500k, no server answer ranks 'other', and the
default answer's top 10 by self equal the file's. Writes bench/results-server.md (unless
--no-record). Exit status 1 when a target fails, 2 when the benchmark cannot run.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO))

import run as bench  # noqa: E402

TYPE_ID = "memory:alloc_space:bytes:space:bytes"
RATIO = 1.5
PEAK_MIB = 600.0
RESULTS = HERE / "results-server.md"


def serve(path: str) -> None:
    """The stand-in server, in its own process: on Linux a child's peak RSS (``ru_maxrss``) starts
    at its parent's RSS at fork, so a benchmark process holding a 500k-stack profile would inflate
    every command's figure. It prints its URL, then serves until its stdin closes."""
    from pyroscope_server import PyroscopeServer

    from explainer.readers import read_path

    with PyroscopeServer({TYPE_ID: read_path(path)}) as server:
        server.remember = True
        print(server.url, flush=True)
        sys.stdin.read()


@contextlib.contextmanager
def served(path: Path) -> Iterator[str]:
    proc = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        url = proc.stdout.readline().strip() if proc.stdout else ""
        if not url.startswith("http://"):
            raise bench.BenchError(f"the stand-in server did not start for {path.name}")
        yield url
    finally:
        if proc.stdin:
            proc.stdin.close()
        proc.wait(timeout=30)


def explainer() -> list[str]:
    # this checkout's explainer, whatever is installed: ``-m`` puts the working directory first
    return [sys.executable, "-m", "explainer"]


def commands(file: Path, url: str) -> dict[str, list[str]]:
    server = [
        *explainer(),
        "analyze",
        "--server",
        url,
        "--profile-type",
        TYPE_ID,
        "--from",
        "now-1h",
        "--timeout",
        "300",
    ]
    return {
        "file": [*explainer(), "analyze", str(file), "--format", "json"],
        "full": [*server, "--full-profile", "--format", "json"],
        "auto": [*server, "--format", "json"],
    }


def names(report: dict[str, object], key: str) -> list[str]:
    return [str(r["name"]) for r in report[key]]  # type: ignore[attr-defined]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default="50000,500000")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--no-record", action="store_true")
    p.add_argument("--serve", metavar="FILE", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.serve:
        serve(args.serve)
        return 0
    os.chdir(REPO)
    generator = bench.generator_script()
    lines = [
        "# The server path against the same profile from a file (issue 27)",
        "",
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} CPUs; `python bench/server.py "
        f"--sizes {args.sizes} --repeat {args.repeat}`; each command its own process, interleaved run by run; "
        "ratios use each command's fastest run (the machine is shared: other jobs only add time).",
        "The stand-in server (tests/pyroscope_server.py) answers repeated requests from memory, gzip when asked.",
        "",
        "| stacks | command | fastest s | median s | peak MiB (max) | load min-max | / file (fastest) |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    checks: list[tuple[bool, str]] = []
    notes: list[str] = []
    for stacks in (int(s) for s in args.sizes.split(",")):
        path = bench.ensure_profile(stacks, generator)
        with served(path) as url:
            cmds = commands(path, url)
            for cmd in cmds.values():  # untimed: fills the server's memory (slow at 500k) and the bytecode caches
                bench.run_once([*cmd, "--timeout", "900"] if "--server" in cmd else cmd)
            kept = json.loads(bench.run_once([*cmds["auto"], "--keep-other"]).stdout)
            found = bench.measure_side_by_side(cmds, stacks, args.repeat)
        file = found["file"]
        for tool, m in found.items():
            lines.append(
                f"| {stacks} | {tool} | {m.best_s:.3f} | {m.wall_s:.3f} | {m.peak_mib:.1f} | {m.span('load')} "
                f"| {m.best_s / file.best_s:.2f}x |"
            )
        reports = {tool: json.loads(m.runs[-1].stdout) for tool, m in found.items()}
        for tool in ("full", "auto"):
            ratio = found[tool].best_s / file.best_s
            checks.append((ratio <= RATIO, f"{stacks} {tool} {ratio:.2f}x the file (target <= {RATIO}x)"))
        if stacks >= 500_000:
            peak = found["full"].peak_mib
            checks.append((peak < PEAK_MIB, f"{stacks} full peak {peak:.0f} MiB (target < {PEAK_MIB:.0f} MiB)"))
        for tool, report in [*reports.items(), ("keep-other", kept)]:
            if tool != "file":
                ranked = names(report, "top_self") + names(report, "top_total")
                checks.append(("other" not in ranked, f"{stacks} {tool}: no 'other' among the ranked functions"))
        same = names(reports["auto"], "top_self")[:10] == names(reports["file"], "top_self")[:10]
        checks.append((same, f"{stacks} default answer's top 10 by self equal the file's"))
        kept_notes = kept["truncation"]["notes"]
        auto_notes = reports["auto"]["truncation"]["notes"]
        notes.append(f"- {stacks} `--keep-other` (flame graph only): {kept_notes[0] if kept_notes else 'no other'}")
        notes.append(f"- {stacks} default: {auto_notes[0] if auto_notes else 'the flame graph was exact'}")
    lines += ["", "## What the server sent", "", *notes, "", "## Targets", ""]
    lines += [f"- {'PASS' if ok else 'FAIL'}: {text}" for ok, text in checks]
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_record:
        RESULTS.write_text(text)
    return 0 if all(ok for ok, _ in checks) else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except bench.BenchError as exc:
        print(f"bench/server.py: {exc}", file=sys.stderr)
        sys.exit(2)
