"""GPU-memory truth (issue 23): what the profile can and cannot see, reconciled with the budget.

GIVEN profiles built from the AKS profiler's documented behaviour (cumulative cuMemAlloc bytes,
count-valued cuMemFreeAsync/cuMemPoolCreate frames in the same profile, nothing mapped through
cuMemCreate, nothing before it attached), a GPU budget and vLLM's own start-up lines
WHEN the analysis, the reports and the chat read them
THEN byte totals leave the call counts out and say so, the audit reconciles the budget to the byte
and ranks why the rest is not visible, and settings are answered with their versions and risks.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from explainer.analysis.summary import summarize
from explainer.cli.main import main
from explainer.explain import Conversation
from explainer.knowledge import category_breakdown
from explainer.knowledge.visibility import Budget, audit, vllm_generation
from explainer.knowledge.vllm_log import MAX_BYTES, parse
from explainer.model import Profile, ProfileBuilder, SampleType
from explainer.report.handoff import handoff_markdown
from explainer.writers import to_pprof

GiB = 2**30
GB = 10**9
ROOT = ["_start", "<module>", "EngineCoreProc.run_engine_core"]
INIT = [*ROOT, "EngineCore.__init__"]
KV = [*INIT, "EngineCore._initialize_kv_caches", "Worker.initialize_from_config", "GPUModelRunner.initialize_kv_cache"]
KV += ["GPUModelRunner._allocate_kv_cache_tensors"]
WEIGHTS = [*INIT, "Worker.load_model", "GPUModelRunner.load_model", "LlamaMLP.__init__"]
WEIGHTS += ["UnquantizedLinearMethod.create_weights"]
SERVE = [*ROOT, "EngineCoreProc.run_busy_loop", "EngineCore.step", "GPUModelRunner.execute_model"]
SERVE += ["LlamaMLP.forward", "UnquantizedLinearMethod.apply"]
ALLOC = ["at::native::empty_cuda", "c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc"]
CUDA = [*ALLOC, "cudaMalloc", "cuMemAlloc_v2"]
LOG = """\
(EngineCore_0 pid=42) INFO 06-10 12:00:01 [gpu_model_runner.py:1890] Model loading took 14.99 GiB and 6.1 seconds
(EngineCore_0 pid=42) INFO 06-10 12:00:09 [gpu_worker.py:227] Memory profiling takes 8.61 seconds. Total non KV \
cache memory: 19.24GiB; torch peak memory increase: 4.23GiB; non-torch forward increase memory: 0.02GiB; weights \
memory: 14.99GiB.
(EngineCore_0 pid=42) INFO 06-10 12:00:09 [gpu_worker.py:230] Available KV cache memory: 51.79 GiB
(EngineCore_0 pid=42) INFO 06-10 12:00:09 [kv_cache_utils.py:716] GPU KV cache size: 424,176 tokens
"""
BUDGET = Budget(80 * GB, 0.92, None, parse(LOG))


def _profile(*stacks: tuple[list[str], int]) -> Profile:
    b = ProfileBuilder(SampleType("malloc", "bytes"))
    for stack, value in stacks:
        b.add(stack, value)
    return b.build()


def full_with_counts() -> Profile:
    """A vLLM profile with the newer gadget's count-valued frames beside its allocations."""
    return _profile(
        (KV + CUDA, 55 * GiB),
        (WEIGHTS + CUDA, 14 * GiB),
        (SERVE + CUDA, 2 * GiB),
        ([*SERVE, "c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::free", "cuMemFreeAsync"], 1234),
        ([*INIT, "c10::cuda::MemPool::MemPool", "cuMemPoolCreate"], 3),
    )


def sleep_mode() -> Profile:
    """vLLM's sleep mode: weights and KV cache go through its cumem allocator (cuMemCreate), unseen."""
    pool = [*INIT, "CuMemAllocator.use_memory_pool", "contextmanager.__enter__"]
    return _profile((SERVE + CUDA, 3 * GiB), ([*pool, "GPUModelRunner.profile_run", *CUDA], 1 * GiB))


