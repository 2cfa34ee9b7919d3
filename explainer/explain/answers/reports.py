"""Offline answers that summarise: an overview, the on-call handoff, a comparison with a
baseline (the list of questions the explainer answers is :mod:`.intents`')."""

from __future__ import annotations

from typing import TYPE_CHECKING

from explainer import markdown, units
from explainer.explain.answers import handoff as written
from explainer.explain.answers.writer import Writer
from explainer.queries import Compare, Handoff, Overview, UnresolvedShare, answer

if TYPE_CHECKING:  # a comparison's diff: analysis.diff loads only when a baseline is given
    from explainer.analysis.diff import Diff


def overview(w: Writer) -> str | None:
    ctx = w.ctx
    result = answer(ctx.reading, Overview())
    w.add(
        w.t(
            "This profile measures {resource}: {meaning}. The total is {total} across {stacks} stacks and "
            "{functions} functions.",
            resource=w.resource,
            meaning=w.text(w.t(result.meaning)),
            total=w.v(result.total),
            stacks=w.n(result.stacks),
            functions=w.n(result.functions),
        ),
        "",
    )
    top = result.biggest
    if top is None:
        return None
    w.add(
        w.t(
            "- **Most used:** {name}, {self} of self. {meaning}",
            name=w.name(top.name),
            self=w.vp(top.self),
            meaning=w.meaning(top.name),
        )
    )
    row = result.responsible
    if row is not None:
        w.add(
            w.t(
                "- **Most responsible:** {name}, {total} in total: the first bar that not every stack passes through.",
                name=w.name(row.name),
                total=w.vp(row.total),
            )
        )
    path = _path(w, result.path, 5)
    if path:
        w.add(w.t("- **How it is reached** (last steps of the heaviest chain, entry side first): {path}.", path=path))
    if result.ignorable.frames:
        w.add(
            w.t(
                "- **Skip:** {name} and other wide bars with zero self; they only pass calls on.",
                name=w.name(result.ignorable.frames[0].name),
            )
        )
    _notes(w)
    thing = w.t("allocation") if ctx.verb == "allocated" else w.t("consumer")
    w.add(
        "",
        w.t("Ask about any of these for details, e.g. *Show me the call chain to the biggest {thing}.*", thing=thing),
    )
    return top.name


def _path(w: Writer, path: tuple[str, ...], last: int) -> str:
    """``a → b → c``: the last named steps of the heaviest chain (noise already left out)."""
    return " → ".join(w.name(name) for name in path[-last:])


def _notes(w: Writer) -> None:
    ctx = w.ctx
    t = ctx.profile.truncation
    unresolved = answer(ctx.reading, UnresolvedShare()).share
    if unresolved >= 0.2:
        w.add(
            w.t(
                "- **Unresolved:** {share} of the total ends in raw addresses; re-running the workload lets the "
                "profiler resolve start-up symbols.",
                share=w.p(unresolved, 1),
            )
        )
    if t.other_nodes:
        w.add(
            w.t(
                "- **Left out by the source:** {count} merged 'other' nodes hold {value}.",
                count=w.n(t.other_nodes),
                value=w.vp(t.other_value),
            )
        )
    if t.elided_stacks:
        w.add(
            w.t(
                "- **Deep stacks:** {count} stacks had their middle frames elided; totals still count them.",
                count=w.n(t.elided_stacks),
            )
        )


class ChatPen:
    """The chat's pen for the one handoff writer: the ``Writer``'s words (gettext, in the question's
    language) and numbers (recorded for the verifier, in the language's notation)."""

    def __init__(self, w: Writer) -> None:
        self.w = w

    def t(self, message: str, /, **values: str) -> str:
        return self.w.t(message, **values)

    def v(self, raw: int) -> str:
        return self.w.v(raw)

    def p(self, part: float, whole: float | None = None) -> str:
        return self.w.p(part, whole)

    def n(self, count: int) -> str:
        return self.w.n(count)

    def name(self, name: str) -> str:
        return self.w.name(name)

    def text(self, text: str, limit: int = 200) -> str:
        return self.w.text(markdown.text(text, limit))

    def what(self, name: str) -> str:
        return self.w.meaning(name).replace("|", "\\|")  # a table cell: a pipe would end it


def handoff(w: Writer) -> str | None:
    """The chat's handoff: the report's own sections (:func:`written.brief`), from the same facts."""
    ctx = w.ctx
    compared = answer(ctx.reading, Compare(ctx.baseline))
    baseline = ctx.baseline if compared.diff is not None else None  # one that cannot be compared is left out
    result = answer(ctx.reading, Handoff(top=3, baseline=baseline))
    w.add(w.t("### On-call handoff"), "")
    w.add(*written.brief(ChatPen(w), result))
    w.keep_in_mind(result.caveats)  # the report lists them under its scope
    start = result.start
    return start.name if start is not None else None


def compare(w: Writer) -> str | None:
    result = answer(w.ctx.reading, Compare(w.ctx.baseline))
    diff = result.diff
    if diff is None and result.reason is None:
        w.add(
            w.t("To say what changed I need a second profile to compare with, and none is loaded."),
            "",
            w.t("- In the app, load a baseline profile (yesterday's window, the previous deploy or the other pod)."),
            w.t(
                '- On the command line: `explainer ask NEW.pb.gz "What changed?" --baseline OLD.pb.gz`, or '
                "`explainer diff OLD.pb.gz NEW.pb.gz` for the full table."
            ),
        )
        return None
    if diff is None:
        w.add(w.t("These two profiles cannot be compared: {reason}", reason=w.text(result.reason or "")))
        return None
    delta = diff.total_after - diff.total_before
    values = {"before": w.v(diff.total_before), "after": w.v(diff.total_after)}
    if delta:
        values |= {"delta": units.sign_of(delta) + w.v(abs(delta)), "share": w.p(abs(delta), diff.total_before)}
    if delta > 0:
        text = w.t(
            "**The total grew: {before} in the baseline, {after} now ({delta}, {share} of the baseline).**", **values
        )
    elif delta < 0:
        text = w.t(
            "**The total shrank: {before} in the baseline, {after} now ({delta}, {share} of the baseline).**", **values
        )
    else:
        text = w.t("**The total did not change: {before} in the baseline, {after} now.**", **values)
    w.add(text, "")
    _diff_lines(w, diff, 6)
    for note in diff.notes[:2]:
        w.add("", f"_{w.t('Note:')} {w.text(note)}_")
    biggest = diff.biggest
    return biggest.name if biggest is not None else None


def _diff_lines(w: Writer, diff: Diff, n: int) -> None:
    rows = diff.ranked("self")[:n]
    if not rows:
        floor = diff.floor
        w.add(
            w.t(
                "No function changed by more than the noise floor ({share} of the total and {relative} of its value).",
                share=w.p(floor.min_share, 1),
                relative=w.p(floor.min_relative, 1),
            )
        )
        return
    for r in rows:
        sign = units.sign_of(r.delta())
        status = {"new": " " + w.t("(new)"), "vanished": " " + w.t("(gone)")}.get(r.presence, "")
        w.add(
            f"- {w.name(r.name)}{status}: {w.t('self')} {w.v(r.self_before)} → {w.v(r.self_after)} "
            f"({sign}{w.v(abs(r.delta()))})"
        )
