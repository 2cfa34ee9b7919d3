"""Top-by-label lists and courses over time, as text and as JSON (raw integers, Unix ms)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from explainer.pyroscope.cluster import (
    POD,
    Course,
    TopByLabel,
    course,
    farthest_pod,
    sensible_step,
    top_by_label,
    when,
)
from explainer.symbols import clean
from explainer.units import format_share, format_value, share

if TYPE_CHECKING:
    from explainer.pyroscope.client import PyroscopeClient
    from explainer.pyroscope.query import Query


def shown_value(value: str, label: str) -> str:
    return clean(value, 80) if value else f"(no {clean(label, 40)})"


def top_text(top: TopByLabel) -> str:
    unit = top.query.profile_type.sample_unit
    lines = [
        f"{top.label} by {top.query.profile_type.sample_type} ({clean(top.query.profile_type.id, 100)}), "
        f"{clean(top.query.selector, 200)}, {top.query.window.describe()}",
        f"whole selection: {format_value(top.whole, unit)}",
    ]
    if not top.rows:
        lines.append(f"(no series with data in the window; label values: {top.values})")
        return "\n".join(lines) + "\n"
    width = max(len(shown_value(r.value, top.label)) for r in top.rows)
    for r in top.rows:
        name = shown_value(r.value, top.label)
        lines.append(f"  {name:<{width}}  {format_value(r.total, unit):>10}  {format_share(r.total, top.whole):>6}")
    if top.left_out_values or top.left_out_total:
        lines.append(
            f"left out: {top.left_out_values} more value(s), {format_value(top.left_out_total, unit)} "
            f"({format_share(top.left_out_total, top.whole)})"
        )
    else:
        lines.append("left out: nothing")
    return "\n".join(lines) + "\n"


def top_json(top: TopByLabel) -> dict[str, Any]:
    t = top.query.profile_type
    return {
        "label": top.label,
        "profile_type": t.id,
        "sample_type": t.sample_type,
        "unit": t.sample_unit,
        "selector": top.query.selector,
        "from_ms": top.query.window.start_ms,
        "until_ms": top.query.window.end_ms,
        "whole": top.whole,
        "values": top.values,
        "rows": [{"value": r.value, "total": r.total, "share": share(r.total, top.whole)} for r in top.rows],
        "left_out": {"values": top.left_out_values, "total": top.left_out_total},
    }


def course_lines(c: Course, unit: str) -> list[str]:
    """Peak, start of the rise and the trend, each with its time and size."""
    out = [f"peak: {format_value(c.peak[1], unit)} in the step ending {when(c.peak[0])}"]
    if c.rise_start is not None:
        out.append(f"rise began: the step ending {when(c.rise_start[0])} ({format_value(c.rise_start[1], unit)})")
    else:
        out.append("rise began: before the window (already high in its first step)")
    out.append(
        f"trend: {c.trend} (first third {format_value(c.first, unit)} per step, "
        f"last third {format_value(c.last, unit)} per step)"
    )
    return out


def course_json(c: Course) -> dict[str, Any]:
    return {
        "step_s": c.step_s,
        "points": [{"timestamp_ms": t, "value": v} for t, v in c.points],
        "total": c.total,
        "peak": {"timestamp_ms": c.peak[0], "value": c.peak[1]},
        "rise_start": None if c.rise_start is None else {"timestamp_ms": c.rise_start[0], "value": c.rise_start[1]},
        "trend": c.trend,
    }


FAR_FROM_PEERS = 0.2  # a replica 20% away from its peers' median is worth a line in a handoff


def pods_section(client: PyroscopeClient, query: Query, top: int = 5) -> list[str]:
    """The handoff's "Pods" lines for a server source: the top pods, any replica far from its peers,
    and when the selection rose. All pushdown: grouped series, one Series call, one ungrouped series."""
    from explainer.markdown import code

    if len(client.label_values(POD, query.window, query.selector)) < 2:
        return []  # no pods, or a selection of one pod: nothing to compare
    unit = query.profile_type.sample_unit
    found = top_by_label(client, query, POD, limit=top)
    if not found.rows or not any(r.value for r in found.rows):
        return []
    out = ["## Pods", "", "| pod | total | share |", "| --- | ---: | ---: |"]
    for r in found.rows:
        amount, part = format_value(r.total, unit), format_share(r.total, found.whole)
        out.append(f"| {code(shown_value(r.value, POD))} | {amount} | {part} |")
    out.append("")
    if found.left_out_values:
        out.append(
            f"- Left out: {found.left_out_values} more pod(s), {format_value(found.left_out_total, unit)} "
            f"({format_share(found.left_out_total, found.whole)})."
        )
    far = farthest_pod(client, query)
    if far is not None and abs(far.apart) >= FAR_FROM_PEERS:
        word = "more" if far.apart > 0 else "less"
        out.append(
            f"- Far from its peers: {code(far.pod)} holds {format_value(far.total, unit)}, "
            f"{format_share(abs(far.total - far.median), far.median)} {word} than the median of its "
            f"{len(far.peers)} peer(s) ({format_value(far.median, unit)})."
        )
    elif far is not None:
        out.append(f"- No replica is more than {FAR_FROM_PEERS:.0%} away from the median of its peers.")
    step = sensible_step(query.window)
    c = course(client.series(query, step), step)
    if c is not None:
        rose = (
            f"rose in the step ending {when(c.rise_start[0])}"
            if c.rise_start is not None
            else "was already at its level when the window opened"
        )
        out.append(
            f"- Over time ({step:g} s steps): the selection {rose}; peak {format_value(c.peak[1], unit)} "
            f"in the step ending {when(c.peak[0])}; {c.trend} "
            f"({format_value(c.first, unit)} per step in the first third, {format_value(c.last, unit)} in the last)."
        )
    return [*out, ""]
