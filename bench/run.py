#!/usr/bin/env python3
"""Side-by-side benchmark: `explainer analyze` against `go tool pprof -top` on synthetic GPU profiles.

usage: python bench/run.py [--sizes 50000,500000] [--repeat N] [--quick]

Generates (once, cached in bench/.work/) GPU-memory profiles with shared/tools/gen_gpu_profile.py,
runs each tool as its own process a few times, and reports the median wall time and the peak RSS
of each child, the pprof/explainer ratios, and PASS/FAIL against the targets on the largest
profile: explainer at least 10x faster than pprof and under 1 GiB peak. Writes the same Markdown
to bench/results.md. Exit status 1 if a target or the top-1 agreement check fails.

Environment: EXPLAINER_BIN overrides the explainer command (default: the `explainer` console
script next to sys.executable); EXPLAINER_SHARED points at the shared/ folder (default: ../shared
relative to the repo root).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
WORK_DIR = REPO_ROOT / "bench" / ".work"
RESULTS = REPO_ROOT / "bench" / "results.md"
SEED = 1
TARGET_SPEEDUP = 10.0  # explainer must be at least this many times faster than pprof
TARGET_PEAK_MIB = 1024.0  # explainer's peak RSS must stay under 1 GiB
CHILD_TIMEOUT_S = 900.0  # a single run longer than this is a failure, not a measurement


class BenchError(Exception):
    """A problem that stops the benchmark; main() prints it as one line."""


@dataclass
class Run:
    wall_s: float
    peak_mib: float
    stdout: bytes


@dataclass
class Measurement:
    profile: str
    stacks: int
    tool: str
    wall_s: float  # median over repetitions
    peak_mib: float  # max over repetitions: the memory target is about the worst run
    wall_range: tuple[float, float]
    peak_range: tuple[float, float]
    top1: str  # name of the top function by self


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


def shared_dir() -> Path:
    env = os.environ.get("EXPLAINER_SHARED")
    return Path(env) if env else REPO_ROOT.parent / "shared"


def generator_script() -> Path:
    base = shared_dir()
    for candidate in (base / "tools" / "gen_gpu_profile.py", base / "gen_gpu_profile.py"):
        if candidate.is_file():
            return candidate
    raise BenchError(f"gen_gpu_profile.py not found under {base} (set EXPLAINER_SHARED to the shared/ folder)")


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


def run_once(cmd: list[str]) -> Run:
    """Run cmd, return its wall time and peak RSS (ru_maxrss of this child alone, via wait4)."""
    # Output goes to files, not pipes: we reap the child with os.wait4, so nobody would drain a pipe.
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        timer = threading.Timer(CHILD_TIMEOUT_S, proc.kill)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # tell Popen the child is already reaped
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if proc.returncode != 0:
        last = stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no message"]
        raise BenchError(f"{Path(cmd[0]).name} exited {proc.returncode}: {last[0]}")
    # ru_maxrss is in KiB on Linux; the kernel counts the child and its waited-for descendants.
    return Run(wall, usage.ru_maxrss / 1024.0, stdout)


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


def measure(tool: str, cmd: list[str], profile: Path, stacks: int, repeat: int) -> Measurement:
    runs: list[Run] = []
    for i in range(repeat):
        run = run_once(cmd)
        runs.append(run)
        print(f"  {tool:<9} run {i + 1}/{repeat}: {run.wall_s:7.2f} s  {run.peak_mib:8.1f} MiB", flush=True)
    reader = top1_explainer if tool == "explainer" else top1_pprof
    return Measurement(
        profile=profile.name,
        stacks=stacks,
        tool=tool,
        wall_s=statistics.median(r.wall_s for r in runs),
        peak_mib=max(r.peak_mib for r in runs),
        wall_range=(min(r.wall_s for r in runs), max(r.wall_s for r in runs)),
        peak_range=(min(r.peak_mib for r in runs), max(r.peak_mib for r in runs)),
        top1=reader(runs[-1].stdout),
    )


# ---------------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------------


def busy_warning(load: float) -> list[str]:
    # pprof uses every core (Go's parallel GC) and explainer one, so contention skews the ratio.
    if load <= 0.5 * (os.cpu_count() or 1):
        return []
    return [
        "",
        "**Warning: the machine was busy; wall times and their ratio are unreliable. Re-run on a quiet machine.**",
    ]


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def report(
    pairs: list[tuple[Measurement, Measurement]], repeat: int, versions: dict[str, str], load_at_start: float
) -> tuple[str, bool]:
    lines = [
        "# explainer vs pprof",
        "",
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {os.cpu_count()} CPUs, {platform.platform()}; "
        f"median wall time and max peak RSS of {repeat} run(s) per tool, each a separate process.",
        "",
        # Other jobs on a 2-core machine distort wall times; say so next to the numbers.
        f"Load average at start {load_at_start:.2f}, at end {os.getloadavg()[0]:.2f} (1 min).",
        # only the load at start tells of other jobs: at the end it includes pprof's own threads
        *busy_warning(load_at_start),
        "",
        f"- explainer: `explainer analyze FILE --format json` ({versions['explainer']})",
        f"- pprof: `pprof -symbolize=none -top FILE` ({versions['pprof']})",
        "",
        "| profile | stacks | tool | wall s | peak MiB | wall s min-max | peak MiB min-max |",
        "|---|---:|---|---:|---:|---:|---:|",
    ]
    for pair in pairs:
        for m in pair:
            lines.append(
                f"| {m.profile} | {m.stacks} | {m.tool} | {m.wall_s:.2f} | {m.peak_mib:.1f} "
                f"| {m.wall_range[0]:.2f}-{m.wall_range[1]:.2f} | {m.peak_range[0]:.1f}-{m.peak_range[1]:.1f} |"
            )
    lines += [
        "",
        "| stacks | time pprof/explainer | memory pprof/explainer "
        "| top-1 self (explainer) | top-1 self (pprof) | agree |",
        "|---:|---:|---:|---|---|---|",
    ]
    ok = True
    for ex, pp in pairs:
        agree = ex.top1 == pp.top1
        ok &= agree
        lines.append(
            f"| {ex.stacks} | {pp.wall_s / ex.wall_s:.1f}x | {pp.peak_mib / ex.peak_mib:.1f}x | "
            f"`{ex.top1}` | `{pp.top1}` | {verdict(agree)} |"
        )
    lines += ["", "Targets (largest profile):", ""]
    ex, pp = max(pairs, key=lambda p: p[0].stacks)
    if ex.stacks < 500_000:
        lines.append(f"- not checked: the largest profile run has {ex.stacks} stacks; targets apply to 500000")
    else:
        fast = pp.wall_s / ex.wall_s >= TARGET_SPEEDUP
        small = ex.peak_mib < TARGET_PEAK_MIB
        ok &= fast and small
        lines.append(
            f"- {verdict(fast)}: explainer {pp.wall_s / ex.wall_s:.1f}x faster than pprof "
            f"(target >= {TARGET_SPEEDUP:.0f}x) on {ex.stacks} stacks"
        )
        lines.append(f"- {verdict(small)}: explainer peak {ex.peak_mib:.1f} MiB (target < {TARGET_PEAK_MIB:.0f} MiB)")
    return "\n".join(lines) + "\n", ok


# ---------------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", default="50000,500000", help="comma-separated stack counts (default %(default)s)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per tool and profile (default %(default)s)")
    parser.add_argument("--quick", action="store_true", help="50k stacks only")
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
        }
        pairs = []
        for stacks in args.sizes:
            profile = ensure_profile(stacks, generator)
            print(f"{profile.name}:", flush=True)
            ex_cmd = [*explainer, "analyze", str(profile), "--format", "json"]
            pp_cmd = [*pprof, "-symbolize=none", "-top", str(profile)]
            ex = measure("explainer", ex_cmd, profile, stacks, args.repeat)
            pp = measure("pprof", pp_cmd, profile, stacks, args.repeat)
            pairs.append((ex, pp))
    except BenchError as exc:
        print(f"bench: error: {exc}", file=sys.stderr)
        return 2
    text, ok = report(pairs, args.repeat, versions, load_at_start)
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
