#!/usr/bin/env python3
"""The app under several sessions: page open to flame graph drawn, and the server's memory.

usage: python bench/app_sessions.py [PROFILE] [--sessions N] [--same-browser] [--floor]
       python bench/app_sessions.py [PROFILE] --vs-floor [--rounds R] [--sessions N]
(default: the 500k bench profile)

Starts what ``explainer app PROFILE`` runs (:func:`explainer.cli.app.streamlit_command`: the
packaged script and settings) on a free localhost port, then opens N pages one after the other in
Debian's headless chromium (each page its own Streamlit session, all kept open). For each page it
records the time from ``goto`` to the page's first output (the tab row), and to the flame graph's
bars drawn on its canvas after a click on the "Flame graph" tab (as a user reaches it); the
websocket messages the page sent (one per script run it asked for, plus widget events) and the
bytes it received; and the server's resident memory once that page is drawn. The first page opens
as soon as the server answers its health check, so a server that warms its cache in the background
is measured while it warms. Each page gets a fresh browser profile (nothing cached: a new visitor);
``--same-browser`` opens pages 2..N as new tabs of the first page's browser instead (a new session
whose browser already holds Streamlit's scripts, which are served as immutable). Appends a Markdown
table to bench/results-app.md and prints it. Needs /usr/bin/chromium and the playwright package.

``--vs-floor`` measures the app against the bare-Streamlit floor (bench/app_floor.py) in the same
run, as issue 27's targets ask: R rounds, each a fresh browser and server for the app and then for
the floor (the order alternates between rounds), N sessions each as tabs of one browser. Per round
it takes the ratio app/floor of the first session's time to the flame graph drawn, and of the
median of the later sessions'; the verdict is on the median of the rounds' ratios (the fastest app
run over the fastest floor run, "best of R", is printed beside it), PASS/FAIL against 1.1x (first)
and 1.15x (later), with the load.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
# this checkout's explainer, and with it its app.py and settings: `python bench/...` puts bench/ first on the
# path, so without this the import below found the installed (editable) copy, and a worktree's bench served
# the main checkout's app.py (its server imported the worktree's package: a mix of the two)
sys.path.insert(0, str(REPO))
RESULTS = REPO / "bench" / "results-app.md"
FLOOR = REPO / "bench" / "app_floor.py"
LOG = REPO / "bench" / ".work" / "app-sessions-server.log"
CHROMIUM = os.environ.get("EXPLAINER_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
MIN_BARS = 20  # the flame graph counts as drawn once its canvas holds more than a few bars
# the component draws in a shadow root: look in every one
DRAWN_JS = """(n) => { const roots = [document], found = [];
  for (let i = 0; i < roots.length; i++) for (const el of roots[i].querySelectorAll('*')) {
    if (el.shadowRoot) roots.push(el.shadowRoot);
    if (el.classList.contains('fg')) found.push(el); }
  return found.some((el) => el.offsetWidth > 0 && Number(el.dataset.drawn || 0) > n); }"""
VIEWPORT = {"width": 1500, "height": 1100}
TARGETS = {"first": 2.5, "second": 1.0, "extra_mib": 30.0}
RATIO_TARGETS = {"first": 1.1, "later": 1.15}  # app/floor, issue 27


@dataclass(frozen=True)
class Row:
    session: int
    first_output: float  # goto to the tab row on the page, s
    drawn: float  # goto to the flame graph drawn, s
    sent: int  # websocket messages the page sent
    received_kb: float  # websocket bytes the page received
    messages: int  # websocket messages the page received: each is one more update the browser draws
    rss: float  # server RSS after, MiB
    load: float


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def start_server(profile: Path, port: int, floor: bool = False) -> subprocess.Popen[bytes]:
    """``explainer app PROFILE --port PORT``, without the exec, so this process can watch it
    (``floor``: the same command on bench/app_floor.py)."""
    from explainer.cli.app import APP_SCRIPT, streamlit_command

    where = argparse.Namespace(profile=str(profile), demo=False, host="127.0.0.1", port=port)
    command = streamlit_command(where)
    if floor:
        command[command.index(str(APP_SCRIPT))] = str(FLOOR)
    LOG.parent.mkdir(parents=True, exist_ok=True)
    with LOG.open("wb") as log:
        proc = subprocess.Popen(command, cwd=REPO, stdout=log, stderr=subprocess.STDOUT)
    return healthy(proc, port, f"streamlit did not start (see {LOG})")


def healthy(proc: subprocess.Popen[bytes], port: int, failed: str) -> subprocess.Popen[bytes]:
    """``proc`` once its Streamlit server answers its health check on ``port``, within 60 s; else it is
    killed and the bench stops with ``failed``."""
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return proc
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise SystemExit(f"bench: error: {failed}") from None
            time.sleep(0.1)


def open_session(browser: Any, url: str, number: int, server_pid: int) -> tuple[Row, Any]:
    """One new page (a new session) in ``browser`` (a browser or one of its contexts): the figures of
    :class:`Row`, and the page, kept open."""
    page = browser.new_page()
    traffic = {"sent": 0, "received": 0, "messages": 0}

    def watch(ws: Any) -> None:
        ws.on("framesent", lambda _: traffic.__setitem__("sent", traffic["sent"] + 1))
        ws.on("framereceived", lambda f: traffic.update(received=traffic["received"] + len(f),
                                                        messages=traffic["messages"] + 1))  # fmt: skip

    page.on("websocket", watch)
    load = os.getloadavg()[0]
    t0 = time.monotonic()
    page.goto(url, wait_until="domcontentloaded")
    tab = page.get_by_role("tab", name="Flame graph", exact=True)
    tab.wait_for(timeout=180_000)
    first_output = time.monotonic() - t0
    tab.click(timeout=180_000)
    page.wait_for_function(DRAWN_JS, arg=MIN_BARS, timeout=180_000, polling=20)
    drawn = time.monotonic() - t0
    time.sleep(1.0)  # let the session's runs finish after the chart is drawn
    row = Row(number, first_output, drawn, traffic["sent"], traffic["received"] / 1000, traffic["messages"],
              rss_mib(server_pid), load)  # fmt: skip
    print(f"session {number}: output {first_output:.2f} s, drawn {drawn:.2f} s, sent {row.sent}, "
          f"received {row.received_kb:.0f} KB in {row.messages} messages, server {row.rss:.0f} MiB, "
          f"load {load:.2f}", flush=True)  # fmt: skip
    return row, page


def one_run(pw: Any, profile: Path, sessions: int, same_browser: bool, floor: bool) -> tuple[float, list[Row]]:
    """A fresh browser and a fresh server (the app, or the floor), ``sessions`` pages opened one after
    the other and kept open: the server's RSS at its health check and one :class:`Row` per page."""
    port = free_port()
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)  # first: its start-up is not ours
    server = start_server(profile, port, floor)
    rows: list[Row] = []
    try:
        idle = rss_mib(server.pid)
        pages = []
        shared = browser.new_context(viewport=VIEWPORT)
        for i in range(sessions):
            where = shared if same_browser or i == 0 else browser.new_context(viewport=VIEWPORT)
            row, page = open_session(where, f"http://127.0.0.1:{port}", i + 1, server.pid)
            rows.append(row)
            pages.append(page)  # kept open: every session stays alive
        browser.close()
    finally:
        server.terminate()
        server.wait(timeout=20)
    return idle, rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("profile", nargs="?", type=Path, help="profile to open (default: the 500k bench profile)")
    parser.add_argument("--sessions", type=int, default=4, help="pages to open one after the other (default 4)")
    parser.add_argument("--same-browser", action="store_true", help="pages 2..N as tabs of the first one's browser")
    parser.add_argument("--floor", action="store_true", help="serve bench/app_floor.py: Streamlit's own page cost")
    parser.add_argument(
        "--vs-floor", action="store_true", help="app and floor interleaved, same browser: ratios and PASS/FAIL"
    )
    parser.add_argument("--rounds", type=int, default=3, help="--vs-floor: app+floor pairs to run (default 3)")
    parser.add_argument("--no-record", action="store_true", help="print only; do not append to results-app.md")
    args = parser.parse_args(argv)
    profile = args.profile or next((REPO / "bench" / ".work").glob("gpu-500000-seed1-*.pb.gz"), None)
    if profile is None or not profile.is_file():
        print("bench: error: no profile (run `make bench` once to generate the 500k one)", file=sys.stderr)
        return 2
    if args.sessions < 1 or args.rounds < 1 or (args.vs_floor and args.sessions < 2):
        print("bench: error: --sessions must be >= 1 (>= 2 with --vs-floor), --rounds >= 1", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        if args.vs_floor:
            pairs = []
            for r in range(args.rounds):
                # alternate which goes first, so a drift in the machine's load falls on both sides
                order = (False, True) if r % 2 == 0 else (True, False)
                got: dict[bool, list[Row]] = {}
                for floor in order:
                    print(f"round {r + 1}: {'floor' if floor else 'app'}", flush=True)
                    got[floor] = one_run(pw, profile, args.sessions, True, floor)[1]
                pairs.append((got[False], got[True]))
            text = vs_floor_report(profile, pairs)
        else:
            idle, rows = one_run(pw, profile, args.sessions, args.same_browser, args.floor)
            text = report(profile, idle, rows, args.same_browser, args.floor)
    print(text, end="")
    if not args.no_record:
        with RESULTS.open("a", encoding="utf-8") as f:
            f.write(text)
    return 0


def vs_floor_report(profile: Path, pairs: list[tuple[list[Row], list[Row]]]) -> str:
    """The paired figures of ``--vs-floor``: per round, the app's and the floor's first session and the
    median of their later sessions, each ratio app/floor; then the verdict on the median of the rounds'
    ratios (best of n, the fastest app run over the fastest floor run, is printed beside it)."""
    lines = [
        "",
        f"## {datetime.now(UTC):%Y-%m-%d %H:%M} UTC: `python bench/app_sessions.py --vs-floor --rounds {len(pairs)} "
        f"--sessions {len(pairs[0][0])}` on {profile.name}",
        "",
        "Each round starts a fresh browser and server for the app (`explainer app PROFILE`) and for the floor "
        "(bench/app_floor.py: the tab row and the flame graph), one after the other (the order alternates), "
        "and opens the sessions as tabs of one browser. Times are page open to flame graph drawn; "
        "later = median of sessions 2.. of that run.",
        "",
        "| round | app first, s | floor first, s | first ratio | app later, s | floor later, s | later ratio "
        "| app KB / messages | floor KB / messages | load |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    firsts, laters = [], []
    for i, (app, floor) in enumerate(pairs, 1):
        a_later = statistics.median(r.drawn for r in app[1:])
        f_later = statistics.median(r.drawn for r in floor[1:])
        firsts.append(app[0].drawn / floor[0].drawn)
        laters.append(a_later / f_later)
        loads = [r.load for r in app + floor]
        lines.append(
            f"| {i} | {app[0].drawn:.2f} | {floor[0].drawn:.2f} | {firsts[-1]:.2f} | {a_later:.2f} | {f_later:.2f} "
            f"| {laters[-1]:.2f} | {app[1].received_kb:.0f} / {app[1].messages} "
            f"| {floor[1].received_kb:.0f} / {floor[1].messages} "
            f"| {min(loads):.2f}-{max(loads):.2f} |"
        )
    best_first = min(a[0].drawn for a, _ in pairs) / min(f[0].drawn for _, f in pairs)
    best_later = min(r.drawn for a, _ in pairs for r in a[1:]) / min(r.drawn for _, f in pairs for r in f[1:])
    first, later = statistics.median(firsts), statistics.median(laters)
    verdict = lambda ratio, target: "PASS" if ratio <= target else "FAIL"  # noqa: E731
    lines += [
        "",
        f"- first session, app/floor: median of rounds {first:.2f}x (target <= {RATIO_TARGETS['first']}x): "
        f"{verdict(first, RATIO_TARGETS['first'])}; best of {len(pairs)}: {best_first:.2f}x",
        f"- later sessions, app/floor: median of rounds {later:.2f}x (target <= {RATIO_TARGETS['later']}x): "
        f"{verdict(later, RATIO_TARGETS['later'])}; best of {len(pairs)}: {best_later:.2f}x",
    ]
    return "\n".join(lines) + "\n"


def report(profile: Path, idle: float, rows: list[Row], same_browser: bool = False, floor: bool = False) -> str:
    pages = ("pages 2.. are new tabs of the first page's browser (its HTTP cache holds Streamlit's scripts)"
             if same_browser else "each page in a fresh browser profile (nothing cached)")  # fmt: skip
    served = ("The floor, bench/app_floor.py: only the tab row and the flame graph, no warm-up. " if floor
              else "`explainer app PROFILE` (the packaged script and settings). ")  # fmt: skip
    lines = [
        "",
        f"## {datetime.now(UTC):%Y-%m-%d %H:%M} UTC: `python bench/app_sessions.py{' --same-browser' * same_browser}"
        f"{' --floor' * floor}`"
        f" on {profile.name}",
        "",
        served + f"Server at its health check: {idle:.0f} MiB. "
        f"Each page is a new session, kept open; {pages}; the flame graph is reached with a click on its tab.",
        "",
        "| session | page open to first output, s | page open to flame graph drawn, s | messages sent "
        "| received, KB | server RSS after, MiB | added by this session, MiB | load |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    previous = idle
    for r in rows:
        lines.append(
            f"| {r.session} | {r.first_output:.2f} | {r.drawn:.2f} | {r.sent} | {r.received_kb:.0f} | {r.rss:.0f} "
            f"| {r.rss - previous:+.0f} | {r.load:.2f} |"
        )
        previous = r.rss
    lines += ["", f"- first session drawn in {rows[0].drawn:.2f} s (target <= {TARGETS['first']} s)"]
    if len(rows) > 1:
        later = [r.drawn for r in rows[1:]]
        extra = (rows[-1].rss - rows[0].rss) / (len(rows) - 1)
        lines += [
            f"- later sessions drawn in {min(later):.2f}-{max(later):.2f} s (target <= {TARGETS['second']} s)",
            f"- each additional session: {extra:.1f} MiB on average (target <= {TARGETS['extra_mib']:.0f} MiB)",
        ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
