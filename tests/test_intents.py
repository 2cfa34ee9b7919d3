"""Every intent is one typed record (``explainer/explain/answers/intents.py``) with an answer, an
English and a Dutch template and a help example in both languages; the reader's signatures name
only intents that have a record, so adding one cannot half-work."""

from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from explainer.demo import demo_profile
from explainer.explain import Conversation, LlmSettings
from explainer.explain.answers.intents import BY_ID, INTENTS, examples, examples_nl
from explainer.explain.answers.offline import OfflineExplainer
from explainer.explain.question.signatures import CARRIES_OVER, HINTS, NEEDS_SUBJECT, SIGNATURES

with (Path(__file__).resolve().parents[1] / "explainer/locale/nl/LC_MESSAGES/explainer.po").open("rb") as po:
    DUTCH = read_po(po)
CONV = Conversation(demo_profile(), settings=LlmSettings(), mode="offline")
QUESTION_TYPES = [i for i in INTENTS if i.id != "unknown"]  # "unknown" is the absence of a reading


def test_every_intent_the_reader_can_return_has_one_record() -> None:
    named = {s.intent for s in SIGNATURES} | set(CARRIES_OVER) | set(NEEDS_SUBJECT) | set(HINTS) | {"unknown"}
    assert named <= set(BY_ID), f"intents without a record: {sorted(named - set(BY_ID))}"
    assert len(BY_ID) == len(INTENTS), "two records share an id"
    assert {i.id for i in QUESTION_TYPES} <= {s.intent for s in SIGNATURES}, "a record no signature can reach"


@pytest.mark.parametrize("record", QUESTION_TYPES, ids=lambda i: i.id)
def test_every_intent_has_a_help_example_that_reads_as_it_in_both_languages(record: object) -> None:
    from explainer.explain.answers.intents import Intent

    assert isinstance(record, Intent) and record.example is not None
    ctx = CONV.ctx
    english = dict((i, q) for q, _, i in examples(ctx.resource, ctx.verb))
    dutch = dict(
        zip([i for _, _, i in examples(ctx.resource, ctx.verb)], examples_nl(ctx.resource, ctx.verb), strict=True)
    )
    assert CONV.read(english[record.id]).intent == record.id, english[record.id]
    assert CONV.read(dutch[record.id]).intent == record.id, dutch[record.id]


@pytest.mark.parametrize("record", QUESTION_TYPES, ids=lambda i: i.id)
def test_every_intent_answers_with_an_english_and_a_dutch_template(record: object) -> None:
    from explainer.explain.answers.intents import Intent

    assert isinstance(record, Intent) and record.example is not None
    ctx = CONV.ctx
    for message in (record.reading_as, record.example.what):
        found = DUTCH.get(message)
        assert found is not None and found.string, f"no Dutch for {message!r} (run make catalogs, then translate)"
    english_q = next(q for q, _, i in examples(ctx.resource, ctx.verb) if i == record.id)
    position = [i for _, _, i in examples(ctx.resource, ctx.verb)].index(record.id)
    dutch_q = examples_nl(ctx.resource, ctx.verb)[position]
    offline = OfflineExplainer(ctx)
    english, dutch = offline.answer(CONV.read(english_q)), offline.answer(CONV.read(dutch_q))
    assert english.kind == dutch.kind == record.id
    assert english.markdown.strip() and dutch.markdown.strip()
    assert english.markdown != dutch.markdown, "the Dutch answer is the English one"
