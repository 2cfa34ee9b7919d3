"""The questions offered after an answer: what usually comes next, in the language just used.

The first questions (:mod:`.suggest`) name the profile's own functions; these follow the last
question's intent and are written in its language (a Dutch question gets Dutch suggestions), each
a phrasing the question reader maps back to that intent (the tests ask them).
"""

from __future__ import annotations

from explainer.explain.answers.language import N_, translations
from explainer.explain.question.reader import CONTINUED, Context

QUESTIONS = {
    "most": N_("What uses the most?"),
    "responsible": N_("What is responsible for it?"),
    "chain": N_("Show me the call chain to the biggest consumer"),
    "callers": N_("Who calls it?"),
    "meaning": N_("What does it mean?"),
    "optimise": N_("What should I optimise first?"),
    "skip": N_("What can I ignore?"),
    "howto": N_("How do I read this flame graph?"),
    "handoff": N_("Write me a summary for the on-call handoff"),
}
"""One question per intent, as a user would ask it."""
MORE = N_("Show me 5 more")
"""Offered first after a ranked list (what uses the most, what is responsible): the list goes on."""

NEXT = {
    "most": ("responsible", "chain", "meaning", "optimise"),
    "responsible": ("chain", "callers", "optimise", "skip"),
    "chain": ("callers", "meaning", "optimise", "skip"),
    "callers": ("chain", "meaning", "optimise", "most"),
    "meaning": ("callers", "chain", "optimise", "most"),
    "optimise": ("skip", "chain", "handoff", "most"),
    "skip": ("optimise", "most", "responsible", "handoff"),
}
"""What usually follows each intent; any other intent is followed by the overview's questions."""
START = ("most", "responsible", "chain", "optimise")


def follow_ups(context: Context, limit: int = 4) -> list[str]:
    """Up to ``limit`` next questions after the last one (``context`` is the conversation's), in its language."""
    nexts: tuple[str, ...] = NEXT.get(context.intent or "", START)
    if context.topic is None:  # nothing for "it" to refer to
        nexts = tuple(i for i in nexts if i not in ("callers", "meaning"))
    tr = translations(context.lang)
    more = [tr.gettext(MORE)] if context.left and context.intent in CONTINUED else []
    return [*more, *(tr.gettext(QUESTIONS[i]) for i in nexts if i != context.intent)][:limit]
