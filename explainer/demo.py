"""The bundled demo: the vLLM GPU-memory profile from the seed document, reproduced exactly.

The seed's numbers: 74.7 GB allocated in all; ``GPUModelRunner._allocate_kv_cache_tensors``
allocates 55.1 GB itself (the KV cache, 73.8%); model weights 13.8 GB (18.5%, unquantised);
torch.compile 1.07 GB (about 1.44%); CUDA-graph capture 4.2 GB; the runtime (profiling-run
activations, the cuBLAS workspace, unresolved driver code) 0.53 GB, under 1%. The KV-cache chain is the seed's
own example, entry first. Values are cumulative bytes allocated through ``cuMemAlloc*``, as
the AKS GPU profiler (Inspektor Gadget) reports them: sample type ``malloc``, unit ``bytes``.

``python -m explainer.demo`` (``make fixtures``) rewrites the repository's
``fixtures/demo_vllm_gpu.pb.gz`` (``explainer.fixtures`` in a wheel) from this table; ``--demo`` in
place of a SOURCE reads the same profile.
"""

from __future__ import annotations

import sys
from pathlib import Path

from explainer.model import Profile, ProfileBuilder, SampleType, Source

GB = 10**9
ENTRY = ["0x7f151", "<interpreter trampoline>", "<module>", "EngineCoreProc.run_engine_core", "EngineCore.__init__"]
KV = ["EngineCore._initialize_kv_caches", "Worker.initialize_from_config", "GPUModelRunner.initialize_kv_cache"]
LOAD = [
    "Worker.load_model",
    "GPUModelRunner.load_model",
    "get_model",
    "BaseModelLoader.load_model",
    "initialize_model",
    "LlamaForCausalLM.__init__",
]
LAYER = ["LlamaModel.__init__", "make_layers", "make_layers.<locals>.<lambda>", "LlamaDecoderLayer.__init__"]
PROFILE_RUN = [
    "EngineCore._initialize_kv_caches",
    "Worker.determine_available_memory",
    "GPUModelRunner.profile_run",
    "GPUModelRunner._dummy_run",
]
COMPILE = [
    *PROFILE_RUN,
    "LlamaForCausalLM.forward",
    "<interpreter trampoline>",
    "_TorchDynamoContext.__call__.<locals>._fn",
    "compile_fx",
    "compile_fx_inner",
]
FORWARD = [*PROFILE_RUN, "LlamaForCausalLM.forward", "LlamaModel.forward", "LlamaDecoderLayer.forward"]

SEED_CHAIN = (*ENTRY, *KV, "GPUModelRunner._allocate_kv_cache_tensors")
"""The seed document's example, entry point first: the chain to the biggest allocation."""

# (stack below ENTRY, bytes); the first row is the seed's example chain
STACKS: list[tuple[list[str], int]] = [
    (list(SEED_CHAIN[len(ENTRY) :]), 55_100_000_000),
    (
        [
            *LOAD,
            *LAYER,
            "LlamaMLP.__init__",
            "MergedColumnParallelLinear.__init__",
            "UnquantizedLinearMethod.create_weights",
        ],
        5_800_000_000,
    ),
    (
        [*LOAD, *LAYER, "LlamaMLP.__init__", "RowParallelLinear.__init__", "UnquantizedLinearMethod.create_weights"],
        2_900_000_000,
    ),
    (
        [
            *LOAD,
            *LAYER,
            "LlamaAttention.__init__",
            "QKVParallelLinear.__init__",
            "UnquantizedLinearMethod.create_weights",
        ],
        1_700_000_000,
    ),
    (
        [
            *LOAD,
            *LAYER,
            "LlamaAttention.__init__",
            "RowParallelLinear.__init__",
            "UnquantizedLinearMethod.create_weights",
        ],
        1_600_000_000,
    ),
    (
        [*LOAD, "LlamaModel.__init__", "VocabParallelEmbedding.__init__", "UnquantizedEmbeddingMethod.create_weights"],
        1_000_000_000,
    ),
    ([*LOAD, "ParallelLMHead.__init__", "UnquantizedEmbeddingMethod.create_weights"], 800_000_000),
    ([*COMPILE, "_compile_fx_inner"], 720_000_000),
    ([*COMPILE, "_compile_fx_inner", "CachingAutotuner.benchmark_all_configs"], 350_000_000),
    (
        [
            "EngineCore._initialize_kv_caches",
            "Worker.compile_or_warm_up_model",
            "GPUModelRunner.capture_model",
            "CUDAGraphWrapper.__call__",
            "CUDAGraph.capture_begin",
        ],
        4_200_000_000,
    ),
    ([*FORWARD, "LlamaMLP.forward", "MergedColumnParallelLinear.forward"], 100_000_000),
    ([*PROFILE_RUN[:-1], "GPUModelRunner._dummy_sampler_run", "Sampler.forward"], 100_000_000),
    ([*FORWARD, "LlamaAttention.forward", "at::cuda::getCurrentCUDABlasLtHandle", "cublasLtCreate"], 130_000_000),
    (["EngineCore._initialize_kv_caches", "libcuda.so.1+0x2f1a0"], 200_000_000),
]

