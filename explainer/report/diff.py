"""The output of ``explainer diff``: a terminal table, a stable JSON contract, Markdown.

JSON contract (``schema`` 1): ``unit``; ``before`` and ``after`` (source, sample type, total);
``noise_floor`` (``min_share``, ``min_relative``, ``scale``); ``changes`` (the top ``N``
significant changes by self: name, presence, self/total before and after, deltas, relative
changes as fractions or null when there was nothing before, share changes in percentage
points); ``new`` and ``vanished`` (names and values); ``noise_count``; ``chain``; ``notes``.
Every value is an integer in the profile's own unit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from explainer import markdown, units
from explainer.analysis.diff import Diff, FunctionChange, Order, Presence
from explainer.model import Profile
from explainer.symbols import clean, decode, guess_runtime

SCHEMA_VERSION = 1
_PRESENCE: tuple[tuple[Presence, str], ...] = (("new", "New"), ("vanished", "Vanished"))


def signed(value: int, unit: str) -> str:
    """``+1.2 GB`` / ``-300 MB`` / ``0 B``: a change, always with its sign (:func:`units.format_signed`)."""
    return units.format_signed(value, unit)


def relative_text(change: FunctionChange, order: Order = "self") -> str:
    rel = change.relative(order)
    if rel is None:
        return "new" if change.after(order) else "—"
    pct = 100.0 * rel
    return f"{pct:+.1f}%" if abs(pct) < 10 else f"{pct:+.0f}%"


def share_text(diff: Diff, change: FunctionChange, order: Order = "self") -> str:
    return f"{diff.share_delta_pp(change, order):+.1f} pp"


def floor_sentence(diff: Diff) -> str:
    f = diff.floor
    return (
        f"changes smaller than {100 * f.min_share:g}% of the larger total "
        f"({units.format_value(diff.scale, diff.unit)}) or than {100 * f.min_relative:g}% of their value "
        "before are treated as noise"
    )


def total_sentence(diff: Diff) -> str:
    before, after = diff.total_before, diff.total_after
    rel = f", {100.0 * (after - before) / before:+.1f}%" if before else ""
    return (
        f"total {units.format_value(before, diff.unit)} → {units.format_value(after, diff.unit)} "
        f"({signed(after - before, diff.unit)}{rel})"
    )


def shown_sentence(diff: Diff, shown: int, order: Order = "self") -> str:
    significant = len(diff.ranked(order))
    head = f"all {significant}" if shown >= significant else f"top {shown} of {significant}"
    return f"{head} significant change(s) by {order}; {diff.noise_count(order):,} more moved within the noise floor"


def _side(p: Profile) -> dict[str, Any]:
    s = p.source
    return {
        "source": {"kind": s.kind, "location": s.location, "format": s.format, "query": s.query, "sha256": s.digest},
        "sample_type": p.sample_type.type,
        "unit": p.unit,
        "total": p.total,
    }


def _change(diff: Diff, c: FunctionChange) -> dict[str, Any]:
    out: dict[str, Any] = {"name": c.name, "presence": c.presence}
    for order in ("self", "total"):
        rel = c.relative(order)
        out |= {
            f"{order}_before": c.before(order),
            f"{order}_after": c.after(order),
            f"{order}_delta": c.delta(order),
            f"{order}_relative": None if rel is None else round(rel, 6),
            f"{order}_share_delta_pp": round(diff.share_delta_pp(c, order), 4),
            f"{order}_significant": not c.noise(order),
        }
    return out


def _presence_json(diff: Diff, presence: Presence, top: int) -> list[dict[str, Any]]:
    # one side is zero for new and vanished functions: report the side that has the value
    return [
        {"name": c.name, "self": max(c.self_before, c.self_after), "total": max(c.total_before, c.total_after)}
        for c in diff.with_presence(presence)[:top]
    ]


def to_json(diff: Diff, top: int = 10) -> dict[str, Any]:
    chain = diff.chain
    return {
        "schema": SCHEMA_VERSION,
        "unit": diff.unit,
        "before": _side(diff.before),
        "after": _side(diff.after),
        "noise_floor": {
            "min_share": diff.floor.min_share,
            "min_relative": diff.floor.min_relative,
            "scale": diff.scale,
        },
        "significant": len(diff.ranked("self")),
        "changes": [_change(diff, c) for c in diff.ranked("self")[:top]],
        "new": _presence_json(diff, "new", top),
        "vanished": _presence_json(diff, "vanished", top),
        "noise_count": diff.noise_count("self"),
        "chain": None
        if chain is None
        else {
            "target": chain.target,
            "side": diff.chain_side,
            "value": chain.value,
            "steps": [{"name": s.name, "width": s.width, "self": s.self, "total": s.total} for s in chain.steps],
        },
        "notes": list(diff.notes),
    }


def _presence_lines(diff: Diff, top: int, width: int) -> list[str]:
    lines: list[str] = []
    for presence, title in _PRESENCE:
        rows = diff.with_presence(presence)
        if not rows:
            continue
        above = sum(1 for c in rows if not c.total_noise)
        lines += ["", f"{title} functions ({len(rows):,}, {above:,} above the noise floor; largest total first):"]
        for c in rows[:top]:
            total = max(c.total_after, c.total_before)  # one side is zero
            lines.append(f"  {units.format_value(total, diff.unit):>10}  {clean(c.name, width)}")
        if len(rows) > top:
            lines.append(f"  … and {len(rows) - top:,} more")
    return lines


def chain_title(diff: Diff, name: Callable[[str], str] = lambda n: clean(n, 80)) -> str:
    assert diff.chain is not None
    where = "the new profile" if diff.chain_side == "after" else "the baseline (it is gone from the new one)"
    return f"Heaviest call chain to the biggest change, {name(diff.chain.target)}, in {where}, entry point first"


def to_text(diff: Diff, top: int = 10, width: int = 60) -> str:
    unit = diff.unit
    lines = [
        f"baseline: {clean(diff.before.source.location or diff.before.source.kind, 100)} ({diff.before.sample_type})",
        f"new:      {clean(diff.after.source.location or diff.after.source.kind, 100)} ({diff.after.sample_type})",
        total_sentence(diff),
        f"noise floor: {floor_sentence(diff)}",
    ]
    rows = diff.ranked("self")[:top]
    if rows:
        lines += ["", f"Changes by self ({shown_sentence(diff, len(rows))}):"]
        lines.append(f"{'before':>10} {'after':>10} {'change':>11} {'rel.':>7} {'share':>9}  function")
        for c in rows:
            lines.append(
                f"{units.format_value(c.self_before, unit):>10} {units.format_value(c.self_after, unit):>10} "
                f"{signed(c.delta(), unit):>11} {relative_text(c):>7} {share_text(diff, c):>9}  {clean(c.name, width)}"
            )
    else:
        lines += ["", f"No significant change by self ({diff.noise_count():,} function(s) moved within the floor)."]
    lines += _presence_lines(diff, top, width)
    if diff.chain:
        lines += ["", chain_title(diff) + ":"]
        for i, s in enumerate(diff.chain.steps):
            marker = "└─" if i == len(diff.chain.steps) - 1 else "├─"
            lines.append(f"  {marker} {clean(s.name, 70)}  [{units.format_value(s.width, unit)}]")
    if diff.notes:
        lines += ["", "Notes:"] + [f"  - {n}" for n in diff.notes]
    return "\n".join(lines) + "\n"


def changes_table(diff: Diff, top: int) -> list[str]:
    """The Markdown table of the top significant self changes (also used by the handoff report)."""
    rows = diff.ranked("self")[:top]
    if not rows:
        return [f"No significant change by self; {diff.noise_count():,} function(s) moved within the noise floor."]
    out = [
        f"_{shown_sentence(diff, len(rows))}_",
        "",
        "| function | self before | self after | change | relative | share Δ |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    unit = diff.unit
    for c in rows:
        out.append(
            f"| {markdown.code(c.name)} | {units.format_value(c.self_before, unit)} | "
            f"{units.format_value(c.self_after, unit)} | {signed(c.delta(), unit)} | {relative_text(c)} | "
            f"{share_text(diff, c)} |"
        )
    return out


def presence_bullets(diff: Diff, top: int) -> list[str]:
    """One bullet each for new and vanished functions above the noise floor, when there are any."""
    out = []
    for presence, label in _PRESENCE:
        rows = [c for c in diff.with_presence(presence) if not c.total_noise]
        if rows:
            shown = ", ".join(
                f"{markdown.code(c.name)} ({units.format_value(max(c.total_after, c.total_before), diff.unit)})"
                for c in rows[:top]
            )
            more = f" and {len(rows) - top:,} more" if len(rows) > top else ""
            out.append(f"- {label} (total above the noise floor): {shown}{more}")
    return out


def to_markdown(diff: Diff, top: int = 10) -> str:
    out = [
        f"# Profile diff: {markdown.code(diff.before.source.location or 'baseline')} → "
        f"{markdown.code(diff.after.source.location or 'new')}",
        "",
        f"- Sample type `{diff.after.sample_type}`; {total_sentence(diff)}",
        f"- Noise floor: {floor_sentence(diff)}",
        "",
        "## Changes by self",
        "",
        *changes_table(diff, top),
    ]
    bullets = presence_bullets(diff, top)
    if bullets:
        out += ["", "## New and vanished functions", "", *bullets]
    if diff.chain:
        out += ["", f"## {chain_title(diff, markdown.code)}", ""]
        runtime = guess_runtime(diff.after.names)
        for i, s in enumerate(diff.chain.steps, 1):
            meaning = decode(s.name, runtime).meaning
            out.append(f"{i}. {markdown.code(s.name)} — {units.format_value(s.width, diff.unit)}; {meaning}")
    if diff.notes:
        out += ["", "## Notes", "", *[f"- {n}" for n in diff.notes]]
    return "\n".join(out) + "\n"
