"""Offline answers about one frame: its call chain read bottom to top, what its label means,
its numbers, and who calls it or what it calls."""

from __future__ import annotations

from explainer.errors import NoSuchFunctionError
from explainer.explain.answers.language import N_
from explainer.explain.answers.writer import Writer, cap
from explainer.queries import ChainTo, Neighbours, SelfVsTotal, UnresolvedShare, answer
from explainer.queries.records import ChainResult, NeighboursResult, Step
from explainer.symbols import decode

MAX_STEPS = 24
MAX_APP_STEPS = 80  # application frames shown in one chain before its middle is cut
_CONVENTIONS = {  # extracted for translation: see language.py
    "method": N_(
        "The label convention: *Class > method* (also written with a slash or a dot between the two) is a "
        "method of that class."
    ),
    "constructor": N_(
        "The label convention: a method named __init__ is the constructor of its class, so an object of "
        "that class is being created, and what it allocates is what building that object costs."
    ),
    "function": N_("A name on its own is a module-level function (def name(), not inside a class)."),
    "module": N_(
        "`<module>` is the top level of a script or module: code outside any function, such as the entry "
        "script or an import."
    ),
    "trampoline": N_("It is not your code: CPython's dispatch between Python calls. Ignore it when reading a chain."),
    "address": N_(
        "A raw address is native C, C++ or CUDA code with no symbol available. On a first run, start-up "
        "work is often unresolved; once the profiler has seen the workload, re-running it resolves the symbols."
    ),
}
Item = Step | tuple[int, str]  # a step, or (count, example) for a run of collapsed frames


def _display(chain: ChainResult) -> list[Item]:
    """The steps to show: runs of interpreter or native frames in the middle collapsed; in a long chain
    every run of runtime, kernel or native frames too, so its application frames all stay in view (a
    67-frame Java chain shows every Java frame). Only a chain with more application frames than
    :data:`MAX_APP_STEPS` loses some of them, from its middle."""
    steps = list(chain.steps)
    long = len(steps) > MAX_STEPS
    out: list[Item] = []
    run: list[Step] = []
    for i, step in enumerate(steps):
        middle = 0 < i < len(steps) - 1
        if middle and (step.role == "noise" or (long and step.role != "app")):
            run.append(step)
            continue
        out += _flush(run, long=long)
        run = []
        out.append(step)
    items = out
    if len(items) > MAX_APP_STEPS:
        hidden = len(items) - MAX_APP_STEPS + 1
        items = [*items[:4], (hidden, "steps"), *items[-(MAX_APP_STEPS - 5) :]]
    return items


def _flush(run: list[Step], long: bool) -> list[Item]:
    """A run of skippable frames: kept when it is one frame of a short chain, else one line."""
    if not run or (len(run) < 2 and not long):
        return list(run)
    return [(len(run), run[0].name)]


def chain(w: Writer, fid: int | None) -> str | None:
    ctx = w.ctx
    target = fid if fid is not None else ctx.summary.top_self.rows[0].id
    name = ctx.profile.names[target]
    try:
        found: ChainResult | None = answer(ctx.reading, ChainTo(name))
    except NoSuchFunctionError:  # reached only off the widest paths
        found = None
    if found is None:
        w.add(
            w.t(
                "I could not follow one chain to {name}: it is only reached off the widest paths. Here is who "
                "calls it instead.",
                name=w.name(name),
            ),
            "",
        )
        return callers(w, target)
    w.add(
        w.t(
            "**The heaviest call chain to {name}, read from the entry point (the bottom of the flame graph) up to "
            "where the {resource} {is_verb}:**",
            name=w.name(name),
            resource=w.resource,
            verb=w.verb,
        ),
        "",
    )
    items = _display(found)
    told: set[str] = set()  # a meaning shown once is not repeated for the next frame of the same kind
    for i, item in enumerate(items, 1):
        w.add(f"{i}. " + _step_line(w, item, i == 1, i == len(items), told))
    _narrowing(w, found)
    if found.value < found.target_total:
        w.add(
            "",
            w.t(
                "This chain carries {value} of the {total} that reaches {name}; the rest comes through other "
                "callers (ask who calls it).",
                value=w.v(found.value),
                total=w.v(found.target_total),
                name=w.name(name),
            ),
        )
    w.add("", w.t("Each bar called the one above it, so reading up the list answers why the last function ran."))
    return name


