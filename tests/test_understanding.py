# ruff: noqa: E501  (a table of real labels, one per line)
"""Everyday questions about the user's own profile, in any runtime, in English and Dutch (issue 21).

Dev questions written for the reader while building it (not a first-sight measure), over the demo
profiles, a vLLM CPU profile in py-spy labels (``pyspy_vllm.py``) and, where the shared folder is
there, the real perf-Java (Vert.x) and Go heap (Loki) profiles. Each says how the question must be
read and, where it matters, what the answer must say. A second part holds every concept's number
equal across the answers that state it.
"""

from __future__ import annotations

import re

import pytest

from conftest import named_profile
from explainer.explain import Conversation, LlmSettings
from explainer.model import Profile, ProfileBuilder, SampleType
from explainer.queries import shares

REAL_KEYS = {
    "java": "real:flamegraph_cddl-unclear/perf-java-stacks-01-collapsed-all.txt",
    "loki": "real:pyroscope_agpl-3.0/heap_go_truncated_3.pb.gz",
}
LOKI_INDEX = "github.com/grafana/loki/pkg/storage/stores/shipper/indexshipper/tsdb/index."


def _profile(key: str) -> Profile:
    return named_profile(REAL_KEYS.get(key, key))


def _conversation(key: str) -> Conversation:
    return Conversation(_profile(key), settings=LlmSettings(), mode="offline")


# (profile, question, intent, subject label or "" for none, words the answer must contain)
QUESTIONS: list[tuple[str, str, str, str, tuple[str, ...]]] = [
    # names as users write them, inside long labels
    ("pyspy", "how much cpu does execute_model take", "function", "fn:vllm/v1/worker/gpu_model_runner.py:1234 - execute_model", ("I took",)),
    ("pyspy", "what is torch.cuda.synchronize doing", "meaning", "fn:torch/cuda/__init__.py:985 - synchronize", ()),
    ("pyspy", "show the chain to _sample", "chain", "fn:vllm/v1/worker/gpu_model_runner.py:1390 - _sample", ()),
    ("java", "how much time is in NioEventLoop.run", "function", "fn:io/netty/channel/nio/NioEventLoop:.run_[j]", ()),
    ("java", "show me the chain to writeBytes", "chain", "fn:io/netty/buffer/AbstractByteBuf:.writeBytes_[j]", ()),
    ("loki", "who calls (*Reader).LabelValues", "callers", f"fn:{LOKI_INDEX}(*Reader).LabelValues", ()),
    ("loki", "hoeveel objecten alloceert forPostings", "function",
     "fn:github.com/grafana/loki/pkg/storage/stores/shipper/indexshipper/tsdb.(*TSDBIndex).forPostings", ()),
    # a phrase naming a group is answered for the group, its members listed
    ("pyspy", "how much goes into detokenisation in total", "function", "fn:vllm/v1/engine/detokenizer.py:118 - update",
     ("2 functions match", "165 (17.4%)", "_protected_step")),
    ("java", "how much time in all the flush functions", "function",
     "fn:io/netty/channel/DefaultChannelPipeline$HeadHandler:.flush_[j]", ("4 functions match",)),
    # concepts checked against the profile
    ("pyspy", "what share of the CPU is the scheduler?", "function", "fn:vllm/v1/core/sched/scheduler.py:180 - schedule", ()),
    ("cpu", "what share of the CPU is the scheduler?", "function", "fn:Scheduler.schedule", ()),
    ("java", "what share is the kernel?", "category", "concept:kernel", ("51.1%",)),
    ("java", "wat is er allemaal unresolved?", "category", "concept:unresolved", ("onopgeloste",)),
    ("pyspy", "how much is unresolved / unknown?", "category", "concept:unresolved", ("164 (17.2%)",)),
    ("cpu", "hoeveel cpu gaat er op aan interpreter overhead", "category", "concept:interpreter", ()),
    # everyday wording and vague questions: an answer, never the help menu
    ("java", "where is the time going", "most", "", ()),
    ("java", "split it up per category pls", "category", "", ("by category",)),
    ("pyspy", "does this look ok?", "assess", "", ("raw addresses",)),
    ("gpu", "should I worry?", "assess", "", ("by design",)),
    ("gpu", "is dit normaal?", "assess", "", ("zo bedoeld",)),
    ("loki", "is this normal?", "assess", "", ("What stands out",)),
    ("java", "what's wrong with this service", "assess", "", ("kernel",)),
    ("java", "moet ik me zorgen maken?", "assess", "", ("opvalt",)),
    # the application's own code when runtime or kernel frames top the list
    ("java", "which java method uses the most cpu?", "most", "", ("ScriptableObject:.getSlot_[j]", "own code")),
    ("java", "welke java code is het zwaarst", "most", "", ("eigen code", "native_write_msr_safe_[k]")),
    ("loki", "waar komen al die objecten vandaan?", "responsible", "", ("verantwoordelijk",)),
    ("loki", "what is the difference between in-use and allocated here", "total", "", ("freed or not",)),
    # language and incidental words
    ("pyspy", "wtf is 0x7f15c3a0", "meaning", "fn:0x7f15c3a0", ("raw address",)),
    ("gpu", "what should I change to free memory?", "optimise", "", ()),
    ("loki", "where do all these allocations come from? it shows like this in grafana", "responsible", "", ()),
]  # fmt: skip


