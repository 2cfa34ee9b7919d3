"""Issue 24 in a real browser (Debian's chromium, Playwright): orientation, readable labels, groups,
legend, exports read back, keyboard, light and dark themes at 1,440 and 1,024 px, no Deploy button.

Screenshots go to tests/artifacts/views-*.png. Skips like tests/test_browser.py without chromium.
"""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from test_browser import (
    ARTIFACTS,
    KV,
    ask,
    bar,
    browser,
    drawn,
    flame,
    open_app,
    serve,
    shot,
    tab,
)

from explainer.demo import demo_profile
from explainer.readers import read_bytes

pytestmark = pytest.mark.browser
__all__ = ["browser"]  # the fixture, shared with tests/test_browser.py


@pytest.fixture(scope="module")
def demo_url() -> Iterator[str]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    yield from serve("views")


ENTRY = "EngineCore.__init__"
SEPARATORS = "./\\: "
MOST = "What uses the most GPU memory?"


def new_page(browser: Any, width: int = 1440, scheme: str = "light", context: Any = None) -> tuple[Any, list[str]]:
    ctx = context or browser.new_context(viewport={"width": width, "height": 1100}, color_scheme=scheme,
                                         accept_downloads=True)  # fmt: skip
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return page, errors


def orient(page: Any, root: Any, value: str) -> None:
    root.locator("select.fg-orient").select_option(value)
    page.wait_for_function("([el, v]) => el.dataset.orientation === v", arg=[root.element_handle(), value])


def labels_are_whole_words(root: Any) -> int:
    """Every drawn label is the name, or "…" and the name's tail from a separator: never cut in a word."""
    labels = root.evaluate("(el) => el.__flame.labels.map((l) => [l.name, l.text])")
    for name, text in labels:
        if text == name:
            continue
        assert text.startswith("…"), (name, text)
        body = text[1:]
        whole = name[: name.index("(")] + "(…)" if body.endswith("(…)") and "(" in name else name
        assert whole.endswith(body) and whole[len(whole) - len(body) - 1] in SEPARATORS, f"{name!r} cut as {text!r}"
    return len(labels)


PIXEL_JS = """([el, x, y]) => {
  const c = el.querySelector('canvas'), k = c.width / c.getBoundingClientRect().width;
  return [...c.getContext('2d').getImageData(x * k, y * k, 1, 1).data].slice(0, 3);
}"""
COLOUR_JS = """(el) => { const c = document.createElement('canvas').getContext('2d');
  return [...el.querySelectorAll('.fg-key')].map((k) => {
    c.fillStyle = k.dataset.colour; return [k.textContent, c.fillStyle]; }); }"""


def legend_matches_bars(page: Any, root: Any) -> int:
    """Every drawn bar's colour is in the legend, and where a legend colour has a wide bar the canvas
    shows exactly that colour inside it (away from its label)."""
    keys = dict((colour, text) for text, colour in root.evaluate(COLOUR_JS))
    boxes = root.evaluate("(el) => { const v = el.__flame, c = document.createElement('canvas').getContext('2d');"
                          " return v.boxes.map(([row, a, b, i, fill]) => { c.fillStyle = fill;"
                          " return [v.rowY(row), a, b, c.fillStyle, v.isTotal(i)]; }); }")  # fmt: skip
    assert all(colour in keys for _, _, _, colour, total in boxes if not total), (keys, boxes)
    checked = 0
    for colour, text in keys.items():
        box = next((b for b in boxes if b[3] == colour and b[2] - b[1] > 8), None)
        if box is None:
            continue
        r, g, b = page.evaluate(PIXEL_JS, [root.element_handle(), box[2] - 3, box[0] + 2])  # a corner, not the label
        want = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
        assert max(abs(x - y) for x, y in zip((r, g, b), want, strict=True)) <= 3, (text, colour, (r, g, b))
        checked += 1
    return checked


def luminance(rgb: tuple[int, ...] | list[int]) -> float:
    return 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]


