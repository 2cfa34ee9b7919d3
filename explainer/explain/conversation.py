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
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

from explainer.analysis.summary import Summary
from explainer.errors import ModelError, ModelResponseError, ModelUnavailableError
from explainer.explain.answers.language import N_, translations
from explainer.explain.answers.offline import OfflineExplainer
from explainer.explain.answers.suggest import suggestions, symbol_data
from explainer.explain.checks.names import normalize
from explainer.explain.checks.verify import Grounding, LineVerifier, WrongClaim, footer, names_in_line
from explainer.explain.context import ProfileContext
from explainer.explain.llm import prompts
from explainer.explain.llm.settings import LlmSettings
from explainer.explain.question.reader import Context, Question, read
from explainer.explain.question.subjects import Subject
from explainer.explain.safety import MAX_ANSWER_CHARS, clean_text, data_block, redact, sanitize_markdown, unlink
from explainer.model import Profile

if TYPE_CHECKING:  # LangChain loads only when a model answers: offline use stays fast to start
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import BaseMessage

    from explainer.analysis.summary import Summary
    from explainer.explain.llm.facts import Facts
    from explainer.explain.llm.session import Outcome

log = logging.getLogger(__name__)
MAX_QUESTION_CHARS = 2_000
MAX_HISTORY_TURNS = 4
MAX_HISTORY_ANSWER_CHARS = 3_000
MAX_INPUT_TOKENS = 8_000
MAX_QUESTIONS = 50


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


