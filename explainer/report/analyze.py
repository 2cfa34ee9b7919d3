"""The output of ``explainer analyze``: a terminal table, a stable JSON contract, Markdown.

JSON contract (``schema`` 1): ``unit``, ``sample_type``, ``total``, ``coverage``,
``top_self`` and ``top_total`` (lists of ``name``, ``self``, ``total`` as integers in the
profile's own unit, ordered like pprof: value, then name), ``chain``, ``categories`` (each stack
attributed to one GPU-memory category: ``category``, ``label``, ``self``, ``share``),
``truncation``, and ``reading`` (the profile's one reading, what the chat and the handoff say too:
``biggest``, ``responsible``, ``start`` with ``why`` (``biggest``, ``site``, ``caller`` or ``busy``: the biggest
consumer is idle time, so the code that works most), ``ignorable``, ``entries``, ``runtime``);
``meaning`` (what a value is: cumulative requested bytes, in-use bytes, CPU time), ``counted``
(frames that count calls in a byte profile, ``name``/``calls``/``stacks``, left out of every total)
and ``visibility`` (the budget reconciled with the profile, or null).

The top-by-total list is pprof's ordering, so entry frames and noise (``<module>``, trampolines,
raw addresses) head it; it is never called "responsible": the responsible frame is the reading's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from explainer import markdown, units
from explainer.analysis.functions import TopList
from explainer.analysis.summary import Summary
from explainer.knowledge import category_breakdown, format_breakdown
from explainer.knowledge.semantics import semantics
from explainer.knowledge.visibility import Budget
from explainer.reading import Verdicts, counts_caveats, runtime_of, verdicts
from explainer.report import visibility
from explainer.symbols import clean, decode

TOTAL_TITLE = "Top by total — the widest bars, entry frames first"

SCHEMA_VERSION = 1


def coverage_sentence(lst: TopList, what: str = "functions") -> str:
    """``top 10 of 4,210 functions, covering 93.0% of the total`` (self) or the stack share (total)."""
    share = units.format_share(lst.covered, lst.grand_total)
    shown = len(lst.rows)
    head = f"all {shown} {what}" if not lst.truncated else f"top {shown} of {lst.of_functions:,} {what}"
    if lst.order == "self":
        return f"{head}, covering {share} of the total by self"
    return f"{head}; {share} of the total passes through at least one of them"


def truncation_notes(summary: Summary) -> list[str]:
    t = summary.profile.truncation
    notes = [summary.profile.source.note] if summary.profile.source.note else []
    if t.other_nodes:
        notes.append(
            f"the source merged small call paths into {t.other_nodes:,} 'other' node(s) holding "
            f"{units.format_value(t.other_value, summary.unit)} "
            f"({units.format_share(t.other_value, summary.total)})"
            + (f" (maxNodes {t.max_nodes:,})" if t.max_nodes else "")
        )
    if t.elided_stacks:
        notes.append(f"{t.elided_stacks:,} stack(s) deeper than {t.max_depth:,} frames had their middle frames elided")
    if t.skipped_lines:
        notes.append(f"{t.skipped_lines:,} input line(s) were not 'stack count' lines and were skipped")
    if t.dropped_samples:
        notes.append(f"{t.dropped_samples:,} sample(s) with no frames or a zero value were left out")
    if summary.unresolved_share >= 0.2:
        notes.append(
            f"{units.format_share(summary.unresolved_share, 1)} of the total ends in unresolved native addresses; "
            "symbols may not have been resolved yet (re-run the workload and profile again)"
        )
    notes += [c.text for c in counts_caveats(summary)]
    opts = summary.options
    if opts.focus:
        notes.append(f"focused on stacks through functions matching {opts.focus!r}")
    if opts.ignore:
        notes.append(f"ignoring stacks through functions matching {opts.ignore!r}")
    if opts.hide_trampolines:
        notes.append("<interpreter trampoline> frames hidden")
    return notes


def _rows(lst: TopList) -> list[dict[str, Any]]:
    return [{"name": r.name, "self": r.self, "total": r.total} for r in lst.rows]


def _fn(name: str, s: int, t: int) -> dict[str, Any]:
    return {"name": name, "self": s, "total": t}


def reading_json(reading: Verdicts) -> dict[str, Any]:
    """The reading's answers to "what uses the most, what is responsible, where to start, what to skip"."""
    b, r, st, ign = reading.biggest, reading.responsible, reading.start, reading.ignorable
    return {
        "runtime": reading.runtime,
        "biggest": None if b is None else _fn(b.name, b.self, b.total),
        "responsible": None if r is None else _fn(r.name, r.self, r.total),
        "start": None if st is None else {"name": st.name, "value": st.value, "why": st.why, "biggest": st.biggest},
        "entries": [_fn(e.name, e.self, e.total) for e in reading.entries],
        "ignorable": {
            "frames": [{"name": f.name, "total": f.total} for f in ign.frames],
            "more": ign.more,
            "trampoline": ign.trampoline,
        },
    }


