"""A conversation about one profile: offline answers, or the model's answers checked line by line.

Modes: ``offline`` never sends anything; ``llm`` uses the configured model; ``auto`` uses the
model when one is configured. Whenever the model fails, the offline answer is given instead with
a notice (or, when part of the model's answer had already streamed, after it, marked incomplete).

What goes to the model, per question: the system prompt (fixed text, no profile data), the last
few turns of this conversation, and the question with the profile's facts in one data block;
then tool results, each in its own data block. :meth:`Conversation.outgoing_preview` shows
exactly that before anything is sent.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING

from explainer.analysis.summary import Summary
from explainer.errors import ModelUnavailableError
from explainer.explain.answer import Answer, Verification, own
from explainer.explain.answers.language import N_, translations
from explainer.explain.answers.offline import OfflineAnswer, OfflineExplainer
from explainer.explain.answers.suggest import suggestions
from explainer.explain.checks.verify import Grounding, LineVerifier
from explainer.explain.context import ProfileContext
from explainer.explain.llm.settings import LlmSettings
from explainer.explain.question.compound import clauses
from explainer.explain.question.reader import Context, Question, read
from explainer.explain.question.subjects import Subject
from explainer.explain.safety import clean_text
from explainer.model import Profile

if TYPE_CHECKING:  # LangChain loads only when a model answers: offline use stays fast to start
    from langchain_core.language_models import BaseChatModel

    from explainer.analysis.summary import Summary
    from explainer.explain.cluster import ClusterDesk
    from explainer.explain.llm.facts import Facts

log = logging.getLogger(__name__)
MAX_QUESTION_CHARS = 2_000
MAX_HISTORY_TURNS = 4
MAX_HISTORY_ANSWER_CHARS = 3_000
MAX_QUESTIONS = 50


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
    ) -> None:
        if mode not in ("auto", "offline", "llm"):
            raise ValueError(f"mode must be auto, offline or llm, not {mode!r}")
        self.settings = settings if settings is not None else LlmSettings.from_env()
        self.mode = mode
        # a context holds only immutable analysis and memos of pure look-ups: sessions may share one
        fits = context is not None and context.profile is profile and context.baseline is baseline
        self.ctx = (
            context if fits and context is not None else ProfileContext(profile, baseline, summary=summary).prepare()
        )
        self.offline = OfflineExplainer(self.ctx)
        self.chat_model = chat_model
        self._facts: dict[bool, Facts] = {}
        self.grounding = Grounding(self.ctx.unit)  # facts and every tool result of this conversation
        self.history: list[tuple[str, str]] = []
        self.questions = 0
        self.last_answer: Answer | None = None
        top = self.ctx.summary.top_self.rows
        self.context = Context(None, tuple(r.name for r in top))  # what follow-ups refer back to
        self.cluster: ClusterDesk | None = None  # a server source's pods (explainer.explain.cluster), set by the caller

    def uses_model(self, settings: LlmSettings | None = None) -> bool:
        available = self.chat_model is not None or (self.settings if settings is None else settings).configured
        return self.mode == "llm" or (self.mode == "auto" and available)

    def facts(self, settings: LlmSettings) -> Facts:
        """The facts block for the model, built once per redaction choice; its numbers join the grounding."""
        if settings.redact_labels not in self._facts:
            from explainer.explain.llm.facts import build_facts  # tiktoken, pydantic: the model path only

            facts = build_facts(self.ctx, redact_labels=settings.redact_labels)
            self.grounding.merge(facts.grounding)
            self._facts[settings.redact_labels] = facts
        return self._facts[settings.redact_labels]

    def ask(self, question: str) -> Answer:
        for _ in self.ask_stream(question):
            pass
        assert self.last_answer is not None
        return self.last_answer

    def ask_stream(self, question: str, settings: LlmSettings | None = None) -> Iterator[str]:
        """Markdown chunks as they are ready; afterwards :attr:`last_answer` holds the whole answer.

        ``settings`` are this call's (with the key): passed per call, never kept; without them the
        conversation's own settings are used.
        """
        settings = self.settings if settings is None else settings
        question = clean_text(question, MAX_QUESTION_CHARS).strip()
        routed = self._cluster_answer(question)
        if routed is not None:
            self.questions += 1
            self.last_answer = Answer(routed, "offline", Verification())
            self.history.append((question, routed[:MAX_HISTORY_ANSWER_CHARS]))
            del self.history[:-MAX_HISTORY_TURNS]
            yield routed
            return
        q = self.read(question)  # read once; every path below answers this reading
        self.questions += 1
        if not self.uses_model(settings):
            yield from self.offline_answer(q)
        elif self.chat_model is None and not settings.configured:
            yield from self.offline_answer(q, N_("No model is configured, so the offline explainer answered."))
        elif self.questions > MAX_QUESTIONS:
            yield from self.offline_answer(
                q,
                N_(
                    "This conversation reached its length limit; start a new one to ask the model again. The "
                    "offline explainer answered."
                ),
            )
        else:
            yield from self._model_answer(question, q, settings)
        if self.last_answer is not None:
            self.history.append((question, self.last_answer.markdown[:MAX_HISTORY_ANSWER_CHARS]))
            del self.history[:-MAX_HISTORY_TURNS]

    def _cluster_answer(self, question: str) -> str | None:
        """Questions about pods, namespaces and services: the server's answer, or on a file "a file has none"."""
        from explainer.explain.cluster import file_answer

        if self.cluster is not None:
            return self.cluster.answer(question)
        source = self.ctx.profile.source
        return file_answer(question) if source is None or source.kind != "pyroscope" else None

    def read(self, question: str) -> Question:
        """How a question is read in this conversation (its follow-ups refer to earlier answers)."""
        return read(question, self.ctx.subjects, self.context)

    def remember(self, q: Question, focus: str | None, ranking: tuple[str, ...] = ()) -> None:
        """What the next question may refer back to: this answer's subject or focus, its ranking, its language."""
        topic = q.subject if q.subject is not None and q.subject.kind != "missing" else None
        if focus is not None and (topic is None or topic.kind == "function"):
            topic = Subject("function", focus, "focus")
        self.context = Context(topic or self.context.topic, ranking or self.context.ranking, q.lang, q.intent)

    def offline_answer(self, q: Question, notice: str | None = None, model_error: str = "") -> Iterator[str]:
        result = self._answer_parts(q)
        notice = translations(q.lang).gettext(notice) if notice else notice
        # the answer's own grounding holds every number it formatted: checking against it is a
        # self-test of the offline explainer (any flag here is a bug), and costs no facts
        verifier = LineVerifier(result.grounding, self.ctx.names)
        body = verifier.feed(result.markdown) + verifier.finish()
        text = (f"> {notice}\n\n" if notice else "") + body
        self.last_answer = Answer(
            text, "offline", own(Verification.of(verifier)), notice, result.focus, model_error=model_error
        )
        yield text

    def _answer_parts(self, q: Question) -> OfflineAnswer:
        """The offline answer, remembered; a compound question ("what should I optimise first, and with which
        setting?") answered part by part in the order asked, each part read after the answers before it."""
        parts = clauses(q.text)
        readings = [read(part, self.ctx.subjects, self.context) for part in parts] if len(parts) > 1 else []
        asked = {(r.intent, r.subject.label if r.subject else "") for r in readings}
        if len(readings) < 2 or any(r.intent in ("unknown", "help") for r in readings) or len(asked) < len(readings):
            result = self.offline.answer(q)
            self.remember(q, result.focus, result.ranking)
            return result
        answers: list[OfflineAnswer] = []
        for part in parts:
            reading = self.read(part)  # again: "it" in a later part is what the earlier answer was about
            answers.append(self.offline.answer(reading))
            self.remember(reading, answers[-1].focus, answers[-1].ranking)
        first = answers[0]
        for other in answers[1:]:
            first.grounding.merge(other.grounding)
        markdown = "\n\n---\n\n".join(a.markdown for a in answers)
        return OfflineAnswer(markdown, first.focus, first.grounding, first.kind, answers[-1].ranking)

    def _model_answer(self, question: str, q: Question, settings: LlmSettings) -> Iterator[str]:
        from explainer.explain.llm.turn import ModelTurn  # the model path only

        yield from ModelTurn(self, settings).answer(question, q)

    def outgoing_preview(self, question: str, settings: LlmSettings | None = None) -> str:
        """Exactly what the next question would send to the model; "" when nothing would be sent."""
        settings = self.settings if settings is None else settings
        if not self.uses_model(settings):
            return ""
        from explainer.explain.llm.turn import ModelTurn

        return ModelTurn(self, settings).preview(clean_text(question, MAX_QUESTION_CHARS).strip())

    def suggested_questions(self) -> list[str]:
        return suggestions(self.ctx)


__all__ = ["Answer", "Conversation", "ModelUnavailableError", "Verification"]
