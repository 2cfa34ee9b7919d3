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
        return _all_in_libraries(w, language)
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


def _all_in_libraries(w: Writer, language: str | None) -> str | None:
    """No frame of the application's own code has self: it only calls into the runtime and its libraries."""
    widest = answer(w.ctx.reading, Own(language, 1, by_total=True)).rows
    if not widest:
        w.add(w.t("No application frame of that kind has any self in this profile."))
        return None
    w.add(
        w.t(
            "**None of the application's own code uses {resource} by itself here: every frame with self belongs to "
            "the runtime or a library.** Its widest frame is {name}, with {total} in total: what it calls is where "
            "that goes.",
            name=w.name(widest[0].name),
            total=w.vp(widest[0].total),
        )
    )
    return widest[0].name


def responsible_own(w: Writer, language: str | None) -> str | None:
    """ "Which of our code is responsible for most of it?": the widest of the application's own frames."""
    result = answer(w.ctx.reading, Own(language, w.rows(MAX_ROWS), by_total=True))
    rows = result.rows
    if not rows:
        w.add(w.t("No application frame of that kind has any self in this profile."))
        return None
    top = rows[0]
    w.add(
        w.t(
            "**Of the application's own code, {name} is responsible for the most {resource}: {total} in total, "
            "of which it {verb} {self} itself.**",
            name=w.name(top.name),
            total=w.vp(top.total),
            self=w.v(top.self),
        ),
        "",
    )
    w.add(*(f"- {w.name(f.name)}: {w.vp(f.total)} total" for f in rows[1:]))
    return top.name