def expandable() -> Profile:
    """PyTorch's expandable segments: the allocator maps segments with cuMemCreate (not hooked)."""
    seg = [*ALLOC, "c10::cuda::CUDACachingAllocator::Native::ExpandableSegment::map", "cuMemCreate"]
    return _profile((SERVE + CUDA, 2 * GiB), (SERVE + seg, 5 * GiB))


def attached_late() -> Profile:
    """The profiler attached after start-up: only the serving loop is in it."""
    return _profile((SERVE + CUDA, 6 * GiB), ([*SERVE[:-2], "Sampler.forward", *CUDA], 1 * GiB))


def _run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(args), out, err), out.getvalue(), err.getvalue()


# ------------------------------------------------------------------ count-valued frames


def test_count_frames_leave_every_byte_total_and_are_reported_as_calls() -> None:
    summary = summarize(full_with_counts())
    assert summary.total == (55 + 14 + 2) * GiB
    assert {c.name: c.calls for c in summary.counted} == {"cuMemFreeAsync": 1234, "cuMemPoolCreate": 3}
    assert sum(c.self for c in category_breakdown(summary.profile)) == summary.total
    assert "cuMemFreeAsync" not in {r.name for r in summary.top_self.rows}


def test_every_surface_says_the_count_frames_are_counts(tmp_path: Path) -> None:
    path = tmp_path / "counts.pb.gz"
    path.write_bytes(to_pprof(full_with_counts()))
    code, out, _ = _run("analyze", str(path), "--format", "json")
    got = json.loads(out)
    assert code == 0 and got["total"] == 71 * GiB
    assert {c["name"]: c["calls"] for c in got["counted"]} == {"cuMemFreeAsync": 1234, "cuMemPoolCreate": 3}
    assert any("count calls, not bytes" in n for n in got["truncation"]["notes"])
    _, text, _ = _run("analyze", str(path))
    assert "count calls, not bytes" in text and "1,234 calls" in text
    report = handoff_markdown(full_with_counts())
    assert "count calls, not bytes" in report
    answer = Conversation(full_with_counts(), mode="offline").ask("what uses the most memory?").markdown
    assert "counts calls, not bytes (1,234 calls)" in answer and "_Scope: values are cumulative bytes" in answer
    dutch = Conversation(full_with_counts(), mode="offline").ask("wat gebruikt het meeste geheugen?").markdown
    assert "telt aanroepen, geen bytes (1.234 aanroepen)" in dutch


def test_generated_vllm_profile_with_count_frames_keeps_its_byte_total() -> None:
    base = _profile((KV + CUDA, 7 * GiB), (SERVE + CUDA, 5 * GiB))
    b = ProfileBuilder(SampleType("malloc", "bytes"))
    for stack, value in base.stacks():
        b.add(stack, value)
    for i in range(50):
        b.add([*SERVE, f"free_{i % 3}", "cuMemFreeAsync"], 1)
    with_counts = summarize(b.build())
    assert with_counts.total == summarize(base).total
    assert with_counts.counted[0].calls == 50 and with_counts.counted[0].stacks == 50


def test_count_frames_mean_what_they_say_outside_byte_profiles() -> None:
    b = ProfileBuilder(SampleType("cpu", "nanoseconds"))
    b.add(["main", "cuMemFreeAsync"], 10)
    summary = summarize(b.build())
    assert summary.total == 10 and summary.counted == ()


# ------------------------------------------------------------------ the audit, to the byte


def _reconciled(a) -> None:  # type: ignore[no-untyped-def]
    assert a.budget is not None
    assert sum(p.vllm for p in a.parts) == a.budget
    assert sum(p.visible for p in a.parts) == a.explained
    assert a.explained + a.missing == a.budget
    for p in a.parts:
        assert p.visible + p.missing == p.vllm and p.visible == min(p.vllm, p.profile)


