"""Offline answers that summarise: an overview, the on-call handoff, a comparison with a
baseline, and the list of questions the explainer answers."""

from __future__ import annotations

from explainer.analysis.diff import Diff
from explainer.explain.answers.writer import Writer


def examples(resource: str, verb: str) -> tuple[tuple[str, str, str], ...]:
    """(question, what it answers, the intent it reads as): the help text, worded for the resource."""
    thing = "allocation" if verb == "allocated" else "consumer"
    return (
        (f"What uses the most {resource}?", "the biggest consumers by self", "most"),
        ("What is responsible for it?", "the widest bars by total and where the work branches", "responsible"),
        ("What does `<interpreter trampoline>` mean?", "any frame label: methods, constructors, addresses", "meaning"),
        ("Why is self 0 when the bar is so wide?", "self vs total, with this profile's numbers", "self_vs_total"),
        (f"Show me the call chain to the biggest {thing}", "the chain read bottom to top", "chain"),
        ("What should I optimise first?", "candidates with high self, and what changes them", "optimise"),
        ("What can I ignore?", "orchestrators, interpreter frames, small functions", "skip"),
        ("What is the total?", "the total and what the values mean", "total"),
        ("How much is the KV cache?", "a category's size and share (GPU memory)", "category"),
        ("Which flag controls the KV cache size?", "the settings that change a category or a frame", "knob"),
        ("How do I read this flame graph?", "the graph and Grafana's panel", "howto"),
        ("What changed compared with the baseline?", "needs a baseline profile", "compare"),
        ("Write me a summary for the on-call handoff", "a short handoff summary", "handoff"),
    )


def help_text(w: Writer, unknown: bool) -> str | None:
    ctx = w.ctx
    if unknown:
        w.add(
            "I did not recognise that question. This offline explainer answers these questions about the loaded "
            "profile, with its numbers:",
            "",
        )
    else:
        w.add("I can answer these questions about the loaded profile, with its numbers:", "")
    for question, what, _ in examples(ctx.resource, ctx.verb):
        if "KV cache" in question and not ctx.reading.categories:
            continue
        w.add(f"- *{question}*: {what}")
    rows = ctx.summary.top_self.rows
    if rows:
        w.add("", f"Name a function in backticks, e.g. *What is {w.name(rows[0].name)}?*")
    return None


def overview(w: Writer) -> str | None:
    ctx = w.ctx
    s = ctx.summary
    w.add(
        f"This profile measures {ctx.resource}: {w.text(ctx.meaning)}. The total is {w.v(ctx.total)} across "
        f"{w.n(ctx.profile.stack_count)} stacks and {w.n(s.stats.function_count)} functions.",
        "",
    )
    top = s.top_self.rows[0]
    w.add(f"- **Most used:** {w.name(top.name)}, {w.vp(top.self)} of self. {w.meaning(top.name)}")
    row = ctx.responsible
    if row is not None:
        w.add(
            f"- **Most responsible:** {w.name(row.name)}, {w.vp(row.total)} in total: the first bar that not "
            "every stack passes through."
        )
    if s.chain is not None:
        steps = [st for st in s.chain.steps if not ctx.is_noise(st.name)]
        path = " → ".join(w.name(st.name) for st in steps[-5:])
        w.add(f"- **How it is reached** (last steps of the heaviest chain, entry side first): {path}.")
    if s.orchestrators:
        w.add(
            f"- **Skip:** {w.name(s.orchestrators[0].name)} and other wide bars with zero self; they only pass "
            "calls on."
        )
    _notes(w)
    w.add("", "Ask about any of these for details, e.g. *Show me the call chain to the biggest allocation.*")
    return top.name


def _notes(w: Writer) -> None:
    ctx = w.ctx
    t = ctx.profile.truncation
    if ctx.summary.unresolved_share >= 0.2:
        w.add(
            f"- **Unresolved:** {w.p(ctx.summary.unresolved_share, 1)} of the total ends in raw addresses; "
            "re-running the workload lets the profiler resolve start-up symbols."
        )
    if t.other_nodes:
        w.add(f"- **Left out by the source:** {w.n(t.other_nodes)} merged 'other' nodes hold {w.vp(t.other_value)}.")
    if t.elided_stacks:
        w.add(
            f"- **Deep stacks:** {w.n(t.elided_stacks)} stacks had their middle frames elided; totals still count them."
        )


