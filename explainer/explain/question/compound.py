"""Compound questions: "what should I optimise first, and with which vLLM setting?" asks two things.

A question is cut where a new question starts (", and which ...", "and what knob ...", "; ", a question
mark followed by more text, "en welke ..."). It counts as compound only when every part reads as a
question the explainer answers on its own and the parts ask different things; the parts are then
answered in the order asked, each later part read again after the earlier answers, so "it" in
"... and what knob shrinks it" is what the first part was about.
"""

from __future__ import annotations

from explainer.explain.question.clauses import clauses
from explainer.explain.question.reader import Context, Question, parts
from explainer.explain.question.subjects import Names

__all__ = ["clauses", "split"]


def split(text: str, names: Names, context: Context) -> tuple[Question, ...]:
    """The parts of a compound question, each read in ``context``; () when ``text`` asks one thing."""
    return parts(text, names, context)
