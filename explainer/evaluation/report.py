"""The eval report: a Markdown table per question with totals, and the same as JSON."""

from __future__ import annotations

from typing import Any

from explainer import markdown
from explainer.evaluation.run import Result, Run

SCHEMA = 1


def _totals(run: Run) -> dict[str, Any]:
    results = run.results
    with_subject = [r for r in results if r.subject_named is not None]
    return {
        "questions": len(results),
        "answered": sum(r.answered for r in results),
        "subject_named": sum(bool(r.subject_named) for r in with_subject),
        "subject_expected": len(with_subject),
        "facts_found": sum(r.facts_found for r in results),
        "facts_expected": sum(len(r.question.facts) for r in results),
        **{k: sum(getattr(r, k) for r in results) for k in ("checked", "verified", "derived", "unbound", "wrong")},
        "wrong_names": sum(r.wrong_names for r in results),
        "latency_s": round(sum(r.latency_s for r in results), 3),
        "tokens_in": sum(r.tokens_in for r in results),
        "tokens_out": sum(r.tokens_out for r in results),
        "score": round(run.score, 4),
    }


def _row(r: Result) -> dict[str, Any]:
    return {
        "id": r.question.id,
        "profile": r.question.profile,
        "question": r.question.question,
        "answered": r.answered,
        "subject": r.question.subject,
        "subject_named": r.subject_named,
        "facts_found": r.facts_found,
        "facts_expected": len(r.question.facts),
        "checked": r.checked,
        "verified": r.verified,
        "derived": r.derived,
        "unbound": r.unbound,
        "wrong": r.wrong,
        "wrong_names": r.wrong_names,
        "latency_s": round(r.latency_s, 3),
        "tokens_in": r.tokens_in,
        "tokens_out": r.tokens_out,
        "score": round(r.score, 4),
        "wrong_claims": list(r.wrong_claims),
        "note": r.note,
    }


def to_json(run: Run, min_score: float) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "model": run.model,
        "min_score": min_score,
        "passed": run.score >= min_score,
        "total": _totals(run),
        "questions": [_row(r) for r in run.results],
    }


def _yes(value: bool | None) -> str:
    return "–" if value is None else ("yes" if value else "**no**")


def to_markdown(run: Run, min_score: float) -> str:
    t = _totals(run)
    verdict = "passed" if run.score >= min_score else "**below the minimum**"
    lines = [
        f"# Eval: {markdown.code(run.model)}",
        "",
        f"Score **{run.score:.2f}** (minimum {min_score:.2f}: {verdict}) over {t['questions']} question(s); "
        f"{t['answered']} answered by the model. Numbers: {t['checked']} checked, {t['verified']} verified, "
        f"{t['derived']} derived, {t['unbound']} unbound, {t['wrong']} wrong; {t['wrong_names']} unknown name(s). "
        f"Subject named in {t['subject_named']} of {t['subject_expected']}; facts stated: {t['facts_found']} of "
        f"{t['facts_expected']}. Time {t['latency_s']:.1f} s; tokens (cl100k estimate) "
        f"{t['tokens_in']:,} in, {t['tokens_out']:,} out.",
        "",
        "| id | profile | subject named | facts | verified | derived | unbound | wrong | latency | tokens out "
        "| score |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in run.results:
        facts = f"{r.facts_found}/{len(r.question.facts)}" if r.question.facts else "–"
        lines.append(
            f"| {markdown.code(r.question.id)} | {markdown.code(r.question.profile.rsplit('/', 1)[-1])} "
            f"| {_yes(r.subject_named)} "
            f"| {facts} | {r.verified} | {r.derived} | {r.unbound} | {r.wrong + r.wrong_names} "
            f"| {r.latency_s:.2f} s | {r.tokens_out:,} | {r.score:.2f} |"
        )
    problems = [(r, w) for r in run.results for w in r.wrong_claims] + [(r, None) for r in run.results if r.note]
    if problems:
        lines += ["", "## What went wrong", ""]
        for r, w in problems:
            if w is None:
                lines.append(f"- {markdown.code(r.question.id)}: {markdown.code(r.note)}")
            else:
                # reasons are our own sentences with names already in neutralised code spans
                expected = w.get("expected")
                right = f" (right: {expected})" if expected else ""
                lines.append(f"- {markdown.code(r.question.id)}: {(w['reason'] or '')[:300]}{right}")
    return "\n".join(lines) + "\n"
