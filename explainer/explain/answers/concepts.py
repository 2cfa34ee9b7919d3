"""Offline answers about what people also ask: a category's size, the knob that changes it, what a
concept is, whether one frame can be skipped, and how to read the flame graph and the Grafana panel."""

from __future__ import annotations

from explainer import knowledge, markdown
from explainer.explain.answers.language import N_
from explainer.explain.answers.writer import Writer, cap
from explainer.knowledge.classify import entries
from explainer.queries import Breakdown, CategoryQuery, Skip, answer
from explainer.queries.records import CategoryResult

# From the domain guide: how Grafana's flame-graph panel is used to read these profiles.
_PANEL = (
    N_("**Expand all groups** first: the panel starts collapsed, and small groups hide the frames that decide."),
    N_("**Search** for a function name to highlight every bar it appears in, with its share of the total."),
    N_(
        "**Focus block** on one bar to see only its allocation path; **pause auto-refresh** first, because a "
        "refresh collapses the graph again."
    ),
)


def _knobs_of(w: Writer, category: str, limit: int = 4) -> list[str]:
    seen: dict[str, str] = {}
    for entry in entries():
        if entry.category == category:
            for a in entry.actions:
                seen.setdefault(a.knob, w.t(a.effect) + w.risk(a.risk))
    pairs = list(seen.items())[:limit]
    for knob_name, effect in pairs:
        w.text(f"{knob_name} {effect}")
    return [f"- {markdown.code(knob_name, 80)}: {effect}" for knob_name, effect in pairs]


def _label(w: Writer, concept: str) -> str:
    cat = knowledge.categories().get(concept)
    return w.text(w.t(cat.label if cat else concept))


def category(w: Writer, concept: str) -> str | None:
    ctx = w.ctx
    cat = knowledge.categories().get(concept)
    label = _label(w, concept)
    counted = answer(ctx.reading, CategoryQuery(concept))
    if counted.how in ("stacks", "leaf"):
        return _category_by_stack(w, counted, label)
    if counted.how == "self":
        return _category_by_self(w, counted, label)
    if counted.value == 0:
        w.add(w.t("**Nothing in this profile is attributed to the {label}** ({zero}).", label=label, zero=w.v(0)))
    else:
        w.add(w.t("**The {label} holds {value} of this profile.**", label=label, value=w.vp(counted.value)))
    if cat is not None:
        w.add("", w.text(w.t(cat.description)))
    sites = counted.sites
    if sites:
        w.add("", w.t("Where it is allocated (the application frame that asked):"), "")
        w.add(*(f"- {w.name(s.name)}: {w.vp(s.self)}" for s in sites))
    w.add("", w.t("By category:"), "", *(f"- {w.t(lbl)}: {w.vp(v)}" for lbl, v in ctx.reading.breakdown[:6]))
    return sites[0].name if sites else None


def breakdown(w: Writer) -> str | None:
    """The profile split by category, each counted the way every other answer counts it."""
    parts = answer(w.ctx.reading, Breakdown()).shares
    if not parts:
        w.add(w.t("No frame of this profile belongs to a category I know."))
        return None
    w.add(w.t("**The {resource} by category:**"), "")
    w.add(*(f"- {_label(w, s.concept)}: {w.vp(s.value)}" for s in parts[:8]))
    if any(s.how == "stacks" for s in parts):
        w.add(
            "",
            w.t(
                "GC, the kernel, JIT and scheduling count every stack that passes through one of their frames, "
                "so a stack may count under more than one of them and the shares need not add up to the whole; "
                "the other categories count by self."
            ),
        )
    return None


def _category_by_stack(w: Writer, counted: CategoryResult, label: str) -> str | None:
    """A runtime kind (every stack holding one of its frames, whole) or the unresolved share (the
    stacks ending in a raw address): the same number every answer states."""
    cat = knowledge.categories().get(counted.category)
    if counted.how == "leaf":
        w.add(
            w.t(
                "**{value} of the {resource} ends in unresolved frames** (raw addresses or unknown frames).",
                value=w.vp(counted.value),
            )
        )
    else:
        w.add(
            w.t(
                "**Stacks that pass through {label} hold {value} of the {resource}.** Each such stack counts "
                "whole, not only the self of its {label} frame.",
                label=label,
                value=w.vp(counted.value),
            )
        )
    if cat is not None:
        w.add("", w.text(w.t(cat.description)))
    if counted.frames:
        w.add(
            "",
            w.t("Its heaviest frames, by total:"),
            "",
            *(f"- {w.name(f.name)}: {w.vp(f.total)}" for f in counted.frames),
        )
    elif counted.value == 0:
        w.add("", w.t("No frame of this profile belongs to it."))
        _unseen(w, counted.category)
    return counted.frames[0].name if counted.frames else None


def _unseen(w: Writer, category: str) -> None:
    """Why none can also mean "not recorded": a Python profile shows the GIL only in native frames."""
    if category == "sync" and w.runtime == "python":
        w.add(
            "",
            w.t(
                "That does not rule the GIL out: a Python profiler shows waiting for it only in native frames "
                "(`py-spy record --native`, as take_gil), and py-spy leaves threads that wait out unless "
                "`--idle` is given. Without them this profile only shows the Python code that ran."
            ),
        )


