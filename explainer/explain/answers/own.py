""" "Which Java method uses the most?", "welke van onze eigen code is het zwaarst?": the biggest consumers
among the application's own frames (optionally of one language), when runtime or kernel frames top the
profile's own list."""

from __future__ import annotations

from explainer.explain.answers.writer import Writer
from explainer.queries import Own, answer

MAX_ROWS = 5


def most_own(w: Writer, language: str | None) -> str | None:
    result = answer(w.ctx.reading, Own(language, w.rows(MAX_ROWS)))
    rows = result.rows
    if not rows:
        w.add(w.t("No application frame of that kind has any self in this profile."))
        return None
    top = rows[0]
    w.add(
        w.t(
            "**Of the application's own code, {name} uses the most {resource}: {value} of self.**",
            name=w.name(top.name),
            value=w.vp(top.self),
        ),
        "",
    )
    w.add(*(f"- {w.name(f.name)}: {w.vp(f.self)} self" for f in rows[1:]))
    first = result.biggest
    if first is not None and first.name != top.name:
        w.add(
            "",
            w.t(
                "Over the whole profile {name} uses more ({value}); it is runtime, kernel or native code.",
                name=w.name(first.name),
                value=w.vp(first.self),
            ),
        )
    return top.name
