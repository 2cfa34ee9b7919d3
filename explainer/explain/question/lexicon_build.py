"""``lexicon.toml`` made into the lexicon, and the lexicon into its prebuilt index.

The TOML is the one source of truth. Building from it (parse, normalise every phrase, index by first
word) is what the first question of a process used to pay for; ``python tools/lexicon_index.py``
writes the result as ``lexicon.index.json``, which :func:`explainer.explain.question.lexicon.lexicon`
loads instead, and ``tests/test_lexicon_index.py`` fails when the index is not what this module
makes of the TOML today.
"""

from __future__ import annotations

import json
import tomllib
from typing import Any

from explainer.explain.question.lexicon import FORMAT, Lexicon, Phrase, fingerprint, keep_phrases, words


def build(source: bytes) -> Lexicon:
    """The lexicon from the TOML's bytes."""
    raw = tomllib.loads(source.decode("utf-8"))
    by_first: dict[str, list[Phrase]] = {}
    prefixed: list[Phrase] = []
    vocabulary: set[str] = set()
    for concept, phrases in raw["concepts"].items():
        for text in phrases:
            ws = _phrase_words(text)
            phrase = Phrase(ws, concept)
            vocabulary.update(w.rstrip("*") for w in ws)
            (prefixed if ws[0].endswith("*") else by_first.setdefault(ws[0], [])).append(phrase)
    # longest first; the words break ties only so that every build is the same (a set's order is not)
    polite = sorted({tuple(words(p)) for p in raw["politeness"]["phrases"]}, key=lambda p: (-len(p), p))
    markers = {lang: frozenset(ws) for lang, ws in raw["language"].items()}
    for marks in markers.values():
        vocabulary.update(marks)
    stems = tuple(sorted({w[:-1] for p in prefixed for w in p.words if w.endswith("*")}))
    longest_first = {k: tuple(sorted(v, key=lambda p: -len(p.words))) for k, v in by_first.items()}
    return Lexicon(
        longest_first,
        tuple(prefixed),
        tuple(p for p in polite if p),
        markers,
        frozenset(vocabulary),
        stems,
        frozenset(n.casefold() for n in raw["products"]["names"]),
        frozenset(tuple(words(p)) for p in raw["politeness"].get("leading", [])),
        {k: str(v) for k, v in raw.get("translations", {}).items()},
        {(verb, particle): str(v) for k, v in raw.get("separable", {}).items() for verb, particle in [k.split()]},
        keep_phrases(longest_first),
    )


def _phrase_words(text: str) -> tuple[str, ...]:
    """A lexicon phrase as words; a trailing ``*`` on a word survives normalisation."""
    out: list[str] = []
    for part in text.split():
        stem = "".join(words(part.rstrip("*")))
        out.append(stem + "*" if part.endswith("*") else stem)
    return tuple(w for w in out if w and w != "*")


def index(source: bytes) -> str:
    """The prebuilt index of the TOML ``source``, as the JSON text ``lexicon.index.json`` holds.

    Sets are written sorted and everything else in the lexicon's own order, so the same TOML always
    gives the same bytes (the staleness test compares them).
    """
    lex = build(source)
    data: dict[str, Any] = {
        "format": FORMAT,
        "source": fingerprint(source),
        "by_first": {first: [[p.concept, *p.words] for p in ps] for first, ps in lex.by_first.items()},
        "prefixed": [[p.concept, *p.words] for p in lex.prefixed],
        "politeness": [list(p) for p in lex.politeness],
        "markers": {lang: sorted(marks) for lang, marks in lex.markers.items()},
        "vocabulary": sorted(lex.vocabulary),
        "stems": list(lex.stems),
        "products": sorted(lex.products),
        "leading": sorted(list(p) for p in lex.leading),
        "translations": lex.translations,
        "separable": [[verb, particle, joined] for (verb, particle), joined in lex.separable.items()],
    }
    return json.dumps(data, ensure_ascii=True, separators=(",", ":")) + "\n"