@pytest.mark.parametrize("width", [1440, 1024])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_both_orientations_and_themes_draw_whole_labels_and_a_true_legend(
    browser: Any, demo_url: str, scheme: str, width: int
) -> None:
    page, errors = new_page(browser, width, scheme)
    open_app(page, demo_url)
    tab(page, "Flame graph")
    root = flame(page, 20)
    assert root.evaluate("(el) => el.__flame.theme.dark") == (scheme == "dark"), "follows the browser's preference"
    for orientation in ("flame", "icicle"):
        orient(page, root, orientation)
        assert labels_are_whole_words(root) >= 10
        kv, entry = bar(page, KV), bar(page, ENTRY)
        assert (kv["y"] < entry["y"]) == (orientation == "flame"), "callees above (flame) or below (icicle)"
        assert legend_matches_bars(page, root) >= 5
        bar_rgb = page.evaluate(PIXEL_JS, [root.element_handle(), 5, 5 if orientation == "icicle" else 0])
        assert (luminance(bar_rgb) < 130) == (scheme == "dark"), bar_rgb
        shot(page, f"views-{scheme}-{width}-{orientation}")
    root.locator("select.fg-align").select_option("right")
    assert labels_are_whole_words(root) >= 10
    root.locator("select.fg-scheme").select_option("package")
    assert legend_matches_bars(page, root) >= 3
    shot(page, f"views-{scheme}-{width}-package-right")
    tab(page, "Top functions")
    grid = page.locator('[data-testid="stDataFrame"]:visible').first
    grid.wait_for(timeout=30_000)
    page.wait_for_function("([el, n]) => el.textContent.includes(n)", arg=[grid.element_handle(), KV], timeout=30_000)
    from PIL import Image

    image = Image.open(io.BytesIO(grid.screenshot())).convert("RGB")
    assert (luminance(image.getpixel((image.width - 20, image.height - 20))) < 100) == (scheme == "dark")
    shot(page, f"views-{scheme}-{width}-table")
    assert page.get_by_role("button", name="Deploy").count() == 0 and "Deploy" not in page.inner_text("body")
    assert not errors, errors


def test_answer_words_follow_the_drawn_orientation_and_the_choice_is_remembered(browser: Any, demo_url: str) -> None:
    context = browser.new_context(viewport={"width": 1440, "height": 1100})
    page, errors = new_page(browser, context=context)
    open_app(page, demo_url)
    tab(page, "Flame graph")
    root = flame(page, 20)
    assert root.evaluate("(el) => el.dataset.orientation") == "flame", "the classic flame graph first"
    orient(page, root, "icicle")
    page.wait_for_function("() => document.body.innerText.includes('at the top, callees below')", timeout=30_000)
    tab(page, "Ask")
    answer = ask(page, MOST, "55.1 GB").inner_text()
    assert "nothing below it" in answer and "on top of it" not in answer
    shot(page, "views-answer-icicle")
    # a new page in the same browser: the choice is remembered, and the server hears it
    again, _ = new_page(browser, context=context)
    open_app(again, demo_url)
    tab(again, "Flame graph")
    root = flame(again, 20)
    assert root.evaluate("(el) => el.dataset.orientation") == "icicle"
    again.wait_for_function("() => document.body.innerText.includes('at the top, callees below')", timeout=30_000)
    orient(again, root, "flame")
    again.wait_for_function("() => document.body.innerText.includes('at the bottom, callees above')", timeout=30_000)
    tab(again, "Ask")
    answer = ask(again, MOST, "55.1 GB").inner_text()
    assert "nothing on top of it" in answer
    assert not errors, errors


def test_groups_collapse_and_expand(browser: Any, demo_url: str) -> None:
    page, errors = new_page(browser)
    open_app(page, demo_url)
    tab(page, "Flame graph")
    root = flame(page, 20)
    everything = drawn(page)
    root.get_by_role("button", name="Collapse all groups").click()
    collapsed = drawn(page)
    assert collapsed < everything
    groups = root.evaluate("(el) => el.__flame.labels.filter((l) => l.prefix).map((l) => [l.name, l.prefix])")
    assert groups and all(p.startswith("+") for _, p in groups), groups
    assert labels_are_whole_words(root) >= 5
    shot(page, "views-groups-collapsed")
    # one group opened from its menu
    name = groups[0][0]
    target = bar(page, name)
    page.mouse.click(target["x"], target["y"])
    root.get_by_role("menuitem", name="Expand group").click()
    assert collapsed < drawn(page) < everything
    root.get_by_role("button", name="Expand all groups").click()
    assert drawn(page) == everything
    assert not errors, errors


