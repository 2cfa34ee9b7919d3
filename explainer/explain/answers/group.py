"""A phrase naming a group of functions ("the detokenisation in total", "all the decode functions"):
the group's value, each stack counted once however many of its members it holds, and its members."""

from __future__ import annotations

import numpy as np

from explainer.explain.answers import shares
from explainer.explain.answers.writer import Writer

MAX_MEMBERS = 8


def group(w: Writer, members: tuple[str, ...]) -> str | None:
    ctx = w.ctx
    ids = [fid for fid in (ctx.profile.function_id(n) for n in members) if fid is not None]
    marked = np.zeros(len(ctx.profile.names), dtype=bool)
    marked[ids] = True
    value = shares.stacks_holding(ctx.profile, marked)
    w.add(
        w.t(
            "**{count} functions match; together they hold {value} of the {resource}** (a stack that passes "
            "through several of them counts once).",
            count=w.n(len(ids)),
            value=w.vp(value),
        ),
        "",
    )
    rows = sorted(ids, key=lambda fid: -ctx.of(fid)[1])[:MAX_MEMBERS]
    w.add(*(f"- {w.name(ctx.profile.names[fid])}: {w.vp(ctx.of(fid)[1])} total" for fid in rows))
    if len(ids) > MAX_MEMBERS:
        w.add(w.t("- and {count} more", count=w.n(len(ids) - MAX_MEMBERS)))
    return ctx.profile.names[rows[0]] if rows else None
