"""Answers in the question's language: complete catalogs, and Dutch answers that are Dutch throughout.

GIVEN the message catalog extracted from the code (every ``w.t``/``w.tn``/``N_`` message and the
knowledge base's texts) WHEN a Dutch question of any intent is asked THEN no sentence of English
template or knowledge text appears in the answer, its numbers are written the Dutch way, and
every number still checks out against the profile.
"""

from __future__ import annotations

import gettext
import re
import tomllib
from collections import defaultdict
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from explainer.demo import demo_cpu_profile, demo_profile
from explainer.explain import Conversation, LlmSettings
from explainer.explain.answers import catalog
from explainer.explain.answers.language import translations

PO = catalog.LOCALE / "nl" / "LC_MESSAGES" / "explainer.po"
PLACEHOLDER = re.compile(r"\{\w+\}")
CORPUS = Path(__file__).parent / "corpus"


def _dutch_catalog() -> dict[str, str | tuple[str, ...]]:
    with PO.open("rb") as f:
        return {m.id if isinstance(m.id, str) else m.id[0]: m.string for m in read_po(f, locale="nl") if m.id}


def test_every_message_the_code_writes_has_a_dutch_translation_with_the_same_placeholders() -> None:
    dutch = _dutch_catalog()
    for message in catalog.template():
        if not message.id:
            continue
        key = message.id if isinstance(message.id, str) else message.id[0]
        assert key in dutch, f"not in the Dutch catalog (run make catalogs): {key!r}"
        forms = dutch[key] if isinstance(dutch[key], tuple) else (dutch[key],)
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        want = set(PLACEHOLDER.findall(" ".join(ids)))
        for form in forms:
            assert form, f"untranslated: {key!r}"
            assert set(PLACEHOLDER.findall(str(form))) == want, key


def test_the_compiled_catalog_is_the_po_file() -> None:
    compiled = translations("nl")
    assert isinstance(compiled, gettext.GNUTranslations)
    for key, string in _dutch_catalog().items():
        if isinstance(string, str):
            assert compiled.gettext(key) == string, f"stale .mo (run make catalogs): {key!r}"


AMBIGUOUS = {"help!", "help", "ok", "?"}  # the same word in both languages: answered in the conversation's


def _dutch_questions() -> list[tuple[str, str]]:
    """Up to four Dutch questions of each intent from the corpora, with their profile."""
    by_intent: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for name in ("questions.toml", "questions_fresh.toml"):
        for q in tomllib.loads((CORPUS / name).read_text("utf-8"))["question"]:
            ok = q["lang"] == "nl" and q["profile"] != "gpu+baseline" and q["text"].casefold() not in AMBIGUOUS
            if ok and len(by_intent[q["intent"]]) < 4:
                by_intent[q["intent"]].append((q["profile"], q["text"]))
    return [pair for pairs in by_intent.values() for pair in pairs]


def _english_fragments() -> list[str]:
    """Runs of four or more words from every English message (placeholders and markup split them)."""
    out: set[str] = set()
    for message in catalog.template():
        for text in message.id if isinstance(message.id, tuple) else (message.id,):
            for part in re.split(r"\{\w+\}|`[^`]*`|\*+|_|\(|\)|:|;|—|\.", text or ""):
                words = part.split()
                if len(words) >= 4:
                    out.add(" ".join(words).casefold())
    return sorted(out)


FRAGMENTS = _english_fragments()
PROFILES = {"gpu": demo_profile(), "cpu": demo_cpu_profile()}


@pytest.mark.parametrize(("profile", "question"), _dutch_questions())
def test_a_dutch_question_gets_a_dutch_answer_throughout(profile: str, question: str) -> None:
    answer = Conversation(PROFILES[profile], settings=LlmSettings(), mode="offline").ask(question)
    assert answer.verification.unverified == [], answer.markdown
    prose = " ".join(re.sub(r"`[^`]*`", " ", answer.markdown).split()).casefold()
    leaked = [f for f in FRAGMENTS if f in prose]
    assert not leaked, f"English in a Dutch answer: {leaked[:3]}\n{answer.markdown}"


def test_dutch_numbers_are_written_the_dutch_way() -> None:
    text = (
        Conversation(PROFILES["gpu"], settings=LlmSettings(), mode="offline")
        .ask("Wat gebruikt het meeste GPU-geheugen?")
        .markdown
    )
    assert "55,1 GB" in text and "73,8%" in text and "55.1 GB" not in text
