"""Offline answers about the whole profile: what uses the most, what is responsible, what to
optimise, what to skip, the total, and self vs total taught with this profile's own numbers."""

from __future__ import annotations

import numpy as np

from explainer.analysis.filters import TRAMPOLINE
from explainer.explain import kb
from explainer.explain.answers.writer import Writer, cap
from explainer.symbols import decode

SMALL_SHARE = 0.01  # below 1% of the total a function is rarely worth optimising


def _top_rows(w: Writer, start: int, n: int) -> None:
    rows = w.ctx.summary.top_self.rows[start : start + n]
    if not rows:
        return
    w.table(
        ["#", "function", "self", "share", "total"],
        [
            [w.n(i) if i > 10 else str(i), w.name(r.name), w.v(r.self), w.p(r.self), w.v(r.total)]
            for i, r in enumerate(rows, start + 1)
        ],
    )


def _runtime_note(w: Writer, fid: int) -> None:
    """When the top consumer is allocator or native code, point at the code that asked for it."""
    ctx = w.ctx
    sym = decode(ctx.profile.names[fid])
    if sym.language not in ("native", "cpp") and sym.kind not in ("address", "unknown", "native"):
        return
    chain = ctx.chain_to(fid)
    app = ctx.app_frame(chain) if chain is not None else None
    w.add(
        "",
        "This frame is runtime code (an allocator, a library or native code without symbols): it carries "
        "the requests but does not decide what they are for.",
    )
    if app is not None:
        w.add(
            f"Along its heaviest chain the nearest application frame is {w.name(app.name)} "
            f"({w.v(app.width)} on that chain)."
        )
    if ctx.sites:
        _sites(w)


def _sites(w: Writer) -> None:
    w.add("", "By allocation site (the nearest application frame that asked for the memory):", "")
    for name, value, label in w.ctx.sites[:5]:
        w.add(f"- {w.name(name)}: {w.vp(value)}" + (f", {label}" if label else ""))


def most(w: Writer) -> str | None:
    ctx = w.ctx
    rows = ctx.summary.top_self.rows
    top = rows[0]
    w.add(
        f"**{w.name(top.name)} uses the most {ctx.resource}: {w.v(top.self)} of self, {w.p(top.self)} of the "
        f"{w.v(ctx.total)} total.**",
        "",
        f"Self is what a function {ctx.verb} directly, so this is where the {ctx.resource} {ctx.is_verb}; in the "
        "flame graph it is the widest bar with nothing on top of it (a leaf at the top of the stack).",
        "",
        f"What it is: {w.meaning(top.name)}",
    )
    _runtime_note(w, top.id)
    if len(rows) > 1:
        w.add("", "Next by self:", "")
        _top_rows(w, 1, 5)
        shown = rows[:6]
        w.add(
            "",
            f"These {len(shown)} of {w.n(ctx.summary.top_self.of_functions)} functions cover "
            f"{w.p(sum(r.self for r in shown))} of the total by self.",
        )
    return top.name


def responsible(w: Writer) -> str | None:
    ctx = w.ctx
    row = ctx.responsible
    entry = [r for r in ctx.summary.top_total.rows if r.total == ctx.total][:4]
    if row is None:
        return most(w)
    w.add(
        f"**The code responsible for the most {ctx.resource} is {w.name(row.name)}: {w.vp(row.total)} in total, "
        f"of which it {ctx.verb} {w.v(row.self)} itself.**",
        "",
        "Responsible means total: what a function used itself plus everything it called. In the flame graph these are "
        "the widest bars at the bottom.",
    )
    if entry:
        listed = ", ".join(w.name(r.name) for r in entry)
        w.add(
            "",
            f"{listed} carry {w.p(ctx.total)} because every stack passes through them: they are entry points, "
            f"not causes. {w.name(row.name)} is the first bar that not every stack passes through, where the work "
            "branches.",
        )
    _path_to_top(w, row.name)
    if ctx.sites:
        _sites(w)
    w.add("", "Widest bars by total:", "")
    w.table(
        ["function", "total", "share", "self"],
        [[w.name(r.name), w.v(r.total), w.p(r.total), w.v(r.self)] for r in ctx.summary.top_total.rows[:6]],
    )
    return row.name


def _path_to_top(w: Writer, start_name: str) -> None:
    """``It leads to the biggest consumer through a → b → c``: the heaviest chain from ``start_name`` up."""
    chain = w.ctx.summary.chain
    on_chain = [s.name for s in chain.steps] if chain is not None else []
    if chain is None or start_name not in on_chain[:-1]:
        return
    start = on_chain.index(start_name)
    path = [w.name(s.name) for s in chain.steps[start:-1] if not w.ctx.is_noise(s.name)]
    if len(path) > 6:
        path = [*path[:3], "…", *path[-2:]]
    end = chain.steps[-1]
    w.add(
        "",
        "It leads to the biggest consumer through "
        + " → ".join([*path, w.name(end.name)])
        + f" ({w.v(end.self)} self).",
    )


