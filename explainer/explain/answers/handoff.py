"""The one handoff writer: the on-call handoff's sections, worded once, from the typed
:class:`~explainer.queries.records.HandoffResult` (``explainer.queries.answer(reading, Handoff(...))``).

Two surfaces render these same sections: the report (``explainer handoff``, the app's download, the
MCP ``handoff`` tool) writes them in English with its own pen, around its report-only sections (scope,
changes, coverage, reproducibility); the chat's handoff answer (:func:`brief`) shows the Headline, Top
consumers, Responsible chains, What can be ignored and Suggested next steps sections through the
chat's ``Writer``, in the question's language. Neither words or selects a handoff fact of its own.

A :class:`Pen` is how a surface writes: our words (``t``: gettext in the chat, English as written in
the report), numbers (through :mod:`explainer.units`), names (safe code spans) and knowledge text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from explainer import knowledge, units
from explainer.analysis.chain import Chain
from explainer.analysis.filters import TRAMPOLINE
from explainer.queries.handoff import HandoffResult

if TYPE_CHECKING:  # a comparison's diff: analysis.diff loads only when a baseline is given
    from explainer.analysis.diff import Diff

MAX_CHAIN_STEPS = 8  # a longer chain keeps where it enters (the phase) and where it ends (the site)
MAX_KNOBS = 3
SECTIONS = ("headline", "consumers", "chains", "ignorable", "next steps")  # what the chat shows of the report


class Pen(Protocol):
    """How a surface writes the handoff (the chat's ``Writer`` adapter, the report's English pen)."""

    def t(self, message: str, /, **values: str) -> str:
        """Our own words, in the surface's language, placeholders filled."""
        ...

    def v(self, raw: int) -> str:
        """A value in the profile's unit."""
        ...

    def p(self, part: float, whole: float | None = None) -> str:
        """A share (of the profile's total when ``whole`` is None)."""
        ...

    def n(self, count: int) -> str:
        """A count."""
        ...

    def name(self, name: str) -> str:
        """A frame label as a safe code span."""
        ...

    def text(self, text: str, limit: int = 200) -> str:
        """Text from the knowledge base or another module: made safe to show, at most ``limit`` long."""
        ...

    def what(self, name: str) -> str:
        """A frame's short meaning for a table cell (read with the profile's runtime)."""
        ...


def signed(pen: Pen, raw: int) -> str:
    """``+1.2 GB`` / ``-300 MB``: a change with its sign (:func:`units.sign_of`, the one rule)."""
    return units.sign_of(raw) + pen.v(abs(raw))


def consumed(pen: Pen, unit: str) -> str:
    """What happens to the resource at a frame with self: allocated, spent, counted."""
    kind = units.kind_of(unit)
    return pen.t("allocated") if kind == "bytes" else pen.t("spent") if kind == "time" else pen.t("counted")


def heading(level: str, title: str) -> list[str]:
    return [f"{level} {title}", ""]


# -- the sections ----------------------------------------------------------------------------


def total_change(pen: Pen, diff: Diff) -> str:
    """``total 55.7 GB → 74.7 GB (+19.0 GB, +34.1%)``."""
    before, after = diff.total_before, diff.total_after
    delta = after - before
    change = signed(pen, delta)
    if before:
        change += ", " + units.sign_of(delta) + pen.p(abs(delta), before)
    return pen.t("total {before} → {after} ({change})", before=pen.v(before), after=pen.v(after), change=change)


