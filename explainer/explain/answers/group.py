"""A phrase naming a group of functions ("the detokenisation in total", "all the decode functions"):
the group's value, each stack counted once however many of its members it holds, and its members."""

from __future__ import annotations

from explainer.explain.answers.writer import Writer
from explainer.queries import Group, answer

MAX_MEMBERS = 8


def group(w: Writer, members: tuple[str, ...]) -> str | None:
    result = answer(w.ctx.reading, Group(members))
    found = result.members
    w.add(
        w.t(
            "**{count} functions match; together they hold {value} of the {resource}** (a stack that passes "
            "through several of them counts once).",
            count=w.n(len(found)),
            value=w.vp(result.value),
        ),
        "",
    )
    w.add(*(f"- {w.name(f.name)}: {w.vp(f.total)} total" for f in found[:MAX_MEMBERS]))
    if len(found) > MAX_MEMBERS:
        w.add(w.t("- and {count} more", count=w.n(len(found) - MAX_MEMBERS)))
    return found[0].name if found else None
