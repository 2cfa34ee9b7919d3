"""Profile-aware first questions, and what the model is told about a frame a question names."""

from __future__ import annotations

from typing import Any

from explainer import knowledge
from explainer.analysis.filters import TRAMPOLINE
from explainer.explain.context import ProfileContext
from explainer.explain.question.reader import Question
from explainer.explain.safety import clean_text
from explainer.symbols import clean, decode


def _frame_to_explain(ctx: ProfileContext) -> str | None:
    """A label worth asking about: a constructor or method on the heaviest chain, else a trampoline."""
    chain = ctx.summary.chain
    steps = list(reversed(chain.steps)) if chain is not None else []
    for kind in ("constructor", "method"):
        for step in steps:
            if decode(step.name).kind == kind and not ctx.is_noise(step.name) and len(step.name) <= 60:
                return step.name
    if ctx.profile.function_id(TRAMPOLINE) is not None:
        return TRAMPOLINE
    rows = ctx.summary.top_self.rows
    return rows[0].name if rows and len(rows[0].name) <= 60 else None


def suggestions(ctx: ProfileContext) -> list[str]:
    if not ctx.total:
        return ["What does this profile measure?", "What can you answer?"]
    thing = "allocation" if ctx.verb == "allocated" else "consumer"
    out = [f"What uses the most {ctx.resource}?", f"Show me the call chain to the biggest {thing}"]
    frame = _frame_to_explain(ctx)
    if frame:
        out.append(f"What does `{clean(frame, 60).replace('`', '')}` mean?")
    out += ["What should I optimise first?", "What is responsible for it?", "What can I ignore?"]
    if ctx.baseline is not None:
        out.insert(1, "What changed compared with the baseline?")
    out.append("Write me a summary for the on-call handoff")
    return out


def symbol_data(ctx: ProfileContext, q: Question) -> dict[str, Any]:
    """The frame a "what does X mean" question names, decoded: travels inside the data block."""
    if q.subject is None or q.subject.kind == "concept":
        return {}
    written = q.subject.name
    ids = ctx.resolve(written)
    name = ctx.profile.names[ids[0]] if ids else written
    sym = decode(name)
    out: dict[str, Any] = {
        "label": clean(name, 120),
        "in_profile": bool(ids),
        "kind": sym.kind,
        "convention": clean_text(sym.meaning, 400, keep_newlines=False),
    }
    described = knowledge.describe(name)
    if described:
        out["knowledge"] = clean_text(described, 1200)
    return out
