"""Reading a question: normalise it, find its concepts and subject, score the intents, once.

The result, a :class:`Question`, is passed on to whatever answers it; nothing downstream reads
the question's words again. A question whose best intent does not clearly beat the runner-up is
still answered with the best reading, and says how it was read.
"""

from __future__ import annotations

import itertools
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from explainer import knowledge
from explainer.explain.question import subjects
from explainer.explain.question.lexicon import lexicon, words
from explainer.explain.question.signatures import (
    CARRIES_OVER,
    FOLLOW_UP_SCORE,
    HINT_BONUS,
    HINTS,
    NEEDS_SUBJECT,
    SIGNATURES,
    Signature,
)
from explainer.explain.question.subjects import Names, Subject

MAX_QUESTION_CHARS = 2_000
RUNTIME_KINDS = frozenset({"gc", "kernel", "jit", "scheduler", "interpreter", "unresolved"})
"""Concepts that are a kind of frame: "the kernel" is all of its frames, never its biggest one."""
HOMONYMS = frozenset({"scheduler", "gc", "jit"})
"""Runtime kinds an application may name its own code after (vLLM's ``Scheduler``)."""
MIN_SCORE = 1.0  # below this nothing was recognised: the answer is the suggestions
CLEAR_MARGIN = 0.45  # a best reading this far ahead of the runner-up needs no "I read this as"
INTENTS = (
    "most", "responsible", "self_vs_total", "chain", "callers", "callees", "meaning", "function", "category",
    "knob", "optimise", "skip", "total", "overview", "assess", "compare", "handoff", "howto", "help", "unknown",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Context:
    """What the conversation so far lends a question: its focus and the last ranking shown."""

    topic: Subject | None = None  # what the last answer was about: a function or a concept
    ranking: tuple[str, ...] = ()  # the functions of the last ranked list, in order
    lang: str = "en"
    intent: str | None = None  # what the last question asked


@dataclass(frozen=True, slots=True)
class Question:
    text: str  # cleaned, capped
    lang: str  # en or nl
    intent: str
    score: float
    runner_up: str | None  # the second-best intent, when it came close
    subject: Subject | None
    concepts: frozenset[str]
    top_n: int | None = None  # "the top 5"

    @property
    def ambiguous(self) -> bool:
        return self.runner_up is not None


def clean_question(text: str) -> str:
    """Unicode-normalised, control characters gone, whitespace collapsed, capped."""
    text = unicodedata.normalize("NFKC", text[: MAX_QUESTION_CHARS * 2])
    text = "".join(ch if unicodedata.category(ch)[0] != "C" else " " for ch in text)
    return " ".join(text.split())[:MAX_QUESTION_CHARS]


def read(question: str, names: Names, context: Context = Context()) -> Question:
    text = clean_question(question)
    lex = lexicon()
    explicit = subjects.explicit(text, names)
    typed = words(subjects.without_names(text, keep_quoted=explicit is None))
    tokens = lex.spelled(lex.strip_politeness(typed))
    found = lex.concepts(tokens)
    if explicit is None and any(q and all(lex.knows(w) for w in words(q)) for q in subjects.quoted(text)):
        found.setdefault("meaning", len(tokens))  # a quoted word ("self") asks what the word means
    lang = lex.language(typed, context.lang)  # greetings and thanks say the language too
    subject = explicit or _implicit(tokens, text, found, names, context)
    if subject is None and context.topic is not None and subjects.refers_back(tokens, found):
        subject = context.topic
    scores = _scores(set(found), subject)
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1], INTENTS.index(kv[0])))
    intent, score = ranked[0] if ranked and ranked[0][1] >= MIN_SCORE else ("unknown", 0.0)
    if (
        subject is not None
        and score < FOLLOW_UP_SCORE
        and len(tokens) <= 6
        and context.intent in CARRIES_OVER
        and subject.how != "focus"
    ):
        intent, score = context.intent, FOLLOW_UP_SCORE  # "and the KV cache?": the same question, a new subject
    if intent == "responsible" and subject is context.topic:
        subject = None  # "what is responsible for it?": for the resource the last answer was about, not its frame
    if intent in NEEDS_SUBJECT and subject is None and context.topic is not None:
        subject = context.topic
    runner = ranked[1] if len(ranked) > 1 and intent != "unknown" else None
    close = runner is not None and runner[1] >= MIN_SCORE and score - runner[1] < CLEAR_MARGIN
    return Question(
        text,
        lang,
        intent,
        score,
        runner[0] if close and runner else None,
        subject,
        frozenset(found),
        _top_n(tokens),
    )


def _implicit(tokens: list[str], text: str, found: dict[str, int], names: Names, context: Context) -> Subject | None:
    """A subject the question does not write out: an ordinal, a concept, or a fuzzy match."""
    n = subjects.ordinal(tokens, text)
    if n is not None and _top_n(tokens) is None and 0 < n <= len(context.ranking):
        return Subject("function", context.ranking[n - 1], "ordinal")
    concept = next((c.removeprefix("concept:") for c in found if c.startswith("concept:")), None)
    if concept in HOMONYMS and concept not in names.by_category:
        # a concept word is checked against the profile first: "the scheduler" of a vLLM profile
        # with no runtime scheduler frames is vLLM's own Scheduler
        own = names.own_function(tokens[found["concept:" + concept]])
        if own is not None and knowledge.classify(own) != concept:
            return Subject("function", own, "concept")
    fuzzy, strength = subjects.fuzzy(tokens, names)
    if fuzzy is not None and (concept is None or strength >= 2):
        members = subjects.group(tokens, names) if _GROUP_WORDS & set(tokens) or "overall" in found else ()
        if len(members) > 1:  # "the detokenisation in total", "all the decode functions"
            return Subject("function", members[0], "fuzzy", members=members)
        return Subject("function", fuzzy, "fuzzy")
    if fuzzy is None and concept is None and _GROUP_WORDS & set(tokens):
        members = subjects.group(tokens, names, whole=True)  # "all the flush functions": one whole word will do
        if members:
            return Subject("function", members[0], "fuzzy", members=members)
    as_function = concept not in RUNTIME_KINDS and "function_word" in found  # "the kv cache allocation"
    if concept is not None and as_function and concept in names.by_category:
        return Subject("function", names.by_category[concept], "concept")
    if concept is not None:
        return Subject("concept", concept, "concept")
    return None


_GROUP_WORDS = frozenset({"all", "alle", "together", "samen", "combined", "everything", "alles"})


def _top_n(tokens: Sequence[str]) -> int | None:
    for a, b in itertools.pairwise(tokens):
        if a == "top" and b.isdigit() and 0 < int(b) <= 50:
            return int(b)
    return None


def _scores(found: set[str], subject: Subject | None) -> dict[str, float]:
    best: dict[str, float] = {}
    for sig in SIGNATURES:
        if not _fits(sig, found, subject):
            continue
        score = sig.weight + HINT_BONUS * len(found & HINTS.get(sig.intent, frozenset()))
        if score > best.get(sig.intent, 0.0):
            best[sig.intent] = score
    return best


def _fits(sig: Signature, found: set[str], subject: Subject | None) -> bool:
    if not all(group & found for group in sig.groups):
        return False
    kind = subject.kind if subject is not None else None
    return {
        "any": True,
        "none": kind is None,
        "function": kind == "function",
        "frame": kind in ("function", "missing"),
        "concept": kind == "concept",
        "named": kind is not None,
    }[sig.subject]
