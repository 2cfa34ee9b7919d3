"""How many functions a question asks for: "the top 3", "five biggest allocators", "de 3 grootste functies".

A number counts only where it stands as a count of a ranking: after "top", "first" or "eerste", or
before a ranking word ("3 biggest", "10 hottest functions"). Every other number in a question is
data: "python 3.11", "8 gpus", "the last 30 minutes", "gpu 0".
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from explainer.explain.question.lexicon import words

MAX_ROWS = 50
"""The most rows an answer lists; a larger count is answered with this many, and says so."""

_WORDS = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30, "fifty": 50,
    "twee": 2, "drie": 3, "vier": 4, "vijf": 5, "zes": 6, "zeven": 7, "acht": 8, "negen": 9, "tien": 10,
    "elf": 11, "twaalf": 12, "vijftien": 15, "twintig": 20, "dertig": 30, "vijftig": 50,
}  # fmt: skip
"""Number words that count: "one" and "een" are not among them ("the top one" and "which one" point at a
function, an ordinal; "een functie" is "a function")."""
_BEFORE = frozenset({"top", "first", "eerste", "bovenste", "next", "volgende", "nog"})
"""Words a count follows: "top 5", "the first 10", "the next 5", "nog 3"."""
_RANKING = frozenset({
    "biggest", "largest", "heaviest", "hottest", "worst", "greatest", "costliest", "busiest", "highest", "main",
    "top", "most", "widest", "fattest", "hungriest", "slowest", "expensive", "offenders", "culprits", "hogs",
    "consumers", "allocators", "hotspots", "functions", "funcs", "methods", "frames", "things", "items",
    "candidates", "entries", "callers", "callees", "paths", "places", "spots", "options", "suspects", "rows",
    "results", "users", "eaters", "spenders", "chains", "sites", "more", "meer", "allocations", "allocs", "objects",
    "classes", "packages", "modules", "libraries", "handlers", "goroutines", "burners", "allocaties", "objecten",
    "klassen", "pakketten",
    "grootste", "zwaarste", "duurste", "meeste", "hoogste", "breedste", "traagste", "functies", "methodes",
    "boosdoeners", "verbruikers", "dingen", "plekken", "opties", "kandidaten", "resultaten", "paden",
})  # fmt: skip
"""Words a count stands before: "3 biggest", "five functions", "de 3 grootste"."""
_MODIFIERS = frozenset({
    "code", "memory", "cpu", "gpu", "heap", "allocation", "call", "hot", "java", "python", "go", "node", "ruby",
    "geheugen", "grote",
})  # fmt: skip
"""Words between a count and its ranking word: "4 code paths", "3 memory hogs", "5 allocation sites"."""
_MEASURES = frozenset({
    "seconds", "second", "secs", "sec", "s", "minutes", "minute", "mins", "min", "m", "hours", "hour", "hrs", "h",
    "days", "day", "ms", "milliseconds", "percent", "pct", "procent", "gb", "gib", "mb", "mib", "kb", "bytes",
    "steps", "requests", "calls", "samples", "seconden", "minuten", "uur", "uren", "dagen",
})  # fmt: skip
"""Units after a number make it a measure, not a count: "the first 5 minutes", "the top 10 percent"."""


def _number(word: str) -> int | None:
    if word.isdigit():
        return int(word) if len(word) <= 6 else None
    return _WORDS.get(word)


_PERCENT = re.compile(r"(\d)\s*%")


def count_in(text: str) -> int | None:
    """The number of functions ``text`` asks for ("top 10%" is a share: its sign would be lost to the words)."""
    return count_asked(words(_PERCENT.sub(r"\1 percent", text)))


def count_asked(tokens: Sequence[str]) -> int | None:
    """The number of functions asked for (at least 1, uncapped: see :data:`MAX_ROWS`), or None."""
    for i, word in enumerate(tokens):
        if word.startswith("top") and word[3:].isdigit() and int(word[3:]) > 0:  # "top10"
            return int(word[3:])
        n = _number(word)
        if n is None or n <= 0:
            continue
        before = tokens[i - 1] if i else ""
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        if after in _MODIFIERS:
            after = tokens[i + 2] if i + 2 < len(tokens) else ""
        if before in _BEFORE and after not in _MEASURES:
            return n
        if after in _RANKING:
            return n
    return None


_FILLER = frozenset({
    "give", "gimme", "me", "us", "show", "list", "just", "only", "the", "a", "pls", "please", "plz", "and", "then",
    "ok", "so", "like", "i", "want", "need", "max", "at", "with", "of", "them", "those", "options", "can", "you",
    "could", "some", "few", "what", "whats", "comes", "come", "is", "are", "any", "kun", "je", "wat", "komt",
    "geef", "toon", "noem", "alleen", "de", "het", "maar", "graag", "aub", "en", "dan", "mij", "ons", "er",
})  # fmt: skip


_COUNT_ONLY = _FILLER | _RANKING | _BEFORE | _MODIFIERS
"""The words of a part that only says how many."""


def only_a_count(tokens: Sequence[str]) -> bool:
    """Whether a part of a question only says how many ("give me 3 options", "top 5 pls", "alleen de top 3"):
    it asks nothing of its own but counts the part before it."""
    return count_asked(tokens) is not None and all(w in _COUNT_ONLY or _number(w) is not None for w in tokens)


MORE_ROWS = 5
"""How many more rows "show me more" lists when it gives no number."""
_REST = frozenset({"rest", "remaining", "overige", "overig"})
"""Words for all that is left: "and the rest?" lists up to :data:`MAX_ROWS` more."""
_AGAIN = frozenset({"more", "moar", "meer", "next", "volgende", "verder", "else", "continue", "going"}) | _REST
_NOT_AGAIN = frozenset({
    "about", "than", "uses", "use", "using", "used", "does", "takes", "zoveel", "veel", "dan", "over",
    "look", "do", "should", "kijk", "doen", "moet", "first", "second", "which", "welke", "why", "waarom",
})  # fmt: skip
"""Words that make "more" or "next" something else: "tell me more about it", "which uses more", "what next"."""
_THEN = frozenset({
    "nog", "after", "that", "those", "these", "ones", "on", "list", "op", "lijst", "er", "die", "keep", "go", "too",
    "as", "well", "also", "ook", "laten", "zien", "tonen", "door", "ga", "in", "ranking", "include", "add",
    "actually", "thanks", "could", "ticket", "to", "for", "now", "please",
})  # fmt: skip
"""The rest of a request for more: "what comes after those", "toon er nog 3", "could you include the next 4 too"."""
_GOING_ON = _COUNT_ONLY | _AGAIN | _THEN
"""The words of a request for more of the list."""


def continues(tokens: Sequence[str]) -> bool:
    """Whether a short follow-up asks for more of the list before it: "show me 3 more", "next 5", "and the
    rest?", "de volgende 5", "toon er nog 3". A question with a function, a comparison or a plan in it does not."""
    pairs = set(itertools.pairwise(tokens))
    marked = bool(_AGAIN & set(tokens)) or any(
        (a == "after" and b in ("that", "those", "these", "them")) or (a == "nog" and _number(b) is not None)
        for a, b in pairs
    )
    if not 0 < len(tokens) <= 20 or not marked or _NOT_AGAIN & set(tokens):
        return False
    return all(w in _GOING_ON or _number(w) is not None for w in tokens)


def more_asked(tokens: Sequence[str]) -> int:
    """How many more rows a continuation asks for: its number, all that is left for "the rest", else
    :data:`MORE_ROWS`."""
    return count_asked(tokens) or (MAX_ROWS if _REST & set(tokens) else MORE_ROWS)
