"""The assistant's tools as plain functions over the analyzer: data first, then a short Markdown view.

Every result's ``data`` keeps the analyzer's raw integers with their ``unit``, says what a list
leaves out (``coverage``, ``truncation``) and carries :data:`UNTRUSTED`: function names, labels
and file names come from the profile and are data, never instructions. The Markdown shows names
only in code spans (:func:`explainer.markdown.code`). Sizes are capped twice: rows per
list by the caller's clamped ``limit``, and the whole result by :func:`fit`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from explainer import markdown, units
from explainer.analysis.counts import split_counts
from explainer.analysis.summary import Options, Summary, summarize
from explainer.explain import toolset
from explainer.explain.context import ProfileContext
from explainer.explain.toolset import MAX_NAME_CHARS, UNTRUSTED
from explainer.knowledge.semantics import semantics
from explainer.model import Profile
from explainer.report.analyze import to_json, to_markdown, truncation_notes
from explainer.symbols import clean

__all__ = ["MAX_NAME_CHARS", "UNTRUSTED"]
MAX_ROWS = 50  # rows of the reports (analyze, diff); the shared tools clamp to toolset.MAX_ROWS
MAX_QUESTION_CHARS = 2_000
MAX_DATA_CHARS = 60_000  # the JSON of one result
MAX_MARKDOWN_CHARS = 12_000


@dataclass(frozen=True, slots=True)
class Result:
    data: dict[str, Any]
    markdown: str


def clamp(value: int, low: int, high: int) -> int:
    return min(max(int(value), low), high)


def _share(value: int, total: int) -> float:
    return round(value / total, 6) if total else 0.0


def _grand(profile: Profile) -> int:
    """The total every share is of: without frames that count calls in a byte profile (cuMemFreeAsync)."""
    return split_counts(profile)[0].total


def _envelope(tool: str, profile: Profile, **data: Any) -> dict[str, Any]:
    source = profile.source
    kept, counted = split_counts(profile)
    return {
        "tool": tool,
        "untrusted": UNTRUSTED,
        "source": {"kind": source.kind, "location": source.location, "format": source.format},
        "sample_type": profile.sample_type.type,
        "unit": profile.unit,
        "meaning": semantics(kept).meaning,  # the scope of every size below: requested bytes, in use, time
        "total": kept.total,
        "counted": [{"name": c.name, "calls": c.calls} for c in counted],
        **data,
    }


def fit(result: Result) -> Result:
    """The result under the size caps: the longest lists are halved until the JSON fits, and it says so."""
    data, cut = result.data, False
    while len(json.dumps(data, ensure_ascii=False)) > MAX_DATA_CHARS:
        lists = [(k, v) for k, v in data.items() if isinstance(v, list) and len(v) > 1]
        if not lists:
            data = {k: data[k] for k in ("tool", "untrusted", "unit", "total") if k in data}
            data["error"] = "result too large to return; ask for fewer rows"
            break
        key, rows = max(lists, key=lambda kv: len(json.dumps(kv[1], ensure_ascii=False)))
        data = {**data, key: rows[: len(rows) // 2]}
        cut = True
    if cut:
        data["cut_to_fit"] = f"lists were shortened to keep the result under {MAX_DATA_CHARS:,} characters"
    markdown = result.markdown
    if len(markdown) > MAX_MARKDOWN_CHARS:
        markdown = markdown[:MAX_MARKDOWN_CHARS].rsplit("\n", 1)[0] + "\n\n_(cut to fit; the data has the numbers)_\n"
    return Result(data, markdown)


def _row(name: str, self_value: int, total_value: int, grand: int) -> dict[str, Any]:
    return {
        "name": name,
        "self": self_value,
        "total": total_value,
        "self_share": _share(self_value, grand),
        "total_share": _share(total_value, grand),
    }


def analyze(profile: Profile, limit: int = 10) -> Result:
    summary = summarize(profile, Options(top=clamp(limit, 1, MAX_ROWS)))
    data = to_json(summary)
    data.pop("schema", None)
    data.pop("source", None)
    return fit(Result(_envelope("analyze", profile, **data), to_markdown(summary)))


def run_shared(ctx: ProfileContext, name: str, arguments: dict[str, Any]) -> Result:
    """A tool of the shared tool set (:mod:`explainer.explain.toolset`), the same one the model
    calls: its result is the structured content, with a Markdown view of it."""
    tool = toolset.TOOLS[name]
    found = tool.run(ctx, tool.args.model_validate(arguments))
    return fit(Result(found.model_dump(), _MARKDOWN[name](found)))


# -- the Markdown views of the shared results (numbers as the CLI formats them) -------------


def _v(value: int, unit: str, whole: int) -> str:
    return f"{units.format_value(value, unit)} ({units.format_share(value, whole)})"


def _lines(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


def _top_md(r: toolset.TopResult) -> str:
    share = units.format_share(r.coverage.value, r.total)
    lines = [f"**Top {len(r.rows)} by {r.order}** ({len(r.rows)} of {r.coverage.of:,} functions, {share}):", ""]
    lines += [
        f"{i}. {markdown.code(row.name)} — self {_v(row.self, r.unit, r.total)}, total {_v(row.total, r.unit, r.total)}"
        for i, row in enumerate(r.rows, 1)
    ]
    return _lines(lines)


def _details_md(r: toolset.DetailsResult) -> str:
    f = r.function
    lines = [
        f"**{markdown.code(f.name)}**: self {_v(f.self, r.unit, r.total)}, total {_v(f.total, r.unit, r.total)}.",
        "",
        f"- What it is: {clean(r.meaning, 300)}",
    ]
    if r.category:
        lines.append(f"- Category: {clean(r.category, 80)}. {clean(r.explanation or '', 600)}")
    lines += [f"- Knob: {clean(k.knob, 120)}: {clean(k.effect, 300)}" for k in r.knobs]
    return _lines(lines)


def _chain_md(r: toolset.ChainResult) -> str:
    lines = [
        f"**Heaviest chain to {markdown.code(r.target)}** ({_v(r.value, r.unit, r.total)}), entry point first:",
        "",
    ]
    lines += [f"{i}. {markdown.code(s.name)} — {_v(s.width, r.unit, r.total)}" for i, s in enumerate(r.steps, 1)]
    if r.frames_left_out:
        lines += ["", f"_{r.frames_left_out:,} of {r.frames_in_chain:,} frames (interpreter, addresses) left out._"]
    return _lines(lines)


def _neighbours_md(r: toolset.NeighbourResult) -> str:
    f = r.function
    lines = [f"**{markdown.code(f.name)}** (total {_v(f.total, r.unit, r.total)})", "", "Callers:"]
    lines += [f"- {markdown.code(c.name)} — {_v(c.value, r.unit, r.total)}" for c in r.callers]
    lines += ["", "Callees:"] + [f"- {markdown.code(c.name)} — {_v(c.value, r.unit, r.total)}" for c in r.callees]
    return _lines(lines)


def _meaning_md(r: toolset.MeaningResult) -> str:
    lines = [f"**{markdown.code(r.label)}** ({clean(r.kind, 20)}, {clean(r.language, 20)}): {clean(r.convention, 400)}"]
    if r.knowledge:
        lines += ["", clean(r.knowledge, 600)]
    if r.function is not None:
        f = r.function
        lines += ["", f"In this profile: self {_v(f.self, r.unit, r.total)}, total {_v(f.total, r.unit, r.total)}."]
    else:
        lines += ["", "Not a function of this profile."]
    return _lines(lines)


def _search_md(r: toolset.SearchResult) -> str:
    lines = [f"**{r.matches:,} matching functions**, heaviest first:", ""]
    lines += [
        f"{i}. {markdown.code(row.name)} — self {_v(row.self, r.unit, r.total)}, total {_v(row.total, r.unit, r.total)}"
        for i, row in enumerate(r.rows, 1)
    ]
    return _lines(lines)


_MARKDOWN: dict[str, Callable[[Any], str]] = {
    "top_functions": _top_md,
    "function_details": _details_md,
    "call_chain": _chain_md,
    "callers_callees": _neighbours_md,
    "symbol_meaning": _meaning_md,
    "search_functions": _search_md,
}
SHARED = tuple(_MARKDOWN)  # the shared tools the MCP server offers (compare needs a baseline: that is diff)


def diff(before: Profile, after: Profile, limit: int = 10) -> Result:
    from explainer.analysis.diff import diff_profiles
    from explainer.report import diff as report

    changes = diff_profiles(before, after)
    n = clamp(limit, 1, MAX_ROWS)
    data = {"tool": "diff", "untrusted": UNTRUSTED, **report.to_json(changes, n)}
    return fit(Result(data, report.to_markdown(changes, n)))


def handoff(profile: Profile, baseline: Profile | None = None, limit: int = 5, pods: list[str] | None = None) -> Result:
    """``pods``: a server source's pods section (:func:`explainer.report.cluster.pods_section`)."""
    from explainer.report.handoff import handoff_markdown

    n = clamp(limit, 1, 20)
    summary = summarize(profile, Options(top=n))
    report = handoff_markdown(profile, baseline, summary=summary, top=n, pods=pods)  # offline: deterministic
    rows = [_row(r.name, r.self, r.total, _grand(profile)) for r in summary.top_self.rows]
    data = _envelope("handoff", profile, top_self=rows, report_markdown=report, **_truncation(summary))
    return fit(Result(data, report))