@pytest.mark.parametrize(("key", "text", "intent", "subject", "says"), QUESTIONS)
def test_everyday_questions_are_read_and_answered(
    key: str, text: str, intent: str, subject: str, says: tuple[str, ...]
) -> None:
    conv = _conversation(key)
    q = conv.read(text)
    assert (q.intent, q.subject.label if q.subject else "") == (intent, subject)
    answer = conv.ask(text).markdown
    assert "did not recognise" not in answer and "herkende ik niet" not in answer
    for words in says:
        assert words in answer


def test_a_short_english_question_is_answered_in_english() -> None:
    conv = _conversation("pyspy")
    assert conv.read("wtf is 0x7f15c3a0").lang == "en"
    assert conv.read("is dit normaal?").lang == "nl"


def test_compound_questions_are_answered_in_the_order_asked() -> None:
    conv = _conversation("gpu")
    text = conv.ask("what should I optimise first, and with which vLLM setting?").markdown
    first, second = text.split("\n---\n")
    assert "Start with" in first and "--gpu-memory-utilization" in second
    text = conv.ask("how much does the KV cache reserve and what knob shrinks it").markdown
    first, second = text.split("\n---\n")
    assert "55.1 GB" in first and "Settings that change the KV cache" in second


def test_follow_ups_keep_their_referent_and_skip_what_was_called_an_entry_point() -> None:
    conv = _conversation("gpu")
    answer = conv.ask("what is responsible for the memory?").markdown
    assert "<interpreter trampoline>" in answer and "entry points" in answer
    second = conv.read("and the second one?")
    assert second.subject is not None and second.subject.name not in ("<interpreter trampoline>", "<module>", "0x7f151")
    conv.ask("hoeveel nemen de gewichten in?")
    assert conv.read("hoe krijg ik dat kleiner?").subject is not None
    answer = conv.ask("hoe krijg ik dat kleiner?").markdown
    assert "--quantization" in answer and "kv" not in answer.lower().split("**")[1]


def test_a_long_java_chain_shows_every_java_frame() -> None:
    conv = _conversation("java")
    answer = conv.ask("show me the chain to _raw_spin_unlock_irqrestore_[k]").markdown
    chain = conv.ctx.chain_to(conv.ctx.profile.function_id("_raw_spin_unlock_irqrestore_[k]") or 0)
    assert chain is not None and len(chain.steps) > 60
    java = [s.name for s in chain.steps if s.name.endswith("_[j]") and "/" in s.name]
    assert java and all(f"`{name}`" in answer for name in java)
    assert "more steps" not in answer
    kernel_sentence = "A kernel function, as perf marks them"
    assert answer.count(kernel_sentence) <= 1


