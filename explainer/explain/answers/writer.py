"""Writing an answer: every number formatted through the grounding, every name shown safely.

Offline answers and tool results are written with a :class:`Writer`, so each number they show
is recorded as it is formatted; the verifier can then check any answer (the offline explainer's
own included) against exactly what was shown.
"""

from __future__ import annotations

from explainer.analysis.filters import TRAMPOLINE
from explainer.explain import kb
from explainer.explain.checks.grounding import About
from explainer.explain.checks.verify import Grounding
from explainer.explain.context import ProfileContext
from explainer.explain.safety import clean_text
from explainer.symbols import clean, decode

NAME_LIMIT = 120


def code(name: str, limit: int = NAME_LIMIT) -> str:
    """A frame name as a Markdown code span: cleaned, capped, backticks neutralised."""
    return f"`{clean(name[: limit + 1], limit).replace('`', chr(39))}`"  # slice first: names can be 100 KB


def cap(text: str) -> str:
    """The sentence with its first letter in upper case (symbol meanings start in lower case)."""
    return text[:1].upper() + text[1:] if text else text


def first_sentence(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    end = text.find(". ")
    out = text if end < 0 else text[: end + 1]
    return out if len(out) <= limit else out[: limit - 1] + "…"


class Writer:
    def __init__(self, ctx: ProfileContext) -> None:
        self.ctx = ctx
        self.g = Grounding(ctx.unit)
        self.lines: list[str] = []

    # numbers, recorded as they are written
    # ``about``: whose value it is (a function's name, a category, the total), for the claim check
    # ``role``: "self" or "total" when the value is that of ``about``
    def v(self, raw: int, about: About = None, role: str | None = None) -> str:
        return self.g.value(raw, about=about, role=role)

    def p(self, part: float, whole: float | None = None, about: About = None, role: str | None = None) -> str:
        return self.g.share(part, self.ctx.total if whole is None else whole, about, role)

    def vp(self, raw: int, about: About = None, role: str | None = None) -> str:
        """``55.1 GB (73.8%)``."""
        return f"{self.v(raw, about, role)} ({self.p(raw, about=about, role=role)})"

    def n(self, count: int) -> str:
        return self.g.count(count)

    def name(self, name: str) -> str:
        return code(name)

    def meaning(self, name: str, *, full: bool = False) -> str:
        """What a frame is: the knowledge base's explanation when it knows it, else the convention."""
        known = kb.lookup(name)
        if known and known.explanation:
            text = known.explanation if full else first_sentence(known.explanation)
            self.g.text(text)
            useful = known.label and not known.label.lower().startswith("other")
            return f"{known.label}: {text}" if useful else cap(text)
        return cap(self.convention(name))

    def convention(self, name: str) -> str:
        """The symbol convention's sentence, cleaned (it quotes the raw name) and recorded (it names owners)."""
        return self.g.text(clean_text(decode(name).meaning, 400, keep_newlines=False))

    def knobs(self, name: str, limit: int = 3) -> list[str]:
        known = kb.lookup(name)
        if not known:
            return []
        out = [f"{code(knob, 80)}: {effect}" for knob, effect in known.actions[:limit]]
        for knob, effect in known.actions[:limit]:
            self.g.text(f"{knob} {effect}")
        return out

    def text(self, text: str) -> str:
        """Our own text with numbers (a caveat from the knowledge base): citable as written."""
        return self.g.text(text)

    # building the Markdown
    def add(self, *lines: str) -> None:
        self.lines.extend(lines)

    def table(self, header: list[str], rows: list[list[str]]) -> None:
        align = [
            "---" if i == 0 or not h.strip() or h in ("function", "frame") else "---:" for i, h in enumerate(header)
        ]
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
        """The widest zero-self bar that is application code (the clearest "wide but self 0" example)."""
        rows = self.ctx.summary.orchestrators
        for r in rows:
            if decode(r.name).kind in ("method", "constructor", "function") and r.name != TRAMPOLINE:
                return r.id
        return rows[0].id if rows else None
