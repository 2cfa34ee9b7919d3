"""Who answers a question, decided once: the cluster desk, the offline explainer or the model.

Modes: ``offline`` never sends anything; ``llm`` uses the configured model; ``auto`` uses the
model when one is configured. Questions about pods, namespaces and services go to the cluster desk
of a server source (on a file, they get "a file has none"). Settings and "where is the rest?" are
answered from the facts and the visibility audit, also when a model is configured (``auto``), and so
are questions the profile cannot answer; a conversation grows no longer than :data:`MAX_QUESTIONS` model
answers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from explainer.explain.answers.language import N_
from explainer.explain.question.intake import Asked
from explainer.explain.question.scope import OUTSIDE

if TYPE_CHECKING:
    from explainer.explain.cluster import ClusterDesk
    from explainer.model import Source

MAX_QUESTIONS = 50
OFFLINE_INTENTS = ("setting", "visibility")  # only a conversation that asks for the model (``llm``) sends them
MODES = ("auto", "offline", "llm")


@dataclass(frozen=True, slots=True)
class Route:
    way: Literal["cluster", "offline", "model"]
    reply: str = ""  # the cluster desk's answer
    notice: str | None = None  # why the offline explainer answered although the model was asked for
    failure: str = ""  # why the model did not answer ("" when it was not asked)


def wants_model(mode: str, available: bool) -> bool:
    """Whether a question goes to a model: always in ``llm`` (a missing one is then said), in ``auto`` if there."""
    return mode == "llm" or (mode == "auto" and available)


def route(
    asked: Asked,
    mode: str,
    available: bool,  # a model is configured, or given
    questions: int,  # this conversation's questions so far, this one included
    desk: ClusterDesk | None,
    source: Source | None,
) -> Route:
    if desk is not None or source is None or source.kind != "pyroscope":
        from explainer.explain.cluster_words import file_answer  # no Pyroscope module for a file

        reply = desk.answer(asked.text) if desk is not None else file_answer(asked.text)
        if reply is not None:
            return Route("cluster", reply)
    # a question the profile cannot answer ("write me a terraform module", an injection with nothing after it)
    # is told so offline: it is not worth a model's tokens, and its text never reaches the model
    offline_asked = asked.question.intent in OFFLINE_INTENTS or OUTSIDE in asked.question.concepts
    if not wants_model(mode, available) or (offline_asked and mode != "llm"):
        return Route("offline")
    if not available:
        return Route("offline", notice=N_("No model is configured, so the offline explainer answered."))
    if questions > MAX_QUESTIONS:
        notice = N_(
            "This conversation reached its length limit; start a new one to ask the model again. The "
            "offline explainer answered."
        )
        return Route("offline", notice=notice)
    return Route("model")
