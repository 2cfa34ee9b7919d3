"""The answer to vague questions ("does this look ok?", "is dit normaal?", "should I worry?").

An assessment says what in this profile is expected for its workload and what is unusual, each with
its number: the KV cache filling the memory budget is vLLM's design; a large share ending in raw
addresses, GC or the kernel above their usual share, or one function holding most of the profile
is worth a look. Every share is ``explainer.queries.answer``'s for :class:`CategoryQuery`, so it matches
every other answer.
"""

from __future__ import annotations

from explainer import knowledge
from explainer.explain.answers.writer import Writer
from explainer.queries import CategoryQuery, Most, answer
from explainer.queries.records import CategoryResult

UNRESOLVED_HIGH = 0.10  # above this share of raw addresses, names are missing where they matter
GC_HIGH = 0.10  # a garbage-collected runtime usually spends a few percent in GC
KERNEL_HIGH = 0.30  # a service doing I/O spends some time in the kernel; a third is a lot
CONCENTRATED = 0.50  # one function's self above half the profile


def _share(w: Writer, concept: str) -> CategoryResult:
    return answer(w.ctx.reading, CategoryQuery(concept))


def assess(w: Writer) -> str | None:
    ctx = w.ctx
    total = ctx.total
    expected: list[str] = []
    unusual: list[str] = []
    kv = _share(w, "kv-cache")
    if ctx.reading.gpu and kv.value:
        expected.append(
            w.t(
                "The KV cache holds {value}: vLLM reserves what is left of its memory budget "
                "(`--gpu-memory-utilization`) for the KV cache at start-up, by design.",
                value=w.vp(kv.value),
            )
        )
    weights = _share(w, "weights")
    if ctx.reading.gpu and weights.value:
        expected.append(
            w.t("The model weights hold {value}: they stay loaded while the model serves.", value=w.vp(weights.value))
        )
    unresolved = _share(w, "unresolved")
    if unresolved.value > UNRESOLVED_HIGH * total:
        unusual.append(
            w.t(
                "{value} ends in raw addresses (code without symbols): that part cannot be read by name; install "
                "debug symbols or profile again once the code is loaded.",
                value=w.vp(unresolved.value),
            )
        )
    elif unresolved.value:
        expected.append(w.t("A small share, {value}, ends in raw addresses.", value=w.vp(unresolved.value)))
    if ctx.reading.kind != "bytes":
        gc = _share(w, "gc")
        if gc.value > GC_HIGH * total:
            unusual.append(
                w.t(
                    "Stacks in garbage collection hold {value}, above the few percent a collected runtime usually "
                    "spends there: look at what allocates most.",
                    value=w.vp(gc.value),
                )
            )
        elif gc.value:
            expected.append(w.t("Garbage collection holds {value}, within its usual share.", value=w.vp(gc.value)))
        kernel = _share(w, "kernel")
        if kernel.value > KERNEL_HIGH * total:
            unusual.append(
                w.t(
                    "Stacks in the operating-system kernel hold {value}: system calls, I/O or interrupts take a "
                    "large part; the kernel frames on top say which.",
                    value=w.vp(kernel.value),
                )
            )
        elif kernel.value:
            expected.append(w.t("The kernel holds {value}, usual for a program doing I/O.", value=w.vp(kernel.value)))
    top = answer(ctx.reading, Most(limit=1)).biggest
    by_design = ("kv-cache", "weights") if ctx.reading.gpu else ()
    if top is not None and top.self > CONCENTRATED * total and knowledge.classify(top.name) not in by_design:
        unusual.append(
            w.t("One function, {name}, holds {value} by itself.", name=w.name(top.name), value=w.vp(top.self))
        )
    w.add(w.t("**What stands out in this profile** ({total} in all):", total=w.v(total)))
    if unusual:
        w.add("", w.t("Worth a look:"), "", *(f"- {line}" for line in unusual))
    else:
        w.add("", w.t("Nothing here is unusual for this kind of profile."))
    if expected:
        w.add("", w.t("Expected:"), "", *(f"- {line}" for line in expected))
    focus = ctx.reading.focus
    if focus is not None:
        w.add("", w.t("If you want to make it smaller, start with {name}.", name=w.name(focus[0])))
    w.keep_in_mind(ctx.caveats)
    return focus[0] if focus else None


def leak(w: Writer) -> str | None:
    """ "Is this a memory leak?" with one profile: a leak is growth over time, which one profile cannot show;
    what it can show is what holds the most, and how to see growth."""
    ctx = w.ctx
    if ctx.reading.kind != "bytes":
        w.add(
            w.t(
                "**This profile does not measure memory ({sample_type}), so it cannot show a leak.** Load a memory "
                "profile (in-use space) of the same process, or ask what uses the most here.",
                sample_type=w.text(str(ctx.profile.sample_type)),
            )
        )
        return None
    w.add(
        w.t(
            "**One profile cannot show a leak: a leak is memory that keeps growing, and a profile is one moment "
            "(or one window).** Compare it with an earlier profile of the same process: load that one as the "
            "baseline, or compare two time ranges in Pyroscope. What grew between them is where to look."
        )
    )
    top = answer(ctx.reading, Most(limit=1)).biggest
    if top is not None:
        w.add(
            "",
            w.t(
                "In this profile {name} holds the most: {self} by itself. If a later profile shows it larger under "
                "the same load, that is the growth to explain.",
                name=w.name(top.name),
                self=w.vp(top.self),
            ),
        )
        if ctx.reading.gpu and knowledge.classify(top.name) in ("kv-cache", "weights"):
            w.add(w.t("That is vLLM reserving memory at start-up, by design: it does not grow while it serves."))
    w.keep_in_mind(ctx.caveats)
    return top.name if top is not None else None