SAMPLE_TYPE = SampleType("malloc", "bytes")
FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "demo_vllm_gpu.pb.gz"  # the repository's fixtures/


def demo_profile() -> Profile:
    builder = ProfileBuilder(SAMPLE_TYPE)
    for stack, value in STACKS:
        builder.add([*ENTRY, *stack], value)
    return builder.build(
        sample_types=(SAMPLE_TYPE,),
        source=Source("demo", "vLLM GPU memory (demo)", "pprof", query="process_cpu:malloc:bytes::"),
        labels=(("k8s_namespace", "inference"), ("k8s_podName", "vllm-llama-0")),
    )


S = 10**9  # CPU time is in nanoseconds
CPU_ENTRY = ["<module>", "<interpreter trampoline>", "uvloop.run", "run_server"]
ENGINE = ["EngineCoreProc.run_engine_core", "EngineCoreProc.run_busy_loop", "EngineCore.step"]
EXECUTE = [*ENGINE, "GPUModelRunner.execute_model"]
MODEL_FORWARD = [*EXECUTE, "LlamaForCausalLM.forward", "LlamaModel.forward", "LlamaDecoderLayer.forward"]
SERVING = ["OpenAIServingChat.create_chat_completion"]
OUTPUT = ["AsyncLLM.output_handler", "OutputProcessor.process_outputs"]

# A vLLM OpenAI-compatible server under load, one minute of CPU time (ns), sampled by a Python profiler.
CPU_STACKS: list[tuple[list[str], int]] = [
    ([*MODEL_FORWARD, "LlamaAttention.forward", "cudaLaunchKernel"], 9_800_000_000),
    ([*MODEL_FORWARD, "LlamaMLP.forward", "cudaLaunchKernel"], 4_100_000_000),
    ([*OUTPUT, "IncrementalDetokenizer.update", "PreTrainedTokenizerFast.decode"], 7_200_000_000),
    ([*EXECUTE, "GPUModelRunner._prepare_inputs"], 6_500_000_000),
    ([*EXECUTE, "Sampler.forward", "torch.multinomial"], 2_700_000_000),
    ([*ENGINE, "Scheduler.update_from_output"], 3_000_000_000),
    ([*ENGINE, "Scheduler.schedule"], 2_100_000_000),
    ([*SERVING, "OpenAIServingChat.chat_completion_stream_generator", "json.dumps"], 2_400_000_000),
    ([*SERVING, "OpenAIServingChat._preprocess_chat", "apply_hf_chat_template", "Template.render"], 1_800_000_000),
    ([*ENGINE, "MsgpackEncoder.encode", "pickle.dumps"], 1_500_000_000),
    ([*OUTPUT, "zmq.Socket.send_multipart"], 900_000_000),
    (["_PyEval_EvalFrameDefault", "gc_collect_main"], 1_100_000_000),
    (["0x55d1c3a2f0"], 300_000_000),
]
CPU_SAMPLE_TYPE = SampleType("cpu", "nanoseconds")


def demo_cpu_profile() -> Profile:
    """A CPU profile of a vLLM server (not from the seed): for CPU answers, tests and the eval set."""
    builder = ProfileBuilder(CPU_SAMPLE_TYPE)
    for stack, value in CPU_STACKS:
        builder.add([*CPU_ENTRY, *stack], value)
    return builder.build(
        sample_types=(CPU_SAMPLE_TYPE,),
        source=Source("demo", "vLLM CPU (demo)", "pprof", query="process_cpu:cpu:nanoseconds:cpu:nanoseconds"),
        labels=(("k8s_namespace", "inference"), ("k8s_podName", "vllm-llama-0")),
    )


def main() -> int:
    from explainer.writers import to_pprof

    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    FIXTURE.write_bytes(to_pprof(demo_profile()))
    sys.stderr.write(f"wrote {FIXTURE}\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
