"""The app in a real browser: Debian's chromium driven by Playwright, against `streamlit run`.

Never downloads a browser: it uses /usr/bin/chromium and skips, saying why, when that or
the ``playwright`` package is missing. Artifacts (screenshots, timings) go to tests/artifacts/.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from explainer.analysis.tree import DEFAULT_MAX_NODES, build_tree
from explainer.model import Profile, ProfileBuilder, SampleType
from explainer.writers import to_folded, to_pprof

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("EXPLAINER_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
REPO = Path(__file__).resolve().parent.parent
ARTIFACTS = REPO / "tests" / "artifacts"
KV = "GPUModelRunner._allocate_kv_cache_tensors"
HOSTILE = "<img src=x onerror=window.__pwned=1>"
RENDER_BUDGET_S = 3.0
PURPLE = "rgb(109, 40, 217)"  # flamegraph.HIGHLIGHT as the browser writes it


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no chromium at {CHROMIUM} (apt-get install chromium, or run `make browser-deps`)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the playwright package is not installed (pip install -e '.[dev]')")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


def serve(name: str, *script_args: str) -> Iterator[str]:
    """`explainer app` on a free localhost port until the test is done."""
    port = _free_port()
    cmd = [sys.executable, "-m", "explainer", "app", "--port", str(port), "--host", "127.0.0.1", *script_args]
    log = (ARTIFACTS / f"streamlit-{name}.log").open("wb")  # the server's output, kept for a failed run
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"streamlit did not start (see {log.name})")
                time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.fixture(scope="module")
def demo_url() -> Iterator[str]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    yield from serve("demo")


def big_profile() -> Profile:
    """Many distinct stacks: a call tree of ~21k nodes, so the 8,192-node budget applies."""
    b = ProfileBuilder(SampleType("alloc_space", "bytes"))
    b.add(["main", "Loader.load", HOSTILE], 200 * 10**9)  # a hostile name wide enough to draw a label
    for a in range(16):
        for m in range(16):
            for c in range(40):
                stack = ["main", f"service_{a}.run", f"Module{a}_{m}.handle", f"Worker{m}.step_{c}", f"kernel_{c % 7}"]
                b.add(stack, 1_000_000 * (1 + (a * 7 + m * 3 + c) % 50))
    return b.build()


def open_app(page: Any, url: str) -> None:
    page.goto(url, wait_until="domcontentloaded")
    page.get_by_placeholder("Ask about this profile", exact=False).wait_for(timeout=60_000)


def test_demo_question_answer_and_flame_graph(browser: Any, demo_url: str) -> None:
    # tall enough for the whole page: Streamlit scrolls inside its own container, not the body
    page = browser.new_page(viewport={"width": 1500, "height": 2300})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    open_app(page, demo_url)
    box = page.get_by_placeholder("Ask about this profile", exact=False)
    box.fill("What uses the most GPU memory?")
    box.press("Enter")
    answer = page.locator('[data-testid="stChatMessage"]').filter(has_text="55.1 GB").last
    answer.wait_for(timeout=60_000)
    assert KV in answer.inner_text()
    page.wait_for_function(f"({BARS_JS})('') > 20")
    assert bars(page, PURPLE) >= 1, "the answer's function is highlighted in the flame graph"
    page.wait_for_timeout(500)  # let the highlight and table settle for the screenshot
    page.screenshot(path=str(ARTIFACTS / "browser.png"), full_page=True)
    # click a bar: the graph focuses on that subtree (a rerun that redraws only it and its callers)
    before = bars(page)
    box = page.evaluate(CENTER_OF_BAR_JS, "Worker.load_model")
    page.mouse.click(box["x"], box["y"])
    page.get_by_text("Focused on", exact=False).wait_for(timeout=30_000)
    page.wait_for_function(f"({BARS_JS})('') < {before}")
    page.get_by_role("button", name="Show all").click()
    page.wait_for_function(f"({BARS_JS})('') == {before}")
    assert not errors, errors


def test_sessions_in_separate_browsers_see_only_their_upload(browser: Any, demo_url: str, tmp_path: Path) -> None:
    pages = []
    for i in range(4):
        b = ProfileBuilder(SampleType("alloc_space", "bytes"))
        b.add(["main", f"Browser{i}.mine"], 10**9)
        b.add(["main", "shared.small"], 10**6)
        path = tmp_path / f"s{i}.folded"
        path.write_text(to_folded(b.build()))
        page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        open_app(page, demo_url)
        page.get_by_text("Upload a file").click()
        uploader = page.locator('[data-testid="stFileUploader"]').filter(has_text="Profile file")
        uploader.wait_for(timeout=30_000)
        uploader.locator('input[type="file"]').set_input_files(str(path))
        pages.append(page)
    for i, page in enumerate(pages):
        page.get_by_text(f"s{i}.folded").first.wait_for(timeout=60_000)
        page.wait_for_function(f"document.body.innerText.includes('Browser{i}.mine')", timeout=60_000)
        body = page.inner_text("body")
        assert [j for j in range(4) if j != i and f"Browser{j}.mine" in body] == []


BARS_JS = """(color) => [...document.querySelectorAll('[data-testid="stPlotlyChart"] g.point path')]
    .filter((p) => !color || (p.style.fill || '').replace(/ /g, '') === color.replace(/ /g, '')).length"""


# Records when the browser receives each big websocket message (the chart's spec), so the
# render time is measured from the data's arrival to the last bar drawn, in page time.
ARRIVALS_JS = """(() => {
  const Native = window.WebSocket;
  window.__arrivals = [];
  class Timed extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (e) => {
        const size = e.data.byteLength ?? e.data.size ?? e.data.length ?? 0;
        if (size > 200000) window.__arrivals.push(performance.now());
      });
    }
  }
  window.WebSocket = Timed;
})();"""


CENTER_OF_BAR_JS = """(label) => {
  const bar = [...document.querySelectorAll('[data-testid="stPlotlyChart"] g.point')]
    .find((g) => (g.textContent || '').startsWith(label));
  const r = bar.querySelector('path').getBoundingClientRect();
  return {x: r.left + r.width / 2, y: r.top + r.height / 2};
}"""


def drawn_js(n: int, color: str = "") -> str:
    """A wait condition that also stamps the page time at which it first held."""
    return f"(() => {{ if (({BARS_JS})('{color}') >= {n}) {{ window.__drawn = performance.now(); return true; }} }})()"


def bars(page: Any, color: str = "") -> int:
    """Bars drawn in the flame graph (plotly draws one ``g.point`` per bar), optionally of one fill colour."""
    return int(page.evaluate(BARS_JS, color))


def test_big_tree_renders_fast_and_hostile_names_stay_text(browser: Any, tmp_path: Path) -> None:
    profile = big_profile()
    tree = build_tree(profile, max_nodes=DEFAULT_MAX_NODES)
    path = tmp_path / "big.pb.gz"
    path.write_bytes(to_pprof(profile))
    for url in serve("big", str(path)):
        firsts = []
        for _ in range(3):  # fresh pages: the best is the render, the spread is load noise
            page = browser.new_page(viewport={"width": 1500, "height": 1100})
            page.add_init_script(ARRIVALS_JS)
            t0 = time.monotonic()
            page.goto(url, wait_until="domcontentloaded")
            page.wait_for_function(drawn_js(tree.size), timeout=60_000, polling=50)
            opened = time.monotonic() - t0
            firsts.append(page.evaluate("window.__drawn - window.__arrivals[window.__arrivals.length - 1]") / 1000)
        first = min(firsts)
        drawn = bars(page)
        search = page.get_by_label("Highlight in flame graph")
        t1 = time.monotonic()
        search.fill("Worker3.step_1")
        search.press("Enter")
        page.wait_for_function(drawn_js(1, PURPLE), timeout=60_000, polling=50)
        rerun = time.monotonic() - t1
        again = page.evaluate("window.__drawn - window.__arrivals[window.__arrivals.length - 1]") / 1000
        page.screenshot(path=str(ARTIFACTS / "browser-8192.png"), full_page=False)
        assert page.evaluate("window.__pwned") is None
        assert page.locator("img[src='x']").count() == 0
        chart_text = page.evaluate("document.querySelector('[data-testid=\"stPlotlyChart\"]').textContent")
        assert HOSTILE in chart_text, "drawn as text in the flame graph"
        result = {
            "tree_nodes": tree.size,
            "bars_drawn": drawn,
            "merged_into_other": tree.merged_nodes,
            "render_s": round(first, 2),  # spec received by the browser -> all bars drawn (best of 3 pages)
            "render_s_each_page": [round(x, 2) for x in firsts],
            "rerender_after_search_s": round(again, 2),
            "page_open_to_drawn_s": round(opened, 2),  # includes Streamlit's start and the analysis
            "search_to_redrawn_s": round(rerun, 2),  # includes the rerun on the server
        }
        (ARTIFACTS / "render-8192.json").write_text(json.dumps(result, indent=2) + "\n")
        print(f"\n{tree.size:,}-node flame graph in headless chromium: {result}")
        assert tree.size > DEFAULT_MAX_NODES * 0.99 and drawn >= tree.size
        assert 0 < first < RENDER_BUDGET_S and 0 < again < RENDER_BUDGET_S, result
        assert rerun < RENDER_BUDGET_S, result
