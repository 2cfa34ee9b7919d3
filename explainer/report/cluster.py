"""Top-by-label lists and courses over time, as text and as JSON (raw integers, Unix ms)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from explainer.pyroscope.cluster import Course, TopByLabel
from explainer.symbols import clean
from explainer.units import format_share, format_value, share


def when(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M:%SZ")


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
