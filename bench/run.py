#!/usr/bin/env python3
"""Side-by-side benchmark: `explainer analyze` against the read floor and `go tool pprof -top`.

usage: python bench/run.py [--sizes 5000,50000,500000,2000000] [--repeat N] [--quick]

Generates (once, cached in bench/.work/) GPU-memory profiles with tools/gen_gpu_profile.py,
runs each command as its own process a few times, interleaved (one run of each, then again), and
reports the median wall time and the peak RSS of each child with the load average it ran under,
the ratios, the fitted scaling exponent, the start-up time, and PASS/FAIL against the targets
(see TARGETS in the report). Writes the same Markdown to bench/results.md. Exit status 1 if a
target or the top-1 agreement check fails.

Environment: EXPLAINER_BIN overrides the explainer command (default: the `explainer` console
script next to sys.executable). Needs nothing beside the repository: the generator is
tools/gen_gpu_profile.py, and Go (for pprof) is installed from Debian when missing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # its sibling, also when loaded by a test
from results_report import Targets, render

REPO_ROOT = Path(__file__).resolve().parents[1]
WORK_DIR = REPO_ROOT / "bench" / ".work"
RESULTS = REPO_ROOT / "bench" / "results.md"
FLOOR = REPO_ROOT / "bench" / "floor.py"
SMALL_FILE = REPO_ROOT / "fixtures" / "demo_vllm_gpu.pb.gz"
SEED = 1
QUESTION = "What uses the most GPU memory?"
# the targets of issue 13, checked side by side in one run
FLOOR_RATIO = 2.0  # analyze at 500k at most 2x the gunzip + upb-parse floor
PEAK_MIB = 250.0  # analyze at 500k at most this peak RSS
SCALE_2M = 4.2  # analyze at 2M at most 4.2x the 500k time
ONE_SHOT_RATIO = 1.15  # ask and handoff at most 1.15x analyze
STARTUP_S = 0.12  # `--help` and `analyze` on a small file
STARTUP_RUNS = 11
CHILD_TIMEOUT_S = 900.0  # a single run longer than this is a failure, not a measurement


class BenchError(Exception):
    """A problem that stops the benchmark; main() prints it as one line."""


@dataclass
class Run:
    wall_s: float
    peak_mib: float
    stdout: bytes
    load: float  # 1-minute load average when the run started


@dataclass
class Measurement:
    stacks: int
    tool: str
    runs: list[Run]

    @property
    def wall_s(self) -> float:  # median over repetitions
        return statistics.median(r.wall_s for r in self.runs)

    @property
    def best_s(self) -> float:  # other jobs only ever add time: the ratios compare the fastest runs
        return min(r.wall_s for r in self.runs)

    @property
    def peak_mib(self) -> float:  # max over repetitions: the memory target is about the worst run
        return max(r.peak_mib for r in self.runs)

    def span(self, key: str) -> str:
        values = [getattr(r, key) for r in self.runs]
        return f"{min(values):.2f}-{max(values):.2f}"


# ---------------------------------------------------------------------------------------------
# Locating the tools
# ---------------------------------------------------------------------------------------------


def explainer_command() -> list[str]:
    override = os.environ.get("EXPLAINER_BIN")
    exe = Path(override) if override else Path(sys.executable).parent / "explainer"
    if not (exe.is_file() and os.access(exe, os.X_OK)):
        fix = "check EXPLAINER_BIN" if override else "run `make install` first"
        raise BenchError(f"explainer is not installed at {exe}: {fix}")
    return [str(exe)]


def generator_script() -> Path:
    script = REPO_ROOT / "tools" / "gen_gpu_profile.py"  # our own generator, in the repository
    if not script.is_file():
        raise BenchError(f"the profile generator is missing at {script}")
    return script


def ensure_go() -> None:
    if shutil.which("go"):
        return
    if os.geteuid() != 0:
        raise BenchError("Go is missing: run `sudo apt-get install -y golang-go` (pprof comes with it)")
    print("Go is missing: installing Debian's golang-go ...", flush=True)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-qq", "golang-go"]
    if subprocess.run(install, env=env, check=False).returncode != 0:
        # A fresh machine may have no package lists yet.
        subprocess.run(["apt-get", "update", "-qq"], env=env, check=True)
        subprocess.run(install, env=env, check=True)
    if not shutil.which("go"):
        raise BenchError("apt-get installed golang-go but `go` is still not on PATH")


def pprof_command() -> list[str]:
    # Run the pprof binary itself rather than `go tool pprof`: the `go` wrapper would add its own
    # start-up and a second process, which is not pprof's cost (and would only flatter explainer).
    tooldir = subprocess.run(["go", "env", "GOTOOLDIR"], capture_output=True, text=True, check=False).stdout.strip()
    binary = Path(tooldir) / "pprof"
    if tooldir and binary.is_file():
        return [str(binary)]
    return ["go", "tool", "pprof"]


def tool_version(cmd: list[str]) -> str:
    proc = subprocess.run([*cmd, "--version"], capture_output=True, text=True, check=False)
    lines = (proc.stdout or proc.stderr).strip().splitlines()
    return lines[0][:80] if lines else "?"


# ---------------------------------------------------------------------------------------------
# Profiles
# ---------------------------------------------------------------------------------------------


def profile_path(stacks: int, generator: Path) -> Path:
    # The generator's hash is part of the name so a changed generator never reuses a stale file.
    digest = hashlib.sha256(generator.read_bytes()).hexdigest()[:8]
    return WORK_DIR / f"gpu-{stacks}-seed{SEED}-{digest}.pb.gz"


def ensure_profile(stacks: int, generator: Path) -> Path:
    target = profile_path(stacks, generator)
    if target.is_file():
        print(f"profile {target.name}: cached", flush=True)
        return target
    WORK_DIR.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    cmd = [sys.executable, str(generator), "--stacks", str(stacks), "--seed", str(SEED), "-o", str(partial)]
    print(f"generating {target.name} ({stacks} stacks; ~80 s per 500k) ...", flush=True)
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    while proc.poll() is None:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            print(f"  ... {time.monotonic() - start:.0f} s", flush=True)
    output = proc.stdout.read().decode(errors="replace").strip() if proc.stdout else ""
    if proc.returncode != 0:
        raise BenchError(f"gen_gpu_profile.py failed ({proc.returncode}): {output.splitlines()[-1:] or ''}")
    partial.replace(target)  # only a complete file ever gets the cached name
    print(f"  done in {time.monotonic() - start:.1f} s: {output.splitlines()[-1] if output else ''}", flush=True)
    return target


# ---------------------------------------------------------------------------------------------
# Measuring one child process
# ---------------------------------------------------------------------------------------------


@dataclass
class Child:
    status: int
    wall_s: float
    max_rss_kib: int  # ru_maxrss on Linux: the child and its waited-for descendants
    stdout: bytes
    stderr: bytes
    load: float  # 1-minute load average when it started


def run_child(cmd: list[str], timeout_s: float = CHILD_TIMEOUT_S) -> Child:
    """Run cmd, killed after ``timeout_s``: its exit status, wall time, peak RSS (of this child alone,
    via wait4) and output (bench/bombs.py measures refusals with it too)."""
    load = os.getloadavg()[0]
    # Output goes to files, not pipes: we reap the child with os.wait4, so nobody would drain a pipe.
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        timer = threading.Timer(timeout_s, proc.kill)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # tell Popen the child is already reaped
        out.seek(0)
        err.seek(0)
        return Child(proc.returncode, wall, usage.ru_maxrss, out.read(), err.read(), load)


def run_once(cmd: list[str]) -> Run:
    """Run cmd, which must succeed: its wall time and peak RSS."""
    child = run_child(cmd)
    if child.status != 0:
        last = child.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no message"]
        raise BenchError(f"{Path(cmd[0]).name} exited {child.status}: {last[0]}")
    return Run(child.wall_s, child.max_rss_kib / 1024.0, child.stdout, child.load)


def top1_explainer(stdout: bytes) -> str:
    try:
        rows = json.loads(stdout)["top_self"]
    except (ValueError, KeyError, TypeError) as exc:
        raise BenchError(f"explainer's JSON has no top_self list: {exc}") from exc
    return str(rows[0]["name"]) if rows else ""


TOP_ROW = re.compile(rb"^ *\S+ +\S+% +\S+% +\S+ +\S+%  (.*)$")


def top1_pprof(stdout: bytes) -> str:
    for line in stdout.split(b"\n"):
        if m := TOP_ROW.match(line):
            name = m.group(1).decode(errors="replace")
            return re.sub(r" \((partial-)?inline\)$", "", name)
    return ""


def measure_side_by_side(commands: dict[str, list[str]], stacks: int, repeat: int) -> dict[str, Measurement]:
    """Every command ``repeat`` times, interleaved, so a change in the machine's load hits all alike."""
    found = {tool: Measurement(stacks, tool, []) for tool in commands}
    for i in range(repeat):
        for tool, cmd in commands.items():
            run = run_once(cmd)
            found[tool].runs.append(run)
            print(
                f"  {tool:<9} run {i + 1}/{repeat}: {run.wall_s:7.2f} s  {run.peak_mib:8.1f} MiB  load {run.load:.2f}",
                flush=True,
            )
    return found


