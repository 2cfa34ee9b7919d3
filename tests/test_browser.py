"""The app in a real browser: Debian's chromium driven by Playwright, against `streamlit run`.

Never downloads a browser: it uses /usr/bin/chromium and skips, saying why, when that or
the ``playwright`` package is missing. Artifacts (screenshots, timings) go to tests/artifacts/.
"""

from __future__ import annotations

import argparse
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

from conftest import stop
from explainer import units
from explainer.model import Profile, ProfileBuilder, SampleType
from explainer.symbols import clean
from explainer.ui.flamegraph import tooltip_meaning
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
HOSTILE_NAMES = (HOSTILE, "<script>window.__pwned=2</script>", "![t](http://evil.invalid/t.png)",
                 "evil\u202eexe.txt\u2066")  # fmt: skip


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


def serve(name: str, *script_args: str, options: tuple[str, ...] = ()) -> Iterator[str]:
    """What `explainer app` runs (Streamlit on the packaged script and settings), on a free localhost port,
    plus any Streamlit ``options`` a test needs (a theme), until the test is done."""
    from explainer.cli.app import streamlit_command

    port = _free_port()
    where = argparse.Namespace(profile=script_args[0] if script_args else None, demo=False, host="127.0.0.1", port=port)
    cmd = streamlit_command(where)
    at = cmd.index("--") if "--" in cmd else len(cmd)
    cmd[at:at] = list(options)
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
        stop(proc)
        log.close()


@pytest.fixture(scope="module")
def demo_url() -> Iterator[str]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    yield from serve("demo")


def big_profile(hostile_scale: float = 1.0) -> Profile:
    """Many distinct stacks: a call tree of ~21k nodes, so the 8,192-node budget applies."""
    b = ProfileBuilder(SampleType("alloc_space", "bytes"))
    for i, name in enumerate(HOSTILE_NAMES):  # hostile names wide enough to draw a label
        b.add(["main", "Loader.load", name], int((200 - 20 * i) * 10**9 * hostile_scale))
    for a in range(16):
        for m in range(16):
            for c in range(40):
                stack = ["main", f"service_{a}.run", f"Module{a}_{m}.handle", f"Worker{m}.step_{c}", f"kernel_{c % 7}"]
                b.add(stack, 1_000_000 * (1 + (a * 7 + m * 3 + c) % 50))
    return b.build()


def open_app(page: Any, url: str) -> None:
    page.goto(url, wait_until="domcontentloaded")
    page.get_by_placeholder("Ask about this profile", exact=False).wait_for(timeout=60_000)


def watched_page(
    browser: Any, width: int = 1440, height: int = 1400, color_scheme: str = "light"
) -> tuple[Any, dict[str, list[str]]]:
    """A fresh page that records script errors, dialogs and every request that leaves localhost."""
    page = browser.new_context(viewport={"width": width, "height": height}, color_scheme=color_scheme).new_page()
    seen: dict[str, list[str]] = {"errors": [], "dialogs": [], "outside": []}
    page.on("pageerror", lambda e: seen["errors"].append(str(e)))
    page.on("dialog", lambda d: (seen["dialogs"].append(d.message), d.dismiss()))
    page.on("request", lambda r: None if r.url.startswith(("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:"))
            else seen["outside"].append(r.url))  # fmt: skip
    return page, seen


TAB_SELECTED = ("(n) => [...document.querySelectorAll('[role=tab]')].some(t => t.innerText.trim() === n"
                " && t.getAttribute('aria-selected') === 'true')")  # fmt: skip


def tab(page: Any, name: str, timeout: int = 30_000) -> None:
    """Open tab ``name`` with one click and wait until it is the selected one, within ``timeout`` ms.

    One click, as a user gives it: a click that was lost (a run that moved the tabs' fragment dropped the
    click's fragment rerun, seen in CI after an upload) is a bug in the app, fixed there and pinned by
    tests/test_app.py's ``tabs_position``; clicking again here would hide it coming back."""
    page.get_by_role("tab", name=name, exact=True).click()
    page.wait_for_function(TAB_SELECTED, arg=name, timeout=timeout)