def test_keyboard_reaches_and_zooms_a_bar_and_names_it(browser: Any, demo_url: str) -> None:
    page, errors = new_page(browser)
    open_app(page, demo_url)
    tab(page, "Flame graph")
    root = flame(page, 20)
    canvas = root.locator("canvas")
    assert "arrow keys" in (canvas.get_attribute("aria-label") or "")
    canvas.focus()
    live = root.locator(".fg-live")
    page.wait_for_function("(el) => el.textContent.length > 0", arg=live.element_handle())
    assert live.get_attribute("aria-live") == "polite"
    first = live.text_content()
    for _ in range(5):
        canvas.press("ArrowUp")  # towards the callees in the classic flame graph
    reached = root.evaluate("(el) => el.__flame.nameOf(el.__flame.selected)")
    assert live.text_content() != first and (live.text_content() or "").startswith(reached)
    canvas.press("ArrowRight")
    canvas.press("ArrowLeft")
    canvas.press("Enter")
    assert (
        f"Zoomed on {root.evaluate('(el) => el.__flame.nameOf(el.__flame.zoom)')}"
        in root.locator(".fg-status").inner_text()
    )
    shot(page, "views-keyboard-zoom")
    canvas.press("Escape")
    assert "Zoomed" not in root.locator(".fg-status").inner_text()
    canvas.press("ArrowDown")  # back towards the root
    assert not errors, errors


def download(page: Any, click: Any) -> bytes:
    """The bytes of the download a click starts. Streamlit makes a lazy download's data in a rerun
    after the click; a click that lands while the page is redrawn is lost, so it is made once more."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for attempt in range(2):
        try:
            with page.expect_download(timeout=30_000) as d:
                click()
            return Path(d.value.path()).read_bytes()
        except PlaywrightTimeout:
            if attempt:
                raise
    raise AssertionError("unreachable")


def test_every_export_downloads_a_file_explainer_reads_back(browser: Any, demo_url: str) -> None:
    profile = demo_profile()
    page, errors = new_page(browser)
    open_app(page, demo_url)
    tab(page, "Flame graph")
    root = flame(page, 20)
    png = download(page, lambda: root.get_by_role("button", name="Download the flame graph as PNG").click())
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    svg = ET.fromstring(
        download(page, lambda: root.get_by_role("button", name="Download the flame graph as SVG").click())
    )
    ns = "{http://www.w3.org/2000/svg}"
    assert len(svg.findall(f".//{ns}rect")) == drawn(page) + 1  # the bars and the background
    titles = [t.text or "" for t in svg.iter(f"{ns}title")]
    assert any(t.startswith(KV) and "55.1 GB" in t for t in titles)
    assert {t.text for t in svg.iter(f"{ns}text")} <= {
        text for text in root.evaluate("(el) => el.__flame.boxes.map((b) => b[5])")
    }
    page.get_by_text("Download the profile").click()  # the buttons are drawn when their expander opens
    page.get_by_role("button", name="pprof", exact=True).wait_for(timeout=30_000)
    for fmt in ("pprof", "folded", "JSON"):
        data = download(page, lambda fmt=fmt: page.get_by_role("button", name=fmt, exact=True).click())
        back = read_bytes(data)
        assert back.total == profile.total, fmt
    tab(page, "Top functions")
    page.locator('[data-testid="stDataFrame"]:visible').first.wait_for(timeout=30_000)
    table = pd.read_csv(
        io.BytesIO(download(page, lambda: page.get_by_role("button", name="Download CSV (exact values)").first.click()))
    )
    assert int(table["self (bytes)"].sum()) == profile.total and table.iloc[0]["function"] == KV
    tab(page, "Call chain")
    page.locator('[data-testid="stDataFrame"]:visible').first.wait_for(timeout=30_000)
    chain = pd.read_csv(
        io.BytesIO(
            download(page, lambda: page.locator("button:visible", has_text="Download CSV (exact values)").first.click())
        )
    )
    assert chain.iloc[-1]["function"] == KV
    (ARTIFACTS / "views-export.svg").write_bytes(ET.tostring(svg))
    assert not errors, errors
