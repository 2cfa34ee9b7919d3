"""What a conversation remembers between questions: the topic a follow-up refers back to, and the
last turns, which a model is sent again (an offline answer never reads them)."""

from __future__ import annotations

from collections.abc import Iterator

from explainer.explain.question.reader import Context, Question
from explainer.explain.question.subjects import Subject

MAX_HISTORY_TURNS = 4
MAX_HISTORY_ANSWER_CHARS = 3_000


def after(
    context: Context,
    q: Question,
    focus: str | None,
    ranking: tuple[str, ...] = (),
    shown: int = 0,
    left: bool = False,
) -> Context:
    """What the next question may refer back to: this answer's subject or focus, its ranking, its language, and
    how many ranks of its list it showed (0: it showed no ranked list, so "show me more" has nothing to go on)
    and whether more may follow them."""
    topic = q.subject if q.subject is not None and q.subject.kind != "missing" else None
    if focus is not None and (topic is None or topic.kind == "function"):
        topic = Subject("function", focus, "focus")
    return Context(topic or context.topic, ranking or context.ranking, q.lang, q.intent, shown, left)


class History:
    """The last few (question, answer) turns, each answer cut to a length a prompt can carry."""

    def __init__(self) -> None:
        self.turns: list[tuple[str, str]] = []

    def add(self, question: str, answer: str) -> None:
        self.turns.append((question, answer[:MAX_HISTORY_ANSWER_CHARS]))
        del self.turns[:-MAX_HISTORY_TURNS]

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self.turns)

    def __len__(self) -> int:
        return len(self.turns)
