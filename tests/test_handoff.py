"""The handoff report: golden files (``EXPLAINER_UPDATE_GOLDEN=1`` rewrites them), valid GFM with
every table row as wide as its header, about a page long, deterministic offline, safe with
hostile names; plus the atomic ``-o``, the Grafana link and the peak window."""

from __future__ import annotations

import io
import json
import os
import re
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from conftest import profile_of
from explainer.analysis.peak import Window, find_peak, merge_series, peak_window
from explainer.cli.main import main
from explainer.demo import ENTRY, SAMPLE_TYPE, STACKS, demo_profile
from explainer.errors import EmptyResultError, QueryError
from explainer.model import Profile, ProfileBuilder, Source
from explainer.readers import ReadOptions, read_bytes
from explainer.report.handoff import handoff_markdown
from explainer.report.scope import explore_url, parse_query

GOLDEN = Path(__file__).resolve().parent / "golden" / "handoff"
UPDATE = os.environ.get("EXPLAINER_UPDATE_GOLDEN") == "1"

# a CPU profile of a small web service, folded; a third of it ends in unresolved addresses and
# one line is not a stack, so the report must state both
CPU_FOLDED = b"""\
python;<module>;app.main;Server.serve_forever;Handler.handle;render_page;Template.render 4200
python;<module>;app.main;Server.serve_forever;Handler.handle;render_page;json.dumps 1300
python;<module>;app.main;Server.serve_forever;Handler.handle;db.query;0x7f3a2b10 2600
python;<module>;app.main;Server.serve_forever;Handler.handle;db.query;libpq.so.5+0x1a2b0 900
python;<module>;app.main;Server.serve_forever;gc.collect 400
python;<interpreter trampoline>;0x7f3a2c00 1100
this line is not a stack
"""


def demo_baseline() -> Profile:
    """The demo as it might have looked a deploy earlier: a smaller KV cache, no CUDA graphs yet."""
    builder = ProfileBuilder(SAMPLE_TYPE)
    for stack, value in STACKS:
        if stack[-1] == "CUDAGraph.capture_begin":
            continue
        if stack[-1] == "GPUModelRunner._allocate_kv_cache_tensors":
            value = 40_000_000_000
        if stack[-1] == "Sampler.forward":
            value = 410_000_000  # +2.5%: noise
        builder.add([*ENTRY, *stack], value)
    return builder.build(source=Source("demo", "vLLM GPU memory (demo, previous deploy)", "pprof"))


def pyroscope_demo() -> Profile:
    """The demo as the Pyroscope client returns it: the query, the window and the server in ``source``."""
    query = (
        'process_cpu:malloc:bytes::{k8s_namespace="inference",k8s_podName="vllm-llama-0"} '
        "from 2026-08-21T10:00:00Z until 2026-08-21T11:00:00Z"
    )
    start_ms = 1_787_306_400_000
    return replace(
        demo_profile(),
        source=Source(
            "pyroscope",
            "http://127.0.0.1:4040",
            "connect-flamegraph",
            query=query,
            profile_type="process_cpu:malloc:bytes::",
            selector='{k8s_namespace="inference",k8s_podName="vllm-llama-0"}',
        ),
        time_ns=start_ms * 10**6,
        duration_ns=3_600 * 10**9,
    )


def cpu_profile() -> Profile:
    return read_bytes(CPU_FOLDED, ReadOptions(unit="nanoseconds"), location="cpu.folded")


