"""A routed question answered, checked and handed back with what the next question may refer to.

The one chain below the route: the cluster desk's reply as it is; the model's turn (its lines
checked as they stream, in ``llm/turn.py``); the offline answer, a compound question part by part
in the order asked (a later part read again after the earlier answers, so its "it" is what they
were about), checked against the numbers it formatted itself. When the model fails, the offline
answer follows with a notice saying why.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable
from typing import TYPE_CHECKING, Protocol

from explainer.explain.answer import Answer, Reply
from explainer.explain.answers.language import translations
from explainer.explain.answers.offline import OfflineAnswer, OfflineExplainer
from explainer.explain.checks.verify import Grounding, LineVerifier, Verification, own
from explainer.explain.context import ProfileContext
from explainer.explain.history import after
from explainer.explain.llm.settings import LlmSettings
from explainer.explain.question.intake import Asked
from explainer.explain.question.reader import Context, read
from explainer.explain.route import Route

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from explainer.explain.llm.facts import Facts


class Host(Protocol):
    """What the chain reads of its conversation. It writes there only what the model's turn adds to the
    grounding (the facts, the question's words); the conversation keeps the reply itself."""

    ctx: ProfileContext
    offline: OfflineExplainer
    context: Context
    grounding: Grounding  # the model's turn: the facts and every tool result of the conversation
    chat_model: BaseChatModel | None
    facts_made: dict[bool, Facts]

    @property
    def history(self) -> Iterable[tuple[str, str]]: ...  # read only: the turns a model is sent again


def respond(asked: Asked, way: Route, host: Host, settings: LlmSettings) -> Generator[str, None, Reply]:
    """Markdown chunks as they are ready; returns the whole answer with the topic it leaves."""
    if way.way == "cluster":
        yield way.reply
        return Reply(Answer(way.reply, "offline", Verification()), host.context)
    notice, failure = way.notice, way.failure
    if way.way == "model":
        from explainer.explain.llm.turn import ModelTurn  # LangChain: the model path only

        done = yield from ModelTurn(host, settings).run(asked.text, asked.question)
        if isinstance(done, Reply):
            return done
        notice, failure = done.notice, done.reason
    context, results = host.context, list[OfflineAnswer]()
    # a compound question part by part, in the order asked: a later part is read again in the
    # context the earlier answers left, so its "it" is what they were about
    for i, part in enumerate(asked.parts or (asked.question,)):
        q = part if i == 0 else read(part.text, host.ctx.subjects, context)
        results.append(host.offline.answer(q))
        last = results[-1]
        context = after(context, q, last.focus, last.ranking, last.shown, last.left)
    for other in results[1:]:
        results[0].grounding.merge(other.grounding)
    # the answer's own grounding holds every number it formatted: checking against it is a
    # self-test of the offline explainer (any flag here is a bug), and costs no facts
    verifier = LineVerifier(results[0].grounding, host.ctx.names)
    body = verifier.feed("\n\n---\n\n".join(r.markdown for r in results)) + verifier.finish()
    notice = translations(asked.question.lang).gettext(notice) if notice else notice
    text = (f"> {notice}\n\n" if notice else "") + body
    yield text
    verification = own(Verification.of(verifier))
    return Reply(Answer(text, "offline", verification, notice, results[0].focus, model_error=failure), context)