def flame(page: Any, at_least: int = 1) -> Any:
    """The flame graph's root element, once it has drawn ``at_least`` bars."""
    root = page.locator(".fg:visible")  # the one in the open tab
    root.wait_for(timeout=60_000)
    root.evaluate("(el, n) => new Promise((ok) => { const t = setInterval(() => { if (Number(el.dataset.drawn"
                  " || 0) >= n) { clearInterval(t); ok(); } }, 25); })", at_least)  # fmt: skip
    return root


def bar(page: Any, name: str) -> dict[str, float]:
    box = page.locator(".fg:visible").evaluate("(el, n) => el.__flame.locate(n)", name)
    assert box, f"no bar drawn for {name!r}"
    return box  # type: ignore[no-any-return]


def has_text(page: Any, locator: Any, text: str) -> None:
    """Wait until ``text`` is in the element's text, data grids included (their cells are in accessible tables)."""
    page.wait_for_function("([el, t]) => el.textContent.includes(t)", arg=[locator.element_handle(), text],
                           timeout=30_000)  # fmt: skip


def drawn(page: Any) -> int:
    return int(page.locator(".fg:visible").get_attribute("data-drawn") or 0)


def shot(page: Any, name: str) -> None:
    page.wait_for_timeout(300)  # let the last draw and hover settle
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=False)


ANSWERED_JS = """(n) => [...document.querySelectorAll('[data-testid="stChatMessage"]')]
  .filter((m) => /answered (offline|by)|number\\(s\\) checked|no numbers to check/.test(m.innerText)).length >= n"""


def ask(page: Any, question: str, expect: str) -> Any:
    """Ask in the chat and wait until the answer is complete (its check line is drawn under it)."""
    done = page.evaluate(ANSWERED_JS.replace(">= n", "").replace("(n) =>", "() =>"))
    box = page.get_by_placeholder("Ask about this profile", exact=False)
    box.fill(question)
    box.press("Enter")
    page.wait_for_function(ANSWERED_JS, arg=done + 1, timeout=90_000)
    answer = page.locator('[data-testid="stChatMessage"]').filter(has_text=expect).last
    answer.wait_for(timeout=30_000)
    return answer


def demo_value_of(substring: str) -> str:
    """What the stacks through functions containing ``substring`` hold in the demo, as the page prints it."""
    from explainer.analysis.functions import value_of_stacks_with
    from explainer.demo import demo_profile

    p = demo_profile()
    held = value_of_stacks_with(p, [i for i, n in enumerate(p.names) if substring in n.lower()])
    return f"{units.format_value(held, p.unit)} ({units.format_share(held, p.total)} of all)"


def test_flame_graph_highlight_zoom_reset_search_and_tooltip(browser: Any, demo_url: str) -> None:
    page, seen = watched_page(browser)
    open_app(page, demo_url)
    assert "55.1 GB" in ask(page, "What uses the most GPU memory?", "55.1 GB").inner_text()
    tab(page, "Flame graph")
    root = flame(page, 20)
    status = root.locator(".fg-status")
    assert f"are the last answer's function {KV}: they hold 55.1 GB (73.8% of all)" in status.inner_text()
    shot(page, "flame-answer-highlight")
    everything = drawn(page)
    # a click opens the bar's menu; "Focus block" zooms: the way in stays, the breadcrumb names it, fewer bars
    target = bar(page, "Worker.load_model")
    page.mouse.click(target["x"], target["y"])
    root.get_by_role("menuitem", name="Focus block").click()
    assert "Zoomed on Worker.load_model" in status.inner_text()
    assert "Worker.load_model" in root.locator(".fg-crumbs").inner_text()
    assert drawn(page) < everything
    shot(page, "flame-zoomed")
    root.get_by_role("button", name="Reset zoom").click()
    assert drawn(page) == everything and "Zoomed" not in status.inner_text()
    # search: the matches are highlighted and what they hold is stated (no match nested in another)
    root.get_by_role("searchbox", name="Search the flame graph").fill("kv_cache")
    assert f"match “kv_cache”: they hold {demo_value_of('kv_cache')}" in status.inner_text()
    shot(page, "flame-search")
    root.get_by_role("searchbox", name="Search the flame graph").fill("")
    # the tooltip: self and total with shares, and what the frame means
    target = bar(page, KV)
    page.mouse.move(target["x"], target["y"])
    tip = root.locator(".fg-tip")
    tip.wait_for(state="visible")
    text = tip.inner_text()
    assert KV in text and "Total: 55.1 GB (73.8% of all)" in text and "Self: 55.1 GB (73.8% of all)" in text
    assert tooltip_meaning(KV) in text and "def " not in text  # what the frame is, not its name restated
    assert root.evaluate("(el) => el.querySelector('.fg-tip-name').textContent") == KV
    shot(page, "flame-tooltip")
    # back to Ask: the answer is there the moment its tab is selected (the chat is drawn hidden while
    # another tab is open, not taken apart by the click away and drawn again by the click back's run)
    assert page.evaluate(CLICK_ASK_THEN_LOOK_JS, "55.1 GB"), "the answer was not there when Ask was clicked"
    page.wait_for_function(TAB_SELECTED, arg="Ask", timeout=30_000)
    assert not seen["errors"] and not seen["dialogs"] and not seen["outside"], seen