# ---------------------------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------------------------


def top1_pair(tools: dict[str, Measurement]) -> tuple[str, str]:
    """Both tools' top function by self, from the last run of each."""
    return top1_explainer(tools["analyze"].runs[-1].stdout), top1_pprof(tools["pprof"].runs[-1].stdout)


def commands_for(stacks: int, profile: Path, explainer: list[str], pprof: list[str] | None) -> dict[str, list[str]]:
    file = str(profile)
    # past 256 MiB gzipped (about 4.4M stacks) the input caps must be raised: --max-size lifts both
    big = ["--max-size", str(8 * 2**30)] if stacks > 4_000_000 else []
    commands = {
        "analyze": [*explainer, "analyze", file, "--format", "json", *big],
        "floor": [sys.executable, str(FLOOR), file],
    }
    if stacks == 500_000:  # the one-shot verbs against analyze, on the profile the targets name
        commands["floor-isal"] = [sys.executable, str(FLOOR), file, "--isal"]  # explainer's own inflater
        commands["ask"] = [*explainer, "ask", file, QUESTION, "--llm", "offline"]
        commands["handoff"] = [*explainer, "handoff", file, "--llm", "offline"]
    if pprof:
        commands["pprof"] = [*pprof, "-symbolize=none", "-top", file]
    return commands


