"""Offline answers about what people also ask: a category's size, the knob that changes it, what a
concept is, whether one frame can be skipped, and how to read the flame graph and the Grafana panel."""

from __future__ import annotations

from explainer import knowledge
from explainer.explain.answers.writer import Writer, code
from explainer.knowledge.classify import entries

# From the domain guide: how Grafana's flame-graph panel is used to read these profiles.
_PANEL = (
    "**Expand all groups** first: the panel starts collapsed, and small groups hide the frames that decide.",
    "**Search** for a function name to highlight every bar it appears in, with its share of the total.",
    "**Focus block** on one bar to see only its allocation path; **pause auto-refresh** first, because a refresh "
    "collapses the graph again.",
)


def _knobs_of(category: str, limit: int = 4) -> list[tuple[str, str]]:
    seen: dict[str, str] = {}
    for entry in entries():
        if entry.category == category:
            for a in entry.actions:
                seen.setdefault(a.knob, a.effect)
    return list(seen.items())[:limit]


def category(w: Writer, concept: str) -> str | None:
    ctx = w.ctx
    cat = knowledge.categories().get(concept)
    label = cat.label if cat else concept
    share = next((c for c in ctx.reading.categories if c.category == concept), None)
    if not ctx.reading.categories:
        w.add(
            f"This profile measures {ctx.resource}, so it has no breakdown by kind of GPU memory such as "
            f"the {w.text(label)}; ask what uses the most {ctx.resource} instead."
        )
        return None
    if share is None or share.self == 0:
        w.add(f"**Nothing in this profile is attributed to the {w.text(label)}** ({w.v(0)}).")
    else:
        w.add(f"**The {w.text(label)} holds {w.vp(share.self)} of this profile.**")
    if cat is not None:
        w.add("", w.text(cat.description))
    sites = [s for s in ctx.reading.sites if s.category == concept][:3]
    if sites:
        w.add("", "Where it is allocated (the application frame that asked):", "")
        w.add(*(f"- {w.name(s.name)}: {w.vp(s.self)}" for s in sites))
    w.add("", "By category:", "", *(f"- {w.text(lbl)}: {w.vp(v)}" for lbl, v in ctx.reading.breakdown[:6]))
    return sites[0].name if sites else None


def knob(w: Writer, concept: str | None, fid: int | None) -> str | None:
    ctx = w.ctx
    if fid is not None:
        name = ctx.profile.names[fid]
        knobs = w.knobs(name, 4)
        if knobs:
            w.add(f"**What changes {w.name(name)}:**", "", *(f"- {k}" for k in knobs))
            return name
        concept = concept or knowledge.classify(name)
    pairs = _knobs_of(concept) if concept else []
    if not pairs:
        top = ctx.reading.focus
        w.add(
            "I know no setting for that. The knowledge base lists knobs for vLLM's GPU memory: the KV cache, "
            "CUDA graphs, torch.compile, weights and activations."
        )
        if top is not None:
            w.add("", f"For this profile, start with {w.name(top[0])}; ask *what changes it?*")
        return top[0] if top else None
    label = knowledge.label(concept) if concept else ""
    w.add(f"**Settings that change the {w.text(label)}:**", "")
    for knob_name, effect in pairs:
        w.text(f"{knob_name} {effect}")
        w.add(f"- {code(knob_name, 80)}: {effect}")
    return None


def meaning(w: Writer, concept: str) -> str | None:
    cat = knowledge.categories().get(concept)
    if cat is None:
        w.add("I have no explanation for that concept.")
        return None
    w.add(f"**{w.text(cap_label(cat.label))}**: {w.text(cat.description)}")
    share = next((c for c in w.ctx.reading.categories if c.category == concept), None)
    if share is not None and share.self:
        w.add("", f"In this profile it is {w.vp(share.self)} of the total.")
    pairs = _knobs_of(concept, 3)
    if pairs:
        w.add("", "What changes it:", "")
        for knob_name, effect in pairs:
            w.text(f"{knob_name} {effect}")
            w.add(f"- {code(knob_name, 80)}: {effect}")
    return None


def cap_label(label: str) -> str:
    return label[:1].upper() + label[1:]


def skip_one(w: Writer, fid: int) -> str | None:
    ctx = w.ctx
    name = ctx.profile.names[fid]
    s, t = ctx.of(fid)
    role = ctx.reading.role(name)
    if role == "noise":
        w.add(
            f"**Yes, skip {w.name(name)}**: {w.convention(name)} It says nothing about why the {ctx.resource} is used."
        )
    elif s == 0:
        w.add(
            f"**You can skip {w.name(name)} when hunting the source**: its self is {w.v(0)}, so it only passes "
            f"calls on ({w.vp(t)} flows through it). Follow it up to a bar with high self."
        )
    else:
        w.add(
            f"**No, {w.name(name)} matters**: it {ctx.verb} {w.vp(s)} itself. Bars with high self are where the "
            f"{ctx.resource} is {ctx.verb}."
        )
    return name


def howto(w: Writer) -> str | None:
    ctx = w.ctx
    w.add(
        f"**How to read this flame graph:** each bar is a function, and the bar below a bar called it. The width "
        f"of a bar is the {ctx.resource} that flowed through that function and everything it called (its total).",
        "",
        "- The bottom bars are entry points; the bars at the top with nothing above them are leaves: their whole "
        f"width is self, where the {ctx.resource} is {ctx.verb}.",
        "- Wide bars with zero self only orchestrate calls: skip them and follow them up to a bar with high self.",
        "- Read a stack from the bottom up to see why a function ran.",
        "- `<interpreter trampoline>` frames are CPython's dispatch: ignore them. Raw addresses are native code "
        "without symbols.",
        "",
        "In Grafana's flame-graph panel:",
        "",
        *(f"- {line}" for line in _PANEL),
    )
    top = ctx.reading.biggest
    if top is not None:
        w.add("", f"In this profile the widest leaf is {w.name(top.name)} ({w.vp(top.self)} self).")
    return top.name if top else None