@pytest.mark.parametrize(
    ("make", "first"),
    [(sleep_mode, "cumem"), (expandable, "expandable"), (attached_late, "attached-late")],
)
def test_audit_reconciles_to_the_byte_and_ranks_the_reason(make, first: str) -> None:  # type: ignore[no-untyped-def]
    a = audit(summarize(make()), BUDGET)
    _reconciled(a)
    assert a.budget == 73_600_000_000  # 80 GB x 0.92
    weights, kv, rest = a.parts
    assert weights.vllm == round(14.99 * GiB) and kv.vllm == round(51.79 * GiB)
    assert rest.vllm == a.budget - weights.vllm - kv.vllm
    assert weights.profile == 0 and kv.profile == 0  # weights and KV cache are missing
    assert a.reasons[0].kind == first
    assert "attached-late" in {r.kind for r in a.reasons}  # no start-up frames in any of them
    assert a.generation == "V1"


def test_full_profile_is_explained_part_by_part() -> None:
    a = audit(summarize(full_with_counts()), BUDGET)
    _reconciled(a)
    weights, kv, _ = a.parts
    assert weights.profile == 14 * GiB and weights.visible == 14 * GiB
    assert kv.profile == 55 * GiB and kv.visible == kv.vllm  # a cumulative profile can exceed vLLM's part
    assert "attached-late" not in {r.kind for r in a.reasons}


def test_budget_from_the_log_alone_and_from_kv_cache_memory() -> None:
    summary = summarize(attached_late())
    v0 = parse(
        "the current vLLM instance can use total_gpu_memory (79.19GiB) x gpu_memory_utilization (0.90) = 71.27GiB\n"
        "model weights take 14.99GiB; non_torch_memory takes 0.14GiB; PyTorch activation peak memory takes "
        "4.35GiB; the rest of the memory reserved for KV Cache is 51.79GiB."
    )
    a = audit(summary, Budget(log=v0))
    _reconciled(a)
    assert a.budget == round(round(79.19 * GiB) * 0.90) and a.budget_from == "gpu x utilization"
    fixed = audit(summary, Budget(kv_cache_memory=40 * GiB, log=parse(LOG)))
    _reconciled(fixed)
    assert fixed.budget == round(19.24 * GiB) + 40 * GiB and fixed.parts[1].vllm == 40 * GiB


def test_near_empty_gpu_profile_gets_the_diagnosis_not_a_top_table(tmp_path: Path) -> None:
    tiny = _profile((SERVE + CUDA, 3 * 2**20))
    path = tmp_path / "tiny.pb.gz"
    path.write_bytes(to_pprof(tiny))
    code, out, _ = _run("analyze", str(path))
    assert code == 0 and "Top by self" not in out
    assert "profiler attached after start-up" in out
    answer = Conversation(tiny, mode="offline").ask("what uses the most GPU memory?").markdown
    assert "far less than a vLLM server reserves" in answer and "| # |" not in answer


def test_generation_is_read_from_the_frames() -> None:
    assert vllm_generation(["LLMEngine._initialize_kv_caches", "Worker.determine_num_available_blocks"]) == "V0"
    assert vllm_generation(["GPUModelRunner.load_model", "Worker.determine_available_memory"]) == "V1"
    assert vllm_generation(["main", "runtime.mallocgc"]) == ""


# ------------------------------------------------------------------ vLLM's log lines


def test_log_lines_of_real_shapes_are_read() -> None:
    log = parse(LOG)
    assert log.model_loading == round(14.99 * GiB) and log.weights == round(14.99 * GiB)
    assert log.non_kv == round(19.24 * GiB) and log.activation_peak == round(4.23 * GiB)
    assert log.available_kv == round(51.79 * GiB) and log.kv_tokens == 424_176
    assert log.lines == 4
    graphs = parse("INFO [gpu_model_runner.py:2500] Graph capturing finished in 12 secs, took 0.49 GiB")
    assert graphs.cuda_graphs == round(0.49 * GiB)
    assert parse("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True").expandable_segments


