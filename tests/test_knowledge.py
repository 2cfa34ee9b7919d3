"""GPU-memory knowledge: categories match the generator's ground truth, "What is X?" is right.

Ground truth comes from the generator, not from our classifier: the test re-runs its
``Generator`` in-process with a recorder around ``phase_stack`` to learn each sample's phase.
Phases map to categories by purpose: kv_cache -> KV cache, weights -> model weights, compile ->
torch.compile / inductor, cudagraph -> CUDA graphs (even for forward-pass frames under
``capture_model``), profile_run and serve -> activations and workspace. The mapping is sound
because every phase allocates for exactly that purpose; the two activation phases differ only in
*when* activations are allocated, which a category of purpose does not distinguish.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from explainer import knowledge as kb
from explainer.model import Profile, ProfileBuilder, SampleType
from explainer.readers import read_path
from explainer.symbols import decode, explain_symbol

ROOT = Path(__file__).resolve().parent.parent
PHASE_CATEGORY = dict(kv_cache="kv-cache", weights="weights", compile="torch-compile", cudagraph="cuda-graphs")
PHASE_CATEGORY |= dict(profile_run="activations", serve="activations")


GENERATOR: Path | None = ROOT / "tools" / "gen_gpu_profile.py"  # our own generator, in the repository


def _load_generator() -> ModuleType:
    assert GENERATOR is not None
    spec = importlib.util.spec_from_file_location("gen_gpu_profile_under_test", GENERATOR)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _ground_truth(stacks: int, seed: int) -> Counter[str]:
    """Bytes per category according to the generator's own phases."""
    gen = _load_generator()
    phases: list[str] = []
    original = gen.phase_stack

    def recording(rng: Any, phase: str, target: int) -> Any:
        phases.append(phase)
        return original(rng, phase, target)

    gen.phase_stack = recording  # run() looks the function up in its module at call time
    prof = gen.Generator(stacks, 120, seed).run()
    assert len(phases) == len(prof.sample) == stacks
    truth: Counter[str] = Counter()
    for phase, sample in zip(phases, prof.sample, strict=True):
        truth[PHASE_CATEGORY[phase]] += sample.value[1]  # alloc_space/bytes
    return truth


@pytest.fixture(scope="module", params=[(3000, 1), (3000, 2)], ids=["seed1", "seed2"])
def generated(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Profile, Counter[str]]:
    if GENERATOR is None:
        pytest.skip("gen_gpu_profile.py not found in ../shared/tools or $EXPLAINER_SHARED/tools")
    stacks, seed = request.param
    out = tmp_path_factory.mktemp("gen") / f"gen_{stacks}_{seed}.pb.gz"
    args = [sys.executable, str(GENERATOR), "--stacks", str(stacks), "--seed", str(seed), "-o", str(out)]
    subprocess.run(args, check=True, capture_output=True, timeout=120)
    return read_path(out), _ground_truth(stacks, seed)


@pytest.mark.slow  # runs the profile generator per seed
def test_breakdown_matches_generator_ground_truth(generated: tuple[Profile, Counter[str]]) -> None:
    profile, truth = generated
    assert sum(truth.values()) == profile.total  # same data: the file and the in-process run agree
    got = {c.category: c.self for c in kb.category_breakdown(profile)}
    assert got == dict(truth)


def test_breakdown_invariants(generated: tuple[Profile, Counter[str]]) -> None:
    profile, _ = generated
    shares = kb.category_breakdown(profile)
    assert sum(c.self for c in shares) == profile.total
    assert abs(sum(c.share for c in shares) - 1.0) < 1e-9
    assert [c.self for c in shares] == sorted((c.self for c in shares), reverse=True)
    assert all(c.label == kb.label(c.category) for c in shares)
    assert len(kb.stack_categories(profile)) == profile.stack_count


