"""A vLLM V1 CPU profile written with py-spy's labels (``path/file.py:LINE - function``), for the reader's tests.

Made by the project (the shapes, not anyone's data): an engine core busy loop that schedules, runs the
model and waits for the GPU, an API server that detokenizes and serialises, the interpreter and a few
native frames (py-spy ``--native``), in CPU samples.
"""

from __future__ import annotations

from explainer.model import Profile
from explainer.readers import read_bytes

ROOT = "<module> (vllm/entrypoints/cli/main.py:75)"
CORE = [
    "vllm/v1/engine/core.py:701 - run_engine_core",
    "vllm/v1/engine/core.py:728 - run_busy_loop",
    "vllm/v1/engine/core.py:754 - _process_engine_step",
    "vllm/v1/engine/core.py:283 - step",
]
EXEC = [*CORE, "vllm/v1/executor/abstract.py:87 - execute_model", "vllm/v1/worker/gpu_worker.py:312 - execute_model",
        "vllm/v1/worker/gpu_model_runner.py:1234 - execute_model"]  # fmt: skip
FORWARD = [*EXEC, "vllm/model_executor/models/llama.py:390 - forward", "torch/nn/modules/module.py:1751 - _call_impl"]
API = [
    "vllm/entrypoints/openai/api_server.py:1121 - run_server",
    "uvloop/__init__.py:82 - run",
    "vllm/v1/engine/async_llm.py:402 - output_handler",
    "vllm/v1/engine/output_processor.py:367 - process_outputs",
]
STACKS: list[tuple[list[str], int]] = [
    ([*CORE, "vllm/v1/core/sched/scheduler.py:180 - schedule"], 157),
    (
        [
            *CORE,
            "vllm/v1/core/sched/scheduler.py:180 - schedule",
            "vllm/v1/core/kv_cache_manager.py:220 - allocate_slots",
        ],
        0,
    ),
    ([*CORE, "vllm/v1/core/sched/scheduler.py:741 - update_from_output"], 60),
    ([*EXEC, "vllm/v1/worker/gpu_model_runner.py:612 - _prepare_inputs"], 95),
    (
        [
            *EXEC,
            "vllm/v1/worker/gpu_model_runner.py:1390 - _sample",
            "torch/cuda/__init__.py:985 - synchronize",
            "cudaStreamSynchronize (libcudart.so.12)",
            "0x7f15c3a0",
        ],
        140,
    ),
    ([*FORWARD, "vllm/attention/layer.py:240 - forward", "cudaLaunchKernel (libcudart.so.12)"], 110),
    ([*FORWARD, "vllm/model_executor/layers/linear.py:510 - forward", "cudaLaunchKernel (libcudart.so.12)"], 70),
    (
        [
            *API,
            "vllm/v1/engine/detokenizer.py:118 - update",
            "tokenizers/implementations/base_tokenizer.py:301 - decode",
        ],
        120,
    ),
    (
        [
            *API,
            "vllm/v1/engine/detokenizer.py:160 - _protected_step",
            "transformers/tokenization_utils_fast.py:690 - convert_ids_to_tokens",
        ],
        45,
    ),
    ([*API, "vllm/v1/serial_utils.py:88 - encode", "msgspec/_core.py:1 - encode"], 40),
    (["_PyEval_EvalFrameDefault (libpython3.12.so.1.0)", "gc_collect_main (libpython3.12.so.1.0)"], 30),
    ([*CORE, "vllm/v1/engine/core.py:760 - _process_input_queue", "queue.py:171 - get", "threading.py:359 - wait"], 50),
    (["0x7f15c3b8", "0x7f15c3a0"], 24),
    (["epoll_wait_[k]"], 10),
]


def folded() -> str:
    return "".join(f"{';'.join([ROOT, *stack])} {value}\n" for stack, value in STACKS if value)


def pyspy_vllm_profile() -> Profile:
    return read_bytes(folded().encode(), location="pyspy-vllm.folded")