def meaning_line(summary: Summary) -> str:
    """What the numbers are (cumulative requested bytes, in-use memory, CPU time): the scope of every size shown."""
    return f"values: {semantics(summary.profile).meaning}"


def to_json(summary: Summary, budget: Budget | None = None) -> dict[str, Any]:
    p = summary.profile
    chain = summary.chain
    runtime = runtime_of(p)
    audit = visibility.wanted(summary, budget)
    return {
        "schema": SCHEMA_VERSION,
        "source": {
            "kind": p.source.kind,
            "location": p.source.location,
            "format": p.source.format,
            "sha256": p.source.digest,
        },
        "sample_type": p.sample_type.type,
        "unit": p.unit,
        "meaning": semantics(p).meaning,
        "counted": [{"name": c.name, "calls": c.calls, "stacks": c.stacks} for c in summary.counted],
        "visibility": visibility.to_json(audit) if audit is not None else None,
        "sample_types": [{"type": t.type, "unit": t.unit} for t in p.sample_types],
        "total": summary.total,
        "functions": summary.stats.function_count,
        "stacks": p.stack_count,
        "coverage": {
            "top_self": {
                "shown": len(summary.top_self.rows),
                "of": summary.top_self.of_functions,
                "share": round(summary.top_self.coverage, 6),
            },
            "top_total": {
                "shown": len(summary.top_total.rows),
                "of": summary.top_total.of_functions,
                "share": round(summary.top_total.coverage, 6),
            },
        },
        "top_self": _rows(summary.top_self),
        "top_total": _rows(summary.top_total),
        "chain": None
        if chain is None
        else {
            "target": chain.target,
            "value": chain.value,
            "steps": [
                {
                    "name": s.name,
                    "width": s.width,
                    "self": s.self,
                    "total": s.total,
                    "kind": decode(s.name, runtime).kind,
                }
                for s in chain.steps
            ],
        },
        "categories": [
            {"category": c.category, "label": c.label, "self": c.self, "share": round(c.share, 6)}
            for c in category_breakdown(p)
        ],
        "orchestrators": [{"name": r.name, "total": r.total} for r in summary.orchestrators],
        "unresolved_share": round(summary.unresolved_share, 6),
        "reading": reading_json(verdicts(summary)),
        "truncation": {
            "other_nodes": p.truncation.other_nodes,
            "other_value": p.truncation.other_value,
            "max_nodes": p.truncation.max_nodes,
            "elided_stacks": p.truncation.elided_stacks,
            "skipped_lines": p.truncation.skipped_lines,
            "dropped_samples": p.truncation.dropped_samples,
            "notes": truncation_notes(summary),
        },
    }


def _table(lst: TopList, unit: str, total: int, width: int = 60) -> list[str]:
    head = f"{'self':>10} {'self%':>6} {'total':>10} {'total%':>6}  function"
    lines = [head]
    for r in lst.rows:
        lines.append(
            f"{units.format_value(r.self, unit):>10} {units.format_share(r.self, total):>6} "
            f"{units.format_value(r.total, unit):>10} {units.format_share(r.total, total):>6}  {clean(r.name, width)}"
        )
    return lines


def chain_lines(summary: Summary, width: int = 70) -> list[str]:
    chain = summary.chain
    if chain is None:
        return []
    out = []
    runtime = runtime_of(summary.profile)
    for i, step in enumerate(chain.steps):
        marker = "└─" if i == len(chain.steps) - 1 else "├─"
        meaning = decode(step.name, runtime).meaning
        out.append(
            f"  {marker} {clean(step.name, width)}  [{units.format_value(step.width, summary.unit)}, self "
            f"{units.format_value(step.self, summary.unit)}]  {meaning}"
        )
    return out