def measure_startup(explainer: list[str]) -> dict[str, Measurement]:
    print("start-up:", flush=True)
    commands = {
        "explainer --help": [*explainer, "--help"],
        "explainer analyze SMALL": [*explainer, "analyze", str(SMALL_FILE)],
        "explainer analyze SMALL --format json": [*explainer, "analyze", str(SMALL_FILE), "--format", "json"],
    }
    # One untimed run of each with bytecode writing allowed, so the timed runs load explainer's
    # compiled modules as any installed copy does: with PYTHONDONTWRITEBYTECODE set (as on some
    # shared machines) and stale caches, every run would compile explainer from source (~80 ms).
    writable = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for cmd in commands.values():
        subprocess.run(cmd, env=writable, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    found = {tool: Measurement(0, tool, []) for tool in commands}
    for _ in range(STARTUP_RUNS):
        for tool, cmd in commands.items():
            found[tool].runs.append(run_once(cmd))
    for m in found.values():
        print(f"  {m.tool:<38} median {m.wall_s:.3f} s", flush=True)
    return found


# ---------------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--sizes", default="5000,50000,500000,2000000", help="comma-separated stack counts (default %(default)s)"
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per command and profile (default %(default)s)")
    parser.add_argument(
        "--pprof-max",
        type=int,
        default=500_000,
        help="run pprof only up to this many stacks (default %(default)s: at 2M it needs ~14 GB and minutes)",
    )
    parser.add_argument("--quick", action="store_true", help="50k stacks only, no start-up runs")
    args = parser.parse_args(argv)
    try:
        args.sizes = [50_000] if args.quick else [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        parser.error("--sizes takes integers such as 50000,500000")
    if args.repeat < 1 or not args.sizes or min(args.sizes) < 1:
        parser.error("--repeat and --sizes must be positive")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    load_at_start = os.getloadavg()[0]
    try:
        explainer = explainer_command()  # fail fast, before minutes of profile generation
        ensure_go()
        pprof = pprof_command()
        generator = generator_script()
        versions = {
            "explainer": tool_version(explainer),
            "pprof": subprocess.run(["go", "version"], capture_output=True, text=True, check=False).stdout.strip(),
            "question": QUESTION,
        }
        profiles = {stacks: ensure_profile(stacks, generator) for stacks in args.sizes}
        startup = {} if args.quick else measure_startup(explainer)
        sizes = {}
        for stacks, profile in profiles.items():
            print(f"{profile.name}:", flush=True)
            commands = commands_for(stacks, profile, explainer, pprof if stacks <= args.pprof_max else None)
            sizes[stacks] = measure_side_by_side(commands, stacks, args.repeat)
    except BenchError as exc:
        print(f"bench: error: {exc}", file=sys.stderr)
        return 2
    limits = Targets(FLOOR_RATIO, PEAK_MIB, SCALE_2M, ONE_SHOT_RATIO, STARTUP_S)
    text, ok = render(
        sizes, startup, top1_pair, repeat=args.repeat, versions=versions, load_at_start=load_at_start, targets=limits
    )
    print()
    print(text, end="")
    # A stand-in's numbers (EXPLAINER_BIN) must not end up in the committed bench/results.md.
    target = WORK_DIR / "results-stand-in.md" if os.environ.get("EXPLAINER_BIN") else RESULTS
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    print(f"\nwritten to {target.relative_to(REPO_ROOT)}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
