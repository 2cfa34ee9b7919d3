"""What one chat message asks, taken in once: the first step of every question's path.

A message may be more than a question: vLLM's start-up lines pasted into it (what the card holds,
for "where is the rest?"), or two questions in one ("what should I optimise first, and with which
setting?"). :func:`take` cleans the text, reads any pasted lines into the GPU budget, reads the
question and cuts a compound one into its parts, so nothing after it looks at the raw message again.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from explainer.explain.question.compound import split
from explainer.explain.question.reader import Context, Question, read
from explainer.explain.question.subjects import Names
from explainer.explain.safety import clean_text
from explainer.knowledge import vllm_log
from explainer.knowledge.visibility import Budget

MAX_QUESTION_CHARS = 2_000
MAX_PASTE_CHARS = 64_000  # vLLM start-up lines pasted into a question are read up to here


@dataclass(frozen=True, slots=True)
class Asked:
    text: str  # the message cleaned and capped: what a model or the cluster desk is given
    question: Question  # the one reading every answer answers
    parts: tuple[Question, ...] = ()  # a compound question's parts, read in the conversation's context; () for one
    pasted: vllm_log.VllmLog | None = None  # the vLLM lines pasted into this message, if any
    budget: Budget = field(default_factory=Budget)  # what is known about the GPU, these lines included


def take(message: str, names: Names, context: Context, budget: Budget) -> Asked:
    """The message read once; ``budget`` is what the user said about the GPU before this message."""
    pasted_text = clean_text(message, MAX_PASTE_CHARS)
    text = clean_text(message, MAX_QUESTION_CHARS).strip()
    pasted = vllm_log.parse(pasted_text)
    log = budget.log.merged(pasted) if pasted.any else None
    parts = split(text, names, context)
    question = read(text, names, context)
    if log is None:
        return Asked(text, question, parts, None, budget)
    # vLLM's own start-up lines: answered with the reconciliation, as one question
    visibility = replace(question, intent="visibility", subject=None, runner_up=None)
    return Asked(text, visibility, (), pasted, replace(budget, log=log))
