"""Typed queries over one reading of a profile: every question the product answers is a record
(:mod:`.records`), and :func:`answer` is the one function from a :class:`~explainer.reading.Reading`
to its typed result. Surfaces render results; they never derive an answer themselves.

A lazy face: ``import explainer.queries.handoff`` (the ``handoff`` verb) must not define every
record of the chat's catalogue, so the names below are imported on first use. The function lives in
:mod:`.answering`: a submodule named ``answer``, once imported, would replace it on the package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explainer.lazy import face

if TYPE_CHECKING:
    from explainer.queries.answering import answer
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

if not TYPE_CHECKING:  # for mypy the names are the imports above
    __getattr__ = face(__name__, {**dict.fromkeys(__all__, "records"), "answer": "answering", "Handoff": "handoff"})
