""" "Which Java method uses the most?", "welke van onze eigen code is het zwaarst?": the biggest consumers
among the application's own frames (optionally of one language), when runtime or kernel frames top the
profile's own list."""

from __future__ import annotations

import numpy as np

from explainer.explain.answers.writer import Writer
from explainer.symbols import decode

MAX_ROWS = 5
SCAN = 500  # the heaviest functions by self looked at: the answer's rows are among them


def most_own(w: Writer, language: str | None) -> str | None:
    ctx = w.ctx
    values = ctx.stats.self_values
    order = np.argsort(-values, kind="stable")[:SCAN]
    rows: list[int] = []
    for fid in order.tolist():
        if values[fid] <= 0 or len(rows) >= MAX_ROWS:
            break
        name = ctx.profile.names[fid]
        if ctx.reading.role(name) != "app":
            continue
        if language is not None and decode(name).language != language:
            continue
        rows.append(fid)
    if not rows:
        w.add(w.t("No application frame of that kind has any self in this profile."))
        return None
    top = ctx.profile.names[rows[0]]
    w.add(
        w.t(
            "**Of the application's own code, {name} uses the most {resource}: {value} of self.**",
            name=w.name(top),
            value=w.vp(int(values[rows[0]])),
        ),
        "",
    )
    w.add(*(f"- {w.name(ctx.profile.names[fid])}: {w.vp(int(values[fid]))} self" for fid in rows[1:]))
    first = ctx.summary.top_self.rows[0] if ctx.summary.top_self.rows else None
    if first is not None and first.name != top:
        w.add(
            "",
            w.t(
                "Over the whole profile {name} uses more ({value}); it is runtime, kernel or native code.",
                name=w.name(first.name),
                value=w.vp(first.self),
            ),
        )
    return top
