"""The app's label breakdown in a real browser: bars per pod from the test server's cluster, then one pod's
profile loaded beside the chat. Skips like tests/test_browser.py when chromium or playwright is missing."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from pyroscope_cluster import MINUTE, demo_cluster
from pyroscope_server import PyroscopeServer
from test_browser import ARTIFACTS, ask, browser, open_app, serve, watched_page

pytestmark = pytest.mark.browser
__all__ = ["browser"]  # the fixture, shared with tests/test_browser.py


@pytest.fixture(scope="module")
def app_url() -> Iterator[str]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    yield from serve("cluster")


def test_label_breakdown_shows_bars_per_pod_and_loads_one(browser: Any, app_url: str) -> None:
    t0 = (int(time.time() * 1000) - 30 * MINUTE) // MINUTE * MINUTE  # inside the app's default "Last hour"
    with PyroscopeServer(cluster=demo_cluster(t0)) as server:
        page, seen = watched_page(browser)
        open_app(page, app_url)
        sidebar = page.locator('[data-testid="stSidebar"]')
        page.get_by_text("Pyroscope server").click()
        page.get_by_role("textbox", name="Server URL").fill(server.url)
        page.get_by_role("textbox", name="Server URL").press("Enter")
        page.get_by_role("button", name="Connect").click()
        page.get_by_role("button", name="Show the breakdown").click()
        page.get_by_text("Whole selection 241.0 GB").wait_for(timeout=60_000)
        over_time = sidebar.get_by_text("Over time,")
        over_time.wait_for(timeout=30_000)
        assert over_time.inner_text().endswith("steps, the 5 largest."), over_time.inner_text()
        charts = sidebar.locator(".vega-embed")
        charts.nth(1).wait_for(timeout=30_000)
        assert charts.count() == 2  # bars, then lines over time
        charts.nth(1).screenshot(path=str(ARTIFACTS / "label-breakdown-over-time.png"))
        pick = sidebar.get_by_role("combobox", name="Load the profile of one k8s_podName")
        shown = pick.evaluate(
            "(el) => el.value || el.getAttribute('aria-label') || el.closest('[data-testid=stSelectbox]').innerText"
        )
        assert "vllm-2: 74.0 GB (30.7%)" in shown, shown  # the largest is picked first
        sidebar.screenshot(path=str(ARTIFACTS / "label-breakdown.png"))
        sidebar.screenshot(path=str(ARTIFACTS / "label-breakdown.png"))
        page.get_by_role("button", name="Load its profile").click()
        page.get_by_text("74.0 GB", exact=True).first.wait_for(timeout=60_000)  # the headline's total
        page.screenshot(path=str(ARTIFACTS / "label-breakdown-loaded.png"), full_page=False)
        merges = [s.body["labelSelector"] for s in server.seen if s.path.endswith("SelectMergeStacktraces")]
        grouped = [s.body for s in server.seen if s.path.endswith("SelectSeries") and s.body.get("groupBy")]
    assert merges == ['{k8s_podName="vllm-2"}']  # the bars came from a grouped series, the click from one merge
    assert grouped and grouped[0]["groupBy"] == ["k8s_podName"]
    assert not seen["errors"] and not seen["outside"], seen


def test_the_chat_answers_which_pod_uses_the_most_on_a_server_profile(browser: Any, app_url: str) -> None:
    t0 = (int(time.time() * 1000) - 30 * MINUTE) // MINUTE * MINUTE
    with PyroscopeServer(cluster=demo_cluster(t0)) as server:
        page, seen = watched_page(browser)
        open_app(page, app_url)
        page.get_by_text("Pyroscope server").click()
        page.get_by_role("textbox", name="Server URL").fill(server.url)
        page.get_by_role("textbox", name="Server URL").press("Enter")
        page.get_by_role("button", name="Connect").click()
        page.get_by_role("button", name="Load profile").click()
        page.get_by_text("241.0 GB", exact=True).first.wait_for(timeout=60_000)
        answer = ask(page, "which pod uses the most GPU memory?", "uses the most GPU memory")
        text = answer.inner_text()
        page.screenshot(path=str(ARTIFACTS / "cluster-chat.png"), full_page=False)
    assert "vllm-2 uses the most GPU memory: 74.0 GB of 241.0 GB (30.7%)" in text
    assert "GPUModelRunner._allocate_kv_cache_tensors" in text
    assert not seen["errors"] and not seen["outside"], seen