# the click, then a look at the next frame: the tab's change is drawn by then, and the run the click asks the
# server for has not drawn anything yet (with the chat left out while another tab was open, this failed)
CLICK_ASK_THEN_LOOK_JS = """(t) => {
  [...document.querySelectorAll('[role=tab]')].find((e) => e.innerText.trim() === 'Ask').click();
  const shown = () => [...document.querySelectorAll('[data-testid="stChatMessage"]')]
    .some((m) => m.offsetWidth > 0 && m.innerText.includes(t));
  return new Promise((ok) => requestAnimationFrame(() => ok(shown()))); }"""


def selected_tab(page: Any) -> str:
    return str(page.locator("[role=tab][aria-selected=true]").inner_text()).strip()


def test_sandwich_from_the_flame_graph_the_top_table_and_an_answer(browser: Any, demo_url: str) -> None:
    page, seen = watched_page(browser)
    open_app(page, demo_url)
    sandwich = page.locator('[data-testid="stTabPanel"]:visible')
    # from the flame graph: click a bar, then "Sandwich view"
    tab(page, "Flame graph")
    flame(page, 20)
    target = bar(page, "Worker.load_model")
    page.mouse.click(target["x"], target["y"])
    page.locator(".fg:visible").get_by_role("button", name="Sandwich view").click()
    page.wait_for_function("() => document.body.innerText.includes('Callers of Worker.load_model')", timeout=30_000)
    assert selected_tab(page) == "Sandwich"
    for name in ("GPUModelRunner.load_model", "EngineCore.__init__"):  # a callee and a caller
        has_text(page, sandwich, name)
    # the two graphs: callees grow upwards from the function, callers hang below it
    above, below = page.locator(".fg:visible").nth(0), page.locator(".fg:visible").nth(1)
    for graph, root, neighbour in ((above, 1, "GPUModelRunner.load_model"), (below, 0, "EngineCore.__init__")):
        graph.evaluate("(el) => new Promise((ok) => { const t = setInterval(() => {"
                       " if (Number(el.dataset.drawn || 0) > 1) { clearInterval(t); ok(); } }, 25); })")  # fmt: skip
        where = graph.evaluate("(el, n) => [el.__flame.locate(n), el.__flame.locate('Worker.load_model')]", neighbour)
        assert where[0] and where[1], where
        assert (where[0]["y"] < where[1]["y"]) == bool(root), "callees above the function, callers below it"
    shot(page, "sandwich-from-flame")
    target = below.evaluate("(el) => el.__flame.locate('EngineCore.__init__')")
    page.mouse.click(target["x"], target["y"])
    below.get_by_role("button", name="Sandwich view").click()
    page.wait_for_function("() => document.body.innerText.includes('Callers of EngineCore.__init__')", timeout=30_000)
    # from the top table: a click on the first row (the biggest self)
    tab(page, "Top functions")
    grid = page.locator('[data-testid="stDataFrame"]:visible').first
    grid.wait_for()
    has_text(page, grid, KV)  # the table is built when its tab opens: click once its rows are drawn
    box = grid.bounding_box()
    page.mouse.click(box["x"] + 12, box["y"] + 35 + 17)  # the row's selection cell, under the 35 px header
    page.wait_for_function(f"() => document.body.innerText.includes('Callers of {KV}')", timeout=30_000)
    assert selected_tab(page) == "Sandwich"
    shot(page, "sandwich-from-table")
    tab(page, "Flame graph")  # in sync: the flame graph highlights the sandwich's function
    flame(page, 20)
    assert f"are the sandwich's function {KV}" in page.locator(".fg-status:visible").inner_text()
    # from an answer: the button under the chat
    tab(page, "Ask")
    ask(page, "What is CUDAGraph.capture_begin?", "CUDAGraph.capture_begin")
    page.get_by_role("button", name="Sandwich view of CUDAGraph.capture_begin").click()
    page.wait_for_function("() => document.body.innerText.includes('Callers of CUDAGraph.capture_begin')")
    assert selected_tab(page) == "Sandwich"
    shot(page, "sandwich-from-answer")
    assert not seen["errors"] and not seen["outside"], seen


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
        tab(page, "Flame graph")
        root = flame(page, 2)
        page.wait_for_function("(el) => el.__flame.d.names.length === 3", arg=root.element_handle(), timeout=60_000)
        names = root.evaluate("(el) => el.__flame.d.names")
        assert [n for n in names if n.startswith("Browser")] == [f"Browser{i}.mine"]


