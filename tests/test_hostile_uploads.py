"""Small uploads that ask the app for a great deal (issue 26: a 44 KB upload took the server to 927 MB).

GIVEN each small amplifier of ``bench/amplify.py``'s ``UPLOADS`` (deep recursion by repeated
location ids, one stack of 10k distinct names, thousands of long names, 256 sample types, the names
bound) THEN it is refused with one line naming its bound, or everything the page sends the browser
is bounded: bars, levels, characters of a name, rows of the tables; and where a bound cuts, the
page says so. The cut keeps every total exact. The app's analyses are bounded in time and in
flight, each failure one line naming its variable. The browser side is ``test_browser_hostile.py``.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import re
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from conftest import use_packaged_streamlit_settings
from explainer.analysis.difftree import diff_tree
from explainer.analysis.sandwich import sandwich, sandwich_walks
from explainer.analysis.tree import CallTree, build_tree
from explainer.analysis.tree_depth import MAX_DRAWN_DEPTH, cut_depth
from explainer.model import ProfileBuilder, SampleType
from explainer.readers import ReadOptions, read_bytes
from explainer.readers.cost import CostBudget, CostLimitError
from explainer.ui import flamegraph, gate, sources, views
from explainer.ui.cache import summary as shared_summary
from explainer.work_gate import BusyError, WorkGate

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from amplify import UPLOADS, folded_long_names, pprof_recursion

APP = str(Path(__file__).resolve().parent.parent / "app.py")
kb = importlib.import_module("explainer.knowledge.classify")  # the package exports a function of that name
MAX_BARS = 8192 + 1  # the node budget and the root


def exact(tree: CallTree) -> bool:
    inner = np.zeros(tree.size, dtype=np.int64)
    np.add.at(inner, tree.parent[1:], tree.total[1:])
    return bool((tree.total == tree.self + inner).all())


@pytest.mark.parametrize("name", list(UPLOADS))
def test_every_small_amplifier_is_refused_or_bounded_on_the_page(name: str) -> None:
    data = UPLOADS[name]()
    assert len(data) <= 80_000, "a small upload"
    try:
        profile = sources.load_upload(name, len(data), lambda: data)
    except CostLimitError as exc:
        assert "\n" not in str(exc) and "over the bound of" in str(exc) and "EXPLAINER_MAX_" in str(exc)
        return
    summary = shared_summary(profile)
    flame = flamegraph.flame_data(summary.profile)
    payload = flame.payload
    assert len(payload["parent"]) <= MAX_BARS
    assert int(flame.tree.depth.max()) <= MAX_DRAWN_DEPTH + 1
    assert max((len(n) for n in payload["names"]), default=0) <= flamegraph.NAME_CAP
    assert max((len(m) for m in payload["meanings"]), default=0) <= 600
    assert len(json.dumps(payload)) < 2_000_000
    assert exact(flame.tree) and int(flame.tree.total[0]) == summary.total
    table = views.function_table(summary)
    assert table.empty or (table["function"].str.len().max() <= 200 and table["meaning"].str.len().max() <= 600)
    chain = views.chain_table(summary)
    assert chain is None or len(views.chain_rows(chain)) <= views.TABLE_ROWS


def test_a_deep_graph_is_cut_at_the_depth_bound_and_the_caption_says_so() -> None:
    profile = read_bytes(pprof_recursion(4_000, 50))
    flame = flamegraph.flame_data(profile)
    assert int(flame.tree.depth.max()) == MAX_DRAWN_DEPTH + 1  # the `other` bars above the last level
    assert flame.cut_nodes == 4_000 - MAX_DRAWN_DEPTH and flame.cut_value == profile.total
    text = flamegraph.caption(flame, profile)
    assert f"deeper than {MAX_DRAWN_DEPTH} levels are cut" in text and "count every frame" in text
    marker = flame.payload["otherId"]
    deepest = int(np.argmax(flame.tree.depth))
    assert flame.payload["func"][deepest] == marker  # drawn grey, never offered as a sandwich
    # the sandwich's graphs and the diff's are cut alike, and the diff's sides still add up
    above, _ = (flamegraph.payload(build_tree(profile, walk=w), len(profile.names), rooted=True) for w in
                sandwich_walks(profile, 0))  # fmt: skip
    assert len(above[0]["parent"]) <= MAX_DRAWN_DEPTH + 2
    diff = flamegraph.diff_payload(diff_tree(read_bytes(pprof_recursion(3_000, 20)), profile))[0]
    assert len(diff["parent"]) <= MAX_DRAWN_DEPTH + 2
    assert all(b + a == t for b, a, t in zip(diff["before"], diff["after"], diff["total"], strict=True))


def test_cutting_keeps_totals_exact_on_a_branching_tree() -> None:
    b = ProfileBuilder(SampleType("alloc_space", "bytes"))
    for i in range(40):
        b.add(["main", *(f"f{j % 7}" for j in range(i)), f"leaf{i}"], 10 + i)
    profile = b.build()
    tree = build_tree(profile)
    for depth in (1, 5, 20):
        cut = cut_depth(tree, len(profile.names), depth, carried=(tree.total,))
        assert exact(cut.tree) and int(cut.tree.depth.max()) <= depth + 1
        assert int(cut.tree.total[0]) == profile.total
        assert (cut.carried[0] == cut.tree.total).all()  # a carried array is cut as the totals are
    assert cut_depth(tree, len(profile.names), 100).tree is tree  # within the bound: untouched


def test_the_sandwich_reads_in_chunks_and_agrees(monkeypatch: pytest.MonkeyPatch) -> None:
    b = ProfileBuilder(SampleType("cpu", "nanoseconds"))
    rng = np.random.default_rng(5)
    for i in range(300):
        b.add(["main", *(f"r{x}" for x in rng.integers(0, 4, size=int(rng.integers(1, 30))))], 1 + i)
    profile = b.build()
    fid = profile.function_id("r1")
    assert fid is not None
    whole = sandwich(profile, fid, limit=50), sandwich_walks(profile, fid)
    monkeypatch.setattr("explainer.analysis.sandwich.CHUNK", 7)  # stacks split across many chunks
    chunked = sandwich(profile, fid, limit=50), sandwich_walks(profile, fid)
    assert chunked[0] == whole[0]
    for a, b_ in zip(chunked[1], whole[1], strict=True):
        assert all(np.array_equal(getattr(a, f), getattr(b_, f)) for f in ("stacks", "starts", "lengths"))


def test_classification_of_long_names_is_bounded_and_the_combined_pattern_agrees() -> None:
    forms = kb.candidates("a." * 20_000 + "Worker.load_model")
    assert len(forms) < 300 and all(len(f) <= kb.FORM_LIMIT for f in forms[1:])
    assert kb.lookup("vllm.v1.worker." + "m." * 2_000 + "Worker.load_model") is not None  # its short forms still match
    assert kb.lookup("Worker" + "W" * 600 + ".load_model") is None  # a form past the limit is never scanned
    # the py-spy shape still reaches its function; a pattern's match on an address-shaped name does not count
    assert kb.lookup("gpu_model_runner.py:12 - GPUModelRunner.profile_run").pattern == "GPUModelRunner.profile_run"
    assert kb.lookup("ncclAllReduce").pattern == "^nccl\\w+$" and kb.lookup("ncclAllReduce+0x12") is None
    table = kb._table()
    probes = [e.pattern.strip("^$").replace("\\w*", "X").replace("\\w+", "X").replace("\\.", ".") for e in kb.entries()]
    for probe in [*probes, "GPUModelRunner.load_model", "nccl_allreduce", "c10d::ProcessGroupNCCL::x", "f"]:
        loop = next((e for e in table.regexes if re.match(e.pattern, probe)), None)  # each pattern on its own
        assert kb._regex_entry(probe) is loop, probe


def test_the_name_characters_bound_refuses_with_one_line() -> None:
    data = folded_long_names(30, 4_000)
    with pytest.raises(CostLimitError) as info:
        read_bytes(data, ReadOptions(cost=CostBudget(max_name_chars=100_000)))
    assert "\n" not in str(info.value) and "EXPLAINER_MAX_NAME_CHARS=" in str(info.value)
    read_bytes(data, ReadOptions(cost=CostBudget(max_name_chars=200_000)))


def test_the_app_gate_waits_for_a_slot_within_its_time_and_names_its_variables() -> None:
    app_gate = WorkGate("the app's analysis", timeout=1, slots=1, variables=("EXPLAINER_APP_TIMEOUT",
                        "EXPLAINER_APP_MAX_ANALYSES"), queue=True)  # fmt: skip
    held, release = threading.Event(), threading.Event()

    def work() -> None:
        held.set()
        release.wait()

    def hold() -> None:  # keeps the one slot until released; whether its own caller gave up first is timing
        with contextlib.suppress(BusyError):
            app_gate.run(work)

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(30)  # the slot is taken before the second request asks for it
    try:
        with pytest.raises(BusyError) as busy:
            app_gate.run(lambda: 1)  # waits its time for the one slot, which stays taken
        assert "EXPLAINER_APP_MAX_ANALYSES" in str(busy.value) and "\n" not in str(busy.value)
    finally:
        release.set()
        holder.join()
    assert app_gate.run(lambda: 2) == 2  # the slot is free again
    with pytest.raises(BusyError, match=r"longer than 1 s.*EXPLAINER_APP_TIMEOUT"):
        app_gate.run(lambda: threading.Event().wait(3))


@pytest.fixture
def app_env(monkeypatch: pytest.MonkeyPatch) -> Any:
    use_packaged_streamlit_settings()
    gate.reset()
    yield monkeypatch
    gate.reset()


def test_the_page_says_which_bound_stopped_an_upload(app_env: pytest.MonkeyPatch) -> None:
    app_env.setenv("EXPLAINER_APP_TIMEOUT", "1")
    slow = threading.Event()
    original = sources.read_bytes

    def slow_read(*args: Any, **kwargs: Any) -> Any:
        slow.wait(3)  # an analysis that runs past the app's time bound
        return original(*args, **kwargs)

    app_env.setattr(sources, "read_bytes", slow_read)
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.radio(key="source_kind").set_value(sources.UPLOAD).run()
    at.file_uploader(key="upload_main").set_value(("slow.folded", b"main;slow 1\n", "application/octet-stream"))
    at.run()
    errors = [e.value for e in at.error]
    assert any("longer than 1 s" in e and "EXPLAINER_APP_TIMEOUT" in e for e in errors), errors
    assert not at.exception
    slow.set()


def test_amplifier_uploads_leave_the_page_working(app_env: pytest.MonkeyPatch) -> None:
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.radio(key="source_kind").set_value(sources.UPLOAD).run()
    for name in ("pprof, 4,000-frame recursion x 5,000 samples", "folded, 1,000 names of 40,000 characters"):
        at.file_uploader(key="upload_main").set_value((f"{name}.bin", UPLOADS[name](), "application/octet-stream"))
        at.run()
        assert not at.exception, [e.value for e in at.exception]
    assert any("EXPLAINER_MAX_NAME_CHARS" in e.value for e in at.error)  # the long names: one line
    at.file_uploader(key="upload_main").set_value(("deep.pb.gz", pprof_recursion(4_000, 5_000), "application/x"))
    at.run()
    graph = json.loads(at.get("bidi_component")[0].proto.json)
    assert len(graph["parent"]) <= MAX_DRAWN_DEPTH + 2
    assert any(f"deeper than {MAX_DRAWN_DEPTH} levels are cut" in c.value for c in at.caption)
