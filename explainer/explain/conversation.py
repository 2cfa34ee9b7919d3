"""A conversation about one profile: what it keeps between questions, and the one path a question takes.

A question goes straight down, each step handing the next what it needs:
``question/intake.py`` takes the message in (cleaned, any pasted vLLM lines read into the GPU
budget, read once, a compound question cut into parts); ``route.py`` decides once who answers (the
cluster desk, the offline explainer or the model); ``respond.py`` answers it and checks the answer.
The conversation is entered at the start and keeps the reply at the end: it holds only state (the
profile's context, settings, mode, history, topic, budget, the model's facts and grounding).

What goes to the model, per question: the system prompt (fixed text, no profile data), the last
few turns of this conversation, and the question with the profile's facts in one data block;
then tool results, each in its own data block. :meth:`Conversation.outgoing_preview` shows
exactly that before anything is sent. Whenever the model fails, the offline answer is given
instead with a notice (or, when part of the model's answer had already streamed, after it,
marked incomplete).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from explainer.analysis.summary import Summary
from explainer.errors import ModelUnavailableError
from explainer.explain.answer import Answer, Verification
from explainer.explain.answers.offline import OfflineExplainer
from explainer.explain.answers.suggest import suggestions
from explainer.explain.checks.verify import Grounding
from explainer.explain.context import ProfileContext
from explainer.explain.history import History
from explainer.explain.llm.settings import LlmSettings
from explainer.explain.question.compound import split
from explainer.explain.question.intake import MAX_PASTE_CHARS, MAX_QUESTION_CHARS, Asked, take
from explainer.explain.question.reader import Context, Question, read
from explainer.explain.respond import respond
from explainer.explain.route import MAX_QUESTIONS, MODES, OFFLINE_INTENTS, Route, route, wants_model
from explainer.knowledge.visibility import Budget
from explainer.knowledge.vllm_log import VllmLog
from explainer.model import Profile

if TYPE_CHECKING:  # LangChain loads only when a model answers: offline use stays fast to start
    from langchain_core.language_models import BaseChatModel

    from explainer.analysis.summary import Summary
    from explainer.explain.cluster import ClusterDesk
    from explainer.explain.llm.facts import Facts


class Conversation:
    def __init__(
        self,
        profile: Profile,
        settings: LlmSettings | None = None,
        mode: str = "auto",  # "auto", "offline" or "llm" (a str: UI and CLI pass what they read)
        baseline: Profile | None = None,
        chat_model: BaseChatModel | None = None,
        summary: Summary | None = None,  # an analysis of ``profile`` the caller already has
        context: ProfileContext | None = None,  # a prepared context of (profile, baseline) to share
        budget: Budget | None = None,  # what the user knows about the GPU, for "where is the rest?"
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be auto, offline or llm, not {mode!r}")
        self.settings = settings if settings is not None else LlmSettings.from_env()
        self.mode = mode
        # a context holds only immutable analysis and memos of pure look-ups: sessions may share one
        fits = context is not None and context.profile is profile and context.baseline is baseline
        self.ctx = (
            context if fits and context is not None else ProfileContext(profile, baseline, summary=summary).prepare()
        )
        self.offline = OfflineExplainer(self.ctx, budget)
        self.pastes: list[VllmLog] = []  # vLLM lines pasted into this conversation, kept over a new budget
        self.chat_model = chat_model
        self.facts_made: dict[bool, Facts] = {}
        self.grounding = Grounding(self.ctx.unit)  # facts and every tool result of this conversation
        self.history = History()
        self.questions = 0
        self.last_answer: Answer | None = None
        top = self.ctx.summary.top_self.rows
        self.context = Context(None, tuple(r.name for r in top))  # what follow-ups refer back to
        self.cluster: ClusterDesk | None = None  # a server source's pods (explainer.explain.cluster), set by the caller

    @property
    def budget(self) -> Budget:
        return self.offline.budget

    @budget.setter
    def budget(self, value: Budget) -> None:
        self.offline.budget = value

    def set_budget(self, base: Budget) -> None:
        """What the user says about the GPU elsewhere (the app's sidebar), with the vLLM lines pasted here kept."""
        for pasted in self.pastes:
            base = base.with_log(pasted)
        self.offline.budget = base

    def uses_model(self, settings: LlmSettings | None = None) -> bool:
        available = self.chat_model is not None or (self.settings if settings is None else settings).configured
        return wants_model(self.mode, available)

    def facts(self, settings: LlmSettings) -> Facts:
        """The facts block for the model, built once per redaction choice; its numbers join the grounding."""
        from explainer.explain.llm.turn import facts  # tiktoken, pydantic: the model path only

        return facts(self, settings)

    def ask(self, question: str) -> Answer:
        for _ in self.ask_stream(question):
            pass
        assert self.last_answer is not None
        return self.last_answer

    def ask_stream(self, question: str, settings: LlmSettings | None = None) -> Iterator[str]:
        """Markdown chunks as they are ready; afterwards :attr:`last_answer` holds the whole answer.

        ``settings`` are this call's (with the key): passed per call, never kept; without them the
        conversation's own settings are used. The path: take the message in, route it once, respond;
        then keep the reply (its topic for follow-ups, the turn for a model's history).
        """
        settings = self.settings if settings is None else settings
        available = self.chat_model is not None or settings.configured
        self.questions += 1
        asked = take(question, self.ctx.subjects, self.context, self.offline.budget)
        if asked.pasted is not None:  # remembered: a budget set later (the sidebar) keeps them
            self.pastes.append(asked.pasted)
        self.offline.budget = asked.budget
        way = route(asked, self.mode, available, self.questions, self.cluster, self.ctx.profile.source)
        reply = yield from respond(asked, way, self, settings)
        self.context, self.last_answer = reply.context, reply.answer
        self.history.add(asked.text, reply.answer.markdown)

    def read(self, question: str) -> Question:
        """How a question is read in this conversation (its follow-ups refer to earlier answers)."""
        return read(question, self.ctx.subjects, self.context)

    def offline_answer(self, q: Question, notice: str | None = None, model_error: str = "") -> Iterator[str]:
        """The offline explainer's answer to ``q`` (a compound question part by part), with ``notice`` above it."""
        asked = Asked(q.text, q, split(q.text, self.ctx.subjects, self.context), budget=self.offline.budget)
        reply = yield from respond(asked, Route("offline", notice=notice, failure=model_error), self, self.settings)
        self.context, self.last_answer = reply.context, reply.answer

    def outgoing_preview(self, question: str, settings: LlmSettings | None = None) -> str:
        """Exactly what the next question would send to the model; "" when nothing would be sent."""
        settings = self.settings if settings is None else settings
        if not self.uses_model(settings):
            return ""
        from explainer.explain.llm.turn import ModelTurn

        asked = take(question, self.ctx.subjects, self.context, self.offline.budget)
        return ModelTurn(self, settings).preview(asked.text, asked.question)

    def suggested_questions(self) -> list[str]:
        return suggestions(self.ctx)


__all__ = [
    "MAX_PASTE_CHARS",
    "MAX_QUESTIONS",
    "MAX_QUESTION_CHARS",
    "OFFLINE_INTENTS",
    "Answer",
    "Conversation",
    "ModelUnavailableError",
    "Verification",
]
