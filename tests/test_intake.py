"""A chat message taken in once (explain/question/intake.py): what every later step reads instead of the raw text.

GIVEN messages with and without vLLM start-up lines, with one question or two,
THEN ``take`` returns the reading ``read`` gives, the compound parts read in the same context, the
pasted lines merged into the GPU budget (the question then being "where is the rest?"), and a
conversation keeps pasted lines when a budget is set afterwards (the app's sidebar).
"""

from __future__ import annotations

from functools import cache

from explainer.demo import demo_profile
from explainer.explain.context import ProfileContext
from explainer.explain.conversation import Conversation
from explainer.explain.llm.settings import LlmSettings
from explainer.explain.question.compound import clauses
from explainer.explain.question.intake import MAX_QUESTION_CHARS, take
from explainer.explain.question.reader import Context, read
from explainer.knowledge.visibility import Budget
from explainer.knowledge.vllm_log import parse

GB = 1_000_000_000
GIB = 1024**3
LOG = """\
(EngineCore_0 pid=42) INFO 06-10 12:00:01 [gpu_model_runner.py:1890] Model loading took 14.99 GiB and 6.1 seconds
(EngineCore_0 pid=42) INFO 06-10 12:00:09 [gpu_worker.py:230] Available KV cache memory: 51.79 GiB
"""
LATER = "(EngineCore_0 pid=42) INFO 06-10 12:00:09 [kv_cache_utils.py:716] GPU KV cache size: 424,176 tokens\n"


@cache
def ctx() -> ProfileContext:
    return ProfileContext(demo_profile()).prepare()


def test_one_question_is_read_once_and_leaves_the_budget_as_it_was() -> None:
    budget = Budget(80 * GB, 0.92)
    asked = take("  What uses the most\u202e GPU memory?\x00 ", ctx().subjects, Context(), budget)
    assert asked.text == "What uses the most GPU memory?"  # bidi and control characters out, trimmed
    assert asked.question == read(asked.text, ctx().subjects, Context())
    assert asked.question.intent == "most" and asked.parts == () and asked.pasted is None
    assert asked.budget is budget
    assert len(take("x" * 10_000, ctx().subjects, Context(), budget).text) == MAX_QUESTION_CHARS


def test_a_compound_question_carries_its_parts_read_in_the_conversations_context() -> None:
    context = Context(None, ("GPUModelRunner._allocate_kv_cache_tensors",))
    text = "what should I optimise first, and with which vLLM setting?"
    asked = take(text, ctx().subjects, context, Budget())
    assert [p.text for p in asked.parts] == clauses(text)
    assert list(asked.parts) == [read(part, ctx().subjects, context) for part in clauses(text)]
    assert len({p.intent for p in asked.parts}) == 2  # two different questions
    assert take("what uses the most, and what uses the most?", ctx().subjects, context, Budget()).parts == ()


def test_pasted_vllm_lines_join_the_budget_and_ask_where_the_rest_is() -> None:
    budget = Budget(80 * GB, 0.92)
    asked = take(LOG, ctx().subjects, Context(), budget)
    assert asked.pasted == parse(LOG) and asked.parts == ()
    assert asked.question.intent == "visibility" and asked.question.subject is None
    assert (asked.budget.gpu_memory, asked.budget.utilization) == (80 * GB, 0.92)
    assert asked.budget.log.available_kv == round(51.79 * GIB) and asked.budget.log.lines == 2


def test_pasted_lines_are_kept_over_a_budget_set_later_and_add_up() -> None:
    conv = Conversation(demo_profile(), settings=LlmSettings(), mode="offline")
    conv.ask(LOG)
    conv.ask(LATER)
    conv.set_budget(Budget(80 * GB, 0.92))  # the sidebar, read on every run
    assert conv.budget.gpu_memory == 80 * GB
    assert conv.budget.log.available_kv == round(51.79 * GIB) and conv.budget.log.kv_tokens == 424_176
    assert conv.budget.log.lines == 3
