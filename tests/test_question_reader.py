"""The question reader's invariants: what never changes a reading, what every advertised question
reads as, and what hostile or odd input becomes.

GIVEN the corpus questions WHEN they are re-typed (case, punctuation, spacing, politeness) or an
unrelated capitalised word is added THEN the reading (intent and subject) stays the same.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explainer.demo import demo_cpu_profile, demo_profile
from explainer.explain import Conversation, LlmSettings
from explainer.explain.answers.intents import examples, examples_nl
from explainer.model import Profile

CORPUS = tomllib.loads((Path(__file__).parent / "corpus" / "questions.toml").read_text("utf-8"))
STANDALONE = [q for q in CORPUS["question"] if q["profile"] != "gpu+baseline"]
GPU, CPU = demo_profile(), demo_cpu_profile()
CONVERSATIONS = {"gpu": Conversation(GPU, settings=LlmSettings(), mode="offline")}
CONVERSATIONS["cpu"] = Conversation(CPU, settings=LlmSettings(), mode="offline")
POLITE = {
    "en": (("please ", ""), ("could you please tell me ", ""), ("hey, ", " thanks"), ("", " please"), ("ok so ", "")),
    "nl": (("kun je me vertellen ", ""), ("", " graag"), ("hoi, ", " bedankt"), ("", " alsjeblieft")),
}
UNRELATED = ("Bob", "Monday", "Amsterdam", "Kubernetes", "Alice")


def reading(question: str, profile: str = "gpu") -> tuple[str, str]:
    """(intent, subject label); a name that is not in the profile is kept as typed, so its case is folded."""
    q = CONVERSATIONS[profile].read(question)
    if q.subject is None:
        return q.intent, ""
    return q.intent, q.subject.label.casefold() if q.subject.kind == "missing" else q.subject.label


def _retyped(text: str, how: int) -> str:
    if how == 0:
        return text.upper()
    if how == 1:
        return text.lower()
    if how == 2:
        return "  " + "   ".join(text.split()) + " \t"
    if how == 3:
        return text.rstrip("?!. ") + "??"
    return text.rstrip("?!. ") + "..."


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(STANDALONE), st.integers(0, 4))
def test_case_punctuation_and_spacing_never_change_the_reading(q: dict[str, str], how: int) -> None:
    assert reading(_retyped(q["text"], how), q["profile"]) == reading(q["text"], q["profile"])


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(STANDALONE), st.data())
def test_politeness_never_changes_the_reading(q: dict[str, str], data: st.DataObject) -> None:
    before, after = data.draw(st.sampled_from(POLITE[q["lang"]]))
    text = q["text"].rstrip("?!. ")
    assert reading(before + text + after, q["profile"]) == reading(q["text"], q["profile"])


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(STANDALONE), st.sampled_from(UNRELATED), st.booleans())
def test_an_unrelated_capitalised_word_never_creates_a_subject(q: dict[str, str], word: str, front: bool) -> None:
    text = f"{word}, {q['text']}" if front else f"{q['text'].rstrip('?!. ')} for {word}?"
    _, subject = reading(text, q["profile"])
    _, original = reading(q["text"], q["profile"])
    assert subject == original or (original == "" and subject == ""), (text, subject)


@pytest.mark.parametrize("profile", ["gpu", "cpu"])
def test_every_suggested_question_and_help_example_reads_as_it_advertises(profile: str) -> None:
    conv = CONVERSATIONS[profile]
    ctx = conv.ctx
    english_and_dutch = zip(examples(ctx.resource, ctx.verb), examples_nl(ctx.resource, ctx.verb), strict=True)
    for (english, _, intent), dutch in english_and_dutch:
        assert reading(english, profile)[0] == intent, english
        assert reading(dutch, profile)[0] == intent, dutch
    for question in conv.suggested_questions():
        assert reading(question, profile)[0] not in ("unknown", "help"), question


def _ask(profile: Profile, question: str) -> str:
    answer = Conversation(profile, settings=LlmSettings(), mode="offline").ask(question)
    assert answer.verification.unverified == [], answer.markdown
    return answer.markdown


def test_an_empty_question_gets_the_suggestions() -> None:
    text = _ask(GPU, "   ")
    assert "I can answer these questions" in text and "did not recognise" not in text


def test_a_10000_character_question_is_capped_and_answered() -> None:
    text = _ask(GPU, "What uses the most GPU memory? " + "x" * 10_000)
    assert "`GPUModelRunner._allocate_kv_cache_tensors` uses the most GPU memory" in text


def test_a_frame_not_in_the_profile_gets_not_in_this_profile_the_closest_names_and_its_meaning() -> None:
    text = _ask(GPU, "What does GPUModelRunner._allocate_kv_cache do?")
    assert "`GPUModelRunner._allocate_kv_cache` does not appear in this profile" in text
    assert "Similar names in it: `GPUModelRunner._allocate_kv_cache_tensors`" in text
    assert "method _allocate_kv_cache of class gpumodelrunner" in text.casefold()


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        ("what is `%{customdata[0]}<b>bold</b><br>brk`", "unknown"),
        ("<script>alert(1)</script> what uses the most memory?", "most"),
        ("![x](http://evil.example/a.png) what uses the most GPU memory", "most"),
        ("what does <b>CUDAGraph.capture_begin</b> do?", "meaning"),
        ("what uses the most memory\x1b[31m\u202e?", "most"),
    ],
)
def test_hostile_text_is_read_for_its_words_and_never_becomes_the_subject(question: str, intent: str) -> None:
    got, subject = reading(question)
    assert got == intent
    assert subject in ("", "fn:CUDAGraph.capture_begin"), subject
    text = _ask(GPU, question)
    assert "<b>" not in text and "<br>" not in text and "\x1b" not in text and "evil.example" not in text


def test_follow_ups_refer_to_the_answers_before_them() -> None:
    conv = Conversation(GPU, settings=LlmSettings(), mode="offline")
    assert conv.ask("What uses the most GPU memory?").focus == "GPUModelRunner._allocate_kv_cache_tensors"
    assert conv.ask("and what does that function do?").focus == "GPUModelRunner._allocate_kv_cache_tensors"
    assert conv.ask("who calls it?").focus == "GPUModelRunner._allocate_kv_cache_tensors"
    conv.ask("What uses the most GPU memory?")
    assert conv.ask("what about the second one?").focus == "UnquantizedLinearMethod.create_weights"


def test_cpu_profiles_get_cpu_words_and_advice() -> None:
    text = _ask(CPU, "how can I make this faster?")
    # one where-to-start rule (issue 20): the application code that asked, not the runtime frame it reaches
    assert "**Start with `LlamaAttention.forward`" in text and "`cudaLaunchKernel` uses the most by self" in text
    help_text = _ask(CPU, "help")
    assert "What uses the most CPU time?" in help_text and "GPU memory" not in help_text