def test_log_reading_is_bounded_and_ignores_everything_else() -> None:
    noise = ("x" * 5000 + "\n") * 2000  # long lines, many of them
    assert not parse(noise).any
    late = "a\n" * (MAX_BYTES // 2) + "Available KV cache memory: 1.00 GiB\n"
    assert parse(late).available_kv is None  # beyond the bound: not read


def test_pasted_log_lines_are_remembered_and_answered_with_the_reconciliation() -> None:
    conv = Conversation(attached_late(), mode="offline", budget=Budget(80 * GB, 0.92))
    answer = conv.ask(LOG).markdown
    assert "73.6 GB budget" in answer and "not visible because the profiler attached after start-up" in answer
    again = conv.ask("where is the rest?").markdown
    assert "73.6 GB budget" in again and "424,176 tokens" in again


def test_where_is_the_rest_in_dutch() -> None:
    conv = Conversation(sleep_mode(), mode="offline", budget=BUDGET)
    answer = conv.ask("waarom zegt nvidia-smi meer?").markdown
    assert "Het profiel verklaart" in answer and "73,6 GB" in answer
    assert "geheugen met cuMemCreate gemapt is" in answer


# ------------------------------------------------------------------ CLI and config


def test_cli_budget_options_and_config_keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "late.pb.gz"
    path.write_bytes(to_pprof(attached_late()))
    log = tmp_path / "vllm.log"
    log.write_text(LOG)
    args = ["--gpu-memory", "80GB", "--gpu-memory-utilization", "0.92", "--vllm-log", str(log)]
    code, out, _ = _run("analyze", str(path), *args)
    assert code == 0 and "of the 73.6 GB budget" in out
    code, out, _ = _run("ask", str(path), "where is the rest?", "--llm", "offline", *args)
    assert code == 0 and "of the 73.6 GB budget" in out
    code, out, _ = _run("handoff", str(path), "--llm", "offline", *args)
    assert code == 0 and "## Visibility" in out and "of the 73.6 GB budget" in out
    config = tmp_path / "config.toml"
    config.write_text(
        f'current-context = "gpu"\n[contexts.gpu]\ngpu-memory = "80GB"\ngpu-memory-utilization = 0.92\n'
        f'vllm-log = "{log}"\n'
    )
    monkeypatch.setenv("EXPLAINER_CONFIG", str(config))
    code, out, _ = _run("analyze", str(path), "--format", "json")
    assert code == 0 and json.loads(out)["visibility"]["budget"] == 73_600_000_000


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--gpu-memory", "eighty"], "--gpu-memory: not a size"),
        (["--gpu-memory-utilization", "1.5"], "at most 1"),
        (["--vllm-log", "/nonexistent/vllm.log"], "--vllm-log: cannot read"),
    ],
)
def test_bad_budget_input_is_one_line_and_exit_2(args: list[str], message: str) -> None:
    code, _out, err = _run("analyze", "--demo", *args)
    assert code == 2 and message in err and err.count("\n") <= 2 and "Traceback" not in err


def test_vllm_log_without_memory_lines_is_an_error(tmp_path: Path) -> None:
    log = tmp_path / "other.log"
    log.write_text("hello\n")
    code, _, err = _run("analyze", "--demo", "--vllm-log", str(log))
    assert code == 2 and "no vLLM memory lines" in err


def test_tool_results_state_what_their_sizes_are_and_leave_the_counts_out() -> None:
    from explainer.explain.context import ProfileContext
    from explainer.mcp_server import tools

    report = tools.analyze(full_with_counts()).data
    shared = tools.run_shared(ProfileContext(full_with_counts()), "top_functions", {"order": "self"}).data
    assert report["total"] == shared["total"] == 71 * GiB
    assert report["meaning"].startswith("cumulative bytes") and shared["scope"].startswith("cumulative bytes")
    assert {c["name"] for c in report["counted"]} == {"cuMemFreeAsync", "cuMemPoolCreate"}


