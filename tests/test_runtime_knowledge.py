"""Each runtime's well-known frames have a curated meaning: GC, scheduling, JIT, the kernel, CUDA.

GIVEN a frame every profile of that runtime shows, WHEN the knowledge base looks it up, THEN it has
the category that tells the reader what it is for, and the runtime categories are looked through
(they carry work asked for elsewhere), so attribution still ends at application code.
"""

from __future__ import annotations

import pytest

from explainer import knowledge as kb
from explainer.explain import Conversation, LlmSettings
from explainer.model import ProfileBuilder, SampleType

WELL_KNOWN = [
    ("runtime.mallocgc", "gc", "go"),
    ("runtime.newobject", "gc", "go"),
    ("runtime.gcBgMarkWorker", "gc", "go"),
    ("runtime.gcDrain", "gc", "go"),
    ("runtime.findRunnable", "scheduler", "go"),
    ("runtime.park_m", "scheduler", "go"),
    ("G1CollectedHeap::do_collection_pause_at_safepoint", "gc", "jvm"),
    ("ObjArrayKlass::multi_allocate", "gc", "jvm"),
    ("C2Compiler::compile_method", "jit", "jvm"),
    ("CompileBroker::invoke_compiler_on_method", "jit", "jvm"),
    ("(garbage collector)", "gc", "node"),
    ("(idle)", "scheduler", "node"),
    ("_PyEval_EvalFrameDefault", "interpreter", "cpython"),
    ("do_syscall_64", "kernel", "linux"),
    ("entry_SYSCALL_64_after_hwframe", "kernel", "linux"),
    ("__x64_sys_futex", "kernel", "linux"),
    ("page_fault", "kernel", "linux"),
    ("tcp_sendmsg_[k]", "kernel", "linux"),
    ("cudaMallocHost", "allocator/driver", "cuda"),
    ("cudaMallocManaged", "allocator/driver", "cuda"),
    ("cudaMallocAsync", "allocator/driver", "cuda"),
]


@pytest.mark.parametrize(("name", "category", "framework"), WELL_KNOWN)
def test_well_known_runtime_frames_are_curated(name: str, category: str, framework: str) -> None:
    entry = kb.lookup(name)
    assert entry is not None and (entry.category, entry.framework) == (category, framework)
    assert kb.is_runtime(name)  # looked through: the application frame below decides


def test_cuda_outside_pytorch_says_the_caching_allocator_does_not_see_it() -> None:
    entry = kb.lookup("cudaMallocHost")
    assert entry is not None and "outside PyTorch's caching allocator" in entry.explanation
    plain = kb.lookup("cuMemAlloc_v2")  # the hooked allocation call keeps its own reading
    assert plain is not None and "outside" not in plain.explanation


def test_application_frames_are_not_taken_for_runtime_ones() -> None:
    for name in ("main.schedule", "Scheduler.schedule", "my_app.page_faults", "handle_request", "idle"):
        entry = kb.lookup(name)
        assert entry is None or entry.category not in ("gc", "scheduler", "jit", "kernel"), name


def test_what_is_mallocgc_in_a_go_profile() -> None:
    builder = ProfileBuilder(SampleType("cpu", "nanoseconds"))
    builder.add(["runtime.main", "main.main", "main.build", "runtime.mallocgc"], 3 * 10**9)
    builder.add(["runtime.gcBgMarkWorker", "runtime.gcDrain"], 10**9)
    conv = Conversation(builder.build(), settings=LlmSettings(), mode="offline")
    answer = conv.ask("What is `runtime.mallocgc`?").markdown
    assert "Go function mallocgc in the Go runtime" in answer and "heap allocator" in answer
    assert "GOGC" in answer


def test_py_spy_labels_find_the_knowledge_of_their_function() -> None:
    entry = kb.lookup("vllm/model_executor/models/utils.py:600 - make_layers")
    assert entry is not None and entry.category == "weights"
    assert kb.lookup("app/jobs.py:12 - make_layers_of_cake") is None
    assert kb.lookup("web/server.rb:3 - make_layers") is None  # Ruby's make_layers is not vLLM's
