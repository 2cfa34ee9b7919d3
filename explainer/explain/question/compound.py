"""Compound questions: "what should I optimise first, and with which vLLM setting?" asks two things.

A question is cut where a new question starts (", and which ...", "and what knob ...", "; ", a question
mark followed by more text, "en welke ..."). It counts as compound only when every part reads as a
question the explainer answers on its own and the parts ask different things; the parts are then
answered in the order asked, each later part read again after the earlier answers, so "it" in
"... and what knob shrinks it" is what the first part was about.
"""

from __future__ import annotations

import re

from explainer.explain.question.reader import Context, Question, read
from explainer.explain.question.subjects import Names

MAX_PARTS = 3
_QUESTION_WORDS = (
    r"which|what|how|where|who|why|is|are|does|do|can|should|with which|in which|"
    r"welke|welk|wat|hoe|waar|wie|waarom|is|zijn|kan|moet|met welke"
)
_CUT = re.compile(
    rf"\s*(?:[;?]\s+|,\s*(?:and|en|plus|also|ook)\s+|\s+(?:and|en)\s+(?=(?:{_QUESTION_WORDS})\b)|,\s+(?=(?:{_QUESTION_WORDS})\b))",
    re.IGNORECASE,
)


def clauses(text: str) -> list[str]:
    """The question cut into the questions it asks (one part when it asks one thing)."""
    parts = [p.strip(" ,;") for p in _CUT.split(text)]
    parts = [p for p in parts if len(p.split()) >= 2 or p.endswith("?")]
    if len(parts) < 2 or len(parts) > MAX_PARTS:
        return [text]
    return parts


def split(text: str, names: Names, context: Context) -> tuple[Question, ...]:
    """The parts of a compound question, each read in ``context``; () when ``text`` asks one thing."""
    parts = clauses(text)
    readings = tuple(read(part, names, context) for part in parts) if len(parts) > 1 else ()
    asked = {(r.intent, r.subject.label if r.subject else "") for r in readings}
    if len(readings) < 2 or any(r.intent in ("unknown", "help") for r in readings) or len(asked) < len(readings):
        return ()
    return readings