def test_settings_and_visibility_stay_offline_when_a_model_is_only_available() -> None:
    conv = Conversation(full_with_counts(), mode="auto", chat_model=object(), budget=BUDGET)  # type: ignore[arg-type]
    for question in ("should I set swap_space?", "where is the rest?"):
        answer = conv.ask(question)
        assert answer.mode == "offline" and not answer.verification.wrong


class _Sidebar:
    """The few Streamlit calls the sidebar's budget fields make."""

    def __init__(self, **values: str) -> None:
        self.values = values

    def expander(self, *_: object, **__: object) -> _Sidebar:
        return self

    def __enter__(self) -> _Sidebar:
        return self

    def __exit__(self, *_: object) -> None:
        return None

    def text_input(self, _label: str, *, key: str, **__: object) -> str:
        return self.values.get(key, "")

    def text_area(self, _label: str, *, key: str, **__: object) -> str:
        return self.values.get(key, "")


def test_app_sidebar_fields_make_the_same_budget() -> None:
    from explainer.ui.budget import sidebar

    got, errors = sidebar(_Sidebar(gpu_memory="80GB", gpu_util="0.92", vllm_log=LOG))
    assert errors == [] and got.gpu_memory == 80 * GB and got.utilization == 0.92 and got.log == parse(LOG)
    assert audit(summarize(attached_late()), got).budget == 73_600_000_000
    _, errors = sidebar(_Sidebar(gpu_memory="lots", gpu_util="2", vllm_log="hello"))
    assert len(errors) == 3


def test_the_apps_sidebar_budget_reaches_the_chat() -> None:
    from streamlit.testing.v1 import AppTest

    from conftest import use_packaged_streamlit_settings

    use_packaged_streamlit_settings()
    from explainer.ui import expanders

    at = AppTest.from_file(str(Path(__file__).resolve().parent.parent / "app.py"), default_timeout=60)
    at.session_state[expanders.BUDGET] = True  # its fields are drawn once the expander is open
    at.run()
    at.text_input(key="gpu_memory").set_value("80GB")
    at.text_input(key="gpu_util").set_value("0.92")
    at.text_area(key="vllm_log").set_value(LOG).run()
    assert not at.exception and not at.error
    at.chat_input[0].set_value("where is the rest?").run()
    reply = "\n".join(m.value for m in at.chat_message[-1].markdown)
    assert "73.6 GB budget" in reply and "vLLM's own breakdown" in reply


def test_the_apps_flame_graph_leaves_the_counts_out_and_says_so() -> None:
    import json as _json

    from streamlit.testing.v1 import AppTest

    from conftest import use_packaged_streamlit_settings
    from explainer.ui import sources

    use_packaged_streamlit_settings()
    at = AppTest.from_file(str(Path(__file__).resolve().parent.parent / "app.py"), default_timeout=60).run()
    at.radio(key="source_kind").set_value(sources.UPLOAD).run()
    at.file_uploader(key="upload_main").set_value(("counts.pb.gz", to_pprof(full_with_counts()), "application/gzip"))
    at.run()
    assert not at.exception
    names = _json.loads(at.get("bidi_component")[0].proto.json)["names"]
    assert "cuMemFreeAsync" not in str(names) and "GPUModelRunner._allocate_kv_cache_tensors" in str(names)
    assert any("count calls, not bytes" in w.value for w in at.warning)


def test_a_comparison_leaves_the_counts_out_of_both_sides() -> None:
    from explainer.analysis.diff import diff_profiles

    before = _profile((KV + CUDA, 55 * GiB), ([*SERVE, "cuMemFreeAsync"], 10))
    d = diff_profiles(before, full_with_counts())
    assert d.before.total == 55 * GiB and d.after.total == 71 * GiB
    assert "cuMemFreeAsync" not in {c.name for c in d.changes}
    assert any("count calls, not bytes" in n for n in d.notes)