CONCEPTS = ("unresolved", "gc", "kernel", "kv-cache", "weights", "scheduler", "jit")


@pytest.mark.parametrize("key", ["gpu", "cpu", "pyspy", "java", "loki"])
def test_every_answer_states_the_same_number_for_a_concept(key: str) -> None:
    conv = _conversation(key)
    ctx = conv.ctx
    assert shares.share(ctx.reading, "unresolved").value == pytest.approx(ctx.summary.unresolved_share * ctx.total)
    breakdown = conv.ask("split it up per category").markdown
    assessment = conv.ask("does this look ok?").markdown
    for concept in CONCEPTS:
        counted = shares.share(ctx.reading, concept)
        if not counted.value:
            continue
        from explainer.explain.answers.writer import Writer

        stated = Writer(ctx, "en").vp(counted.value)
        category = conv.ask(f"how much is {_word(concept)}?").markdown
        assert stated in category, (concept, category)
        shown = [line for line in breakdown.splitlines() if line.startswith("- ")]
        amounts = {re.sub(r"^- [^:]+: ", "", line) for line in shown}
        assert stated in amounts, (concept, breakdown)
        if concept in ("unresolved", "kernel", "gc") and concept in assessment.lower():
            assert stated in assessment


def _word(concept: str) -> str:
    return {"unresolved": "unresolved", "gc": "gc", "kernel": "the kernel", "kv-cache": "the kv cache",
            "weights": "the weights", "scheduler": "the scheduler", "jit": "jit"}[concept]  # fmt: skip


def test_gc_and_kernel_count_whole_stacks_not_the_top_frame() -> None:
    """A JVM's GC threads spin in ``SpinPause``: the thread counts as GC whole, not by its top frame."""
    builder = ProfileBuilder(SampleType("cpu", "nanoseconds"))
    builder.add(["java", "GCTaskThread::run", "SpinPause"], 63)
    builder.add(["java", "app.Main.run", "runtime.mallocgc"], 7)
    builder.add(["java", "app.Main.run", "sys_write_[k]", "native_write_msr_safe_[k]"], 30)
    builder.add(["java", "app.Main.run"], 900)
    conv = Conversation(builder.build(), settings=LlmSettings(), mode="offline")
    gc = shares.share(conv.ctx.reading, "gc")
    assert (gc.how, gc.value) == ("stacks", 70)
    assert conv.ctx.reading.self_by_category.get("gc", 0) < 70
    assert "70 ns (7.0%)" in conv.ask("how much time goes to gc?").markdown
    assert shares.share(conv.ctx.reading, "kernel").value == 30


def test_the_model_and_mcp_tools_find_names_through_the_same_resolver() -> None:
    from explainer.explain import toolset

    ctx = _conversation("pyspy").ctx
    for written, chat_subject in (
        ("execute_model", "vllm/v1/worker/gpu_model_runner.py:1234 - execute_model"),
        ("torch.cuda.synchronize", "torch/cuda/__init__.py:985 - synchronize"),
    ):
        assert ctx.profile.names[toolset.find(ctx, written)] == chat_subject
        q = _conversation("pyspy").read(f"what does {written} do")
        assert q.subject is not None and q.subject.name == chat_subject


def test_the_pronoun_i_is_never_a_function_named_i() -> None:
    # speedscope's tall.txt has one function per letter: "What can I ignore?" is still about the profile
    builder = ProfileBuilder(SampleType("samples", "count"))
    builder.add(list("abcdefghijklmnopqrstuvwxyz"), 1)
    conv = Conversation(builder.build(), settings=LlmSettings(), mode="offline")
    for text in ("What can I ignore?", "What should I optimise first?"):
        question = conv.read(text)
        assert question.subject is None or question.subject.name != "i", (text, question)
    assert "`i`" not in conv.ask("What should I optimise first?").markdown