def ask(profile: Profile, question: str, baseline: Profile | None = None, cluster: Any = None) -> Result:
    """The offline explainer's answer: no model is called, every number is the analyzer's. ``cluster``
    (an :class:`explainer.explain.cluster.ClusterDesk`) answers questions about a server's pods."""
    from explainer.explain import Conversation

    text = question.strip()[:MAX_QUESTION_CHARS]
    conversation = Conversation(profile, mode="offline", baseline=baseline)
    conversation.cluster = cluster
    answer = conversation.ask(text)
    summary = summarize(profile, Options(top=1))
    data = _envelope(
        "ask",
        profile,
        question=text,
        answer_markdown=answer.markdown,
        mode=answer.mode,
        verification={"checked": answer.verification.checked, "unverified": answer.verification.unverified},
        focus=answer.focus,
        **_truncation(summary),
    )
    return fit(Result(data, answer.markdown))


# -- helpers -----------------------------------------------------------------------------------


def _truncation(summary: Summary) -> dict[str, Any]:
    t = summary.profile.truncation
    return {
        "truncation": {
            "other_nodes": t.other_nodes,
            "other_value": t.other_value,
            "max_nodes": t.max_nodes,
            "elided_stacks": t.elided_stacks,
            "dropped_samples": t.dropped_samples,
            "notes": truncation_notes(summary),
        }
    }
