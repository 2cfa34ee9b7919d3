"""Offline answers about the whole profile: what uses the most, what is responsible, what to
optimise, what to skip, and the total (self vs total is taught in :mod:`.self_total`)."""

from __future__ import annotations

from explainer.analysis.filters import TRAMPOLINE
from explainer.errors import NoSuchFunctionError
from explainer.explain.answers.language import N_
from explainer.explain.answers.writer import Writer, cap
from explainer.queries import ChainTo, Most, Overview, Responsible, Skip, StartHere, UnresolvedShare, answer
from explainer.queries.answering import SMALL_SHARE
from explainer.queries.records import Fn, Step

UNSYMBOLIZED = 0.5  # from this share of unnamed leaves on, where to start is the symbols, not a frame


def _top_rows(w: Writer, rows: tuple[Fn, ...], first: int = 1) -> None:
    """The ranked table, its rows numbered from ``first``."""
    if not rows:
        return
    w.table(
        ["#", w.t("function"), w.t("self"), w.t("share"), w.t("total")],
        [
            [w.n(i) if i > 10 else str(i), w.name(r.name), w.v(r.self), w.p(r.self), w.v(r.total)]
            for i, r in enumerate(rows, first)
        ],
    )


def _idle(w: Writer, top: Fn) -> None:
    """The top consumer is idle time: waiting with nothing to run, which no code change makes smaller."""
    w.add(
        "",
        w.t(
            "{name} holds the most by self ({self}), but that is time spent waiting with nothing to run, not work: "
            "no code change makes it smaller.",
            name=w.name(top.name),
            self=w.vp(top.self),
        ),
    )


def _runtime_note(w: Writer, top: Fn) -> None:
    """When the top consumer is allocator or native code, point at the code that asked for it; when it is idle
    time, at the code that works most."""
    ctx = w.ctx
    start = ctx.reading.start
    if start is not None and start.why == "busy":
        _idle(w, top)
        w.add(w.t("The code that works most is {name} ({self} self).", name=w.name(start.name), self=w.vp(start.value)))
        return
    if top.role == "app":
        return
    try:
        app: Step | None = answer(ctx.reading, ChainTo(top.name)).asked_by
    except NoSuchFunctionError:  # reached only off the widest paths: no chain to follow
        app = None
    w.add(
        "",
        w.t(
            "This frame is runtime code (an allocator, a library or native code without symbols): it carries "
            "the requests but does not decide what they are for."
        ),
    )
    if app is not None:
        w.add(
            w.t(
                "Along its heaviest chain the nearest application frame is {name} ({value} on that chain).",
                name=w.name(app.name),
                value=w.v(app.width),
            )
        )
    if ctx.sites:
        _sites(w)


def _sites(w: Writer) -> None:
    w.add("", w.t("By allocation site (the nearest application frame that asked for the memory):"), "")
    for name, value, label in w.ctx.sites[:5]:
        w.add(f"- {w.name(name)}: {w.vp(value)}" + (f", {w.t(label)}" if label else ""))


def _more(w: Writer, rows: tuple[Fn, ...], order: str, asked: int) -> str | None:
    """ "show me 3 more": the ranks after the ``w.offset`` the last answer showed, by self or by total
    (``rows``: the ranking's first ``asked``, or all there are)."""
    shown = rows[w.offset :]
    if not shown:
        w.all_shown()
        return None
    first, last = w.offset + 1, w.offset + len(shown)
    if order == "self":
        w.add(w.t("**By self, ranks {first} to {last}:**", first=w.n(first), last=w.n(last)), "")
        _top_rows(w, shown, first=first)
    else:
        w.add(w.t("**By total below the entry points, ranks {first} to {last}:**", first=w.n(first), last=w.n(last)))
        w.add("")
        w.table(
            ["#", w.t("function"), w.t("total"), w.t("share"), w.t("self")],
            [[w.n(i), w.name(r.name), w.v(r.total), w.p(r.total), w.v(r.self)] for i, r in enumerate(shown, first)],
        )
    w.listed(last, left=len(rows) == asked)
    w.rows_cut(len(shown))
    return shown[0].name