def test_allocation_sites_skip_allocator_frames(generated: tuple[Profile, Counter[str]]) -> None:
    profile, _ = generated
    sites = kb.allocation_sites(profile, 1000)
    assert sum(s.self for s in sites) == profile.total  # every stack has exactly one site
    for s in sites:
        assert kb.classify(s.name) not in ("allocator/driver", "pytorch-ops", "interpreter", "unresolved"), s
    top = {s.name for s in kb.allocation_sites(profile, 8)}
    assert {"GPUModelRunner._allocate_kv_cache_tensors", "UnquantizedLinearMethod.create_weights"} <= top


def test_semantics_of_generated_gpu_profile(generated: tuple[Profile, Counter[str]]) -> None:
    profile, _ = generated
    s = kb.semantics(profile)
    assert s.gpu and "allocated" in s.meaning
    assert any("not memory in use" in c.text for c in s.caveats)


# the seed's vLLM example as folded stacks; upper-case words expand to the parts below
SEED_PARTS = {
    "ENTRY": "0x7f151;<interpreter trampoline>;<module>;EngineCoreProc.run_engine_core;EngineCore.__init__",
    "KV": "EngineCore._initialize_kv_caches;Worker.initialize_from_config;GPUModelRunner.initialize_kv_cache",
    "LOAD": "Worker.load_model;GPUModelRunner.load_model;get_model;LlamaForCausalLM.__init__",
    "ALLOC": "torch::autograd::THPVariable_empty;"
    "c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc;"
    "cudaMalloc;0x7f151a2b0440;cuMemAlloc_v2",
    "SERVE": "0x7f151;<interpreter trampoline>;<module>;EngineCoreProc.run_busy_loop;EngineCore.step;"
    "Worker.execute_model;GPUModelRunner.execute_model",
}
SEED_STACKS = [
    ("ENTRY;KV;GPUModelRunner._allocate_kv_cache_tensors;ALLOC", 55_100_000_000),
    ("ENTRY;LOAD;LlamaModel.__init__;LlamaMLP.__init__;UnquantizedLinearMethod.create_weights", 13_000_000_000),
    ("ENTRY;LOAD;ParallelLMHead.__init__;UnquantizedEmbeddingMethod.create_weights;ALLOC", 800_000_000),
    (
        "ENTRY;EngineCore._initialize_kv_caches;GPUModelRunner.profile_run;GPUModelRunner._dummy_run;"
        "PiecewiseBackend.__call__;PiecewiseBackend._maybe_compile_for_range_entry;compile_fx;"
        "CachingAutotuner.benchmark_all_configs;ALLOC",
        1_070_000_000,
    ),
    (
        "SERVE;LlamaForCausalLM.forward;LlamaModel.forward;LlamaAttention.forward;Attention.forward;"
        "FlashAttentionImpl.forward;ALLOC",
        400_000_000,
    ),
    ("SERVE;GPUModelRunner._sample;Sampler.forward;TopKTopPSampler.forward_native", 230_000_000),
    ("<unknown>", 4_100_000_000),  # native CUDA allocations with no Python stack (the guide's <unknown>)
]


def _demo_like() -> Profile:
    """The seed's vLLM example (IG guide numbers): 74.7 GB, KV 55.1, weights 13.8, compile 1.07."""
    b = ProfileBuilder(SampleType("malloc", "bytes"))
    for folded, value in SEED_STACKS:
        b.add(";".join(SEED_PARTS.get(part, part) for part in folded.split(";")).split(";"), value)
    return b.build()


def test_seed_example_shares() -> None:
    shares = {c.category: c for c in kb.category_breakdown(_demo_like())}
    assert f"{shares['kv-cache'].share:.1%}" == "73.8%"
    assert f"{shares['weights'].share:.1%}" == "18.5%"
    assert f"{shares['torch-compile'].share:.2%}" == "1.43%"  # 1.07 / 74.7 (the guide rounds to ~1.44%)
    assert shares["activations"].share < 0.01  # the inference runtime
    text = kb.format_breakdown(kb.category_breakdown(_demo_like()))
    assert text.startswith("KV cache 73.8%, model weights 18.5%, unresolved native code 5.5%, torch.compile")