def to_text(summary: Summary, budget: Budget | None = None) -> str:
    p = summary.profile
    unit, total = summary.unit, summary.total
    lines = [
        f"{clean(p.source.location or p.source.kind, 200)}  ({p.source.format}, {clean(str(p.sample_type), 80)})",
        f"total {units.format_value(total, unit)} in {p.stack_count:,} stacks, "
        f"{summary.stats.function_count:,} functions",
        meaning_line(summary),
    ]
    audit = visibility.wanted(summary, budget)
    if audit is not None:
        lines += ["", "Visibility (what the profile can and cannot see):"]
        lines += [f"  {line.replace('**', '')}" for line in visibility.lines(audit) if line]
        if audit.near_empty:
            lines += [f"  - {n}" for n in truncation_notes(summary)]
            return "\n".join(lines) + "\n"
    if not total:
        lines.append("every value is zero for this sample type: nothing to rank (try --sample-type)")
        return "\n".join(lines) + "\n"
    if units.kind_of(unit) == "bytes":
        lines.append("by category: " + format_breakdown(category_breakdown(p)))
    lines += ["", *reading_lines(verdicts(summary), lambda name: clean(name, 80))]
    lines += ["", f"Top by self — what uses the most ({coverage_sentence(summary.top_self)}):"]
    lines += _table(summary.top_self, unit, total)
    lines += ["", f"{TOTAL_TITLE} ({coverage_sentence(summary.top_total)}):"]
    lines += _table(summary.top_total, unit, total)
    if summary.chain:
        lines += ["", f"Heaviest call chain to {clean(summary.chain.target, 80)}, entry point first:"]
        lines += chain_lines(summary)
    notes = truncation_notes(summary)
    if notes:
        lines += ["", "Notes:"] + [f"  - {n}" for n in notes]
    return "\n".join(lines) + "\n"


def reading_lines(reading: Verdicts, show: Callable[[str], str]) -> list[str]:
    """The reading in four lines: biggest consumer, most responsible, where to start, what to skip."""
    unit, total = reading.summary.unit, reading.summary.total

    def vp(value: int) -> str:
        return f"{units.format_value(value, unit)}, {units.format_share(value, total)}"

    out = []
    if reading.biggest is not None:
        out.append(f"biggest consumer: {show(reading.biggest.name)} (self {vp(reading.biggest.self)})")
    if reading.responsible is not None:
        r = reading.responsible
        out.append(
            f"most responsible: {show(r.name)} (total {vp(r.total)}): the widest application bar "
            "that not every stack passes through"
        )
    start = reading.start
    if start is not None:
        why = {
            "biggest": "the biggest consumer",
            "site": "the allocation site that asked most",
            "busy": "the code that works most (the biggest consumer is idle time)",
        }.get(start.why, "the application code nearest to it")
        out.append(f"start with: {show(start.name)} ({vp(start.value)}): {why}")
    ign = reading.ignorable
    if ign.frames:
        more = f" and {ign.more:,} more" if ign.more else ""
        names = ", ".join(show(f.name) for f in ign.frames)
        out.append(f"can be ignored (zero self, they only pass calls on): {names}{more}")
    return out


def to_markdown(summary: Summary, budget: Budget | None = None) -> str:
    p = summary.profile
    unit, total = summary.unit, summary.total
    out = [
        f"# Profile analysis: {markdown.code(p.source.location or p.source.kind)}",
        "",
        f"- Sample type: `{p.sample_type}`; total **{units.format_value(total, unit)}** in {p.stack_count:,} stacks, "
        f"{summary.stats.function_count:,} functions",
        f"- Values: {semantics(p).meaning}",
    ]
    audit = visibility.wanted(summary, budget)
    if audit is not None:
        out += ["", "## Visibility: what the profile can and cannot see", "", *visibility.lines(audit)]
        if audit.near_empty:
            notes = truncation_notes(summary)
            out += (["", "## Notes", ""] + [f"- {n}" for n in notes]) if notes else []
            return "\n".join(out) + "\n"
    if total:
        out += [f"- {line[:1].upper()}{line[1:]}" for line in reading_lines(verdicts(summary), markdown.code)]
    for title, lst in (
        ("Top by self (what uses the most)", summary.top_self),
        ("Top by total (the widest bars; entry frames first)", summary.top_total),
    ):
        out += [
            "",
            f"## {title}",
            "",
            f"_{coverage_sentence(lst)}_",
            "",
            "| function | self | self % | total | total % |",
            "|---|---:|---:|---:|---:|",
        ]
        for r in lst.rows:
            out.append(
                f"| {markdown.code(r.name)} | {units.format_value(r.self, unit)} "
                f"| {units.format_share(r.self, total)} | "
                f"{units.format_value(r.total, unit)} | {units.format_share(r.total, total)} |"
            )
    if summary.chain:
        out += ["", "## Heaviest call chain (entry point first)", ""]
        runtime = runtime_of(p)
        for i, s in enumerate(summary.chain.steps, 1):
            meaning = decode(s.name, runtime).meaning
            out.append(f"{i}. {markdown.code(s.name)} — {units.format_value(s.width, unit)}; {meaning}")
    notes = truncation_notes(summary)
    if notes:
        out += ["", "## Notes", ""] + [f"- {n}" for n in notes]
    return "\n".join(out) + "\n"
