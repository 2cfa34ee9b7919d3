"""Decoding one frame label: the first family in :data:`FAMILIES` whose shape it has."""

from __future__ import annotations

import dataclasses
import functools

from explainer.symbols.families import FAMILIES
from explainer.symbols.model import Symbol, clean, make

MAX_DECODED = 4096  # longer labels are read from their start (hostile or generated names can be huge)


@functools.lru_cache(maxsize=65536)
def decode(name: str, runtime: str | None = None) -> Symbol:
    """Decode one frame label into a :class:`Symbol` with a one-sentence meaning.

    ``runtime`` is the profile's runtime (:func:`guess_runtime`); it settles labels several
    languages write alike. Cached: views decode the same interned names over and over.
    """
    found = _first(name.strip()[:MAX_DECODED], runtime or "")
    # decoders may read a trimmed name (no whitespace, no perf suffix): the symbol shows the label as written
    return found if found.raw == name else dataclasses.replace(found, raw=name, display=clean(name))


def _first(n: str, hint: str) -> Symbol:
    for family in FAMILIES:
        found = family.decode(n, hint)
        if found is not None:
            return found
    return make(n, "function", "a function frame as the profiler named it.", "", ambiguous=True)


UNRESOLVED_KINDS = ("address", "unknown")  # native code without a symbol
_UNRESOLVED_FAMILIES = 2  # markers and addresses: no later family writes those kinds (tests check)


def unresolved(name: str) -> bool:
    """Is ``decode(name).kind`` one of :data:`UNRESOLVED_KINDS`? Decided by the first families alone,
    so a profile's thousands of named leaves are not each tried against every shape."""
    n = name.strip()[:MAX_DECODED]
    for family in FAMILIES[:_UNRESOLVED_FAMILIES]:
        found = family.decode(n, "")
        if found is not None:
            return found.kind in UNRESOLVED_KINDS
    return False


@functools.lru_cache(maxsize=65536)
def family_of(name: str) -> tuple[int, Symbol]:
    """The index in :data:`FAMILIES` of the family that decodes ``name`` without a runtime, and the symbol."""
    n = name.strip()[:MAX_DECODED]
    for i, family in enumerate(FAMILIES):
        found = family.decode(n, "")
        if found is not None:
            return i, found
    return len(FAMILIES), _first(n, "")


def explain_symbol(name: str, runtime: str | None = None) -> str:
    """``name``: meaning — one line."""
    s = decode(name, runtime)
    return f"`{s.display}`: {s.meaning}"
