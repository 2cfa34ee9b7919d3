"""Offline answers about GPU memory the profile cannot show: "where is the rest?" / "waarom zegt
nvidia-smi meer?" (the visibility audit), and questions about vLLM and PyTorch settings answered
from the knowledge base's facts, each with the releases it holds for and its source.

The audit and the facts are data (:mod:`explainer.knowledge.visibility`, ``facts.toml``); this
module only writes them, in the question's language, every number through the grounding.
"""

from __future__ import annotations

from collections.abc import Iterable

from explainer.explain.answers.writer import Writer
from explainer.knowledge import label
from explainer.knowledge.facts import Fact, fact
from explainer.knowledge.visibility import Audit, Budget, audit, vllm_breakdown, vllm_generation

# which facts answer a question about each setting, most important first
_SETTING_FACTS: dict[str, tuple[str, ...]] = {
    "setting_expandable": ("expandable-segments",),
    "setting_utilization": (
        "gpu-memory-utilization-default",
        "gpu-memory-utilization-older",
        "gpu-memory-utilization-risk",
        "kv-cache-memory",
    ),
    "setting_swap": ("swap-space-retired",),
    "setting_kvmem": ("kv-cache-memory", "gpu-memory-utilization-default"),
    "setting_prefix": ("prefix-caching",),
    "setting_sleep": ("sleep-mode", "profiler-hooks"),
    "setting_quantization": ("quantization-frees-for-kv",),
    "setting_cudagraph": ("cuda-graph-estimate", "gpu-memory-utilization-risk"),
}
_ORDER = tuple(_SETTING_FACTS)


def _fact_lines(w: Writer, f: Fact) -> list[str]:
    text = w.text(w.t(f.text))
    versions, source = w.text(f.versions), w.text(f.source)  # their numbers are release numbers, cited as written
    out = ["- " + text + " " + w.t("_(holds for {versions}; source: {source})_", versions=versions, source=source)]
    if f.risk:
        out.append("  - " + w.t("**Risk:** {risk}", risk=w.text(w.t(f.risk))))
    return out


def setting(w: Writer, concepts: Iterable[str]) -> str | None:
    """What the knowledge base knows about the settings a question names, with versions and risks."""
    asked = [c for c in _ORDER if c in set(concepts)]
    keys = list(dict.fromkeys(k for c in asked for k in _SETTING_FACTS[c]))
    if not keys:
        return None
    if "setting_expandable" in asked:
        w.add(
            w.t(
                "**Careful: expandable segments hide allocations from this profiler.** Set it against "
                "fragmentation only when you do not need the GPU-memory flame graph, or profile without it."
            ),
            "",
        )
        if any("ExpandableSegment" in name for name in w.ctx.profile.names):
            w.add(w.t("This profile has expandable-segment frames: it is already set here."), "")
    if "setting_swap" in asked:
        w.add(w.t("**Do not set swap_space: current vLLM no longer has it.**"), "")
    if "setting_utilization" in asked:
        generation = vllm_generation(w.ctx.profile.names)
        if generation:
            w.add(w.t("This profile comes from vLLM's {generation} engine.", generation=generation), "")
    for key in keys:
        w.add(*_fact_lines(w, fact(key)))
    if "setting_quantization" in asked:
        weights = next((c.self for c in w.ctx.reading.categories if c.category == "weights"), 0)
        if weights:
            w.add("", w.t("In this profile the model weights hold {value}.", value=w.vp(weights)))
    return None


def visibility(w: Writer, budget: Budget) -> str | None:
    """The visibility audit: the budget, vLLM's breakdown and the profile side by side, one sentence,
    the ranked reasons; without a budget, how to give one."""
    ctx = w.ctx
    if ctx.reading.kind != "bytes" or not (ctx.gpu or budget.given or ctx.summary.counted):
        w.add(
            w.t(
                "This is not a GPU-memory profile ({sample_type}), so there is no GPU budget to reconcile it with.",
                sample_type=str(ctx.profile.sample_type),
            )
        )
        return None
    a = audit(ctx.summary, budget)
    write_audit(w, a)
    return None


def write_audit(w: Writer, a: Audit) -> None:
    if a.budget is not None:
        _table(w, a)
    elif not a.near_empty:
        w.add(
            w.t(
                "**The profile holds {total} of GPU-memory requests; nvidia-smi shows everything the process "
                "holds.** To reconcile the two, give the GPU's memory and vLLM's utilisation (`--gpu-memory 80GB "
                "--gpu-memory-utilization 0.92`), or paste vLLM's start-up lines (Model loading took …, Available "
                "KV cache memory: …) here.",
                total=w.v(a.profile_total),
            ),
            "",
        )
    if a.budget is not None or a.near_empty:
        _sentence(w, a)
    if a.reasons:
        complete = a.budget is not None and not a.missing
        w.add(
            "",
            w.t("What the profile may still miss:") if complete else w.t("Likely reasons, strongest evidence first:"),
            "",
        )
        w.add(*(f"{i}. {w.text(w.t(r.text))}" for i, r in enumerate(a.reasons, 1)))


def _table(w: Writer, a: Audit) -> None:
    assert a.budget is not None
    w.add(w.t("**Budget: {budget}.**", budget=w.v(a.budget)), "")
    header = [w.t("part"), w.t("vLLM / budget"), w.t("profile"), w.t("explained"), w.t("not visible")]
    rows = [[w.t(p.label), w.v(p.vllm), w.v(p.profile), w.v(p.visible), w.v(p.missing)] for p in a.parts]
    rows.append([w.t("total"), w.v(a.budget), w.v(a.profile_total), w.v(a.explained), w.v(a.missing)])
    w.table(header, rows)
    log = a.budget_input.log
    own = vllm_breakdown(log)
    if own:
        parts = ", ".join(f"{w.t(name)} {w.v(value)}" for name, value in own)
        w.add("", w.t("vLLM's own breakdown (its start-up log): {parts}.", parts=parts))
    if log.kv_tokens is not None:
        w.add("", w.t("vLLM's KV cache holds {tokens} tokens.", tokens=w.n(log.kv_tokens)))
    if a.categories:
        cats = ", ".join(f"{w.t(label(c))} {w.v(v)}" for c, v in a.categories[:6])
        w.add("", w.t("The profile's categories (cumulative requested bytes): {categories}.", categories=cats))
    w.add("")


def _sentence(w: Writer, a: Audit) -> None:
    why = "; ".join(w.t(r.short) for r in a.reasons[:3])
    if a.budget is None:
        w.add(
            w.t(
                "**The profile holds only {total} of GPU-memory requests, far less than a vLLM server reserves; "
                "most of the GPU's memory is not visible, likely because {why}.**",
                total=w.v(a.profile_total),
                why=why,
            )
        )
    elif not a.missing:
        w.add(
            w.t(
                "**The profile explains all of the {budget} budget** (its total, {total}, can exceed it: "
                "allocations are added up and frees are not subtracted).",
                budget=w.v(a.budget),
                total=w.v(a.profile_total),
            )
        )
    else:
        w.add(
            w.t(
                "**The profile explains {explained} of the {budget} budget; {missing} is not visible because {why}.**",
                explained=w.v(a.explained),
                budget=w.v(a.budget),
                missing=w.v(a.missing),
                why=why,
            )
        )