def test_bundled_demo_fixture() -> None:
    path = ROOT / "fixtures" / "demo_vllm_gpu.pb.gz"  # built by the lead's `python -m explainer.demo`
    if not path.is_file():
        pytest.skip(f"{path} not built yet")
    shares = {c.category: c.share for c in kb.category_breakdown(read_path(path))}
    assert f"{shares['kv-cache']:.1%}" == "73.8%"
    assert f"{shares['weights']:.1%}" == "18.5%"
    assert f"{shares['torch-compile']:.1%}" == "1.4%"


# "What is X?": frame, category, a knob the answer must name
KNOWN = [
    ("GPUModelRunner._allocate_kv_cache_tensors", "kv-cache", "--gpu-memory-utilization"),
    ("GPUModelRunner > _allocate_kv_cache_tensors", "kv-cache", "--kv-cache-dtype"),
    ("vllm.v1.worker.gpu_model_runner.GPUModelRunner.initialize_kv_cache", "kv-cache", "--gpu-memory-utilization"),
    ("Worker.initialize_from_config", "kv-cache", "--gpu-memory-utilization"),
    ("CacheEngine._allocate_kv_cache", "kv-cache", "--kv-cache-dtype"),
    ("DynamicCache.update", "kv-cache", "cache_implementation"),
    ("UnquantizedLinearMethod.create_weights", "weights", "--quantization"),
    ("Fp8LinearMethod.create_weights", "weights", "--tensor-parallel-size"),
    ("LlamaMLP / __init__", "weights", "--quantization"),
    ("QKVParallelLinear.__init__", "weights", "--tensor-parallel-size"),
    ("DefaultModelLoader.load_weights", "weights", "--quantization"),
    ("PreTrainedModel.from_pretrained", "weights", "torch_dtype"),
    ("GPUModelRunner.profile_run", "activations", "--max-num-batched-tokens"),
    ("Worker.determine_num_available_blocks", "activations", "--max-num-batched-tokens"),
    ("FlashAttentionImpl.forward", "activations", "--max-num-batched-tokens"),
    ("TopKTopPSampler.forward_native", "activations", "--max-num-seqs"),
    ("cublasLtCreate", "activations", "CUBLAS_WORKSPACE_CONFIG"),
    ("GPUModelRunner.capture_model", "cuda-graphs", "--enforce-eager"),
    ("CUDAGraph.capture_begin", "cuda-graphs", "pool"),
    ("_compile_fx_inner", "torch-compile", "-O0"),
    ("CachingAutotuner.benchmark_all_configs", "torch-compile", "max-autotune"),
    ("ncclCommInitRank", "communication", "NCCL_BUFFSIZE"),
    ("CustomAllreduce.__init__", "communication", "--disable-custom-all-reduce"),
    ("c10::cuda::CUDACachingAllocator::raw_alloc", "allocator/driver", "expandable_segments"),
    ("cuMemAlloc_v2", "allocator/driver", "PYTORCH_CUDA_ALLOC_CONF"),
]


@pytest.mark.parametrize(("name", "category", "knob"), KNOWN)
def test_what_is_known_frame(name: str, category: str, knob: str) -> None:
    entry = kb.lookup(name)
    assert entry is not None
    assert kb.classify(name) == category
    text = kb.describe(name)
    assert f"category: {kb.label(category)}" in text
    assert knob in text
    assert entry.source.startswith("https://") and entry.source in text


def test_runtime_frames_have_categories_without_knobs_invented() -> None:
    assert kb.classify("<interpreter trampoline>") == "interpreter"
    assert kb.classify("_PyEval_EvalFrameDefault") == "interpreter"
    assert kb.classify("at::_ops::empty_memory_format::call") == "pytorch-ops"
    assert kb.classify("0x7f151a2b0440") == "unresolved"
    assert kb.classify("libcuda.so.1+0x2f1a0") == "unresolved"
    assert kb.classify("<unknown>") == "unresolved"


@pytest.mark.parametrize("name", ["my_app.train_step", "Trainer.fit", "Layer.forward_custom", "0x7f151", "<module>"])
def test_unknown_frame_falls_back_to_symbol_convention(name: str) -> None:
    assert kb.lookup(name) is None
    text = kb.describe(name)
    assert text == explain_symbol(name)
    assert decode(name).meaning in text
    for cat in kb.categories().values():  # no category, knob or source is claimed for it
        assert f"category: {cat.label}" not in text
    assert "https://" not in text and "--" not in text