def headline(pen: Pen, facts: HandoffResult, level: str = "##") -> list[str]:
    total = facts.total
    out = heading(level, pen.t("Headline"))
    out.append(
        "- "
        + pen.t(
            "Total **{total}** in {stacks} stacks, {functions} functions.",
            total=pen.v(total),
            stacks=pen.n(facts.stacks),
            functions=pen.n(facts.functions),
        )
    )
    r = facts.biggest
    if r is not None:
        out.append(
            "- "
            + pen.t(
                "Biggest consumer: {name}, **{self}** self ({share} of the total).",
                name=pen.name(r.name),
                self=pen.v(r.self),
                share=pen.p(r.self),
            )
        )
    responsible = facts.responsible
    if responsible is not None:
        out.append(
            "- "
            + pen.t(
                "Most responsible (the widest bar where the stacks branch): {name}, {total} total ({share}).",
                name=pen.name(responsible.name),
                total=pen.v(responsible.total),
                share=pen.p(responsible.total),
            )
        )
    if facts.categories:  # kinds of (GPU) memory, never of time
        out.append("- " + pen.t("By category: {breakdown}.", breakdown=pen.text(_breakdown(pen, facts), 400)))
    diff = facts.diff
    if diff is not None:
        regress = diff.regressions("self")
        lead = pen.t("; no significant regression")
        if regress:
            lead = pen.t(
                "; biggest regression {name} ({delta})",
                name=pen.name(regress[0].name),
                delta=signed(pen, regress[0].delta()),
            )
        out.append("- " + pen.t("Against the baseline: {change}{lead}.", change=total_change(pen, diff), lead=lead))
    if not total:
        out.append("- " + pen.t("Every value is zero for this sample type: there is nothing to rank."))
    return [*out, ""]


def _breakdown(pen: Pen, facts: HandoffResult, limit: int = 6) -> str:
    """``KV cache 73.8%, model weights 18.5%, ...``: the largest ``limit``, the rest summed."""
    shares = facts.categories
    shown = [f"{pen.t(s.label)} {pen.p(s.share, 1)}" for s in shares[:limit]]
    rest = shares[limit:]
    if rest:
        shown.append(pen.t("{count} more {share}", count=pen.n(len(rest)), share=pen.p(sum(s.share for s in rest), 1)))
    return ", ".join(shown)


def coverage(pen: Pen, facts: HandoffResult) -> str:
    """``top 5 of 51 functions, covering 98.8% of the total by self``."""
    shown = len(facts.consumers)
    share = pen.p(facts.covered)
    if shown < facts.of_functions:
        return pen.t(
            "top {shown} of {functions} functions, covering {share} of the total by self",
            shown=pen.n(shown),
            functions=pen.n(facts.of_functions),
            share=share,
        )
    return pen.t("all {shown} functions, covering {share} of the total by self", shown=pen.n(shown), share=share)


def consumers(pen: Pen, facts: HandoffResult, level: str = "##") -> list[str]:
    if not facts.total:
        return []
    out = heading(level, pen.t("Top consumers (self)"))
    out += [f"_{coverage(pen, facts)}_", ""]
    header = ["#", pen.t("function"), pen.t("self"), pen.t("share"), pen.t("what it is")]
    out += ["| " + " | ".join(header) + " |", "|---:|---|---:|---:|---|"]
    for i, r in enumerate(facts.consumers, 1):
        out.append(f"| {i} | {pen.name(r.name)} | {pen.v(r.self)} | {pen.p(r.self)} | {pen.what(r.name)} |")
    if facts.asked_by:
        shown = ", ".join(
            f"{pen.name(s.name)} {pen.p(s.share, 1)} ({pen.text(pen.t(knowledge.label(s.category)), 60)})"
            for s in facts.asked_by
        )
        out += [
            "",
            pen.t(
                "Allocator frames only carry requests; by the nearest application frame that asked: {sites}.",
                sites=shown,
            ),
        ]
    return [*out, ""]


def chains(pen: Pen, facts: HandoffResult, level: str = "##") -> list[str]:
    """How the top consumers are reached: the heaviest chain to each, common entry frames folded."""
    if not facts.chains:
        return []
    out = heading(level, pen.t("Responsible chains (total)"))
    if facts.common:
        names = " → ".join(pen.name(s.name) for s in facts.common)
        out += [pen.t("Every chain below starts {names}; read each from the entry point up.", names=names), ""]
    out += [f"{i}. {_chain_line(pen, chain, len(facts.common))}" for i, chain in enumerate(facts.chains, 1)]
    return [*out, ""]