def test_hostile_names_stay_text_in_every_view(browser: Any, tmp_path: Path) -> None:
    """HTML, a script, a Markdown image and bidi controls as function names: no dialog, script or request."""
    path, baseline = tmp_path / "hostile.pb.gz", tmp_path / "hostile-before.pb.gz"
    path.write_bytes(to_pprof(big_profile()))
    baseline.write_bytes(to_pprof(big_profile(hostile_scale=0.5)))
    for url in serve("hostile", str(path)):
        page, seen = watched_page(browser)
        open_app(page, url)
        ask(page, "What uses the most GPU memory?", "uses the most")
        tab(page, "Flame graph")
        root = flame(page, 100)
        shown = [clean(n) for n in HOSTILE_NAMES]  # bidi controls are replaced, everything else is verbatim
        for name in shown:
            target = bar(page, name)
            page.mouse.move(target["x"], target["y"])
            root.locator(".fg-tip").wait_for(state="visible")
            assert root.evaluate("(el) => el.querySelector('.fg-tip-name').textContent") == name
        shot(page, "hostile-flame-tooltip")
        page.mouse.click(target["x"], target["y"])
        root.get_by_role("menuitem", name="Focus block").click()
        assert shown[-1] in root.locator(".fg-crumbs").inner_text()
        root.get_by_role("button", name="Sandwich view").click()
        page.wait_for_function("(n) => document.body.innerText.includes('Callers of ' + n)", arg=shown[-1])
        tab(page, "Top functions")
        has_text(page, page.locator('[data-testid="stDataFrame"]:visible').first, HOSTILE)
        shot(page, "hostile-table")
        # the diff view: the same names in the diff flame graph's tooltips and the before/after table
        page.get_by_text("Compare with a baseline").click()
        uploader = page.locator('[data-testid="stFileUploader"]').filter(has_text="Baseline profile")
        uploader.locator('input[type="file"]').set_input_files(str(baseline))
        page.get_by_text("Comparing with the baseline").wait_for(timeout=60_000)
        tab(page, "Diff")
        root = flame(page, 100)
        for name in shown:
            target = bar(page, name)
            page.mouse.move(target["x"], target["y"])
            page.locator(".fg-tip:visible").wait_for()
            assert root.evaluate("(el) => el.querySelector('.fg-tip-name').textContent") == name
        has_text(page, page.locator('[data-testid="stDataFrame"]:visible').first, HOSTILE)
        shot(page, "hostile-diff")
        for frame in page.frames:
            assert frame.evaluate("() => window.__pwned") is None
            assert not frame.evaluate("() => [...document.scripts].some((s) => s.textContent.includes('__pwned'))")
        assert page.locator("img[src='x']").count() == 0 and page.locator("img[src*='evil']").count() == 0
        assert not seen["dialogs"] and not seen["outside"] and not seen["errors"], seen


