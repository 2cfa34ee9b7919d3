"""One question answered by the model: the turn that used to live inside the conversation.

The conversation keeps what outlives a question (the profile's context, the grounding, the
history, the offline explainer) and hands this turn the settings of this one call, so a key is
never stored between calls. The turn streams the model's answer through the line verifier and
returns it with the topic it leaves for the next question, or, when the model fails, a
:class:`Fallback` saying why (the caller then gives the offline answer); it builds exactly the
messages that :meth:`ModelTurn.preview` shows before anything is sent. Of its conversation it
writes only the grounding (the facts and the question's words, which later answers are checked
against too).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from explainer.errors import ModelError, ModelResponseError
from explainer.explain.answer import Answer, Reply, Verification
from explainer.explain.answers.language import N_
from explainer.explain.answers.offline import OfflineExplainer
from explainer.explain.answers.suggest import symbol_data
from explainer.explain.checks.names import normalize
from explainer.explain.checks.verify import Grounding, LineVerifier, footer, names_in_line
from explainer.explain.context import ProfileContext
from explainer.explain.history import after
from explainer.explain.llm import prompts
from explainer.explain.llm.settings import LlmSettings
from explainer.explain.question.reader import Context, Question
from explainer.explain.safety import MAX_ANSWER_CHARS, data_block, redact, sanitize_markdown, unlink

if TYPE_CHECKING:  # LangChain loads only when a model answers
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import BaseMessage

    from explainer.explain.llm.facts import Facts
    from explainer.explain.llm.session import Outcome

log = logging.getLogger(__name__)
MAX_INPUT_TOKENS = 8_000


class Host(Protocol):
    """What a turn reads and writes of its conversation."""

    ctx: ProfileContext
    grounding: Grounding

    @property
    def history(self) -> Iterable[tuple[str, str]]: ...  # read only: the turns a model is sent again

    offline: OfflineExplainer
    context: Context  # what this question may refer back to
    chat_model: BaseChatModel | None
    facts_made: dict[bool, Facts]  # the facts block per redaction choice, built once per conversation


@dataclass(frozen=True, slots=True)
class Fallback:
    """The model gave no answer: the offline explainer answers, with this notice."""

    notice: str
    reason: str  # for the record (``Answer.model_error``)


def facts(host: Host, settings: LlmSettings) -> Facts:
    """The facts block for the model, built once per redaction choice; its numbers join the grounding."""
    if settings.redact_labels not in host.facts_made:
        from explainer.explain.llm.facts import build_facts  # tiktoken, pydantic: the model path only

        made = build_facts(host.ctx, redact_labels=settings.redact_labels)
        host.grounding.merge(made.grounding)
        host.facts_made[settings.redact_labels] = made
    return host.facts_made[settings.redact_labels]


class ModelTurn:
    def __init__(self, host: Host, settings: LlmSettings) -> None:
        self.host, self.settings = host, settings

    def run(self, question: str, q: Question) -> Generator[str, None, Reply | Fallback]:
        """The model's answer as it streams, checked line by line; a :class:`Fallback` when it gives none."""
        started = time.monotonic()  # EXPLAINER_LLM_TIMEOUT counts from here: loading the client is part of it
        from explainer.explain.llm.session import ModelSession, Outcome, chat_model

        grounding = self._grounding_for(question)
        from explainer.explain.llm.tools import Toolbox  # pydantic: the model path only

        toolbox = Toolbox(self.host.ctx, grounding)
        hosts = self.settings.link_hosts
        verifier = LineVerifier(
            grounding,
            self.host.ctx.names,
            transform=lambda line: sanitize_markdown(line, hosts=hosts)[0],
            question=question,
            advice_hosts=hosts,  # commands, outside links and installs are marked as unverified advice
        )
        outcome = Outcome()
        shown: list[str] = []
        size = 0
        stream: Iterator[str] = iter(())
        try:
            model = self.host.chat_model if self.host.chat_model is not None else chat_model(self.settings)
            session = ModelSession(model, toolbox, self.settings, started=started)
            stream = session.stream(self.messages(question, q), outcome)
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
        return (yield from self._finish(q, "".join(shown), verifier, outcome))

    def _finish(
        self, q: Question, text: str, verifier: LineVerifier, outcome: Outcome
    ) -> Generator[str, None, Reply | Fallback]:
        reason = self._reason(outcome)
        if not text.strip():
            return Fallback(
                f"The model could not answer ({reason}); the offline explainer answered instead."
                if reason
                else N_("The model sent no answer; the offline explainer answered instead."),
                reason or "the model sent no answer",
            )
        tail = unlink(footer(verifier.unverified), self.settings.link_hosts)  # it repeats claims: URLs too
        notice = None
        if outcome.incomplete:
            notice = f"The model's answer is incomplete ({reason or 'the stream ended early'})."
            offline = self.host.offline.answer(q)
            tail += f"\n\n> {notice} The offline answer follows.\n\n{offline.markdown}"
        if tail:
            yield tail
        focus = self._focus(q, text)
        failure = (reason or "the stream ended early") if outcome.incomplete else ""
        answer = Answer(text + tail, "llm", Verification.of(verifier), notice, focus, outcome.incomplete, failure)
        return Reply(answer, after(self.host.context, q, focus))

    def _reason(self, outcome: Outcome) -> str:
        if outcome.error is not None:  # the message without its hint ("the offline explainer answered")
            message = " ".join(str(outcome.error.args[0] if outcome.error.args else outcome.error).split())
            return redact(message, self.settings.secrets())
        if outcome.finish_reason == "length":
            return "it reached the length limit"
        return ""

    def _grounding_for(self, question: str) -> Grounding:
        """Facts, earlier tool results, and the question's own words (names the user typed may be echoed)."""
        _ = facts(self.host, self.settings)  # builds the facts and merges their grounding, once
        self.host.grounding.texts.append(normalize(question))
        return self.host.grounding

    def _focus(self, q: Question, text: str) -> str | None:
        ids = self.host.ctx.resolve(q.subject.name) if q.subject is not None and q.subject.kind == "function" else []
        if not ids:
            for name, _ in (pair for line in text.splitlines() for pair in names_in_line(line)):
                ids = self.host.ctx.resolve(name)
                if ids:
                    break
        return self.host.ctx.profile.names[ids[0]] if ids else None

    def messages(self, question: str, q: Question) -> list[BaseMessage]:
        from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

        from explainer.explain.llm.facts import count_tokens

        system = SystemMessage(content=prompts.load("system").render())
        template = {"meaning": "symbol", "handoff": "handoff"}.get(q.intent, "answer")
        payload: dict[str, Any] = {"facts": list(facts(self.host, self.settings).items)}
        if template == "symbol":
            about = symbol_data(self.host.ctx, q)
            for value in about.values():
                if isinstance(value, str):
                    self.host.grounding.text(value)  # what we tell the model about the frame, it may repeat
            payload["asked_about"] = about
        current = HumanMessage(
            content=prompts.load(template).render(data_block=data_block("facts", payload), question=question)
        )
        history: list[BaseMessage] = []
        for asked, said in self.host.history:
            history += [HumanMessage(content=asked), AIMessage(content=said)]
        while history and count_tokens("".join(str(m.content) for m in [system, *history, current])) > MAX_INPUT_TOKENS:
            history = history[2:]  # the oldest turn goes first
        return [system, *history, current]

    def preview(self, question: str, q: Question) -> str:
        """Exactly what the question (``q`` its reading) would send to the model."""
        messages = self.messages(question, q)
        parts = [f"[{m.type}]\n{m.content}" for m in messages]

        from explainer.explain.llm.tools import Toolbox

        tools = ", ".join(Toolbox(self.host.ctx, Grounding()).names)
        parts.append(
            f"[tools]\nThe model may call: {tools}. Their results, from this profile only, are sent back "
            "to it in the same kind of data block."
        )
        return redact("\n\n".join(parts), self.settings.secrets())