def _step_line(w: Writer, item: Item, first: bool, last: bool, told: set[str]) -> str:
    if isinstance(item, tuple):
        count, example = item
        if example == "steps":
            return w.tn("… {count} more step …", "… {count} more steps …", count, count=w.n(count))
        return w.tn(
            "… an interpreter or native frame (such as {name}): skip …",
            "… {count} interpreter or native frames (such as {name}): skip …",
            count,
            count=w.n(count),
            name=w.name(example),
        )
    line = w.t(
        "{name} — {total} total ({share})",
        name=w.name(item.name),
        total=w.v(item.total),
        share=w.p(item.total, w.ctx.total),
    )
    if item.self:
        line += w.t(", {self} self", self=w.v(item.self))
    if first:
        role = " " + w.t("This is the entry point.")
    elif last:
        role = " " + w.t("Here the {resource} {is_verb}.", resource=w.resource, verb=w.verb)
    else:
        role = ""
    meaning = w.meaning(item.name)
    if meaning in told:
        return f"{line}.{role}"
    told.add(meaning)
    return f"{line}. {meaning}{role}"


def _narrowing(w: Writer, found: ChainResult) -> None:
    """Where the chain's bars first get narrower: below that point the callers also do other work."""
    if found.narrows is None:
        return
    prev, step = found.steps[found.narrows - 1], found.steps[found.narrows]
    w.add(
        "",
        w.t(
            "Reading it: up to {prev} the bars are {wide} wide; at {step} the chain narrows to {narrow}, "
            "because {prev} also calls other things ({more} more).",
            prev=w.name(prev.name),
            wide=w.v(prev.total),
            step=w.name(step.name),
            narrow=w.v(step.total),
            more=w.v(prev.total - step.total),
        ),
    )


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
        w.add("", w.t(convention))
    known = w.meaning(look, full=True) if fid is not None or written else ""
    if known and known != cap(w.convention(look)):
        w.add("", known)
        knobs = w.knobs(look)
        if knobs:
            w.add("", w.t("What changes it:"), "", *(f"- {k}" for k in knobs))
    if fid is None:
        _not_found(w, written or name)
        if sym.kind == "address" and answer(ctx.reading, UnresolvedShare()).share > 0:
            _unresolved(w)
        return None
    _numbers(w, fid)
    if sym.kind == "address":
        _unresolved(w)
    return name


def _unresolved(w: Writer) -> None:
    share = w.p(answer(w.ctx.reading, UnresolvedShare()).share, 1)
    w.add("", w.t("In this profile {share} of the total ends in raw addresses.", share=share))


def _not_found(w: Writer, written: str) -> None:
    similar = w.ctx.names.search(written.rstrip("().…"), 5) if len(written) >= 3 else []
    w.add("", w.t("{name} does not appear in this profile.", name=w.name(written)))
    if similar:
        names = ", ".join(w.name(w.ctx.profile.names[i]) for i in similar[:5])
        w.add(w.t("Similar names in it: {names}.", names=names))


def _numbers(w: Writer, fid: int) -> None:
    from explainer.analysis.sandwich import ENTRY, SELF  # the sandwich's pseudo-rows: loaded with a neighbours answer

    ctx = w.ctx
    f = answer(ctx.reading, SelfVsTotal(ctx.profile.names[fid])).function
    s, t = f.self, f.total
    w.add("", w.t("In this profile: total {total}, self {self}.", total=w.vp(t), self=w.vp(s)))
    if f.role == "noise":
        return  # callers and callees of interpreter dispatch or an address say nothing (and cost the most)
    sw = answer(ctx.reading, Neighbours(f.name, 4))
    callees = _named(sw.callees, SELF)
    if s == 0 and callees:
        listed = ", ".join(f"{w.name(c)} ({w.v(v)})" for c, v in callees)
        w.add(w.t("It {verb} nothing itself; what it calls does: {callees}.", verb=w.verb, callees=listed))
    callers_ = _named(sw.callers, ENTRY)
    if callers_:
        listed = ", ".join(f"{w.name(c)} ({w.v(v)})" for c, v in callers_)
        w.add(w.t("Called mostly from {callers}.", callers=listed))


