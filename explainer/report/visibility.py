"""The visibility section of the reports: the budget, vLLM's breakdown and the profile side by side,
and the one sentence that says how much of the budget the profile explains and why not the rest.

Shown in ``analyze`` and the handoff report when the user gave a budget (``--gpu-memory``,
``--gpu-memory-utilization``, ``--kv-cache-memory``, ``--vllm-log``) or when a GPU-memory
profile is (nearly) empty, where it replaces a top table of nothing.
"""

from __future__ import annotations

import weakref
from typing import Any

from explainer import units
from explainer.analysis.summary import Summary
from explainer.knowledge import label
from explainer.knowledge.visibility import Audit, Budget, audit, vllm_breakdown
from explainer.reading import Reading, read

_FROM = {
    "gpu x utilization": "GPU memory x gpu_memory_utilization",
    "vllm log": "vLLM's start-up log",
    "gpu": "the GPU's memory (no utilisation given: the whole card)",
    "kv cache memory": "vLLM's non-KV memory + --kv-cache-memory",
}


def _b(value: int) -> str:
    return units.format_bytes(value)


# summary -> budget -> its audit, and summary -> whether it is GPU memory: the handoff asks three
# times (whether to show the section, the section, the scope's caveat), and each audit reads every
# name (about 10 ms at 500k stacks), each reading every verdict; summaries are immutable
_AUDITS: weakref.WeakKeyDictionary[Summary, dict[Budget | None, Audit]] = weakref.WeakKeyDictionary()
_GPU: weakref.WeakKeyDictionary[Summary, bool] = weakref.WeakKeyDictionary()  # read(summary).gpu


def _audit(summary: Summary, budget: Budget | None) -> Audit:
    known = _AUDITS.setdefault(summary, {})
    if budget not in known:
        known[budget] = audit(summary, budget)
    return known[budget]


def _reads_gpu(summary: Summary, reading: Reading | None) -> bool:
    """``read(summary).gpu``, from the caller's reading when it has one."""
    if reading is not None:
        return reading.gpu
    if summary not in _GPU:
        _GPU[summary] = read(summary).gpu
    return _GPU[summary]


def _malloc(summary: Summary) -> bool:
    return summary.profile.sample_type.type == "malloc" or bool(summary.counted)


def wanted(summary: Summary, budget: Budget | None, *, reading: Reading | None = None) -> Audit | None:
    """The audit when the report should show it: a budget was given, or a GPU profile is (nearly) empty.
    ``reading``: the caller's reading of ``summary``, when it has one (else the summary is read)."""
    given = budget is not None and budget.given
    if not given and units.kind_of(summary.unit) != "bytes":
        return None
    gpu = _malloc(summary) or (summary.total > 0 and _reads_gpu(summary, reading))
    if not given and not gpu:
        return None
    result = _audit(summary, budget)
    return result if given or result.near_empty else None


def sentence(a: Audit) -> str:
    """ "The profile explains X of the Y budget; Z is not visible because ..." (or the near-empty diagnosis)."""
    why = "; ".join(r.short for r in a.reasons[:3])
    if a.budget is None:
        return (
            f"The profile holds only {_b(a.profile_total)} of GPU memory requests, far less than a vLLM server "
            f"reserves; most of the GPU's memory is not visible, likely because {why}."
        )
    if not a.missing:
        return (
            f"The profile explains all of the {_b(a.budget)} budget (its total, {_b(a.profile_total)}, can exceed "
            "it: allocations are added up and frees are not subtracted)."
        )
    return (
        f"The profile explains {_b(a.explained)} of the {_b(a.budget)} budget; {_b(a.missing)} is not visible "
        f"because {why}."
    )


def lines(a: Audit) -> list[str]:
    """Markdown: the table, the sentence, the ranked reasons."""
    out: list[str] = []
    if a.budget is not None:
        out += [
            f"Budget: {_b(a.budget)}, from {_FROM.get(a.budget_from, a.budget_from)}."
            + (f" vLLM engine: {a.generation}." if a.generation else ""),
            "",
            "| part | vLLM / budget | profile | explained | not visible |",
            "|---|---:|---:|---:|---:|",
        ]
        for p in a.parts:
            out.append(f"| {p.label} | {_b(p.vllm)} | {_b(p.profile)} | {_b(p.visible)} | {_b(p.missing)} |")
        out.append(f"| **total** | {_b(a.budget)} | {_b(a.profile_total)} | {_b(a.explained)} | {_b(a.missing)} |")
        out.append("")
    log = a.budget_input.log
    own = vllm_breakdown(log)
    if own:
        out += ["vLLM's own breakdown (its start-up log): " + ", ".join(f"{n} {_b(v)}" for n, v in own) + ".", ""]
    if log.kv_tokens is not None:
        out += [f"vLLM's KV cache holds {units.format_count(log.kv_tokens)} tokens.", ""]
    if a.categories:
        cats = ", ".join(f"{label(c)} {_b(v)}" for c, v in a.categories[:6])
        out += [f"The profile's categories (cumulative requested bytes): {cats}.", ""]
    out += [f"**{sentence(a)}**", ""]
    if a.reasons:
        heading = "What the profile may still miss:" if a.budget is not None and not a.missing else "Likely reasons:"
        out += [heading, "", *(f"{i}. {r.text}" for i, r in enumerate(a.reasons, 1))]
    return out


def to_json(a: Audit) -> dict[str, Any]:
    return {
        "budget": a.budget,
        "budget_from": a.budget_from,
        "explained": a.explained,
        "not_visible": a.missing,
        "generation": a.generation or None,
        "near_empty": a.near_empty,
        "parts": [
            {"part": p.key, "vllm": p.vllm, "profile": p.profile, "explained": p.visible, "not_visible": p.missing}
            for p in a.parts
        ],
        "reasons": [r.kind for r in a.reasons],
        "sentence": sentence(a),
    }


def scope_note(summary: Summary, budget: Budget | None, *, reading: Reading | None = None) -> tuple[str, ...]:
    """For a GPU-memory profile without a budget: one caveat on what it cannot see and how to reconcile
    it (a line of the scope, so the report stays a page); nothing when the section below is shown."""
    if wanted(summary, budget, reading=reading) is not None:
        return ()
    if not (_malloc(summary) or (summary.total and _reads_gpu(summary, reading))):
        return ()
    found = [r.short for r in _audit(summary, budget).reasons if r.kind != "outside"]
    why = f" This profile shows signs that {'; '.join(found)}." if found else ""
    return (
        "Visibility: nvidia-smi shows all the process holds, this profile only what the cuMemAlloc calls "
        "requested since the profiler attached; give `--gpu-memory` and `--gpu-memory-utilization` (or "
        f"`--vllm-log`) to reconcile the two.{why}",
    )


def section(summary: Summary, budget: Budget | None, *, reading: Reading | None = None) -> list[str]:
    """The handoff's visibility section, when there is a budget or the profile is (nearly) empty."""
    a = wanted(summary, budget, reading=reading)
    if a is None:
        return []
    body = lines(a)
    while body and not body[-1]:
        body.pop()
    return ["## Visibility: what the profile can and cannot see", "", *body, ""]