PIXEL_JS = """([el, x, y]) => {
  const c = el.querySelector('canvas'), r = c.getBoundingClientRect(), k = c.width / r.width;
  return [...c.getContext('2d').getImageData((x - r.left) * k, (y - r.top) * k, 1, 1).data].slice(0, 3);
}"""


def test_dark_theme_draws_a_dark_flame_graph(browser: Any, demo_url: str) -> None:
    """The page follows the browser's preference (no pinned theme): a dark browser gets the dark theme."""
    page, seen = watched_page(browser, color_scheme="dark")
    open_app(page, demo_url)
    tab(page, "Flame graph")
    root = flame(page, 20)
    target = bar(page, KV)
    r, g, b = page.evaluate(PIXEL_JS, [root.element_handle(), target["x"] + 40, target["y"]])
    assert 0.299 * r + 0.587 * g + 0.114 * b < 130, "bars are dark shades under the dark theme"
    text = root.evaluate("(el) => getComputedStyle(el).color")
    assert sum(int(v) for v in text[4:-1].split(",")) > 3 * 180, f"light text on the dark page, got {text}"
    page.mouse.move(target["x"], target["y"])
    page.locator(".fg-tip:visible").wait_for()
    shot(page, "flame-dark")
    assert not seen["errors"], seen


TABLES_JS = """() => [...document.querySelectorAll('[data-testid="stChatMessage"] table')].map((t) => {
  const box = t.parentElement;
  const number = /^[-+−]?[\\d.,]+\\s?[%A-Za-zµ]*$/;
  const lines = (td) => {
    const r = document.createRange();
    r.selectNodeContents(td);
    return r.getClientRects().length;
  };
  const wrapped = [...t.querySelectorAll('td')].filter((td) => number.test(td.innerText.trim()) && lines(td) > 1)
    .map((td) => td.innerText);
  return {sideways: box.scrollWidth > box.clientWidth + 1, wrapped, rows: t.rows.length};
})"""


def answer_tables(page: Any, questions: list[tuple[str, str]]) -> list[dict[str, Any]]:
    for question, expect in questions:
        ask(page, question, expect)
    tables = page.evaluate(TABLES_JS)
    (ARTIFACTS / "answer-tables.json").write_text(json.dumps(tables, indent=1) + "\n")
    return tables  # type: ignore[no-any-return]


QUESTIONS = [("What uses the most GPU memory?", "uses the most"), ("What is responsible for it?", "total"),
             ("Show me the call chain to the biggest allocation", "chain"),
             ("What should I optimise first?", "")]  # fmt: skip


def test_answer_tables_fit_at_1440_px(browser: Any, demo_url: str) -> None:
    page, _ = watched_page(browser, 1440, 1100)
    open_app(page, demo_url)
    tables = answer_tables(page, QUESTIONS)
    shot(page, "answers-1440")
    assert len(tables) >= 2 and all(not t["sideways"] and not t["wrapped"] for t in tables), tables


def test_answer_tables_fit_at_1440_px_on_500k_stacks(browser: Any) -> None:
    path = bench_profile(500_000)
    for url in serve("500k", str(path)):
        page, _ = watched_page(browser, 1440, 1100)
        open_app(page, url)
        tables = answer_tables(page, QUESTIONS)
        shot(page, "answers-1440-500k")
        assert len(tables) >= 2 and all(not t["sideways"] and not t["wrapped"] for t in tables), tables


