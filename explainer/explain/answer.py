"""What a question's answer is: its Markdown, how it was made, and how its numbers checked out."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from explainer.explain.checks.verify import LineVerifier, WrongClaim
from explainer.explain.question.reader import Context


@dataclass(frozen=True, slots=True)
class Verification:
    checked: int = 0  # numbers checked against the facts and tool results
    unverified: list[str] = field(default_factory=list)  # claims that could not be traced
    verified: int = 0  # numbers that are values of the subject their claim names
    derived: int = 0  # numbers worked out from grounded values (differences, sums, ratios, shares)
    unbound: int = 0  # numbers in claims naming no known subject, found among the facts
    wrong: int = 0  # numbers misattributed or not in the facts
    wrong_claims: list[WrongClaim] = field(default_factory=list)  # every failed claim, names included
    derived_claims: list[tuple[str, str]] = field(default_factory=list)  # (number, the values it came from)

    @classmethod
    def of(cls, v: LineVerifier) -> Verification:
        return cls(v.checked, v.unverified, **v.counts, wrong_claims=v.wrong, derived_claims=v.derivations)


def own(v: Verification) -> Verification:
    """The offline explainer's numbers are the analyzer's values, written through its grounding: each one
    that checks out is verified, whether or not the claim binder found its subject in the sentence."""
    return v if v.wrong else replace(v, verified=v.verified + v.unbound, unbound=0)


@dataclass(frozen=True, slots=True)
class Answer:
    markdown: str
    mode: Literal["offline", "llm"]
    verification: Verification
    notice: str | None = None  # why the answer is not what was asked for (fallback, cut off)
    focus: str | None = None  # raw name of the function the answer is about, for highlighting
    incomplete: bool = False
    model_error: str = ""  # why the model did not answer in full ("" when it did, or was not asked)


@dataclass(frozen=True, slots=True)
class Reply:
    """A question's answer, and what the next question may refer back to (its topic, ranking, language)."""

    answer: Answer
    context: Context