def _named(rows: tuple[tuple[str, int], ...], pseudo: str, n: int = 3) -> list[tuple[str, int]]:
    """The first ``n`` neighbours that are functions (not the sandwich's ``(entry)`` or ``(self)`` row)."""
    return [r for r in rows if r[0] != pseudo][:n]


def function(w: Writer, fid: int) -> str | None:
    from explainer.analysis.sandwich import ENTRY, SELF  # the sandwich's pseudo-rows: loaded with a neighbours answer

    ctx = w.ctx
    name = ctx.profile.names[fid]
    f = answer(ctx.reading, SelfVsTotal(name)).function
    s, t = f.self, f.total
    w.add(
        w.t(
            "**{name}: {self} self ({self_share}), {total} total ({total_share}).**",
            name=w.name(name),
            self=w.v(s),
            self_share=w.p(s),
            total=w.v(t),
            total_share=w.p(t),
        ),
        "",
        w.t("What it is: {meaning}", meaning=w.meaning(name, full=True)),
    )
    knobs = w.knobs(name)
    if knobs:
        w.add("", w.t("What changes it:"), "", *(f"- {k}" for k in knobs))
    sw = answer(ctx.reading, Neighbours(name, 4))
    callees = _named(sw.callees, SELF)
    if callees:
        listed = ", ".join(f"{w.name(c)} ({w.v(v)})" for c, v in callees)
        w.add("", w.t("It calls {callees}.", callees=listed))
    callers_ = _named(sw.callers, ENTRY)
    if callers_:
        listed = ", ".join(f"{w.name(c)} ({w.v(v)})" for c, v in callers_)
        w.add("", w.t("It is called from {callers}.", callers=listed))
    if s == 0 and t > 0:
        w.add("", w.t("Self is {zero}: it only passes calls on, so look at what it calls for the source.", zero=w.v(0)))
    return name


def callers(w: Writer, fid: int) -> str | None:
    return _neighbours(w, fid, "callers")


def callees(w: Writer, fid: int) -> str | None:
    return _neighbours(w, fid, "callees")


def _neighbours(w: Writer, fid: int, side: str) -> str | None:
    from explainer.analysis.sandwich import ENTRY, SELF  # the sandwich's pseudo-rows: loaded with a neighbours answer

    ctx = w.ctx
    asked = w.rows(10)
    # one row past what is listed tells whether "show me 5 more" has anything to go on with
    sw: NeighboursResult = answer(ctx.reading, Neighbours(ctx.profile.names[fid], w.offset + asked + 1))
    name, s, t = sw.function.name, sw.function.self, sw.function.total
    every = sw.callers if side == "callers" else sw.callees
    rows = every[w.offset : w.offset + asked]
    if w.offset and not rows:
        w.all_shown()
        return name
    values = {"name": w.name(name), "total": w.vp(t), "self": w.v(s)}
    first, last = w.offset + 1, w.offset + len(rows)
    if w.offset:
        ranks = {"first": w.n(first), "last": w.n(last)}
        if side == "callers":
            w.add(w.t("**Callers of {name}**, ranks {first} to {last}:", **values, **ranks), "")
        else:
            w.add(w.t("**What is called by {name}**, ranks {first} to {last}:", **values, **ranks), "")
    elif side == "callers":
        w.add(w.t("**Callers of {name}** (total {total}, self {self}), heaviest first:", **values), "")
    else:
        w.add(w.t("**What is called by {name}** (total {total}, self {self}), heaviest first:", **values), "")
    cells = [[w.name(r) if r not in (ENTRY, SELF) else r, w.v(v), w.p(v, t)] for r, v in rows]
    middle = w.t("through it") if side == "callers" else w.t("value")
    w.table([w.t("function"), middle, w.t("share of its total")], cells)
    if side == "callers":
        note = w.t(
            "Each row counts a stack once, so the shares can add up to more than the whole when a function is "
            "reached several ways in one stack."
        )
    else:
        note = w.t("`(self)` is what {name} {verb} directly.", name=w.name(name), verb=w.verb)
    w.add("", note)
    w.rows_cut(len(rows))
    # "the second one" is this table's second function; "show me more" is offered only while rows are left
    w.ranked = tuple(r for r, _ in every[:last] if r not in (ENTRY, SELF))
    w.listed(last, left=len(every) > last)
    return name