def optimise(w: Writer) -> str | None:
    ctx = w.ctx
    top = ctx.summary.top_self.rows[0]
    w.add(
        f"**Start with {w.name(top.name)}: {w.v(top.self)} of self, {w.p(top.self)} of the total.** Wide bars with "
        f"high self are the candidates, because that is where the {ctx.resource} {ctx.is_verb}.",
        "",
        f"What it is: {w.meaning(top.name, full=True)}",
    )
    knobs = w.knobs(top.name)
    if knobs:
        w.add("", "What changes it:", "", *(f"- {k}" for k in knobs))
    _runtime_note(w, top.id)
    rest = [r for r in ctx.summary.top_self.rows[1:6] if r.self >= SMALL_SHARE * ctx.total]
    if rest:
        w.add("", "Then, in order:", "")
        for r in rest:
            w.add(f"- {w.name(r.name)}: {w.vp(r.self)} self. {w.meaning(r.name)}")
    _small(w)
    w.add(
        "",
        "Before changing anything, read the chain to the top consumer to see why it runs "
        "(ask: show me the call chain to the biggest allocation).",
    )
    return top.name


def _small(w: Writer) -> None:
    stats = w.ctx.stats
    small = (stats.self_values > 0) & (stats.self_values < SMALL_SHARE * w.ctx.total)
    count = int(np.count_nonzero(small))
    if count:
        many = f"{w.n(count)} functions each use" if count > 1 else "one function uses"
        w.add(
            "",
            f"Not worth it first: {many} under {w.p(SMALL_SHARE, 1)} of the total "
            f"by self; together {w.p(int(stats.self_values[small].sum()))}.",
        )


def skip(w: Writer) -> str | None:
    ctx = w.ctx
    rows = [r for r in ctx.summary.orchestrators if r.name != TRAMPOLINE][:6]
    w.add(
        f"**You can skip the wide bars with zero self: they only pass calls on and {ctx.verb} nothing "
        "themselves.** Follow them up to a bar with high self instead.",
        "",
    )
    for r in rows:
        w.add(f"- {w.name(r.name)}: {w.vp(r.total)} total, self {w.v(0)}. {cap(w.convention(r.name))}")
    fid = ctx.profile.function_id(TRAMPOLINE)
    if fid is not None and ctx.stats.total_values[fid] > 0:
        w.add(
            f"- {w.name(TRAMPOLINE)} frames: CPython's dispatch between Python calls; "
            f"{w.p(int(ctx.stats.total_values[fid]))} of the total passes through one. Ignore them when reading "
            "a chain (`--hide-trampolines` removes them)."
        )
    if ctx.summary.unresolved_share > 0:
        example = next((r.name for r in ctx.summary.top_total.rows if decode(r.name).kind == "address"), None)
        such = f" such as {w.name(example)}" if example else ""
        w.add(
            f"- Raw addresses{such}: native code without symbols; {w.p(ctx.summary.unresolved_share, 1)} "
            "of the total ends in one. Read past them to the nearest named frame."
        )
    _small(w)
    return rows[0].name if rows else None


def total(w: Writer) -> str | None:
    ctx = w.ctx
    w.add(
        f"**The total is {w.v(ctx.total)} of {ctx.resource}, across {w.n(ctx.profile.stack_count)} distinct "
        f"stacks and {w.n(ctx.stats.function_count)} functions.**",
        "",
        f"Values are {w.text(ctx.meaning)}. The total is the width of the whole flame graph (the root bar).",
    )
    for caveat in ctx.caveats[:1]:
        w.add("", w.text(caveat))
    cats = kb.breakdown(ctx.profile)
    if cats:
        w.add("", "By category:", "", *(f"- {label}: {w.vp(value)}" for label, value in cats[:6]))
    else:
        w.add("", "Largest by self:", "")
        _top_rows(w, 0, 5)
    return None


def _example(w: Writer, fid: int) -> None:
    """Self and total of one function, with where the difference goes (its heaviest callees)."""
    ctx = w.ctx
    name = ctx.profile.names[fid]
    s, t = ctx.of(fid)
    callees = [c for c in ctx.sandwich(fid, 4).callees if c.name != "(self)"][:3]
    parts = ", ".join(f"{w.name(c.name)} {w.v(c.value)}" for c in callees)
    if s == 0:
        w.add(
            f"In this profile {w.name(name)} has a total of {w.vp(t)} but a self of {w.v(0)}: it {ctx.verb} "
            "nothing itself and only sits on the call chain, so its width is the sum of what it calls"
            + (f": {parts}." if parts else ".")
        )
    else:
        w.add(
            f"In this profile {w.name(name)} has a total of {w.vp(t)} and a self of {w.vp(s)}"
            + (f"; the rest is what it calls: {parts}." if parts and t > s else ".")
        )


def self_vs_total(w: Writer, fid: int | None) -> str | None:
    ctx = w.ctx
    w.add(
        f"**Total is the {ctx.resource} a function {ctx.verb} itself plus everything it called; self is only "
        "what it used directly.** A bar's width in the flame graph is its total.",
        "",
    )
    example = fid if fid is not None else w.orchestrator_example()
    if example is not None:
        _example(w, example)
    top = ctx.summary.top_self.rows[0]
    if top.id != example:
        eq = "=" if top.self == top.total else "of"
        w.add(
            "",
            f"By contrast {w.name(top.name)} has self {w.v(top.self)} {eq} total {w.v(top.total)}"
            + (": nothing sits on top of it, so its whole width is its own use." if eq == "=" else "."),
        )
    w.add(
        "",
        "So a wide bar with zero self is an orchestrator: skip it when hunting the source and follow it up "
        "to a bar with high self. Wide bars with high self are the optimisation candidates.",
        "",
        "How they are counted: a function's self is the sum of the samples whose top (leaf) frame is that "
        "function; its total is the sum of the samples in which it appears at least once, so recursion is "
        "not counted twice.",
    )
    return ctx.profile.names[example] if example is not None else top.name
