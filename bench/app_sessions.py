#!/usr/bin/env python3
"""The app under several sessions: page open to flame graph drawn, and the server's memory.

usage: python bench/app_sessions.py [PROFILE] [--sessions N]   (default: the 500k bench profile)

Starts `streamlit run app.py -- PROFILE` on a free localhost port, then opens N pages one after
the other in Debian's headless chromium (each page its own Streamlit session, all kept open), and
for each page records the time from `goto` to every bar of the flame graph drawn, and the server
process's resident memory once that page is drawn. Appends a Markdown table to
bench/results-app.md and prints it. Needs /usr/bin/chromium and the playwright package.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results-app.md"
CHROMIUM = os.environ.get("EXPLAINER_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
# plotly draws one `g.point` per bar; the page is drawn when the chart holds more than a few
DRAWN_JS = """() => document.querySelectorAll('[data-testid="stPlotlyChart"] g.point').length > 20"""


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


def start_server(profile: Path, port: int) -> subprocess.Popen[bytes]:
    cmd = [str(Path(sys.executable).parent / "streamlit"), "run", str(REPO / "app.py"), "--server.port", str(port),
           "--server.address", "127.0.0.1", "--server.headless", "true", "--", str(profile)]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return proc
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise SystemExit("bench: error: streamlit did not start") from None
            time.sleep(0.3)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("profile", nargs="?", type=Path, help="profile to open (default: the 500k bench profile)")
    parser.add_argument("--sessions", type=int, default=4, help="pages to open one after the other (default 4)")
    args = parser.parse_args(argv)
    profile = args.profile or next((REPO / "bench" / ".work").glob("gpu-500000-seed1-*.pb.gz"), None)
    if profile is None or not profile.is_file():
        print("bench: error: no profile (run `make bench` once to generate the 500k one)", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    port = free_port()
    server = start_server(profile, port)
    rows: list[tuple[int, float, float, float]] = []
    try:
        idle = rss_mib(server.pid)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
            pages = []
            for i in range(args.sessions):
                page = browser.new_context(viewport={"width": 1500, "height": 1100}).new_page()
                load = os.getloadavg()[0]
                t0 = time.monotonic()
                page.goto(f"http://127.0.0.1:{port}", wait_until="domcontentloaded")
                page.wait_for_function(DRAWN_JS, timeout=180_000, polling=50)
                drawn = time.monotonic() - t0
                time.sleep(1.0)  # let the session's run finish after the chart arrives
                rows.append((i + 1, drawn, rss_mib(server.pid), load))
                print(f"session {i + 1}: drawn in {drawn:.2f} s, server {rows[-1][2]:.0f} MiB, load {load:.2f}")
                pages.append(page)  # kept open: every session stays alive
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=20)
    text = report(profile, idle, rows)
    print(text, end="")
    with RESULTS.open("a", encoding="utf-8") as f:
        f.write(text)
    return 0


def report(profile: Path, idle: float, rows: list[tuple[int, float, float, float]]) -> str:
    lines = [
        "",
        f"## {datetime.now(UTC):%Y-%m-%d %H:%M} UTC: `python bench/app_sessions.py` on {profile.name}",
        "",
        f"Server idle before the first page: {idle:.0f} MiB. Each page is a new session, kept open.",
        "",
        "| session | page open to flame graph drawn, s | server RSS after, MiB | added by this session, MiB | load |",
        "|---:|---:|---:|---:|---:|",
    ]
    previous = idle
    for n, drawn, rss, load in rows:
        lines.append(f"| {n} | {drawn:.2f} | {rss:.0f} | {rss - previous:+.0f} | {load:.2f} |")
        previous = rss
    if len(rows) > 1:
        extra = (rows[-1][2] - rows[0][2]) / (len(rows) - 1)
        lines += ["", f"Each additional session: {extra:.1f} MiB on average (target <= 30 MiB)."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