def test_every_entry_is_complete() -> None:
    from explainer.knowledge.classify import entries

    seen = set()
    for e in entries():
        assert e.explanation and e.source.startswith("https://"), e.pattern
        assert e.category in kb.categories(), e.pattern
        seen.add(e.framework)
    assert {"vllm-v0", "vllm-v1", "pytorch", "transformers", "cpython", "cuda", "nccl"} <= seen


def test_empty_and_allocator_only_profiles() -> None:
    b = ProfileBuilder(SampleType("malloc", "bytes"))
    assert kb.category_breakdown(b.build()) == [] and kb.allocation_sites(b.build()) == []
    b.add(["_start", "Py_RunMain", "cudaMalloc", "0x7f151a2b0440", "cuMemAlloc_v2"], 10)  # no application frame
    b.add(["_start", "0x55d0c4a01230", "at::native::empty_cuda", "cudaMalloc"], 5)  # caller hidden in a raw frame
    b.add(["_start", "Py_RunMain", "<interpreter trampoline>"], 3)
    b.add(["<module>", "train.step", "at::native::empty_cuda", "cuMemAlloc_v2"], 7)
    got = {c.category: c.self for c in kb.category_breakdown(b.build())}
    assert got == {"allocator/driver": 10, "unresolved": 5, "interpreter": 3, "other/application": 7}
    sites = {s.name: s.category for s in kb.allocation_sites(b.build())}
    assert sites["train.step"] == "other/application" and sites["cuMemAlloc_v2"] == "allocator/driver"


def test_semantics_per_sample_type() -> None:
    def prof(t: str, u: str, leaf: str = "cuMemAlloc_v2") -> Profile:
        b = ProfileBuilder(SampleType(t, u))
        b.add(["main", leaf], 1)
        return b.build()

    aks = kb.semantics(prof("malloc", "bytes"))
    assert "cumulative" in aks.meaning and aks.gpu and aks.source.startswith("https://learn.microsoft.com")
    assert [c.kind for c in aks.caveats][:2] == ["cumulative", "before-start"]
    assert any("frees are not subtracted" in c.text for c in aks.caveats)
    assert any("before profiling started" in c.text for c in aks.caveats)
    assert "in use" in kb.semantics(prof("inuse_space", "bytes")).meaning
    assert "CPU time" in kb.semantics(prof("cpu", "nanoseconds")).meaning
    assert "waiting" in kb.semantics(prof("wall", "nanoseconds")).meaning
    unresolved = kb.semantics(prof("malloc", "bytes", leaf="0x7f151a2b0440"))
    assert unresolved.unresolved_share == 1.0
    assert any(c.kind == "unresolved-rerun" and "run the workload again" in c.text for c in unresolved.caveats)


@pytest.mark.slow  # 500k stacks and a CPU-time bound
def test_breakdown_is_fast_on_half_a_million_stacks() -> None:
    """500k stacks of ~80 frames (the size of the largest generated profile) well under 2 s."""
    rng = np.random.default_rng(1)
    base = _demo_like()
    reps = 500_000 // base.stack_count + 1
    lengths = np.tile(np.diff(base.offsets), reps)
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths * 6, out=offsets[1:])  # each stack 6x deeper: ~75 frames, like real ones
    frames = np.tile(np.repeat(base.frames, 6), reps).astype(np.int32)  # each frame 6x in place
    values = rng.integers(1, 1 << 30, len(lengths)).astype(np.int64)
    big = Profile(base.names, offsets, frames, values, base.sample_type)
    assert big.stack_count >= 500_000 and len(big.frames) > 30_000_000
    start = time.process_time()  # CPU time: other jobs on a shared machine do not count
    shares = kb.category_breakdown(big)
    assert time.process_time() - start < 2.0
    assert sum(c.self for c in shares) == big.total