def most(w: Writer) -> str | None:
    asked = w.offset + w.rows(Most.limit)  # at most MAX_ROWS more
    result = answer(w.ctx.reading, Most(asked))
    if w.offset:
        return _more(w, result.rows, "self", asked)
    top = result.biggest
    if top is None:
        return None
    w.add(
        w.t(
            "**{name} uses the most {resource}: {self} of self, {share} of the {total} total.**",
            name=w.name(top.name),
            resource=w.resource,
            self=w.v(top.self),
            share=w.p(top.self),
            total=w.v(result.total),
        ),
        "",
        w.t(
            "Self is what a function {verb} directly, so this is where the {resource} {is_verb}; in the flame "
            "graph it is the widest bar with nothing on top of it (a leaf at the top of the stack).",
            verb=w.verb,
            resource=w.resource,
        ),
        "",
        w.t("What it is: {meaning}", meaning=w.meaning(top.name)),
    )
    _runtime_note(w, top)
    rows = result.rows
    if len(rows) > 1:
        w.add("", w.t("Next by self:"), "")
        _top_rows(w, rows[1:], first=2)
        w.add(
            "",
            w.t(
                "These {shown} of {functions} functions cover {share} of the total by self.",
                shown=w.n(len(rows)),
                functions=w.n(result.of_functions),
                share=w.p(sum(r.self for r in rows)),
            ),
        )
    w.listed(len(rows), left=len(rows) == asked)
    w.rows_cut(len(rows))
    return top.name


def responsible(w: Writer) -> str | None:
    asked = w.offset + w.rows(Responsible.limit)
    result = answer(w.ctx.reading, Responsible(asked))
    if w.offset:
        return _more(w, result.rows, "total", asked)
    row = result.responsible
    if row is None:
        return most(w)
    w.add(
        w.t(
            "**The code responsible for the most {resource} is {name}: {total} in total, of which it {verb} "
            "{self} itself.**",
            resource=w.resource,
            name=w.name(row.name),
            total=w.vp(row.total),
            verb=w.verb,
            self=w.v(row.self),
        ),
        "",
        w.t(
            "Responsible means total: what a function used itself plus everything it called. In the flame graph "
            "these are the widest bars at the bottom."
        ),
    )
    if result.entries:
        w.add(
            "",
            w.t(
                "{entries} carry {share} because every stack passes through them: they are entry points, not "
                "causes. {name} is the first bar that not every stack passes through, where the work branches.",
                entries=", ".join(w.name(r.name) for r in result.entries),
                share=w.p(result.total),
                name=w.name(row.name),
            ),
        )
    if len(result.path) > 1:
        path = [w.name(st.name) for st in result.path[:-1]]
        if len(path) > 6:
            path = [*path[:3], "…", *path[-2:]]
        end = result.path[-1]
        w.add(
            "",
            w.t(
                "It leads to the biggest consumer through {path} ({self} self).",
                path=" → ".join([*path, w.name(end.name)]),
                self=w.v(end.self),
            ),
        )
    if w.ctx.sites:
        _sites(w)
    if result.rows:
        w.add("", w.t("Widest bars by total below the entry points:"), "")
        w.table(
            [w.t("function"), w.t("total"), w.t("share"), w.t("self")],
            [[w.name(r.name), w.v(r.total), w.p(r.total), w.v(r.self)] for r in result.rows],
        )
    w.listed(len(result.rows), left=len(result.rows) == asked)
    w.rows_cut(len(result.rows))
    return row.name


_BIGGEST_HEAD = N_(
    "**Start with {name}: {self} of self, {share} of the total.** Wide bars with high self are the "
    "candidates, because that is where the {resource} {is_verb}."
)
_BUSY_HEAD = N_(
    "**Start with {name}: {self} of self, {share} of the total, the most of any code that works.** "
    "Wide bars with high self are the candidates, because that is where the {resource} {is_verb}."
)


