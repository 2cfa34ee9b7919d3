"""Every intent as one typed record: what it answers, how it is named, its help example.

The reader (:mod:`explainer.explain.question`) says which intent a question has, by id; this
table is the one place that id becomes behaviour (``answers/offline.py`` routes a question by its
subject first: a concept, a group, a named function, then the record's answers).

Adding an intent touches three places: its signatures in ``question/signatures.py`` (and any new
words in ``question/lexicon.toml``), its answer function in ``answers/`` (whose ``w.t`` messages
are its English templates; ``make catalogs`` puts them into the Dutch catalog to translate), and
its :class:`Intent` record here, with its help example in English and Dutch.
``tests/test_intents.py`` checks all three for each.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from explainer.explain.answers import assess, concepts, frames, reports, whole
from explainer.explain.answers.language import N_
from explainer.explain.answers.writer import Writer


@dataclass(frozen=True, slots=True)
class Example:
    """A help example: ``english`` may say ``{resource}`` and ``{thing}``; ``dutch`` ``{noun}`` and ``{thing}``."""

    english: str
    dutch: str
    what: str  # what it answers (an ``N_`` message)
    needs_categories: bool = False  # shown only for profiles with a category breakdown (GPU memory)


Whole = Callable[[Writer], "str | None"]
AboutOne = Callable[[Writer, int], "str | None"]


@dataclass(frozen=True, slots=True)
class Intent:
    id: str
    reading_as: str  # "I read this as a question about {reading_as}" (an ``N_`` message)
    example: Example | None  # None only for "unknown", which is no question type
    whole: Whole | None = None  # its answer about the whole profile
    about_one: AboutOne | None = None  # its answer about one function (the biggest consumer when none is named)


def _help(w: Writer) -> str | None:
    return help_text(w, unknown=False)


INTENTS: tuple[Intent, ...] = (
    Intent(
        "most",
        N_("what uses the most"),
        Example(
            "What uses the most {resource}?", "Wat gebruikt het meeste {noun}?", N_("the biggest consumers by self")
        ),
        whole=whole.most,
    ),
    Intent(
        "responsible",
        N_("what is responsible"),
        Example(
            "What is responsible for it?",
            "Wat is daarvoor verantwoordelijk?",
            N_("the widest bars by total and where the work branches"),
        ),
        whole=whole.responsible,
        about_one=frames.chain,  # "what is responsible for X": the chain that leads to it
    ),
    Intent(
        "meaning",
        N_("what it means"),
        Example(
            "What does `<interpreter trampoline>` mean?",
            "Wat betekent `<interpreter trampoline>`?",
            N_("any frame label: methods, constructors, addresses"),
        ),
    ),
    Intent(
        "self_vs_total",
        N_("self versus total"),
        Example(
            "Why is self 0 when the bar is so wide?",
            "Waarom is self 0 terwijl de balk zo breed is?",
            N_("self vs total, with this profile's numbers"),
        ),
    ),
    Intent(
        "chain",
        N_("the call chain"),
        Example(
            "Show me the call chain to the biggest {thing}",
            "Laat de aanroepketen naar de grootste {thing} zien",
            N_("the chain read bottom to top"),
        ),
        about_one=frames.chain,
    ),
    Intent(
        "optimise",
        N_("what to optimise"),
        Example(
            "What should I optimise first?",
            "Wat moet ik eerst optimaliseren?",
            N_("candidates with high self, and what changes them"),
        ),
        whole=whole.optimise,
    ),
    Intent(
        "skip",
        N_("what can be ignored"),
        Example("What can I ignore?", "Wat kan ik negeren?", N_("orchestrators, interpreter frames, small functions")),
        whole=whole.skip,
        about_one=concepts.skip_one,
    ),
    Intent(
        "total",
        N_("the total"),
        Example("What is the total?", "Wat is het totaal?", N_("the total and what the values mean")),
        whole=whole.total,
    ),
    Intent(
        "category",
        N_("the size of a category"),
        Example(
            "How much is the KV cache?",
            "Hoeveel is de KV-cache?",
            N_("a category's size and share (GPU memory)"),
            needs_categories=True,
        ),
    ),
    Intent(
        "knob",
        N_("which setting changes it"),
        Example(
            "Which flag controls the KV cache size?",
            "Welke vlag bepaalt de grootte van de KV-cache?",
            N_("the settings that change a category or a frame"),
        ),
    ),
    Intent(
        "howto",
        N_("how to read the flame graph"),
        Example(
            "How do I read this flame graph?", "Hoe lees ik deze flame graph?", N_("the graph and Grafana's panel")
        ),
        whole=concepts.howto,
    ),
    Intent(
        "compare",
        N_("a comparison with the baseline"),
        Example(
            "What changed compared with the baseline?",
            "Wat is er veranderd ten opzichte van de baseline?",
            N_("needs a baseline profile"),
        ),
        whole=reports.compare,
    ),
    Intent(
        "handoff",
        N_("an on-call handoff"),
        Example(
            "Write me a summary for the on-call handoff",
            "Schrijf een samenvatting voor de dienstoverdracht",
            N_("a short handoff summary"),
        ),
        whole=reports.handoff,
    ),
    Intent(
        "callers",
        N_("who calls it"),
        Example("Who calls the first one?", "Wie roept de eerste aan?", N_("a function's callers, heaviest first")),
        about_one=frames.callers,
    ),
    Intent(
        "callees",
        N_("what it calls"),
        Example("What does the first one call?", "Wat roept de eerste aan?", N_("what a function calls")),
        about_one=frames.callees,
    ),
    Intent(
        "function",
        N_("this function's numbers"),
        Example("How much does the first one use?", "Hoeveel gebruikt de eerste?", N_("one function's self and total")),
        about_one=frames.function,
    ),
    Intent(
        "overview",
        N_("an overview"),
        Example(
            "Give me an overview of this profile", "Geef een overzicht van dit profiel", N_("the profile at a glance")
        ),
        whole=reports.overview,
    ),
    Intent(
        "assess",
        N_("whether this profile looks normal"),
        Example(
            "Does this look ok?",
            "Ziet dit er goed uit?",
            N_("what stands out, and whether to worry"),
        ),
        whole=assess.assess,
    ),
    Intent(
        "setting",
        N_("a vLLM or PyTorch setting"),
        Example(
            "Should I set expandable_segments?",
            "Moet ik expandable_segments aanzetten?",
            N_("vLLM and PyTorch settings, with the releases they hold for and their risks"),
        ),
    ),
    Intent(
        "visibility",
        N_("what the profile cannot see"),
        Example(
            "Where is the rest? nvidia-smi says more",
            "Waarom zegt nvidia-smi meer?",
            N_("what the profile cannot see, reconciled with the GPU budget"),
            needs_categories=True,
        ),
    ),
    Intent(
        "help",
        N_("what I can answer"),
        Example("What can you answer?", "Wat kun je beantwoorden?", N_("this list")),
        whole=_help,
    ),
    Intent("unknown", N_("something I did not recognise"), None),
)

BY_ID: dict[str, Intent] = {i.id: i for i in INTENTS}


def intent(intent_id: str) -> Intent:
    """The record of an intent id the reader returned (an id it does not know reads as "unknown")."""
    return BY_ID.get(intent_id, BY_ID["unknown"])


def examples(resource: str, verb: str) -> tuple[tuple[str, str, str], ...]:
    """(question, what it answers, the intent it reads as): the help text, in English for the resource."""
    thing = "allocation" if verb == "allocated" else "consumer"
    return tuple(
        (i.example.english.format(resource=resource, thing=thing), i.example.what, i.id)
        for i in INTENTS
        if i.example is not None
    )


def examples_nl(resource: str, verb: str) -> tuple[str, ...]:
    """The same questions as a Dutch user would ask them (the reader reads both languages)."""
    thing = "allocatie" if verb == "allocated" else "verbruiker"
    noun = {"GPU memory": "GPU-geheugen", "CPU time": "CPU-tijd", "memory": "geheugen"}.get(resource, resource)
    return tuple(i.example.dutch.format(noun=noun, thing=thing) for i in INTENTS if i.example is not None)


def help_text(w: Writer, unknown: bool) -> str | None:
    ctx = w.ctx
    if unknown:
        w.add(
            w.t(
                "I did not recognise that question. This offline explainer answers these questions about the "
                "loaded profile, with its numbers:"
            ),
            "",
        )
    else:
        w.add(w.t("I can answer these questions about the loaded profile, with its numbers:"), "")
    english = examples(ctx.resource, ctx.verb)
    asked = examples_nl(ctx.resource, ctx.verb) if w.lang == "nl" else tuple(q for q, _, _ in english)
    for question, (_, what, intent_id) in zip(asked, english, strict=True):
        example = BY_ID[intent_id].example
        if example is not None and example.needs_categories and not ctx.reading.categories:
            continue
        w.add(f"- *{question}*: {w.t(what)}")
    rows = ctx.summary.top_self.rows
    if rows:
        w.add("", w.t("Name a function in backticks, e.g. *What is {name}?*", name=w.name(rows[0].name)))
    return None
