"""Knowledge with versions and sources, settings answered with their risks, runtime frames on CPU profiles.

GIVEN the knowledge base (frames.toml, facts.toml) WHEN any entry is loaded THEN it says which releases
it holds for and the document it rests on; advice for retired settings is gone; knobs that blind the
profiler or have run out of memory say so; and the chat answers settings questions from these facts.
"""

from __future__ import annotations

import re

import pytest

from explainer import knowledge as kb
from explainer.demo import demo_profile
from explainer.explain import Conversation
from explainer.knowledge.classify import FRAMEWORKS, VERSIONS, entries
from explainer.knowledge.facts import count_frames, facts
from explainer.model import ProfileBuilder, SampleType

URL = re.compile(r"^https://\S+$")


def test_every_knowledge_entry_has_a_version_range_and_a_source() -> None:
    for entry in entries():
        assert VERSIONS.match(entry.versions), entry.pattern
        assert URL.match(entry.source), entry.pattern
    for fact in facts().values():
        assert VERSIONS.match(fact.versions) and URL.match(fact.source), fact.id
    for frame in count_frames().values():
        assert VERSIONS.match(frame.versions) and URL.match(frame.source), frame.name


def test_every_vllm_and_pytorch_fact_names_its_project_in_the_range() -> None:
    for entry in entries():
        project = {"vllm": "vLLM", "vllm-v0": "vLLM", "vllm-v1": "vLLM", "pytorch": "PyTorch"}.get(entry.framework)
        if project:
            assert entry.versions.startswith(project + " "), (entry.pattern, entry.versions)
    assert set(FRAMEWORKS) >= {e.framework for e in entries()}


def test_no_knob_recommends_a_retired_setting() -> None:
    for entry in entries():
        for action in entry.actions:
            assert "swap" not in f"{action.knob} {action.effect}".lower(), entry.pattern


def test_knobs_that_blind_the_profiler_or_ran_out_of_memory_carry_their_risk() -> None:
    knobs = {a.knob: a for e in entries() for a in e.actions}
    assert "does not hook" in knobs["PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"].risk
    risky = [a for e in entries() for a in e.actions if a.knob == "--gpu-memory-utilization" and a.risk]
    assert risky and all("CUDA-graph capture" in a.risk for a in risky)
    assert "risk:" in kb.describe("c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc")


@pytest.mark.parametrize(
    ("question", "warning"),
    [
        ("should I set expandable_segments?", "expandable segments hide allocations from this profiler"),
        ("moet ik expandable_segments aanzetten?", "expandable segments verbergen allocaties voor deze profiler"),
        ("is PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True a good idea?", "hide allocations"),
    ],
)
def test_expandable_segments_question_warns(question: str, warning: str) -> None:
    answer = Conversation(demo_profile(), mode="offline").ask(question).markdown
    assert warning in answer


QUESTIONS = [
    "should I set swap_space?",
    "how do I get more KV cache?",
    "what changes the KV cache?",
    "what should I optimise first?",
    "moet ik swap_space instellen?",
    "what is the default gpu_memory_utilization?",
]


@pytest.mark.parametrize("question", QUESTIONS)
def test_no_answer_recommends_swap_space(question: str) -> None:
    answer = Conversation(demo_profile(), mode="offline").ask(question).markdown
    for line in answer.splitlines():
        if "swap_space" in line:
            assert re.search(r"Do not set|no longer|Zet swap_space niet|geen instelling meer", line), line


def test_utilisation_default_is_version_dependent() -> None:
    answer = Conversation(demo_profile(), mode="offline").ask("what is the default gpu_memory_utilization?")
    text = answer.markdown
    assert "0.92" in text and "0.9," in text and "per vLLM instance" in text
    assert "vLLM >=0.21.0" in text and "vLLM <0.21.0" in text
    assert "V1 engine" in text  # the profile's generation, read from its frames
    assert not answer.verification.wrong


def test_torch_cuda_synchronize_on_a_cpu_profile_is_the_cpu_waiting_for_the_gpu() -> None:
    b = ProfileBuilder(SampleType("cpu", "nanoseconds"))
    b.add(["<module>", "train", "step", "torch.cuda.synchronize", "cudaDeviceSynchronize"], 600_000_000)
    b.add(["<module>", "train", "step", "forward", "matmul"], 300_000_000)
    b.add(["<module>", "train", "load_batch"], 100_000_000)
    conv = Conversation(b.build(), mode="offline")
    answer = conv.ask("what is torch.cuda.synchronize?").markdown
    assert "waiting for the GPU" in answer and "waiting until the GPU has finished" in answer
    assert "600.0 ms (60.0%)" in answer
    most = conv.ask("what uses the most cpu?").markdown
    assert "waits until the GPU has finished" in most and "60.0%" in most


@pytest.mark.parametrize(
    ("name", "category"),
    [
        ("torch.cuda.synchronize", "gpu-wait"),
        ("cudaStreamSynchronize", "gpu-wait"),
        ("cudaDeviceSynchronize", "gpu-wait"),
        ("c10::cuda::device_synchronize", "gpu-wait"),
        ("take_gil", "sync"),
        ("PyEval_RestoreThread", "sync"),
        ("SpinPause", "sync"),
        ("SafepointSynchronize::begin", "sync"),
        ("GC Thread#3", "gc"),
        ("G1 Conc#0", "gc"),
        ("gc_collect_main", "gc"),
    ],
)
def test_runtime_frames_on_cpu_profiles_are_known(name: str, category: str) -> None:
    entry = kb.lookup(name)
    assert entry is not None and entry.category == category and entry.actions
    assert kb.classify("cuMemAlloc_v2") == "allocator/driver"  # the generic CUDA family still applies


@pytest.mark.parametrize(
    "name",
    [
        "c10::cuda::CUDACachingAllocator::Native::ExpandableSegment::map",
        "cuMemCreate",
        "CuMemAllocator.use_memory_pool",
    ],
)
def test_frames_of_memory_the_profiler_cannot_see_say_so(name: str) -> None:
    entry = kb.lookup(name)
    assert entry is not None and entry.category == "allocator/driver"
    assert re.search(r"does not|not counted", entry.explanation) and "AKS GPU profiler" in entry.explanation


def test_quantisation_says_where_the_freed_memory_goes_and_knob_questions_stay_knob_questions() -> None:
    conv = Conversation(demo_profile(), mode="offline")
    answer = conv.ask("would quantization free memory?").markdown
    assert "gives the memory they free to the KV cache" in answer and "13.8 GB (18.5%)" in answer
    assert conv.read("can i quantize to save weight memory, what option").intent == "knob"
    assert conv.read("Our A100 sits at 95% utilisation right after start-up").intent != "setting"


def test_the_analysis_takes_out_exactly_the_count_frames_the_knowledge_base_names() -> None:
    from explainer.analysis.counts import count_frames as taken_out
    from explainer.knowledge.facts import count_frames

    assert taken_out() == {name: frame.does for name, frame in count_frames().items()}
