"""What a question's answer is: its Markdown, how it was made, and how its numbers checked out
(:class:`Verification`, made by the verifier); and the reply that carries it back to the conversation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from explainer.explain.checks.verify import Verification, own
from explainer.explain.question.reader import Context


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


__all__ = ["Answer", "Reply", "Verification", "own"]
