"""Offline answers about one frame: its call chain read bottom to top, what its label means,
its numbers, and who calls it or what it calls."""

from __future__ import annotations

import itertools

from explainer.analysis.chain import Chain, ChainStep
from explainer.analysis.sandwich import ENTRY, SELF
from explainer.explain.answers.writer import Writer, cap
from explainer.symbols import decode

MAX_STEPS = 24
_CONVENTIONS = {
    "method": "The label convention: *Class > method* (also written with a slash or a dot between the two) is a "
    "method of that class.",
    "constructor": "The label convention: a method named __init__ is the constructor of its class, so an object of "
    "that class is being created, and what it allocates is what building that object costs.",
    "function": "A name on its own is a module-level function (def name(), not inside a class).",
    "module": "`<module>` is the top level of a script or module: code outside any function, such as the entry "
    "script or an import.",
    "trampoline": "It is not your code: CPython's dispatch between Python calls. Ignore it when reading a chain.",
    "address": "A raw address is native C, C++ or CUDA code with no symbol available. On a first run, start-up "
    "work is often unresolved; once the profiler has seen the workload, re-running it resolves the symbols.",
}
Item = ChainStep | tuple[int, str]  # a step, or (count, example) for a run of collapsed frames


def _display(w: Writer, chain: Chain) -> list[Item]:
    """The steps to show: runs of interpreter or native frames in the middle collapsed, long chains cut."""
    steps = list(chain.steps)
    out: list[Item] = []
    run: list[ChainStep] = []
    for i, step in enumerate(steps):
        if 0 < i < len(steps) - 1 and w.ctx.is_noise(step.name):
            run.append(step)
            continue
        out += _flush(run, long=len(steps) > MAX_STEPS)
        run = []
        out.append(step)
    items = out
    if len(items) > MAX_STEPS:  # long chains lose the "skip" markers first: they carry no information
        items = [it for i, it in enumerate(items) if not isinstance(it, tuple) or i in (0, len(items) - 1)]
    if len(items) > MAX_STEPS:
        hidden = len(items) - MAX_STEPS + 1
        items = [*items[:4], (hidden, "steps"), *items[-(MAX_STEPS - 5) :]]
    return items


def _flush(run: list[ChainStep], long: bool) -> list[Item]:
    """A run of skippable frames: kept when it is one frame of a short chain, else one line."""
    if not run or (len(run) < 2 and not long):
        return list(run)
    return [(len(run), run[0].name)]


def chain(w: Writer, fid: int | None) -> str | None:
    ctx = w.ctx
    target = fid if fid is not None else ctx.summary.top_self.rows[0].id
    name = ctx.profile.names[target]
    found = ctx.chain_to(target)
    if found is None:
        w.add(
            f"I could not follow one chain to {w.name(name)}: it is only reached off the widest paths. "
            "Here is who calls it instead.",
            "",
        )
        return callers(w, target)
    w.add(
        f"**The heaviest call chain to {w.name(name)}, read from the entry point (the bottom of the flame "
        f"graph) up to where the {ctx.resource} {ctx.is_verb}:**",
        "",
    )
    items = _display(w, found)
    for i, item in enumerate(items, 1):
        w.add(f"{i}. " + _step_line(w, item, i == 1, i == len(items)))
    _narrowing(w, found)
    if found.value < found.target_total:
        w.add(
            "",
            f"This chain carries {w.v(found.value)} of the {w.v(found.target_total)} that reaches "
            f"{w.name(name)}; the rest comes through other callers (ask who calls it).",
        )
    w.add("", "Each bar called the one above it, so reading up the list answers why the last function ran.")
    return name


def _step_line(w: Writer, item: Item, first: bool, last: bool) -> str:
    if isinstance(item, tuple):
        count, example = item
        if example == "steps":
            return f"… {w.n(count)} more steps …"
        frames = "an interpreter or native frame" if count == 1 else f"{w.n(count)} interpreter or native frames"
        return f"… {frames} (such as {w.name(example)}): skip …"
    total = w.ctx.total
    line = f"{w.name(item.name)} — {w.v(item.total)} total ({w.p(item.total, total)})"
    if item.self:
        line += f", {w.v(item.self)} self"
    role = " This is the entry point." if first else f" Here the {w.ctx.resource} {w.ctx.is_verb}." if last else ""
    return f"{line}. {w.meaning(item.name)}{role}"


def _narrowing(w: Writer, found: Chain) -> None:
    """Where the chain's bars first get narrower: below that point the callers also do other work."""
    steps = found.steps
    for prev, step in itertools.pairwise(steps):
        if step.total < prev.total and prev.total - step.total >= 0.01 * w.ctx.total:
            w.add(
                "",
                f"Reading it: up to {w.name(prev.name)} the bars are {w.v(prev.total)} wide; at "
                f"{w.name(step.name)} the chain narrows to {w.v(step.total)}, because {w.name(prev.name)} also "
                f"calls other things ({w.v(prev.total - step.total)} more).",
            )
            return