def _own(v: Verification) -> Verification:
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
        self._model = chat_model
        self.grounding = Grounding(self.ctx.unit)  # facts and every tool result of this conversation
        self.history: list[tuple[str, str]] = []
        self.questions = 0
        self.last_answer: Answer | None = None
        top = self.ctx.summary.top_self.rows
        self.context = Context(None, tuple(r.name for r in top))  # what follow-ups refer back to

    @property
    def uses_model(self) -> bool:
        available = self._model is not None or self.settings.configured
        return self.mode == "llm" or (self.mode == "auto" and available)

    @cached_property
    def facts(self) -> Facts:
        from explainer.explain.llm.facts import build_facts  # tiktoken, pydantic: the model path only

        facts = build_facts(self.ctx, redact_labels=self.settings.redact_labels)
        self.grounding.merge(facts.grounding)
        return facts

    def ask(self, question: str) -> Answer:
        for _ in self.ask_stream(question):
            pass
        assert self.last_answer is not None
        return self.last_answer

    def ask_stream(self, question: str) -> Iterator[str]:
        """Markdown chunks as they are ready; afterwards :attr:`last_answer` holds the whole answer."""
        question = clean_text(question, MAX_QUESTION_CHARS).strip()
        q = self.read(question)  # read once; every path below answers this reading
        self.questions += 1
        if not self.uses_model:
            yield from self._offline(q)
        elif self._model is None and not self.settings.configured:
            yield from self._offline(q, N_("No model is configured, so the offline explainer answered."))
        elif self.questions > MAX_QUESTIONS:
            yield from self._offline(
                q,
                N_(
                    "This conversation reached its length limit; start a new one to ask the model again. The "
                    "offline explainer answered."
                ),
            )
        else:
            yield from self._model_answer(question, q)
        if self.last_answer is not None:
            self.history.append((question, self.last_answer.markdown[:MAX_HISTORY_ANSWER_CHARS]))
            del self.history[:-MAX_HISTORY_TURNS]

    def read(self, question: str) -> Question:
        """How a question is read in this conversation (its follow-ups refer to earlier answers)."""
        return read(question, self.ctx.subjects, self.context)

    def _remember(self, q: Question, focus: str | None, ranking: tuple[str, ...] = ()) -> None:
        """What the next question may refer back to: this answer's subject or focus, its ranking, its language."""
        topic = q.subject if q.subject is not None and q.subject.kind != "missing" else None
        if focus is not None and (topic is None or topic.kind == "function"):
            topic = Subject("function", focus, "focus")
        self.context = Context(topic or self.context.topic, ranking or self.context.ranking, q.lang, q.intent)

    def _offline(self, q: Question, notice: str | None = None, model_error: str = "") -> Iterator[str]:
        result = self.offline.answer(q)
        notice = translations(q.lang).gettext(notice) if notice else notice
        self._remember(q, result.focus, result.ranking)
        # the answer's own grounding holds every number it formatted: checking against it is a
        # self-test of the offline explainer (any flag here is a bug), and costs no facts
        verifier = LineVerifier(result.grounding, self.ctx.names)
        body = verifier.feed(result.markdown) + verifier.finish()
        text = (f"> {notice}\n\n" if notice else "") + body
        self.last_answer = Answer(
            text, "offline", _own(Verification.of(verifier)), notice, result.focus, model_error=model_error
        )
        yield text

    def _model_answer(self, question: str, q: Question) -> Iterator[str]:
        started = time.monotonic()  # EXPLAINER_LLM_TIMEOUT counts from here: loading the client is part of it
        from explainer.explain.llm.session import ModelSession, Outcome, chat_model

        grounding = self._grounding_for(question)
        from explainer.explain.llm.tools import Toolbox  # pydantic: the model path only

        toolbox = Toolbox(self.ctx, grounding)
        hosts = self.settings.link_hosts
        verifier = LineVerifier(
            grounding,
            self.ctx.names,
            transform=lambda line: sanitize_markdown(line, hosts=hosts)[0],
            question=question,
            advice_hosts=hosts,
        )
        outcome = Outcome()
        shown: list[str] = []
        size = 0
        stream: Iterator[str] = iter(())
        try:
            model = self._model if self._model is not None else chat_model(self.settings)
            session = ModelSession(model, toolbox, self.settings, started=started)
            stream = session.stream(self._messages(question, q), outcome)
            for text in stream:
                size += len(text)
                if size > MAX_ANSWER_CHARS:
                    outcome.finish_reason = "length"
                    break
                out = verifier.feed(text)
                if out:
                    shown.append(out)
                    yield out
        except ModelError as exc:
            outcome.error = exc
        except Exception as exc:  # a bug or an unexpected upstream failure: never a traceback in the chat
            log.warning("model answer failed: %s", type(exc).__name__)
            outcome.error = ModelResponseError(f"the model call failed ({type(exc).__name__})")
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                close()  # stops the HTTP stream now when we cut it short, not at garbage collection
        rest = verifier.finish()
        if rest:
            shown.append(rest)
            yield rest
        yield from self._finish(question, q, "".join(shown), verifier, outcome)

    def _finish(self, question: str, q: Question, text: str, verifier: LineVerifier, outcome: Outcome) -> Iterator[str]:
        reason = self._reason(outcome)
        if not text.strip():
            yield from self._offline(
                q,
                f"The model could not answer ({reason}); the offline explainer answered instead."
                if reason
                else N_("The model sent no answer; the offline explainer answered instead."),
                reason or "the model sent no answer",
            )
            return
        tail = unlink(footer(verifier.unverified), self.settings.link_hosts)  # it repeats claims: URLs too
        notice = None
        if outcome.incomplete:
            notice = f"The model's answer is incomplete ({reason or 'the stream ended early'})."
            offline = self.offline.answer(q)
            tail += f"\n\n> {notice} The offline answer follows.\n\n{offline.markdown}"
        if tail:
            yield tail
        focus = self._focus(q, text)
        self._remember(q, focus)
        failure = (reason or "the stream ended early") if outcome.incomplete else ""
        self.last_answer = Answer(
            text + tail, "llm", Verification.of(verifier), notice, focus, outcome.incomplete, failure
        )

    def _reason(self, outcome: Outcome) -> str:
        if outcome.error is not None:  # the message without its hint ("the offline explainer answered")
            message = " ".join(str(outcome.error.args[0] if outcome.error.args else outcome.error).split())
            return redact(message, self.settings.secrets())
        if outcome.finish_reason == "length":
            return "it reached the length limit"
        return ""

    def _grounding_for(self, question: str) -> Grounding:
        """Facts, earlier tool results, and the question's own words (names the user typed may be echoed)."""
        _ = self.facts  # builds the facts and merges their grounding, once
        self.grounding.texts.append(normalize(question))
        return self.grounding

    def _focus(self, q: Question, text: str) -> str | None:
        ids = self.ctx.resolve(q.subject.name) if q.subject is not None and q.subject.kind == "function" else []
        if not ids:
            for name, _ in (pair for line in text.splitlines() for pair in names_in_line(line)):
                ids = self.ctx.resolve(name)
                if ids:
                    break
        return self.ctx.profile.names[ids[0]] if ids else None

    def _messages(self, question: str, q: Question) -> list[BaseMessage]:
        from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

        from explainer.explain.llm.facts import count_tokens

        system = SystemMessage(content=prompts.load("system").render())
        template = {"meaning": "symbol", "handoff": "handoff"}.get(q.intent, "answer")
        payload: dict[str, Any] = {"facts": list(self.facts.items)}
        if template == "symbol":
            about = symbol_data(self.ctx, q)
            for value in about.values():
                if isinstance(value, str):
                    self.grounding.text(value)  # what we tell the model about the frame, it may repeat
            payload["asked_about"] = about
        current = HumanMessage(
            content=prompts.load(template).render(data_block=data_block("facts", payload), question=question)
        )
        history: list[BaseMessage] = []
        for asked, said in self.history:
            history += [HumanMessage(content=asked), AIMessage(content=said)]
        while history and count_tokens("".join(str(m.content) for m in [system, *history, current])) > MAX_INPUT_TOKENS:
            history = history[2:]  # the oldest turn goes first
        return [system, *history, current]

    def outgoing_preview(self, question: str) -> str:
        """Exactly what the next question would send to the model; "" when nothing would be sent."""
        if not self.uses_model:
            return ""
        question = clean_text(question, MAX_QUESTION_CHARS).strip()
        messages = self._messages(question, self.read(question))
        parts = [f"[{m.type}]\n{m.content}" for m in messages]

        from explainer.explain.llm.tools import Toolbox

        tools = ", ".join(Toolbox(self.ctx, Grounding()).names)
        parts.append(
            f"[tools]\nThe model may call: {tools}. Their results, from this profile only, are sent back "
            "to it in the same kind of data block."
        )
        return redact("\n\n".join(parts), self.settings.secrets())

    def suggested_questions(self) -> list[str]:
        return suggestions(self.ctx)


__all__ = ["Answer", "Conversation", "ModelUnavailableError", "Verification"]
