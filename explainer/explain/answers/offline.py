"""The offline explainer: deterministic answers, with this profile's numbers, to the questions of
the domain guide. Nothing leaves the machine; this is what people meet first.

A question is classified (:mod:`explainer.explain.question.intents`), the frame it names is matched to the
profile, and one answer function writes Markdown through a
:class:`~explainer.explain.answers.writer.Writer`, which records every number it formats. The analysis
is done once per conversation, so an answer takes milliseconds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from explainer.explain.answers import frames, reports, whole
from explainer.explain.answers.writer import Writer
from explainer.explain.checks.verify import Grounding
from explainer.explain.context import ProfileContext
from explainer.explain.question.intents import Intent, classify

_WHOLE: dict[str, Callable[[Writer], str | None]] = {
    "most": whole.most,
    "total": whole.total,
    "overview": reports.overview,
    "optimise": whole.optimise,
    "skip": whole.skip,
    "responsible": whole.responsible,
    "handoff": reports.handoff,
    "compare": reports.compare,
}
_NEEDS_FRAME = ("callers", "callees", "chain", "function")


@dataclass(frozen=True, eq=False)
class OfflineAnswer:
    markdown: str
    focus: str | None  # the raw name of the function the answer is about, for highlighting
    grounding: Grounding  # every number the answer shows
    kind: str  # the intent answered


class OfflineExplainer:
    def __init__(self, ctx: ProfileContext) -> None:
        self.ctx = ctx

    def answer(self, question: str) -> OfflineAnswer:
        intent = classify(question)
        w = Writer(self.ctx)
        if not self.ctx.total and intent.kind not in ("help", "symbol"):
            w.add(
                f"Every value in this profile is zero for its sample type ({self.ctx.profile.sample_type}), so "
                "there is nothing to rank or explain. If the file has several sample types, choose another one "
                "(`--sample-type` on the command line)."
            )
            return OfflineAnswer(w.markdown(), None, w.g, intent.kind)
        if intent.target:
            w.g.text(intent.target)  # the user's own words may be echoed ("`Foo.bar` is not in this profile")
        fid = self._frame(intent, question)
        focus = self._dispatch(w, intent, fid)
        return OfflineAnswer(w.markdown(), focus, w.g, intent.kind)

    def _frame(self, intent: Intent, question: str) -> int | None:
        """The profile function the question names: its explicit target, else a name written in prose."""
        if intent.target:
            ids = self.ctx.resolve(intent.target)
            return ids[0] if ids else None
        present = [i for i in self.ctx.names.find_in(question) if self.ctx.stats.total_values[i] > 0]
        return present[0] if present else None

    def _dispatch(self, w: Writer, intent: Intent, fid: int | None) -> str | None:
        kind = intent.kind
        if kind == "help":
            return reports.help_text(w, unknown=False)
        if kind == "symbol":
            return frames.symbol(w, fid, intent.target)
        if kind == "self_vs_total":
            return whole.self_vs_total(w, fid)
        if intent.target and fid is None and kind != "compare":
            return frames.symbol(w, None, intent.target)  # names something that is not in the profile
        if fid is not None and kind in ("most", "total", "overview", "unknown", "function"):
            return frames.function(w, fid)
        if fid is not None and kind == "responsible":
            return frames.chain(w, fid)
        if kind in _NEEDS_FRAME or kind in ("callers", "callees"):
            target = fid if fid is not None else self.ctx.summary.top_self.rows[0].id
            if kind == "chain":
                return frames.chain(w, target)
            if kind == "callees":
                return frames.callees(w, target)
            if kind == "callers":
                return frames.callers(w, target)
            return frames.function(w, target)
        if kind in _WHOLE:
            return _WHOLE[kind](w)
        return reports.help_text(w, unknown=True)