def bench_profile(stacks: int) -> Path:
    """The benchmark's generated vLLM profile (cached in bench/.work/, made once, ~80 s for 500k)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_run", REPO / "bench" / "run.py")
    assert spec and spec.loader
    run = importlib.util.module_from_spec(spec)
    sys.modules["bench_run"] = run  # its dataclasses look their module up
    spec.loader.exec_module(run)
    try:
        return Path(run.ensure_profile(stacks, run.generator_script()))
    except run.BenchError as exc:
        pytest.skip(f"no generated profile: {exc}")


def shrunk_demo() -> Profile:
    """The demo as it was before the KV cache grew: that allocation at a third of its size."""
    from explainer.demo import demo_profile

    p = demo_profile()
    b = ProfileBuilder(p.sample_type)
    for i in range(p.stack_count):
        frames = [p.names[f] for f in p.frames[p.offsets[i] : p.offsets[i + 1]]]
        b.add(frames, int(p.values[i]) // (3 if frames[-1] == KV else 1))
    return b.build()


def test_diff_colours_a_grown_function_red_and_the_baseline_clears(browser: Any, demo_url: str, tmp_path: Path) -> None:
    path = tmp_path / "before.pb.gz"
    path.write_bytes(to_pprof(shrunk_demo()))
    page, seen = watched_page(browser)
    open_app(page, demo_url)
    page.get_by_text("Compare with a baseline").click()
    uploader = page.locator('[data-testid="stFileUploader"]').filter(has_text="Baseline profile")
    uploader.locator('input[type="file"]').set_input_files(str(path))
    page.get_by_text("Comparing with the baseline").wait_for(timeout=60_000)
    tab(page, "Diff")
    root = flame(page, 20)
    target = bar(page, KV)
    r, g, b = page.evaluate(PIXEL_JS, [root.element_handle(), target["x"] + 40, target["y"]])
    assert r > g + 40 and r > b + 40, f"the grown allocation is red, got {(r, g, b)}"
    page.mouse.move(target["x"], target["y"])
    tip = page.locator(".fg-tip:visible")
    tip.wait_for()
    assert "Before: 18.4 GB" in tip.inner_text() and "After: 55.1 GB" in tip.inner_text()
    has_text(page, page.locator('[data-testid="stDataFrame"]:visible').first, "grew")
    shot(page, "diff")
    page.get_by_role("button", name="Clear baseline").click()
    page.get_by_text("Comparing with the baseline").wait_for(state="detached", timeout=30_000)
    page.get_by_role("tab", name="Diff", exact=True).wait_for(state="detached", timeout=30_000)
    shot(page, "diff-cleared")
    assert not seen["errors"] and not seen["outside"], seen


def test_selector_error_is_shown_at_its_position(browser: Any, demo_url: str) -> None:
    from pyroscope_server import PyroscopeServer

    small = ProfileBuilder(SampleType("alloc_space", "bytes"))
    small.add(["main", "Served.from_pyroscope"], 10**9)
    with PyroscopeServer({"memory:alloc_space:bytes:space:bytes": small.build()}, labels={"pod": ["a"]}) as server:
        page, seen = watched_page(browser)
        open_app(page, demo_url)
        page.get_by_text("Pyroscope server").click()
        page.get_by_role("textbox", name="Server URL").fill(server.url)
        page.get_by_role("textbox", name="Server URL").press("Enter")
        page.get_by_role("button", name="Connect").click()
        selector = page.get_by_role("textbox", name="Label selector")
        selector.wait_for(timeout=30_000)
        typed = '{pod="a" zone="b"}'
        selector.fill(typed)
        selector.press("Enter")
        code = page.locator('[data-testid="stSidebar"] [data-testid="stCode"]')
        code.wait_for(timeout=30_000)
        lines = code.inner_text().splitlines()
        assert lines[:2] == [typed, " " * typed.index("zone") + "^"], lines
        assert "expected ',' between matchers" in page.locator('[data-testid="stSidebar"]').inner_text()
        page.locator('[data-testid="stSidebar"]').screenshot(path=str(ARTIFACTS / "selector-error.png"))
        assert not seen["errors"] and not seen["outside"], seen
