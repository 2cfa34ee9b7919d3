"""Pieces of the handoff report that are not sections: names, labels, chains, knowledge look-ups.

Which frame is responsible, where to start and what role a frame plays come from the shared
:class:`~explainer.reading.Reading`, so the report names the same frames as the chat.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from explainer import knowledge, markdown, units
from explainer.analysis.chain import Chain, ChainStep, heaviest_chains
from explainer.analysis.diff import Diff
from explainer.analysis.functions import top
from explainer.analysis.peak import Window
from explainer.model import Profile
from explainer.queries.answer import chain_targets
from explainer.queries.records import HandoffResult
from explainer.reading import Reading
from explainer.report.scope import DEFAULT_DATASOURCE_UID, Meaning, Query, explore_url
from explainer.symbols import clean, decode, guess_runtime

MAX_LABELS = 6
_SELECTOR_LABEL = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)\s*(=~|!=|!~|=)\s*"((?:[^"\\]|\\.)*)"')


def title(profile: Profile) -> str:
    return markdown.code(profile.source.location or profile.source.kind)


def labels_text(profile: Profile, query: Query | None) -> str:
    """``key=value`` pairs from the profile's labels and the query's selector, private ones left out."""
    pairs = [(k, "=", v) for k, v in profile.labels if not k.startswith("__")]
    if query is not None:
        matches = _SELECTOR_LABEL.finditer(query.selector)
        pairs += [(m.group(1), m.group(2), m.group(3)) for m in matches if not m.group(1).startswith("__")]
    seen: list[str] = []
    for key, op, value in pairs:
        item = markdown.code(f"{key}{op}{value}")
        if item not in seen:
            seen.append(item)
    more = f" and {len(seen) - MAX_LABELS} more" if len(seen) > MAX_LABELS else ""
    return ", ".join(seen[:MAX_LABELS]) + more


def grafana_lines(query: Query | None, grafana_url: str | None, datasource: str | None) -> list[str]:
    if query is None:
        return []
    if grafana_url:
        url = explore_url(grafana_url, query, datasource_uid=datasource or DEFAULT_DATASOURCE_UID)
        return [f"- Grafana: [open this query and window in Explore]({url})"]
    start, end = query.range_text
    return [
        f"- Grafana (no --grafana-url given): in Explore, pick the Pyroscope data source, profile type "
        f"{markdown.code(query.profile_type)}, label selector {markdown.code(query.selector)}, "
        f"time range `{start}` to `{end}`."
    ]


def peak_line(peak: Window, unit: str) -> str:
    when = datetime.fromtimestamp(peak.peak_ms / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return (
        f"- Peak: the window is the step where the series peaked ({units.format_value(peak.peak_value, unit)} "
        f"per {units.format_duration_ns(peak.step_ms * 10**6)} step at {when})."
    )


def what_it_is(name: str, profile: Profile | None = None) -> str:
    """A short meaning for a table cell: the knowledge base's when it knows the frame, else the symbol's
    (read with the profile's runtime, which settles labels several languages write alike)."""
    entry = knowledge.lookup(name)
    if entry is not None and entry.explanation:
        return markdown.text(f"{entry.label}: {markdown.first_sentence(entry.explanation, 120)}", 200)
    runtime = guess_runtime(profile.names) if profile is not None else None
    return markdown.text(decode(name, runtime).meaning, 160)


def category_lines(reading: Reading) -> list[str]:
    """``- By category: KV cache 73.8%, ...``; the categories are kinds of (GPU) memory, never of time."""
    if not reading.categories:
        return []
    return [f"- By category: {markdown.text(knowledge.format_breakdown(reading.categories), 400)}."]


def sites_line(reading: Reading, n: int) -> list[str]:
    """Where the top consumers are allocator frames: the application frames that asked for the memory."""
    top3 = top(reading.summary.stats, "self", 3).rows
    if not reading.sites or not any(reading.role(r.name) == "allocator" for r in top3):
        return []
    shown = ", ".join(
        f"{markdown.code(s.name)} {units.format_share(s.share, 1)} ({markdown.text(knowledge.label(s.category), 60)})"
        for s in reading.sites[:n]
    )
    return [f"Allocator frames only carry requests; by the nearest application frame that asked: {shown}."]


def chains_to(reading: Reading, n: int) -> list[Chain]:
    """Heaviest chains to the top consumers (to their allocation sites when those are allocator frames)."""
    summary = reading.summary
    ids = chain_targets(reading, n)
    # one pass over the frames for all, the summary's own chain (to the top by self) among them
    first = summary.top_self.rows[:1]
    chains = heaviest_chains(summary.profile, summary.stats, [*ids, *(r.id for r in first)])
    # None: reached only off the widest path; left out, not guessed
    return [c for c in (chains[fid] for fid in ids) if c is not None]


def common_prefix(chains: Sequence[Chain]) -> list[ChainStep]:
    """Entry frames every chain shares (never a chain's own target), so each chain line is short."""
    if len(chains) < 2:
        return []
    limit = min(len(c.steps) for c in chains) - 1
    prefix: list[ChainStep] = []
    for i in range(limit):
        step = chains[0].steps[i]
        if any(c.steps[i].name != step.name for c in chains):
            break
        prefix.append(step)
    return prefix


def ignorable(facts: HandoffResult) -> list[str]:
    """The reading's one list of what can be ignored, as report lines (never the responsible frame
    or where to start: the chat's skip answer names the same frames)."""
    ign, total, unit = facts.ignorable, facts.total, facts.unit
    out = []
    if ign.frames:
        names = ", ".join(f"{markdown.code(r.name)} ({units.format_share(r.total, total)})" for r in ign.frames)
        more = f" and {ign.more:,} more" if ign.more else ""
        out.append(
            f"- Wide bars with zero self only pass calls on (nothing is {_consumed(unit)} there): {names}{more}."
        )
    if ign.trampoline:
        share = units.format_share(ign.trampoline, total)
        out.append(
            f"- `<interpreter trampoline>` frames ({share} of the total passes through one) are CPython's dispatch "
            "between Python calls: skip them when reading a chain (`--hide-trampolines` removes them)."
        )
    return out


def _consumed(unit: str) -> str:
    return {"bytes": "allocated", "time": "spent"}.get(units.kind_of(unit), "counted")


def next_steps(facts: HandoffResult, diff: Diff | None, meaning: Meaning, has_grafana: bool) -> list[str]:
    steps: list[str] = []
    unit, total = facts.unit, facts.total
    start = facts.start
    if start is not None:
        name, value = start.name, start.value
        why = (
            "it is where the most is consumed"
            if start.why == "biggest"
            else f"it is the application code that asked for what {markdown.code(start.biggest)} {_consumed(unit)}"
        )
        steps.append(
            f"Start with {markdown.code(name)} ({units.format_value(value, unit)}, "
            f"{units.format_share(value, total)}): {why}; its chain above says why it runs."
        )
        knobs = [f"{knob}: {effect}" for knob, effect in facts.start_knobs[:3]]
        if knobs:
            steps.append(
                f"What changes {markdown.code(name)}: " + "; ".join(markdown.text(k, 200) for k in knobs) + "."
            )
    if diff is not None and diff.regressions("self"):
        c = diff.regressions("self")[0]
        grew = units.format_value(c.delta(), unit)
        steps.append(f"Find out why {markdown.code(c.name)} grew by {grew} since the baseline.")
    if meaning.rerun:
        steps.append("Run the workload again and re-profile: the profiler resolves symbols after it has seen it once.")
    if has_grafana:
        steps.append("Open the Grafana link above, search for the top function and use Focus block on its chain.")
    return ["## Suggested next steps", "", *[f"{i}. {s}" for i, s in enumerate(steps, 1)], ""] if steps else []


def verification_status(verification: Any) -> tuple[str, bool]:
    """(sentence, passed) from the explain layer's verification record (``checked``, ``unverified``)."""
    checked = getattr(verification, "checked", None)
    unverified = getattr(verification, "unverified", None)
    if not isinstance(checked, int) or not isinstance(unverified, (list, tuple)):
        return "verification status unknown", False
    if unverified:
        return f"verification failed: {len(unverified)} claim(s) not found in the profile", False
    return f"verified: all {checked} number(s) checked against the profile", True


def plain_markdown(text: str, limit: int = 1200) -> str:
    """A model's Markdown for a blockquote: cleaned, capped, with raw HTML neutralised."""
    lines = [clean(line, 400) for line in text.strip().splitlines()[:12]]
    body = "\n".join(lines)[:limit]
    return markdown.no_html(body)
