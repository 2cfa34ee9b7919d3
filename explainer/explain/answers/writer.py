"""Writing an answer: every number formatted through the grounding, every name shown safely.

Offline answers and tool results are written with a :class:`Writer`, so each number they show
is recorded as it is formatted; the verifier can then check any answer (the offline explainer's
own included) against exactly what was shown.
"""

from __future__ import annotations

from collections.abc import Sequence

from explainer import knowledge, markdown, units
from explainer.analysis.filters import TRAMPOLINE
from explainer.explain.answers import conventions
from explainer.explain.answers.language import translations
from explainer.explain.answers.orientation import FLAME, worded
from explainer.explain.checks.grounding import About
from explainer.explain.checks.verify import Grounding
from explainer.explain.context import ProfileContext
from explainer.explain.question.counts import MAX_ROWS
from explainer.explain.safety import clean_text
from explainer.symbols import decode


def cap(text: str) -> str:
    """The sentence with its first letter in upper case (symbol meanings start in lower case)."""
    return text[:1].upper() + text[1:] if text else text


class Writer:
    def __init__(
        self,
        ctx: ProfileContext,
        lang: str = "en",
        orientation: str = FLAME,
        asked_rows: int | None = None,
        offset: int = 0,
    ) -> None:
        self.ctx = ctx
        self.lang = lang
        self.asked_rows = asked_rows  # how many functions the question asked for ("the top 3"), if it said
        self.offset = offset  # "show me 3 more": the ranks the last answer showed, which this one goes on after
        self.shown = 0  # the last rank of the ranked list this answer shows (0: none), for "show me more"
        self.left = False  # ranks may follow the last one shown: "Show me 5 more" is offered
        self.ranked: tuple[str, ...] = ()  # the functions its own list ranked, when "the second one" means its row
        self.orientation = orientation  # where the reader's graph draws its root: "above"/"below" follow it
        self._tr = translations(lang)
        self.g = Grounding(ctx.unit)
        self.lines: list[str] = []
        self.sized = False  # a value of the profile's unit was written: the answer needs its scope line
        self.runtime = ctx.reading.runtime  # settles labels several languages write alike

    def rows(self, default: int) -> int:
        """How many functions a ranked answer lists: what the question asked for, else ``default``; at most
        :data:`~explainer.explain.question.counts.MAX_ROWS` (:meth:`rows_cut` says so)."""
        return min(self.asked_rows or default, MAX_ROWS)

    def listed(self, last: int, left: bool) -> None:
        """The answer's ranked list ends at rank ``last``; ``left``: more ranks may follow it."""
        self.shown, self.left = last, left

    def all_shown(self) -> None:
        """The answer to "show me more" when the last list had nothing left after its ``offset`` ranks."""
        self.add(
            self.t(
                "That was all: the list above showed every function there is to rank ({count}).",
                count=self.n(self.offset),
            )
        )

    def keep_in_mind(self, caveats: Sequence[str]) -> None:
        """The first of a profile's caveats (what its values leave out), closing an answer about the whole."""
        for caveat in caveats[:1]:
            self.add("", self.t("**Keep in mind:** {caveat}", caveat=self.text(self.t(caveat))))

    def rows_cut(self, shown: int) -> None:
        """The line a ranked answer of ``shown`` rows ends with when the question asked for more than an
        answer lists (and the profile has more to list)."""
        if self.asked_rows is not None and shown == MAX_ROWS and self.asked_rows > MAX_ROWS:
            self.add(
                "",
                self.t(
                    "_You asked for {asked}; an answer lists at most {most}. `explainer analyze --top N` and the "
                    "app's Top functions table list every function._",
                    asked=self.n(self.asked_rows),
                    most=self.n(MAX_ROWS),
                ),
            )

    # our own words, in the answer's language
    def t(self, message: str, /, **values: str) -> str:
        """``message`` translated, then its ``{placeholders}`` filled (one pass: values are never expanded).

        ``{resource}``, ``{verb}`` and ``{is_verb}`` are this profile's words unless given.
        """
        return self._fill(self._tr.gettext(worded(message, self.orientation)), values)

    def tn(self, singular: str, plural: str, n: int, /, **values: str) -> str:
        return self._fill(self._tr.ngettext(singular, plural, n), values)

    def _fill(self, text: str, values: dict[str, str]) -> str:
        if "{" not in text:
            return text
        words = {
            k: v for k, v in (("resource", "{resource}"), ("verb", "{verb}"), ("is_verb", "{is_verb}")) if v in text
        }
        if words:
            values = {**{k: getattr(self, k) for k in words if k not in values}, **values}
        return text.format(**values)

    @property
    def resource(self) -> str:
        return self.t(self.ctx.resource)

    @property
    def verb(self) -> str:
        return self.t(self.ctx.verb)

    @property
    def is_verb(self) -> str:
        """``is allocated`` or ``are counted``: agrees with the resource ("the samples are counted")."""
        return self.t(self.ctx.is_verb)

    # numbers, recorded as they are written, in the answer's notation ("55,1 GB" in Dutch)
    # ``about``: whose value it is (a function's name, a category, the total), for the claim check
    # ``role``: "self" or "total" when the value is that of ``about``
    def v(self, raw: int, about: About = None, role: str | None = None) -> str:
        self.sized = True
        return units.localize(self.g.value(raw, about=about, role=role), self.lang)

    def p(self, part: float, whole: float | None = None, about: About = None, role: str | None = None) -> str:
        whole = self.ctx.total if whole is None else whole
        return units.localize(self.g.share(part, whole, about, role), self.lang)

    def vp(self, raw: int, about: About = None, role: str | None = None) -> str:
        """``55.1 GB (73.8%)``."""
        return f"{self.v(raw, about, role)} ({self.p(raw, about=about, role=role)})"

    def n(self, count: int) -> str:
        return units.localize(self.g.count(count), self.lang)

    def name(self, name: str) -> str:
        return markdown.code(name)

    def meaning(self, name: str, *, full: bool = False) -> str:
        """What a frame is: the knowledge base's explanation when it knows it, else the convention."""
        known = knowledge.lookup(name)
        if known and known.explanation:
            explanation = self.t(known.explanation)
            text = explanation if full else markdown.first_sentence(explanation)
            self.g.text(text)
            useful = known.label and not known.label.lower().startswith("other")
            return f"{self.t(known.label)}: {text}" if useful else cap(text)
        return cap(self.convention(name))

    def convention(self, name: str) -> str:
        """The symbol convention's sentence, cleaned (it quotes the raw name) and recorded (it names owners)."""
        sym = decode(name, self.runtime)
        text = sym.meaning if self.lang == "en" else conventions.describe(sym, self.t)
        return self.g.text(clean_text(text, 400, keep_newlines=False))

    def knobs(self, name: str, limit: int = 3) -> list[str]:
        known = knowledge.lookup(name)
        if not known:
            return []
        actions = [(a.knob, self.t(a.effect) + self.risk(a.risk)) for a in known.actions[:limit]]
        for knob, effect in actions:
            self.g.text(f"{knob} {effect}")
        return [f"{markdown.code(knob, 80)}: {effect}" for knob, effect in actions]

    def risk(self, risk: str) -> str:
        """`` (risk: ...)`` after a knob's effect, when the knowledge base names one."""
        return self.t(" (risk: {risk})", risk=self.t(risk)) if risk else ""

    def text(self, text: str) -> str:
        """Our own text with numbers (a caveat from the knowledge base): citable as written."""
        return self.g.text(text)

    # building the Markdown
    def add(self, *lines: str) -> None:
        self.lines.extend(lines)

    def table(self, header: list[str], rows: list[list[str]]) -> None:
        names = (self.t("function"), self.t("frame"))  # name columns read left to right; numbers align right
        align = ["---" if i == 0 or not h.strip() or h in names else "---:" for i, h in enumerate(header)]
        self.add("| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |")
        self.add(*("| " + " | ".join(r) + " |" for r in rows))

    def markdown(self) -> str:
        out: list[str] = []
        for line in self.lines:
            if line == "" and (not out or out[-1] == ""):
                continue
            out.append(line)
        return "\n".join(out).strip() + "\n"

    # small facts many answers need
    def orchestrator_example(self) -> int | None:
        """The widest zero-self bar that is application code (the clearest "wide but self 0" example),
        from the reading's one ignorable list: never the responsible frame, which is no orchestrator to skip."""
        rows = self.ctx.reading.ignorable.frames
        for r in rows:
            if decode(r.name, self.runtime).kind in ("method", "constructor", "function") and r.name != TRAMPOLINE:
                return r.id
        return rows[0].id if rows else None