def optimise(w: Writer) -> str | None:
    result = answer(w.ctx.reading, StartHere(w.rows(StartHere.limit)))
    start, biggest = result.start, result.biggest
    if start is None or biggest is None:
        return None
    if start.why in ("busy", "biggest"):  # its own self is the figure: the biggest consumer's, or the most of any work
        message = _BUSY_HEAD if start.why == "busy" else _BIGGEST_HEAD
        head = w.t(
            message,
            name=w.name(start.name),
            self=w.v(start.value),
            share=w.p(start.value),
        )
    else:
        head = w.t(
            "**Start with {name}: it is the application code behind {value} ({share} of the total) of what "
            "{biggest} uses.**",
            name=w.name(start.name),
            value=w.v(start.value),
            share=w.p(start.value),
            biggest=w.name(biggest.name),
        )
    w.add(head, "", w.t("What it is: {meaning}", meaning=w.meaning(start.name, full=True)))
    unresolved = answer(w.ctx.reading, UnresolvedShare()).share
    if unresolved >= UNSYMBOLIZED:
        # "Start with <unknown>" names no code anyone can change: the first step is the symbols.
        w.add(
            "",
            w.t(
                "{share} of this profile ends in frames without symbols, so the code behind it cannot be named "
                "yet. First make the profiler resolve names: keep the binaries and their debug information "
                "where it runs (or upload symbols to Pyroscope), then profile again.",
                share=w.p(unresolved, 1),
            ),
        )
    knobs = w.knobs(start.name)
    if knobs:
        w.add("", w.t("What changes it:"), "", *(f"- {k}" for k in knobs))
    if start.why == "busy":
        _idle(w, biggest)
    elif start.why != "biggest":
        w.add(
            "",
            w.t(
                "{name} uses the most by self ({self}), but it is runtime code: it carries the requests without "
                "deciding what they are for.",
                name=w.name(biggest.name),
                self=w.vp(biggest.self),
            ),
        )
        if w.ctx.sites:
            _sites(w)
    if result.next:
        w.add("", w.t("Then, in order:"), "")
        for r in result.next:
            w.add(f"- {w.name(r.name)}: {w.vp(r.self)} {w.t('self')}. {w.meaning(r.name)}")
    _small(w, result.small)
    thing = w.t("allocation") if w.ctx.verb == "allocated" else w.t("consumer")
    w.add(
        "",
        w.t(
            "Before changing anything, read the chain to the top consumer to see why it runs (ask: show me the "
            "call chain to the biggest {thing}).",
            thing=thing,
        ),
    )
    return start.name


def _small(w: Writer, small: tuple[int, int]) -> None:
    """The functions under 1% of the total by self each (``small``: how many, their self together)."""
    count, together = small
    if count:
        w.add(
            "",
            w.tn(
                "Not worth it first: one function uses under {floor} of the total by self; together {share}.",
                "Not worth it first: {count} functions each use under {floor} of the total by self; together {share}.",
                count,
                count=w.n(count),
                floor=w.p(SMALL_SHARE, 1),
                share=w.p(together),
            ),
        )


def skip(w: Writer) -> str | None:
    result = answer(w.ctx.reading, Skip())
    ignorable = result.ignorable
    w.add(
        w.t(
            "**You can skip the wide bars with zero self: they only pass calls on and {verb} nothing "
            "themselves.** Follow them up to a bar with high self instead.",
            verb=w.verb,
        ),
        "",
    )
    for r in ignorable.frames:
        w.add(
            w.t(
                "- {name}: {total} total, self {zero}. {convention}",
                name=w.name(r.name),
                total=w.vp(r.total),
                zero=w.v(0),
                convention=cap(w.convention(r.name)),
            )
        )
    if ignorable.trampoline:
        w.add(
            w.t(
                "- {name} frames: CPython's dispatch between Python calls; {share} of the total passes through one. "
                "Ignore them when reading a chain (`--hide-trampolines` removes them).",
                name=w.name(TRAMPOLINE),
                share=w.p(ignorable.trampoline),
            )
        )
    if ignorable.unresolved_share > 0:
        example = ignorable.address
        w.add(
            w.t(
                "- Raw addresses{such}: native code without symbols; {share} of the total ends in one. Read past "
                "them to the nearest named frame.",
                such=w.t(" such as {name}", name=w.name(example)) if example else "",
                share=w.p(ignorable.unresolved_share, 1),
            )
        )
    _small(w, result.small)
    return ignorable.frames[0].name if ignorable.frames else None


def total(w: Writer) -> str | None:
    ctx = w.ctx
    result = answer(ctx.reading, Overview())
    w.add(
        w.t(
            "**The total is {total} of {resource}, across {stacks} distinct stacks and {functions} functions.**",
            total=w.v(result.total),
            resource=w.resource,
            stacks=w.n(result.stacks),
            functions=w.n(result.functions),
        ),
        "",
        w.t(
            "Values are {meaning}. The total is the width of the whole flame graph (the root bar).",
            meaning=w.text(w.t(result.meaning)),
        ),
    )
    for caveat in result.caveats[:1]:
        w.add("", w.text(w.t(caveat)))
    cats = ctx.reading.breakdown
    if cats:
        w.add("", w.t("By category:"), "", *(f"- {w.t(label)}: {w.vp(value)}" for label, value in cats[:6]))
    else:
        w.add("", w.t("Largest by self:"), "")
        _top_rows(w, answer(ctx.reading, Most(limit=5)).rows)
    return None
