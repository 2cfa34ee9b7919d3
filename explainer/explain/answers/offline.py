"""The offline explainer: deterministic answers, with this profile's numbers, to the questions of
the domain guide. Nothing leaves the machine; this is what people meet first.

A question arrives already read (:class:`~explainer.explain.question.reader.Question`: intent,
subject, language); one answer function writes Markdown through a
:class:`~explainer.explain.answers.writer.Writer`, which records every number it formats. The
analysis is done once per conversation, so an answer takes milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass

from explainer import units
from explainer.explain.answers import assess, concepts, frames, group, own, reports, self_total
from explainer.explain.answers.intents import help_text, intent
from explainer.explain.answers.orientation import FLAME
from explainer.explain.answers.writer import Writer
from explainer.explain.checks.verify import Grounding
from explainer.explain.context import ProfileContext
from explainer.explain.question.reader import Question
from explainer.explain.question.scope import OUTSIDE
from explainer.explain.question.signatures import WEAK
from explainer.knowledge.visibility import NEAR_EMPTY_BYTES, Budget, audit
from explainer.queries import Responsible, answer


def _language_named(text: str) -> str | None:
    """The language a question restricts to ("which Java method"), as the symbol decoders name it."""
    words = set(text.casefold().replace("-", " ").split())
    return next((lang for word, lang in (("java", "java"), ("python", "python"), ("go", "go")) if word in words), None)


_ABOUT_A_GROUP = frozenset({"function", "total", "category", "most", "unknown", "overview"})
_ANY_PROFILE = ("help", "meaning", "howto", "setting", "visibility")  # answered even when every value is zero
_DIAGNOSED = ("most", "total", "overview", "optimise", "unknown", "responsible")  # a near-empty GPU profile: the audit


@dataclass(frozen=True, eq=False)
class OfflineAnswer:
    markdown: str
    focus: str | None  # the raw name of the function the answer is about, for highlighting
    grounding: Grounding  # every number the answer shows
    kind: str  # the intent answered
    ranking: tuple[str, ...] = ()  # the functions the answer ranked, for "the second one"
    shown: int = 0  # the last rank of the list it showed, for "show me 3 more"
    left: bool = False  # ranks may follow it: "Show me 5 more" is offered


class OfflineExplainer:
    def __init__(self, ctx: ProfileContext, budget: Budget | None = None) -> None:
        self.ctx = ctx
        self.budget = budget or Budget()  # what the user told about the GPU (flags, sidebar, pasted vLLM lines)
        self.orientation = FLAME  # the app sets the orientation its reader sees (answers.orientation)

    def _gpu(self) -> bool:
        return self.ctx.gpu or self.ctx.profile.sample_type.type == "malloc" or bool(self.ctx.summary.counted)

    def _near_empty(self, q: Question) -> bool:
        """A GPU-memory profile with (almost) nothing in it: its top table would show nothing."""
        if q.intent not in _DIAGNOSED or q.subject is not None or units.kind_of(self.ctx.unit) != "bytes":
            return False
        if not self.budget.given and self.ctx.total >= NEAR_EMPTY_BYTES:
            return False  # without a budget only a profile under this size can be near-empty: no audit needed
        return self._gpu() and audit(self.ctx.summary, self.budget).near_empty

    def answer(self, q: Question) -> OfflineAnswer:
        # what the question decides here is settled before writing starts: the writer then only writes
        near_empty, ranking = self._near_empty(q), self._ranking(q)
        w = Writer(self.ctx, q.lang, self.orientation, q.top_n, q.offset)
        if near_empty:
            from explainer.explain.answers import gpu  # the GPU budget's answers: only the questions that need them

            gpu.visibility(w, self.budget)
            self._scope(w)
            return OfflineAnswer(w.markdown(), None, w.g, "visibility")
        if not self.ctx.total and q.intent not in _ANY_PROFILE:
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
        if q.runner_up is None and q.score < WEAK and q.intent not in ("unknown", "help"):
            w.add(
                w.t(
                    "_I read this as a question about {reading}; if you meant something else, ask for example "
                    "*what uses the most?*, *what is responsible?* or *does this look ok?*_",
                    reading=w.t(intent(q.intent).reading_as),
                ),
                "",
            )
        if q.runner_up is not None:
            w.add(
                w.t(
                    "_I read this as a question about {reading}; for {other}, ask that directly._",
                    reading=w.t(intent(q.intent).reading_as),
                    other=w.t(intent(q.runner_up).reading_as),
                ),
                "",
            )
        if q.subject is not None and q.subject.runner_up is not None:
            w.add(
                w.t(
                    "_Several functions match that name; I took {name}. {other} matches as well: "
                    "ask with its full name for that one._",
                    name=w.name(q.subject.name),
                    other=w.name(q.subject.runner_up),
                ),
                "",
            )
        focus = self._dispatch(w, q)
        self._scope(w)
        return OfflineAnswer(w.markdown(), focus, w.g, q.intent, w.ranked or ranking, w.shown, w.left)

    def _scope(self, w: Writer) -> None:
        """The scope line of an answer that states a size: what the bytes are, and the frames that
        count calls and were left out of every byte total."""
        ctx = self.ctx
        if not w.sized or units.kind_of(ctx.unit) != "bytes":
            return
        w.add("", w.t("_Scope: values are {meaning}._", meaning=w.text(w.t(ctx.meaning))))
        for c in ctx.summary.counted:
            w.add(
                w.t(
                    "_{name} counts calls, not bytes ({calls} calls): left out of every byte total, share and "
                    "category._",
                    name=w.name(c.name),
                    calls=w.n(c.calls),
                )
            )

    def _ranking(self, q: Question) -> tuple[str, ...]:
        if q.intent != "responsible":
            return tuple(r.name for r in self.ctx.summary.top_self.rows)
        # the responsible answer calls the frames every stack passes through entry points, not causes:
        # "the second one" counts from the first cause, as its table does
        shown = max(len(self.ctx.summary.top_total.rows), q.top_n or 0)
        return tuple(r.name for r in answer(self.ctx.reading, Responsible(shown)).rows)

    def _fid(self, q: Question) -> int | None:
        if q.subject is None or q.subject.kind != "function":
            return None
        fid = self.ctx.profile.function_id(q.subject.name)
        return fid if fid is not None and self.ctx.stats.total_values[fid] > 0 else None

    def _dispatch(self, w: Writer, q: Question) -> str | None:
        subject, fid, record = q.subject, self._fid(q), intent(q.intent)
        kind, language = record.id, _language_named(q.text)
        if kind == "setting":
            from explainer.explain.answers import gpu

            return gpu.setting(w, q.concepts)
        if kind == "visibility":
            from explainer.explain.answers import gpu

            return gpu.visibility(w, self.budget)
        if kind == "help" or not q.text:  # an empty question gets the suggestions
            return help_text(w, unknown=False)
        if kind == "unknown" and subject is None:  # never the menu alone: what stands out, then the menu
            if OUTSIDE in q.concepts:  # "write me a terraform module", "restart the broker"
                lead = w.t(
                    "_That is not something this profile can answer: I read the loaded profile, its frames and "
                    "their numbers, and nothing else. Here is what stands out in it; the questions I can answer "
                    "follow._"
                )
            else:
                lead = w.t(
                    "_I did not recognise that question, so here is what stands out in this profile; "
                    "the questions I can answer follow._"
                )
            w.add(lead, "")
            focus = assess.assess(w)
            w.add("")
            help_text(w, unknown=False)
            return focus
        if subject is not None and subject.kind == "missing":
            return frames.symbol(w, None, subject.name)
        concept = subject.name if subject is not None and subject.kind == "concept" else None
        if kind == "self_vs_total":
            return self_total.self_vs_total(w, fid)
        if kind == "knob" or (kind == "optimise" and (concept is not None or fid is not None)):
            return concepts.knob(w, concept, fid)  # "how do I make that smaller?" about one thing: its settings
        # "is the GIL a problem here?": about one thing, answered with its share, not the whole profile's review
        if concept is not None and kind in ("category", "meaning", "unknown", "function", "most", "total", "assess"):
            return (concepts.meaning if kind == "meaning" else concepts.category)(w, concept)
        if subject is not None and len(subject.members) > 1 and kind in _ABOUT_A_GROUP:
            return group.group(w, subject.members)
        if kind == "category" and fid is None:
            return concepts.breakdown(w)
        if kind == "meaning" and subject is None:  # "why is this bar so wide?" with nothing named before it
            return self_total.self_vs_total(w, None) if "wide" in q.concepts else help_text(w, unknown=True)
        if kind == "meaning":
            return frames.symbol(w, fid, subject.name if subject is not None else None)
        if fid is not None and record.about_one is not None:
            return record.about_one(w, fid)
        if fid is not None and kind in ("most", "total", "overview", "unknown", "category"):
            return frames.function(w, fid)
        if record.about_one is not None and kind not in ("skip", "responsible"):
            return record.about_one(w, self.ctx.summary.top_self.rows[0].id)
        if kind == "responsible" and "own_code" in q.concepts:  # "which of OUR code is responsible"
            return own.responsible_own(w, language)
        if kind == "most" and "own_code" in q.concepts:
            return own.most_own(w, language)
        if kind in ("assess", "overview") and "leak" in q.concepts:  # "is this a memory leak?"
            return (reports.compare if self.ctx.baseline is not None else assess.leak)(w)
        if record.whole is not None:
            return record.whole(w)
        return help_text(w, unknown=True)
