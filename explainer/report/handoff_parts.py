"""Pieces of the handoff report that are not sections: its title, labels, Grafana and peak lines,
the model summary's status, and :class:`Plain`, the pen the report writes the shared sections with.

The sections the chat shows too (headline, consumers, chains, what can be ignored, next steps) are
:mod:`explainer.explain.answers.handoff`'s, written from the ``Handoff`` query's facts.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from explainer import knowledge, markdown, units
from explainer.model import Profile
from explainer.queries.handoff import HandoffResult
from explainer.report.scope import DEFAULT_DATASOURCE_UID, Query, explore_url
from explainer.symbols import clean, decode

if TYPE_CHECKING:  # a peak window comes from a server only
    from explainer.analysis.peak import Window

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


class Plain:
    """The report's pen for the one handoff writer (:mod:`explainer.explain.answers.handoff`): our
    words in English as written, numbers through :mod:`explainer.units`, names as safe code spans,
    other text escaped for Markdown."""

    def __init__(self, facts: HandoffResult) -> None:
        self.unit, self.total, self.runtime = facts.unit, facts.total, facts.runtime

    def t(self, message: str, /, **values: str) -> str:
        return message.format(**values) if values else message

    def v(self, raw: int) -> str:
        return units.format_value(raw, self.unit)

    def p(self, part: float, whole: float | None = None) -> str:
        return units.format_share(part, self.total if whole is None else whole)

    def n(self, count: int) -> str:
        return f"{count:,}"

    def name(self, name: str) -> str:
        return markdown.code(name)

    def text(self, text: str, limit: int = 200) -> str:
        return markdown.text(text, limit)

    def what(self, name: str) -> str:
        """The knowledge base's label and first sentence when it knows the frame, else the symbol's
        meaning (read with the profile's runtime, which settles labels several languages write alike)."""
        entry = knowledge.lookup(name)
        if entry is not None and entry.explanation:
            return markdown.text(f"{entry.label}: {markdown.first_sentence(entry.explanation, 120)}", 200)
        return markdown.text(decode(name, self.runtime).meaning, 160)


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