def handoff(w: Writer) -> str | None:
    ctx = w.ctx
    s = ctx.summary
    w.add(
        "### On-call handoff",
        "",
        f"**Headline:** {w.v(ctx.total)} of {ctx.resource} in this profile ({w.text(ctx.meaning)}).",
        "",
    )
    w.add("**Top consumers (self):**", "")
    for r in s.top_self.rows[:3]:
        w.add(f"- {w.name(r.name)}: {w.vp(r.self)}. {w.meaning(r.name)}")
    row = ctx.responsible
    if row is not None:
        w.add(
            "",
            f"**Responsible (total):** {w.name(row.name)}, {w.vp(row.total)}, where the work branches below "
            "the shared entry frames.",
        )
    if s.chain is not None:
        steps = [st for st in s.chain.steps if not ctx.is_noise(st.name)]
        w.add("", "**Chain to the top consumer** (entry first): " + " → ".join(w.name(st.name) for st in steps[-8:]))
    diff = ctx.diff
    if isinstance(diff, Diff):
        w.add("", "**Against the baseline:**", "")
        _diff_lines(w, diff, 3)
    if s.orchestrators:
        w.add(
            "",
            f"**Can be ignored:** wide bars with zero self such as {w.name(s.orchestrators[0].name)}; "
            "`<interpreter trampoline>` frames.",
        )
    for caveat in ctx.caveats[:1]:
        w.add("", f"**Keep in mind:** {w.text(caveat)}")
    top = s.top_self.rows[0]
    w.add(
        "",
        f"**Next step:** start with {w.name(top.name)} ({w.p(top.self)} of the total) and read its chain "
        "to see why it runs.",
    )
    _coverage(w)
    return top.name


def _coverage(w: Writer) -> None:
    lst = w.ctx.summary.top_self
    w.add(
        "",
        f"_Coverage: the top {w.n(min(3, len(lst.rows)))} of {w.n(lst.of_functions)} functions by self hold "
        f"{w.p(sum(r.self for r in lst.rows[:3]))} of the total._",
    )
    t = w.ctx.profile.truncation
    if t.any:
        w.add("_Parts of the input were merged, elided or skipped by the source; see the analysis notes._")


def compare(w: Writer) -> str | None:
    diff = w.ctx.diff
    if diff is None:
        w.add(
            "To say what changed I need a second profile to compare with, and none is loaded.",
            "",
            "- In the app, load a baseline profile (yesterday's window, the previous deploy or the other pod).",
            '- On the command line: `explainer ask NEW.pb.gz "What changed?" --baseline OLD.pb.gz`, or '
            "`explainer diff OLD.pb.gz NEW.pb.gz` for the full table.",
        )
        return None
    if isinstance(diff, str):
        w.add(f"These two profiles cannot be compared: {diff}")
        return None
    delta = diff.total_after - diff.total_before
    word = "grew" if delta > 0 else "shrank" if delta < 0 else "did not change"
    w.add(
        f"**The total {word}: {w.v(diff.total_before)} in the baseline, {w.v(diff.total_after)} now"
        + (
            f" ({'+' if delta > 0 else '-'}{w.v(abs(delta))}, {w.p(abs(delta), diff.total_before)} of the baseline).**"
            if delta
            else ".**"
        ),
        "",
    )
    _diff_lines(w, diff, 6)
    for note in diff.notes[:2]:
        w.add("", f"_Note: {w.text(note)}_")
    biggest = diff.biggest
    return biggest.name if biggest is not None else None


def _diff_lines(w: Writer, diff: Diff, n: int) -> None:
    rows = diff.ranked("self")[:n]
    if not rows:
        floor = diff.floor
        w.add(
            f"No function changed by more than the noise floor ({w.p(floor.min_share, 1)} of the total and "
            f"{w.p(floor.min_relative, 1)} of its value)."
        )
        return
    for r in rows:
        sign = "+" if r.delta() > 0 else "-"
        status = {"new": " (new)", "vanished": " (gone)"}.get(r.presence, "")
        w.add(
            f"- {w.name(r.name)}{status}: self {w.v(r.self_before)} → {w.v(r.self_after)} ({sign}{w.v(abs(r.delta()))})"
        )
