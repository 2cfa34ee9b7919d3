"""The on-call handoff report: one page of Markdown that pastes into a ticket or chat.

Sections: scope, headline, top consumers (self), responsible chains (total), changes against a
baseline, what can be ignored, next steps, coverage and truncation, reproducibility. Offline
the report is a pure function of its inputs: no clock is read (``now`` is printed only when
passed in) and every number comes from the analyzer. With a model configured a short summary
goes on top, always shown with its verification status; a summary that fails verification is
left out and the report says so.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from explainer import __version__, markdown
from explainer.analysis.diff import Diff, NoiseFloor
from explainer.analysis.summary import Options, Summary, summarize
from explainer.errors import ExplainerError, ModelUnavailableError
from explainer.explain.answers import handoff as written
from explainer.knowledge.visibility import Budget
from explainer.model import Profile
from explainer.queries.handoff import Handoff, HandoffResult
from explainer.queries.handoff import handoff as handoff_facts
from explainer.reading import Reading, counts_caveats, read
from explainer.report import handoff_parts as parts
from explainer.report.analyze import truncation_notes
from explainer.report.diff import changes_table, floor_sentence, presence_bullets, total_sentence
from explainer.report.scope import Meaning, input_digest, parse_query, values_meaning, window_text
from explainer.report.visibility import scope_note
from explainer.report.visibility import section as visibility_section

if TYPE_CHECKING:  # a peak window comes from a server only
    from explainer.analysis.peak import Window

MAX_CHAIN_STEPS = 8
SUMMARY_QUESTION = (
    "Write a short on-call handoff summary of this profile (at most four sentences): what uses the most, "
    "what is responsible, and what to look at first. Use only numbers from the profile."
)


def handoff_markdown(
    profile: Profile,
    baseline: Profile | None = None,
    *,
    summary: Summary | None = None,
    reading: Reading | None = None,
    llm_settings: Any = None,
    now: datetime | None = None,
    top: int = 5,
    floor: NoiseFloor | None = None,
    grafana_url: str | None = None,
    grafana_datasource: str | None = None,
    peak: Window | None = None,
    require_model: bool = False,
    pods: list[str] | None = None,
    budget: Budget | None = None,
) -> str:
    """The handoff report for ``profile`` (and what changed since ``baseline``), as Markdown.

    ``summary`` is an already computed analysis of ``profile`` (its options, such as focus, are
    kept) and ``reading`` its reading, when made already; ``llm_settings``
    (``explainer.explain.LlmSettings``) asks the configured model for a verified summary on top;
    ``now`` is printed as the generation time when given; ``peak`` says
    the window was chosen at the peak of the series (``--at-peak``); ``pods`` is the server source's
    pods section (:func:`explainer.report.cluster.pods_section`), placed after the headline; ``require_model`` makes a
    model that does not write the summary a :class:`~explainer.errors.ModelUnavailableError`;
    ``budget`` is what the user knows about the GPU, for the visibility section.
    """
    summary = summary or summarize(profile, Options(top=top))
    reading = reading if reading is not None and reading.summary is summary else read(summary)
    # the same facts, and the same section writer, as the chat's handoff answer
    facts = handoff_facts(reading, Handoff(top=top, baseline=baseline, floor=floor))
    pen = parts.Plain(facts)
    out = [f"# On-call handoff: {parts.title(summary.profile)}", ""]
    out += model_summary(summary.profile, llm_settings, baseline, required=require_model)
    meaning = values_meaning(summary.profile)
    extra = (*(c.text for c in counts_caveats(summary)), *scope_note(summary, budget, reading=reading))
    meaning = replace(meaning, caveats=(*meaning.caveats, *extra))
    out += scope_section(summary.profile, meaning, grafana_url, grafana_datasource)
    if peak is not None:
        out.insert(-1, parts.peak_line(peak, summary.unit))
    out += written.headline(pen, facts)
    out += pods or []
    out += visibility_section(summary, budget, reading=reading)
    out += written.consumers(pen, facts)
    out += written.chains(pen, facts)
    if facts.diff is not None:
        out += changes_section(facts.diff, top)
    out += written.ignorable(pen, facts)
    out += written.next_steps(pen, facts, rerun=meaning.rerun, grafana=grafana_url is not None)
    out += coverage_section(summary, facts, meaning)
    out += reproduce_section(summary.profile, baseline, now)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n"


def model_summary(
    profile: Profile, llm_settings: Any, baseline: Profile | None = None, *, required: bool = False
) -> list[str]:
    """The model's summary with its verification status; nothing offline or when no model is configured.

    ``required``: a model that fails (or falls back offline, or is cut short) raises instead of
    costing only the summary.
    """
    if llm_settings is None:
        return []
    from explainer.explain import Conversation  # here: the report alone never loads the explain layer

    try:
        answer = Conversation(profile, settings=llm_settings, mode="llm", baseline=baseline).ask(SUMMARY_QUESTION)
    except ExplainerError as exc:  # the summary is an extra: a failing model never costs the report
        if required:
            raise
        return [f"> No model summary: {markdown.text(str(exc), 300)}", ""]
    failed = getattr(answer, "mode", "") != "llm" or getattr(answer, "incomplete", False)
    reason = str(getattr(answer, "model_error", "") or getattr(answer, "notice", "") or "the model did not answer")
    if failed and required:
        raise ModelUnavailableError(
            f"the model wrote no summary ({reason})", hint="use --llm auto to accept the report without it"
        )
    if getattr(answer, "mode", "") != "llm":  # the offline fallback answered: the report already says it all
        return [f"> No model summary: {markdown.text(reason, 300)}", ""]
    status, ok = parts.verification_status(getattr(answer, "verification", None))
    if getattr(answer, "incomplete", False):
        status, ok = "the answer was cut short", False
    if not ok:
        return [f"> A model summary was written but left out: {status}.", ""]
    body = [f"> {line}".rstrip() for line in parts.plain_markdown(str(answer.markdown)).splitlines()]
    who = getattr(llm_settings, "describe", None)
    by = f"by a language model ({markdown.text(who(), 120)})" if callable(who) else "by a language model"
    return [
        f"**Summary** (written {by}; {status})",
        "",
        *body,
        "",
        "_Only the summary above was written by the model; every other section is computed by the analyzer._",
        "",
    ]


def scope_section(profile: Profile, meaning: Meaning, grafana_url: str | None, datasource: str | None) -> list[str]:
    query = parse_query(profile)
    src = profile.source
    out = ["## Scope", "", f"- Source: {src.kind} {markdown.code(src.location or '(unnamed)')} ({src.format})"]
    who = parts.labels_text(profile, query)
    if who:
        out.append(f"- Service / pod: {who}")
    out.append(f"- Profile type: `{profile.sample_type}`: {meaning.text}.")
    out += [f"  - {c}" for c in meaning.caveats]
    out.append(f"- Window: {window_text(profile)}")
    if src.query:
        out.append(f"- Query: {markdown.exact_code(src.query)}")
    out += parts.grafana_lines(query, grafana_url, datasource)
    return [*out, ""]


def changes_section(diff: Diff, top: int) -> list[str]:
    out = ["## Changes against the baseline", "", f"- {total_sentence(diff)[0].upper()}{total_sentence(diff)[1:]}."]
    out += [f"- Noise floor: {floor_sentence(diff)}.", ""]
    out += changes_table(diff, top)
    bullets = presence_bullets(diff, top)
    if bullets:
        out += ["", *bullets]
    if diff.chain is not None:
        where = "new profile" if diff.chain_side == "after" else "baseline"
        out += [
            "",
            f"Chain to the biggest change ({where}): " + " → ".join(markdown.code(s.name) for s in diff.chain.steps),
        ]
    return [*out, ""]


def coverage_section(summary: Summary, facts: HandoffResult, meaning: Meaning) -> list[str]:
    out = ["## Coverage and truncation", "", f"- Top consumers: {written.coverage(parts.Plain(facts), facts)}."]
    notes = truncation_notes(summary)
    if meaning.unresolved:  # the knowledge base's note says more than the generic one (is it fatal?)
        notes = [n for n in notes if "unresolved native addresses" not in n] + [meaning.unresolved]
    if facts.diff is not None:
        notes += list(facts.diff.notes)
    out += [f"- {n[0].upper()}{n[1:]}" + ("" if n.endswith(".") else ".") for n in notes]
    if not notes:
        out.append("- Nothing was truncated: every stack of the input is counted.")
    return [*out, ""]


def reproduce_section(profile: Profile, baseline: Profile | None, now: datetime | None) -> list[str]:
    digest, of = input_digest(profile)
    line = f"- Input sha256 `{digest}` ({of})"
    if baseline is not None:
        line += f"; baseline sha256 `{input_digest(baseline)[0]}`"
    out = ["## Reproducibility", "", line + ".", f"- explainer {__version__}; numbers from the deterministic analyzer."]
    if now is not None:
        out.append(f"- Generated {now.isoformat(timespec='seconds')}.")
    return [*out, ""]