def _chain_line(pen: Pen, chain: Chain, skip: int) -> str:
    steps = [s for s in chain.steps[skip:] if s.name != TRAMPOLINE] or list(chain.steps[-1:])
    names = [pen.name(s.name) for s in steps]
    if len(names) > MAX_CHAIN_STEPS:
        hidden = len(names) - MAX_CHAIN_STEPS + 1
        names = [*names[:2], pen.t("… {count} more …", count=pen.n(hidden)), *names[-(MAX_CHAIN_STEPS - 3) :]]
    value = f"**{pen.v(chain.value)}** ({pen.p(chain.value)})"
    if chain.value < chain.target_total:
        value = pen.t("{value} of its {total}", value=value, total=pen.v(chain.target_total))
    return pen.t("{value} via {chain}", value=value, chain=" → ".join(names))


def ignorable(pen: Pen, facts: HandoffResult, level: str = "##") -> list[str]:
    """The reading's one list of what can be ignored (never the responsible frame or where to start)."""
    ign = facts.ignorable
    out = []
    if ign.frames:
        names = ", ".join(f"{pen.name(r.name)} ({pen.p(r.total)})" for r in ign.frames)
        more = pen.t(" and {count} more", count=pen.n(ign.more)) if ign.more else ""
        out.append(
            "- "
            + pen.t(
                "Wide bars with zero self only pass calls on (nothing is {verb} there): {names}{more}.",
                verb=consumed(pen, facts.unit),
                names=names,
                more=more,
            )
        )
    if ign.trampoline:
        out.append(
            "- "
            + pen.t(
                "`<interpreter trampoline>` frames ({share} of the total passes through one) are CPython's dispatch "
                "between Python calls: skip them when reading a chain (`--hide-trampolines` removes them).",
                share=pen.p(ign.trampoline),
            )
        )
    return [*heading(level, pen.t("What can be ignored")), *out, ""] if out else []


def next_steps(
    pen: Pen, facts: HandoffResult, level: str = "##", *, rerun: bool = False, grafana: bool = False
) -> list[str]:
    """Where to start and what changes it; the biggest regression; re-profiling (``rerun``: the
    symbols that hide where the resource goes resolve on a second run); the Grafana link (``grafana``)."""
    steps: list[str] = []
    start = facts.start
    if start is not None:
        name = pen.name(start.name)
        if start.why == "biggest":
            why = pen.t("it is where the most is consumed")
        elif start.why == "busy":
            why = pen.t(
                "it is the code that works most; {name} is idle time, waiting, not work", name=pen.name(start.biggest)
            )
        else:
            why = pen.t(
                "it is the application code that asked for what {name} {verb}",
                name=pen.name(start.biggest),
                verb=consumed(pen, facts.unit),
            )
        steps.append(
            pen.t(
                "Start with {name} ({value}, {share}): {why}; its chain above says why it runs.",
                name=name,
                value=pen.v(start.value),
                share=pen.p(start.value),
                why=why,
            )
        )
        knobs = [pen.text(f"{knob}: {pen.t(effect)}", 200) for knob, effect in facts.start_knobs[:MAX_KNOBS]]
        if knobs:
            steps.append(pen.t("What changes {name}: {knobs}.", name=name, knobs="; ".join(knobs)))
    diff = facts.diff
    if diff is not None and diff.regressions("self"):
        c = diff.regressions("self")[0]
        steps.append(
            pen.t(
                "Find out why {name} grew by {delta} since the baseline.",
                name=pen.name(c.name),
                delta=pen.v(c.delta()),
            )
        )
    if rerun:
        steps.append(
            pen.t("Run the workload again and re-profile: the profiler resolves symbols after it has seen it once.")
        )
    if grafana:
        steps.append(
            pen.t("Open the Grafana link above, search for the top function and use Focus block on its chain.")
        )
    if not steps:
        return []
    return [*heading(level, pen.t("Suggested next steps")), *[f"{i}. {s}" for i, s in enumerate(steps, 1)], ""]


def brief(pen: Pen, facts: HandoffResult, level: str = "####") -> list[str]:
    """The chat's handoff: the report's own Headline, Top consumers, Responsible chains, What can be
    ignored and Suggested next steps sections (:data:`SECTIONS`), in that order."""
    return [
        *headline(pen, facts, level),
        *consumers(pen, facts, level),
        *chains(pen, facts, level),
        *ignorable(pen, facts, level),
        *next_steps(pen, facts, level),
    ]
