"""The offline explainer: deterministic answers, with this profile's numbers, to the questions of
the domain guide. Nothing leaves the machine; this is what people meet first.

A question arrives already read (:class:`~explainer.explain.question.reader.Question`: intent,
subject, language); one answer function writes Markdown through a
:class:`~explainer.explain.answers.writer.Writer`, which records every number it formats. The
analysis is done once per conversation, so an answer takes milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass

from explainer.explain.answers import concepts, frames
from explainer.explain.answers.intents import Asked, help_text, intent
from explainer.explain.answers.writer import Writer
from explainer.explain.checks.verify import Grounding
from explainer.explain.context import ProfileContext
from explainer.explain.question.reader import Question


@dataclass(frozen=True, eq=False)
class OfflineAnswer:
    markdown: str
    focus: str | None  # the raw name of the function the answer is about, for highlighting
    grounding: Grounding  # every number the answer shows
    kind: str  # the intent answered
    ranking: tuple[str, ...] = ()  # the functions the answer ranked, for "the second one"


class OfflineExplainer:
    def __init__(self, ctx: ProfileContext) -> None:
        self.ctx = ctx

    def answer(self, q: Question) -> OfflineAnswer:
        w = Writer(self.ctx, q.lang)
        if not self.ctx.total and q.intent not in ("help", "meaning", "howto"):
            w.add(
                w.t(
                    "Every value in this profile is zero for its sample type ({sample_type}), so there is nothing "
                    "to rank or explain. If the file has several sample types, choose another one (`--sample-type` "
                    "on the command line).",
                    sample_type=str(self.ctx.profile.sample_type),
                )
            )
            return OfflineAnswer(w.markdown(), None, w.g, q.intent)
        if q.subject is not None:
            w.g.text(q.subject.name)  # the user's own words may be echoed ("`Foo.bar` is not in this profile")
        if q.runner_up is not None:
            w.add(
                w.t(
                    "_I read this as a question about {reading}; for {other}, ask that directly._",
                    reading=w.t(intent(q.intent).reading_as),
                    other=w.t(intent(q.runner_up).reading_as),
                ),
                "",
            )
        focus = self._dispatch(w, q)
        return OfflineAnswer(w.markdown(), focus, w.g, q.intent, self._ranking(q))

    def _ranking(self, q: Question) -> tuple[str, ...]:
        rows = self.ctx.summary.top_total.rows if q.intent == "responsible" else self.ctx.summary.top_self.rows
        return tuple(r.name for r in rows)

    def _fid(self, q: Question) -> int | None:
        if q.subject is None or q.subject.kind != "function":
            return None
        fid = self.ctx.profile.function_id(q.subject.name)
        return fid if fid is not None and self.ctx.stats.total_values[fid] > 0 else None

    def _dispatch(self, w: Writer, q: Question) -> str | None:
        subject, fid, record = q.subject, self._fid(q), intent(q.intent)
        if record.id == "help" or not q.text:  # an empty question gets the suggestions
            return help_text(w, unknown=False)
        if record.id == "unknown" and subject is None:
            return help_text(w, unknown=True)
        if subject is not None and subject.kind == "missing":
            return frames.symbol(w, None, subject.name)
        concept = subject.name if subject is not None and subject.kind == "concept" else None
        if concept is not None and record.concept_first:
            return (concepts.meaning if record.id == "meaning" else concepts.category)(w, concept)
        if fid is not None and record.function_first:
            return frames.function(w, fid)
        return record.answer(w, Asked(fid, concept, subject.name if subject is not None else None))