CASES = {
    "demo": lambda: handoff_markdown(demo_profile()),
    "folded_cpu": lambda: handoff_markdown(cpu_profile()),
    "demo_vs_baseline": lambda: handoff_markdown(demo_profile(), demo_baseline()),
    "pyroscope_grafana": lambda: handoff_markdown(
        pyroscope_demo(), grafana_url="https://grafana.example.com", grafana_datasource="pyroscope-prod"
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name: str) -> None:
    report = CASES[name]()
    path = GOLDEN / f"{name}.md"
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(report, encoding="utf-8")
    assert path.is_file(), f"missing golden {path}; run with EXPLAINER_UPDATE_GOLDEN=1"
    assert report == path.read_text(encoding="utf-8"), f"{name} differs from {path} (EXPLAINER_UPDATE_GOLDEN=1)"


def split_row(line: str) -> list[str]:
    """GFM cells of one table row: split on pipes not escaped with a backslash (also inside code)."""
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    return re.split(r"(?<!\\)\|", body)


def table_blocks(lines: list[str]) -> list[range]:
    """Runs of consecutive lines that start with a pipe: what a reader sees as a table."""
    blocks, start = [], None
    for i, line in enumerate([*lines, ""]):
        if line.startswith("|") and start is None:
            start = i
        elif not line.startswith("|") and start is not None:
            blocks.append(range(start, i))
            start = None
    return blocks


def assert_valid_gfm(markdown: str) -> None:
    """Every table is a GFM table (header, delimiter row, rows as wide as the header) and a GFM
    parser (markdown-it with tables) finds exactly those tables; no raw HTML gets through."""
    lines = markdown.splitlines()
    blocks = table_blocks(lines)
    for block in blocks:
        width = len(split_row(lines[block[0]]))
        assert len(block) >= 2 and re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", lines[block[1]].strip()), lines[block[0]]
        assert len(split_row(lines[block[1]])) == width
        for i in block:
            assert len(split_row(lines[i])) == width, f"row {i + 1} has not {width} cells: {lines[i]}"
    try:
        from markdown_it import MarkdownIt
    except ImportError:  # pragma: no cover - markdown-it-py is a dev dependency; the checks above still ran
        return
    md = MarkdownIt("commonmark").enable("table")
    parsed = [range(*t.map) for t in md.parse(markdown) if t.type == "table_open" and t.map]
    assert parsed == blocks, f"tables parsed {parsed}, tables written {blocks}"
    html = md.render(markdown)
    assert "<script" not in html and "<img" not in html


@pytest.mark.parametrize("name", sorted(CASES))
def test_reports_are_valid_gfm_and_about_a_page(name: str) -> None:
    report = CASES[name]()
    assert_valid_gfm(report)
    assert len(report.splitlines()) < 80, f"{name} is {len(report.splitlines())} lines"
    assert report.count("\n## ") >= 6


def test_demo_report_names_the_seed_numbers() -> None:
    report = handoff_markdown(demo_profile())
    assert "**74.7 GB**" in report and "`GPUModelRunner._allocate_kv_cache_tensors`, **55.1 GB** self (73.8%" in report
    assert "`k8s_podName=vllm-llama-0`" in report and "not memory in use" in report
    assert "Nothing was truncated" in report and "explainer 0.1.0" in report
    assert re.search(r"Input sha256 `[0-9a-f]{64}`", report)


def test_deterministic_offline_and_time_only_when_given() -> None:
    first, second = handoff_markdown(demo_profile()), handoff_markdown(demo_profile())
    assert first == second and "Generated" not in first
    stamped = handoff_markdown(demo_profile(), now=datetime(2026, 8, 21, 12, 0, tzinfo=UTC))
    assert "- Generated 2026-08-21T12:00:00+00:00." in stamped


def test_a_summary_passed_in_does_not_change_the_report() -> None:
    # the app passes its own analysis (10 rows); the report still shows its own top 5
    from explainer.analysis.summary import Options, summarize

    profile = demo_profile()
    plain = handoff_markdown(profile)
    assert handoff_markdown(profile, summary=summarize(profile)) == plain
    assert handoff_markdown(profile, summary=summarize(profile, Options(top=1))) == plain


def test_truncation_and_unresolved_are_stated() -> None:
    report = handoff_markdown(cpu_profile())
    assert "1 input line(s) were not 'stack count' lines" in report
    assert "43.8% of the total ends in raw addresses" in report or "ends in unresolved native addresses" in report
    assert "Run the workload again" in report


def test_changes_against_baseline() -> None:
    report = handoff_markdown(demo_profile(), demo_baseline())
    section = report.split("## Changes against the baseline")[1].split("\n## ")[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    assert rows[0].startswith("| `GPUModelRunner._allocate_kv_cache_tensors` | 40.0 GB | 55.1 GB | +15.1 GB |")
    assert "Sampler.forward" not in section  # +2.5%: under the noise floor
    assert "biggest regression `GPUModelRunner._allocate_kv_cache_tensors` (+15.1 GB)" in report


def test_hostile_names_stay_text_and_tables_stay_tables() -> None:
    hostile = {
        "main;evil|name`code`": 500,
        "main;<script>alert(1)</script>": 400,
        "main;line\nbreak\u202e|x": 300,
        "main;[link](javascript:alert(1))": 200,
    }
    profile = replace(profile_of(hostile, "bytes"), labels=(("pod", "a|b`<img src=x>"),))
    report = handoff_markdown(profile, profile_of({"main;old|fn": 900}, "bytes"))
    assert_valid_gfm(report)
    assert "\u202e" not in report and "\nbreak" not in report


def test_grafana_link_opens_the_same_query_and_window() -> None:
    report = handoff_markdown(pyroscope_demo(), grafana_url="https://grafana.example.com/")
    url = re.search(r"\[open this query and window in Explore\]\(([^)\s]+)\)", report)
    assert url is not None
    parts = urlsplit(url.group(1))
    assert (parts.scheme, parts.netloc, parts.path) == ("https", "grafana.example.com", "/explore")
    query = parse_qs(parts.query)
    pane = next(iter(json.loads(query["panes"][0]).values()))
    target = pane["queries"][0]
    assert target["profileTypeId"] == "process_cpu:malloc:bytes::"
    assert target["labelSelector"] == '{k8s_namespace="inference",k8s_podName="vllm-llama-0"}'
    assert target["datasource"] == {"type": "grafana-pyroscope-datasource", "uid": "local-pyroscope"}
    assert pane["range"] == {"from": "1787306400000", "to": "1787310000000"}
    assert query["schemaVersion"] == ["1"] and query["orgId"] == ["1"]


def test_without_grafana_url_the_query_is_printed_to_paste() -> None:
    report = handoff_markdown(pyroscope_demo())
    assert "no --grafana-url given" in report and "`1787306400000` to `1787310000000`" in report
    assert "2026-08-21 10:00:00 UTC to 2026-08-21 11:00:00 UTC (1.0 h)" in report


def test_hostile_selector_cannot_leave_the_link() -> None:
    hostile = Source("pyroscope", "x", "connect-flamegraph", profile_type="t:a:b::", selector='{pod="x) [y](z <b> "}')
    profile = replace(pyroscope_demo(), source=hostile)
    query = parse_query(profile)
    assert query is not None
    url = explore_url("https://g.example", query)
    assert not set(url) & set(" ()<>[]\"'`")


@pytest.mark.parametrize("base", ["ftp://g", "https://user:pw@g", "https://g/(x)", "grafana"])
def test_bad_grafana_url_is_a_query_error(base: str) -> None:
    with pytest.raises(QueryError):
        handoff_markdown(pyroscope_demo(), grafana_url=base)


# --- the model summary, through a stand-in for explainer.explain ------------------------------


class FakeVerification:
    def __init__(self, checked: int, unverified: list[str]) -> None:
        self.checked, self.unverified = checked, unverified


class FakeAnswer:
    def __init__(self, markdown: str, mode: str, verification: FakeVerification) -> None:
        self.markdown, self.mode, self.verification = markdown, mode, verification


def fake_explain(monkeypatch: pytest.MonkeyPatch, answer: FakeAnswer) -> list[str]:
    asked: list[str] = []

    class Conversation:
        def __init__(self, profile: Profile, *, settings: object, mode: str, baseline: Profile | None) -> None:
            assert settings == "settings" and mode == "llm"

        def ask(self, question: str) -> FakeAnswer:
            asked.append(question)
            return answer

    import explainer.explain as explain

    monkeypatch.setattr(explain, "Conversation", Conversation, raising=False)
    return asked


def test_verified_model_summary_goes_on_top(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "The KV cache takes 55.1 GB (73.8%).\n<script>x</script>"
    asked = fake_explain(monkeypatch, FakeAnswer(text, "llm", FakeVerification(2, [])))
    report = handoff_markdown(demo_profile(), llm_settings="settings")
    assert asked and "handoff" in asked[0]
    head = report.split("## Scope")[0]
    assert "verified: all 2 number(s) checked against the profile" in head
    assert "> The KV cache takes 55.1 GB (73.8%)." in head and "<script>" not in report
    assert_valid_gfm(report)


def test_unverified_model_summary_is_left_out(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_explain(monkeypatch, FakeAnswer("It is 99 GB.", "llm", FakeVerification(1, ["99 GB"])))
    report = handoff_markdown(demo_profile(), llm_settings="settings")
    assert "99 GB" not in report and "left out: verification failed: 1 claim(s)" in report


def test_model_failure_falls_back_to_the_offline_report(monkeypatch: pytest.MonkeyPatch) -> None:
    offline = handoff_markdown(demo_profile())
    fallback = FakeAnswer("offline text", "offline", FakeVerification(0, []))
    fallback.notice = "the model timed out"  # type: ignore[attr-defined]
    fake_explain(monkeypatch, fallback)
    report = handoff_markdown(demo_profile(), llm_settings="settings")
    assert report.startswith("# On-call handoff") and "> No model summary: the model timed out" in report
    assert "offline text" not in report and report.endswith(offline.split("\n\n", 1)[1])


# --- CLI ---------------------------------------------------------------------------------------


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), out=out, err=err), out.getvalue(), err.getvalue()


@pytest.fixture
def demo_file(tmp_path: Path) -> str:
    """The demo as a pprof file (written here, so the tests do not depend on where the fixture lives)."""
    from explainer.writers import to_pprof

    path = tmp_path / "demo.pb.gz"
    path.write_bytes(to_pprof(demo_profile()))
    return str(path)


def test_cli_stdout_and_output_file(tmp_path: Path, demo_file: str) -> None:
    code, out, err = run_cli("handoff", demo_file, "--llm", "offline")
    assert code == 0 and err == "" and out.startswith(f"# On-call handoff: `{demo_file}`")
    target = tmp_path / "handoff.md"
    code, again, _ = run_cli("handoff", demo_file, "--llm", "offline", "-o", str(target))
    assert code == 0 and again == "" and target.read_text() == out


def test_cli_failure_keeps_the_previous_report(tmp_path: Path) -> None:
    target = tmp_path / "handoff.md"
    target.write_text("yesterday's report\n")
    code, _, err = run_cli("handoff", str(tmp_path / "missing.pb.gz"), "-o", str(target))
    assert code == 2 and err.startswith("explainer: error: no such file")
    assert target.read_text() == "yesterday's report\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["handoff.md"]  # no temporary file left


def test_cli_unwritable_output_is_one_line(tmp_path: Path, demo_file: str) -> None:
    code, _, err = run_cli("handoff", demo_file, "--llm", "offline", "-o", str(tmp_path / "no" / "dir" / "r.md"))
    assert code == 2 and err.startswith("explainer: error: cannot write") and err.count("\n") == 1


def test_cli_with_baseline_file(tmp_path: Path, demo_file: str) -> None:
    from explainer.writers import to_pprof

    base = tmp_path / "base.pb.gz"
    base.write_bytes(to_pprof(demo_baseline()))
    code, out, _ = run_cli("handoff", demo_file, "--baseline", str(base), "--llm", "offline")
    assert code == 0 and "## Changes against the baseline" in out and "+15.1 GB" in out


def test_cli_at_peak_needs_a_server(demo_file: str) -> None:
    code, _, err = run_cli("handoff", demo_file, "--at-peak")
    assert code == 2 and "--at-peak needs --server" in err


# --- the peak window ---------------------------------------------------------------------------


def test_peak_window_is_the_highest_step() -> None:
    stamps, values = [0, 60_000, 120_000, 180_000], [1.0, 5.0, 9.0, 2.0]
    w = peak_window(stamps, values, step_ms=60_000, range_start_ms=0, range_end_ms=240_000)
    assert w == Window(120_000, 180_000, 120_000, 9.0, 60_000)
    wide = peak_window(stamps, values, step_ms=60_000, range_start_ms=0, range_end_ms=200_000, around=1)
    assert (wide.start_ms, wide.end_ms) == (60_000, 200_000)  # clamped to the range


def test_peak_ties_go_to_the_earliest_and_nan_is_skipped() -> None:
    w = peak_window([0, 10, 20], [float("nan"), 4.0, 4.0], step_ms=10)
    assert w.peak_ms == 10


def test_no_peak_in_an_empty_or_zero_series() -> None:
    with pytest.raises(EmptyResultError):
        peak_window([], [], step_ms=10)
    with pytest.raises(EmptyResultError):
        peak_window([0, 10], [0.0, 0.0], step_ms=10)
    with pytest.raises(QueryError):
        peak_window([0], [1.0], step_ms=0)


def test_series_are_summed_per_timestamp() -> None:
    stamps, values = merge_series([[(0, 1.0), (10, 2.0)], [(10, 5.0), (20, float("inf"))]])
    assert (stamps, values) == ([0, 10], [1.0, 7.0])


def test_find_peak_asks_the_client_for_the_series() -> None:
    class Series:
        def __init__(self, points: tuple[tuple[int, float], ...]) -> None:
            self.points = points

    class Client:
        def __init__(self) -> None:
            self.calls: list[tuple[object, float]] = []

        def series(self, query: object, step_s: float) -> list[Series]:
            self.calls.append((query, step_s))
            return [Series(((0, 1.0), (60_000, 3.0))), Series(((60_000, 1.0), (120_000, 2.0)))]

    client = Client()
    w = find_peak(client, "q", 0, 3_600_000)
    assert client.calls == [("q", 60.0)]
    assert (w.peak_ms, w.peak_value, w.start_ms, w.end_ms) == (60_000, 4.0, 60_000, 120_000)


# --- against a local Pyroscope-compatible server ---------------------------------------------

GPU_TYPE = "process_cpu:malloc:bytes::"
START_MS, END_MS = 1_787_306_400_000, 1_787_310_000_000


def test_cli_at_peak_analyses_the_peak_step(tmp_path: Path) -> None:
    from pyroscope_server import PyroscopeServer

    with PyroscopeServer({GPU_TYPE: demo_profile()}) as server:
        code, out, err = run_cli(
            "handoff",
            "--server",
            server.url,
            "--profile-type",
            "gpu-memory",
            "--selector",
            '{k8s_podName="vllm-0"}',
            "--from",
            str(START_MS),
            "--until",
            str(END_MS),
            "--at-peak",
            "--llm",
            "offline",
            "--grafana-url",
            "https://grafana.example.com",
        )
        assert code == 0, err
        series = [s.body for s in server.seen if s.path.endswith("/SelectSeries")]
        merges = [s.body for s in server.seen if s.path.endswith("/SelectMergeStacktraces")]
    # THEN the series was asked once over the whole window, at a 1-minute step
    assert len(series) == 1 and (series[0]["start"], series[0]["end"], series[0]["step"]) == (START_MS, END_MS, 60.0)
    # AND the flame graph is of the peak step (the test series is flat: the first one)
    assert (merges[-1]["start"], merges[-1]["end"]) == (START_MS, START_MS + 60_000)
    assert "- Peak: the window is the step where the series peaked" in out
    assert "2026-08-21 10:00:00 UTC to 2026-08-21 10:01:00 UTC (1.0 min)" in out
    assert "`k8s_podName=vllm-0`" in out and "74.7 GB" in out
    url = re.search(r"\]\((https://grafana\.example\.com/explore\?[^)]+)\)", out)
    assert url is not None
    pane = next(iter(json.loads(parse_qs(urlsplit(url.group(1)).query)["panes"][0]).values()))
    assert pane["range"] == {"from": str(START_MS), "to": str(START_MS + 60_000)}
    assert_valid_gfm(out)


def test_cli_server_baseline_window() -> None:
    from pyroscope_server import PyroscopeServer

    with PyroscopeServer({GPU_TYPE: demo_profile()}) as server:
        code, out, err = run_cli(
            "handoff",
            "--server",
            server.url,
            "--from",
            str(START_MS),
            "--until",
            str(END_MS),
            "--baseline-from",
            str(START_MS - 86_400_000),
            "--baseline-until",
            str(END_MS - 86_400_000),
            "--llm",
            "offline",
        )
        assert code == 0, err
        windows = sorted((s.body["start"], s.body["end"]) for s in server.seen if "SelectMergeStacktraces" in s.path)
    assert windows == [(START_MS - 86_400_000, END_MS - 86_400_000), (START_MS, END_MS)]
    assert "No significant change by self" in out  # the test server serves the same profile for both
