"""Typed queries over one reading of a profile: every question the product answers is a record
(:mod:`.records`), and :func:`answer` is the one function from a :class:`~explainer.reading.Reading`
to its typed result. Surfaces render results; they never derive an answer themselves."""

from explainer.queries.answer import answer
from explainer.queries.records import (
    Breakdown,
    CategoryQuery,
    ChainTo,
    Compare,
    Group,
    Handoff,
    Knob,
    Meaning,
    Most,
    Neighbours,
    Overview,
    Own,
    Query,
    Responsible,
    Result,
    SelfVsTotal,
    Skip,
    StartHere,
    UnresolvedShare,
)

__all__ = [
    "Breakdown",
    "CategoryQuery",
    "ChainTo",
    "Compare",
    "Group",
    "Handoff",
    "Knob",
    "Meaning",
    "Most",
    "Neighbours",
    "Overview",
    "Own",
    "Query",
    "Responsible",
    "Result",
    "SelfVsTotal",
    "Skip",
    "StartHere",
    "UnresolvedShare",
    "answer",
]
