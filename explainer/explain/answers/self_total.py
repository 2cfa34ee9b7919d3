"""Self versus total, taught with this profile's own numbers: a wide bar with zero self beside the
widest leaf, and how pprof counts both."""

from __future__ import annotations

from explainer.explain.answers.writer import Writer
from explainer.queries import Neighbours, SelfVsTotal, answer


def _example(w: Writer, fid: int) -> None:
    """Self and total of one function, with where the difference goes (its heaviest callees)."""
    from explainer.analysis.sandwich import SELF  # the sandwich's pseudo-row: loaded with a neighbours answer

    ctx = w.ctx
    sw = answer(ctx.reading, Neighbours(ctx.profile.names[fid], 4))
    name, s, t = sw.function.name, sw.function.self, sw.function.total
    callees = [c for c in sw.callees if c[0] != SELF][:3]
    parts = ", ".join(f"{w.name(c)} {w.v(v)}" for c, v in callees)
    if s == 0:
        w.add(
            w.t(
                "In this profile {name} has a total of {total} but a self of {zero}: it {verb} nothing itself and "
                "only sits on the call chain, so its width is the sum of what it calls{parts}.",
                name=w.name(name),
                total=w.vp(t),
                zero=w.v(0),
                verb=w.verb,
                parts=(": " + parts) if parts else "",
            )
        )
    else:
        w.add(
            w.t(
                "In this profile {name} has a total of {total} and a self of {self}{rest}.",
                name=w.name(name),
                total=w.vp(t),
                self=w.vp(s),
                rest=w.t("; the rest is what it calls: {parts}", parts=parts) if parts and t > s else "",
            )
        )


def self_vs_total(w: Writer, fid: int | None) -> str | None:
    ctx = w.ctx
    w.add(
        w.t(
            "**Total is the {resource} a function {verb} itself plus everything it called; self is only what it "
            "used directly.** A bar's width in the flame graph is its total.",
            resource=w.resource,
            verb=w.verb,
        ),
        "",
    )
    example = fid if fid is not None else w.orchestrator_example()
    if example is not None:
        _example(w, example)
    top = answer(ctx.reading, SelfVsTotal()).function  # the biggest consumer's
    if example is None or top.name != ctx.profile.names[example]:
        if top.self == top.total:
            text = w.t(
                "By contrast {name} has self {self} = total {total}: nothing sits on top of it, so its whole width "
                "is its own use.",
                name=w.name(top.name),
                self=w.v(top.self),
                total=w.v(top.total),
            )
        else:
            text = w.t(
                "By contrast {name} has self {self} of total {total}.",
                name=w.name(top.name),
                self=w.v(top.self),
                total=w.v(top.total),
            )
        w.add("", text)
    w.add(
        "",
        w.t(
            "So a wide bar with zero self is an orchestrator: skip it when hunting the source and follow it up to "
            "a bar with high self. Wide bars with high self are the optimisation candidates."
        ),
        "",
        w.t(
            "How they are counted: a function's self is the sum of the samples whose top (leaf) frame is that "
            "function; its total is the sum of the samples in which it appears at least once, so recursion is not "
            "counted twice."
        ),
    )
    return ctx.profile.names[example] if example is not None else top.name
