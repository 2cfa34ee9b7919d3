#!/usr/bin/env python3
"""The browser's CPU for a later session: the app beside the bare-Streamlit floor (and another checkout).

usage: python bench/app_browser_cpu.py [PROFILE] [--rounds R] [--sessions N] [--ref CHECKOUT]
(default: the 500k bench profile, 2 rounds of 6 sessions)

A later page's time is mostly the browser's main thread drawing what it receives (issue 27), and on
a shared machine wall time swings with the load. This opens N pages as tabs of one browser, as
bench/app_sessions.py does (page open, a click on the Flame graph tab, its bars drawn), and reads
Chrome's own counters for each page's renderer (``Performance.getMetrics``: TaskDuration, the main
thread's busy time, and ScriptDuration) from page open to the flame graph drawn, and the CPU time of
that main thread from a Chrome trace (the ``toplevel`` tasks' thread time: busy time counts the time a
task waits for a core too, which the machine's load stretches; CPU time does not). Each round serves
the app (this checkout), ``--ref CHECKOUT``'s app if given (its own ``app.py`` and ``explainer``,
e.g. /work/main) and the floor (bench/app_floor.py), each with a fresh server and browser, and
prints the median of pages 2..N. Prints only; nothing is recorded.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from app_sessions import ARGS, CHROMIUM, DRAWN_JS, FLOOR, MIN_BARS, REPO, VIEWPORT, free_port, healthy


def start(profile: Path, port: int, served: str) -> subprocess.Popen[bytes]:
    """``explainer app PROFILE`` of this checkout, of the checkout ``served``, or the floor."""
    from explainer.cli.app import APP_SCRIPT, streamlit_command

    command = streamlit_command(argparse.Namespace(profile=str(profile), demo=False, host="127.0.0.1", port=port))
    env, cwd = dict(os.environ), REPO
    if served == "floor":
        command[command.index(str(APP_SCRIPT))] = str(FLOOR)
    elif served != "app":
        cwd = Path(served).resolve()
        command[command.index(str(APP_SCRIPT))] = str(cwd / "app.py")
        env["PYTHONPATH"] = str(cwd)
    proc = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return healthy(proc, port, f"{served} did not start")


def metrics(cdp: Any) -> dict[str, float]:
    return {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}


def renderer_cpu(trace: bytes) -> float:
    """Seconds of CPU of the busiest renderer main thread in a Chrome trace: the traced page's (each tab
    has its own renderer process, and the pages opened before it sit idle)."""
    data = json.loads(trace)
    events = data["traceEvents"] if isinstance(data, dict) else data
    named = (e for e in events if e.get("name") == "thread_name")
    mains = {(e["pid"], e["tid"]) for e in named if e["args"].get("name") == "CrRendererMain"}
    busy: dict[tuple[int, int], int] = {}
    for e in events:
        where = (e.get("pid"), e.get("tid"))
        if where in mains and e.get("ph") == "X" and e.get("name") == "ThreadControllerImpl::RunTask":
            busy[where] = busy.get(where, 0) + e.get("tdur", e.get("dur", 0))  # µs of thread time
    return max(busy.values(), default=0) / 1e6


def one_run(pw: Any, profile: Path, served: str, sessions: int) -> list[tuple[float, float, float, float]]:
    """(drawn s, renderer task s, script s, renderer CPU s) per page, the pages opened as tabs of one fresh
    browser."""
    port = free_port()
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
    server = start(profile, port, served)
    rows, pages = [], []
    try:
        context = browser.new_context(viewport=VIEWPORT)
        for _ in range(sessions):
            page = context.new_page()
            cdp = context.new_cdp_session(page)
            cdp.send("Performance.enable")
            browser.start_tracing(page=page, categories=["toplevel"])
            before, t0 = metrics(cdp), time.monotonic()
            page.goto(f"http://127.0.0.1:{port}", wait_until="domcontentloaded")
            tab = page.get_by_role("tab", name="Flame graph", exact=True)
            tab.wait_for(timeout=180_000)
            tab.click(timeout=180_000)
            page.wait_for_function(DRAWN_JS, arg=MIN_BARS, timeout=180_000, polling=20)
            drawn, after = time.monotonic() - t0, metrics(cdp)
            cpu = renderer_cpu(browser.stop_tracing())
            rows.append((drawn, *(after[k] - before.get(k, 0.0) for k in ("TaskDuration", "ScriptDuration")), cpu))
            pages.append(page)  # kept open: every session stays alive
            time.sleep(1.0)
        browser.close()
    finally:
        server.terminate()
        server.wait(timeout=20)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("profile", nargs="?", type=Path, help="profile to open (default: the 500k bench profile)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of app, ref and floor (default 2)")
    parser.add_argument("--sessions", type=int, default=6, help="pages per run, the first not counted (default 6)")
    parser.add_argument("--ref", help="another checkout whose app to measure beside this one (e.g. /work/main)")
    args = parser.parse_args(argv)
    profile = args.profile or next((REPO / "bench" / ".work").glob("gpu-500000-seed1-*.pb.gz"), None)
    if profile is None or not profile.is_file():
        print("bench: error: no profile (run `make bench` once to generate the 500k one)", file=sys.stderr)
        return 2
    if args.rounds < 1 or args.sessions < 2:
        print("bench: error: --rounds must be >= 1 and --sessions >= 2", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    served = ["app", *([args.ref] if args.ref else []), "floor"]
    with sync_playwright() as pw:
        for r in range(args.rounds):
            medians = {}
            for name in served if r % 2 == 0 else served[::-1]:  # alternate, so a drift falls on all
                load = os.getloadavg()[0]
                later = one_run(pw, profile, name, args.sessions)[1:]
                drawn, task, script, cpu = (statistics.median(x[i] for x in later) for i in range(4))
                medians[name] = (drawn, task, cpu)
                print(f"round {r + 1} {name}: later pages drawn {drawn:.2f} s, renderer busy {task:.2f} s "
                      f"(script {script:.2f} s), renderer CPU {cpu:.3f} s, load {load:.2f}", flush=True)  # fmt: skip
            floor = medians["floor"]
            for name in served[:-1]:
                print(f"round {r + 1} {name}/floor: drawn {medians[name][0] / floor[0]:.2f}x, "
                      f"renderer busy {medians[name][1] / floor[1]:.2f}x, "
                      f"renderer CPU {medians[name][2] / floor[2]:.2f}x", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