def symbol(w: Writer, fid: int | None, written: str | None) -> str | None:
    ctx = w.ctx
    name = ctx.profile.names[fid] if fid is not None else (written or "")
    look = name if fid is not None else name.rstrip(".…")  # "0x7f15..." is an address, cut short
    sym = decode(look, w.runtime)
    w.add(f"**{w.name(name)}**: {cap(w.convention(look))}")
    # the conventions are the seed's, for Python labels and raw addresses; other languages' readings stand alone
    seed = (sym.language in ("python", "") and not sym.file) or sym.kind == "address"
    convention = _CONVENTIONS.get(sym.kind) if seed else None
    if convention:
        w.add("", convention)
    known = w.meaning(look, full=True) if fid is not None or written else ""
    if known and known != cap(w.convention(look)):
        w.add("", known)
        knobs = w.knobs(look)
        if knobs:
            w.add("", "What changes it:", "", *(f"- {k}" for k in knobs))
    if fid is None:
        _not_found(w, written or name)
        if sym.kind == "address" and ctx.summary.unresolved_share > 0:
            w.add("", f"In this profile {w.p(ctx.summary.unresolved_share, 1)} of the total ends in raw addresses.")
        return None
    _numbers(w, fid)
    if sym.kind == "address":
        w.add("", f"In this profile {w.p(ctx.summary.unresolved_share, 1)} of the total ends in raw addresses.")
    return name


def _not_found(w: Writer, written: str) -> None:
    similar = w.ctx.names.search(written.rstrip("().…"), 5) if len(written) >= 3 else []
    w.add("", f"{w.name(written)} does not appear in this profile.")
    if similar:
        w.add("Similar names in it: " + ", ".join(w.name(w.ctx.profile.names[i]) for i in similar[:5]) + ".")


def _numbers(w: Writer, fid: int) -> None:
    ctx = w.ctx
    s, t = ctx.of(fid)
    w.add("", f"In this profile: total {w.vp(t)}, self {w.vp(s)}.")
    if ctx.is_noise(ctx.profile.names[fid]):
        return  # callers and callees of interpreter dispatch or an address say nothing (and cost the most)
    sw = ctx.sandwich(fid, 4)
    callees = [c for c in sw.callees if c.name != SELF][:3]
    if s == 0 and callees:
        w.add(
            f"It {ctx.verb} nothing itself; what it calls does: "
            + ", ".join(f"{w.name(c.name)} ({w.v(c.value)})" for c in callees)
            + "."
        )
    callers_ = [c for c in sw.callers if c.name != ENTRY][:3]
    if callers_:
        w.add("Called mostly from " + ", ".join(f"{w.name(c.name)} ({w.v(c.value)})" for c in callers_) + ".")


def function(w: Writer, fid: int) -> str | None:
    ctx = w.ctx
    name = ctx.profile.names[fid]
    s, t = ctx.of(fid)
    w.add(
        f"**{w.name(name)}: {w.v(s)} self ({w.p(s)}), {w.v(t)} total ({w.p(t)}).**",
        "",
        f"What it is: {w.meaning(name, full=True)}",
    )
    knobs = w.knobs(name)
    if knobs:
        w.add("", "What changes it:", "", *(f"- {k}" for k in knobs))
    sw = ctx.sandwich(fid, 4)
    callees = [c for c in sw.callees if c.name != SELF][:3]
    if callees:
        w.add("", "It calls " + ", ".join(f"{w.name(c.name)} ({w.v(c.value)})" for c in callees) + ".")
    callers_ = [c for c in sw.callers if c.name != ENTRY][:3]
    if callers_:
        w.add("", "It is called from " + ", ".join(f"{w.name(c.name)} ({w.v(c.value)})" for c in callers_) + ".")
    if s == 0 and t > 0:
        w.add("", f"Self is {w.v(0)}: it only passes calls on, so look at what it calls for the source.")
    return name


def callers(w: Writer, fid: int) -> str | None:
    return _neighbours(w, fid, "callers")


def callees(w: Writer, fid: int) -> str | None:
    return _neighbours(w, fid, "callees")


def _neighbours(w: Writer, fid: int, side: str) -> str | None:
    ctx = w.ctx
    name = ctx.profile.names[fid]
    sw = ctx.sandwich(fid, 10)
    rows = sw.callers if side == "callers" else sw.callees
    s, t = ctx.of(fid)
    what = "Callers of" if side == "callers" else "What is called by"
    w.add(f"**{what} {w.name(name)}** (total {w.vp(t)}, self {w.v(s)}), heaviest first:", "")
    cells = [[w.name(r.name) if r.name not in (ENTRY, SELF) else r.name, w.v(r.value), w.p(r.value, t)] for r in rows]
    w.table(["function", "through it" if side == "callers" else "value", "share of its total"], cells)
    w.add(
        "",
        "Each row counts a stack once, so the shares can add up to more than 100% when a function is "
        "reached several ways in one stack."
        if side == "callers"
        else f"`(self)` is what {w.name(name)} {ctx.verb} directly.",
    )
    return name