def _category_by_self(w: Writer, counted: CategoryResult, label: str) -> str | None:
    """A profile of time or counts: the category's frames and their self, which the memory attribution
    does not give (GC, JIT, the kernel, the interpreter in a CPU profile)."""
    w.add(
        w.t(
            "**Frames in the category {label} use {value} of the {resource} directly (self).**",
            label=label,
            value=w.vp(counted.value),
        )
    )
    cat = knowledge.categories().get(counted.category)
    if cat is not None:
        w.add("", w.text(w.t(cat.description)))
    rows = counted.by_self
    if rows:
        w.add("", w.t("The biggest of them by self:"), "", *(f"- {w.name(r.name)}: {w.vp(r.self)}" for r in rows))
    elif counted.value == 0:
        w.add("", w.t("No frame of this profile belongs to it."))
        _unseen(w, counted.category)
    return rows[0].name if rows else None


def knob(w: Writer, concept: str | None, fid: int | None) -> str | None:
    ctx = w.ctx
    if fid is not None:
        name = ctx.profile.names[fid]
        knobs = w.knobs(name, 4)
        if knobs:
            w.add(w.t("**What changes {name}:**", name=w.name(name)), "", *(f"- {k}" for k in knobs))
            return name
        concept = concept or knowledge.classify(name)
    lines = _knobs_of(w, concept) if concept else []
    if not lines:
        w.add(
            w.t(
                "I know no setting for that. The knowledge base lists knobs for vLLM's GPU memory: the KV cache, "
                "CUDA graphs, torch.compile, weights and activations."
            )
        )
        focus = ctx.reading.focus
        if focus is not None:
            w.add("", w.t("For this profile, start with {name}; ask *what changes it?*", name=w.name(focus[0])))
        return focus[0] if focus else None
    w.add(w.t("**Settings that change the {label}:**", label=_label(w, concept or "")), "", *lines)
    return None


def meaning(w: Writer, concept: str) -> str | None:
    cat = knowledge.categories().get(concept)
    if cat is None:
        w.add(w.t("I have no explanation for that concept."))
        return None
    w.add(f"**{cap(_label(w, concept))}**: {w.text(w.t(cat.description))}")
    counted = answer(w.ctx.reading, CategoryQuery(concept))
    if counted.value:
        w.add("", w.t("In this profile it is {value} of the total.", value=w.vp(counted.value)))
    lines = _knobs_of(w, concept, 3)
    if lines:
        w.add("", w.t("What changes it:"), "", *lines)
    return None


def skip_one(w: Writer, fid: int) -> str | None:
    ctx = w.ctx
    result = answer(ctx.reading, Skip(ctx.profile.names[fid]))
    assert result.function is not None  # asked about one function
    name, s, t = result.function.name, result.function.self, result.function.total
    if result.reason == "responsible":
        text = w.t(
            "**No, do not skip {name}**: it is the most responsible frame, {total} in total, the first bar that "
            "not every stack passes through.",
            name=w.name(name),
            total=w.vp(t),
        )
    elif result.reason == "start":
        text = w.t(
            "**No, do not skip {name}**: it is where to start in this profile; ask *what should I optimise first?*",
            name=w.name(name),
        )
    elif result.verdict == "skip":
        text = w.t(
            "**Yes, skip {name}**: {convention} It says nothing about why the {resource} is used.",
            name=w.name(name),
            convention=cap(w.convention(name)),
            resource=w.resource,
        )
    elif result.verdict == "pass-through":
        text = w.t(
            "**You can skip {name} when hunting the source**: its self is {zero}, so it only passes calls on "
            "({total} flows through it). Follow it up to a bar with high self.",
            name=w.name(name),
            zero=w.v(0),
            total=w.vp(t),
        )
    else:
        text = w.t(
            "**No, {name} matters**: it {verb} {self} itself. Bars with high self are where the {resource} {is_verb}.",
            name=w.name(name),
            verb=w.verb,
            self=w.vp(s),
            resource=w.resource,
        )
    w.add(text)
    return name


def howto(w: Writer) -> str | None:
    ctx = w.ctx
    values = {"resource": w.resource, "verb": w.verb}
    w.add(
        w.t(
            "**How to read this flame graph:** each bar is a function, and the bar below a bar called it. The "
            "width of a bar is the {resource} that flowed through that function and everything it called (its "
            "total).",
            **values,
        ),
        "",
        w.t(
            "- The bottom bars are entry points; the bars at the top with nothing above them are leaves: their "
            "whole width is self, where the {resource} {is_verb}.",
            **values,
        ),
        w.t("- Wide bars with zero self only orchestrate calls: skip them and follow them up to a bar with high self."),
        w.t("- Read a stack from the bottom up to see why a function ran."),
        w.t(
            "- `<interpreter trampoline>` frames are CPython's dispatch: ignore them. Raw addresses are native code "
            "without symbols."
        ),
        "",
        w.t("In Grafana's flame-graph panel:"),
        "",
        *(f"- {w.t(line)}" for line in _PANEL),
    )
    top = ctx.reading.biggest
    if top is not None:
        w.add(
            "",
            w.t("In this profile the widest leaf is {name} ({self} self).", name=w.name(top.name), self=w.vp(top.self)),
        )
    return top.name if top else None
