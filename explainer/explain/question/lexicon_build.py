"""The lexicon's prebuilt index: what :func:`explainer.explain.question.lexicon.build` makes of ``lexicon.toml``.

The TOML is the one source of truth. Building from it (parse, normalise every phrase, index by first
word) is what the first question of a process used to pay for; ``python tools/lexicon_index.py``
writes the result as ``lexicon.index.json``, which :func:`explainer.explain.question.lexicon.lexicon`
loads instead, and ``tests/test_lexicon_index.py`` fails when the index is not what this module
makes of the TOML today.
"""

from __future__ import annotations

import json
from typing import Any

from explainer.explain.question.lexicon import FORMAT, build, fingerprint


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
