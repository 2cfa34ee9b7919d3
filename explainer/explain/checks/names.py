"""Finding a profile's functions from the way people (and models) write them.

People write ``GPUModelRunner > _allocate_kv_cache_tensors``, ``GPUModelRunner._allocate_kv_cache_tensors``,
``_allocate_kv_cache_tensors()`` or ``0x7f15...`` for the same bar. Names are normalised (the
three method separators and ``::`` become ``.``, a trailing ``()`` goes, case is folded) and
indexed by their full form and by their last one to three components.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from explainer.lazyre import lazy
from explainer.symbols import clean

_SEPARATORS = re.compile(r"\s+>\s+|\s+/\s+|::|/")
_SPACES = re.compile(r"\s+")
_ELLIPSIS = lazy(r"(\.\.\.|…)$")
_HEX_PREFIX = lazy(r"^0x[0-9a-f]+$")
# plain lower-case words ("run", "launcher") are left to explicit questions, never guessed from prose
_WORDS = lazy(r"[\s,;?!()\"]+")
_DISTINCTIVE = lazy(r"[._<>:/()\[\]$0-9]|[a-z][A-Z]|^[A-Z]")


def normalize(name: str) -> str:
    text = name.strip().strip("`'\"")
    if "`" in text:
        text = text.replace("`", "'")
    if " " in text or ":" in text or "/" in text or "\t" in text:  # the regexes only when they can match
        text = _SPACES.sub(" ", _SEPARATORS.sub(".", text))
    if text.endswith("()"):
        text = text[:-2]
    return text.casefold()


def tails(norm: str, depth: int = 3) -> list[str]:
    """``a.b.c.d`` -> ``[d, c.d, b.c.d]``; separators inside ``<...>`` are left alone."""
    if "." not in norm or norm.startswith(("<", "0x")):  # one part (most native names): no tail
        return []
    parts = norm.split(".")
    return [".".join(parts[-k:]) for k in range(1, min(depth, len(parts) - 1) + 1) if parts[-k]]


class NameIndex:
    """Normalised lookup over one profile's function names."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = names
        self.exact: dict[str, list[int]] = {}
        self.tail: dict[str, list[int]] = {}
        for fid, name in enumerate(names):
            self._put(normalize(name), fid)
            if not (name.isascii() and name.isprintable()):
                cleaned = normalize(clean(name, 10_000))  # the cleaned form answers show for hostile names
                if cleaned != normalize(name):
                    self._put(cleaned, fid)
        self._heads: set[str] | None = None

    def _put(self, key: str, fid: int) -> None:
        self.exact.setdefault(key, []).append(fid)
        for t in tails(key):
            self.tail.setdefault(t, []).append(fid)

    def resolve(self, text: str) -> list[int]:
        """Ids of the functions ``text`` names: exact, then by last components, then address prefix."""
        norm = normalize(text)
        if not norm:
            return []
        if norm in self.exact:
            return list(self.exact[norm])
        if norm in self.tail:
            return list(self.tail[norm])
        stem = _ELLIPSIS.sub("", norm)
        if len(stem) >= 5 and (stem != norm or _HEX_PREFIX.match(stem)):
            # "0x7f15..." or a long name shown cut short with an ellipsis
            return [i for key, ids in self.exact.items() if key.startswith(stem) for i in ids]
        return []

    def search(self, text: str, limit: int = 50) -> list[int]:
        """Ids whose name contains ``text`` (case-insensitive, separators normalised)."""
        norm = normalize(text)
        if not norm:
            return []
        out: dict[int, None] = {}  # a hostile name is indexed twice (raw and cleaned): count it once
        for key, ids in self.exact.items():
            if norm in key:
                out.update(dict.fromkeys(ids))
                if len(out) >= limit:
                    break
        return list(out)[:limit]

    def known(self, text: str) -> bool:
        """Is ``text`` a function of the profile, or the class, package or module of one?"""
        return bool(self.resolve(text)) or normalize(text) in self.heads

    @property
    def heads(self) -> set[str]:
        """Every leading part of a dotted name (``a.b`` of ``a.b.c``): classes, packages, modules."""
        if self._heads is None:
            heads: set[str] = set()
            for key in self.exact:
                if key.startswith(("<", "0x")):
                    continue
                parts = key.split(".")
                heads.update(".".join(parts[:k]) for k in range(1, len(parts)))
            self._heads = heads
        return self._heads

    def find_in(self, question: str) -> list[int]:
        """The longest profile name written somewhere in ``question`` as one word.

        Words are looked up, not names searched, so this costs the same for 50 or 50,000 names.
        A word matches a full name, or the last components of a dotted one when they are
        distinctive (``_allocate_kv_cache_tensors``, ``LlamaMLP.__init__``); plain lower-case
        words ("run", "main") are never guessed from prose.
        """
        best: list[int] = []
        best_len = 0
        for raw in _WORDS.split(question):
            word = raw.strip(".:;!?'\"`,")
            if len(word) < 4 or len(word) <= best_len:
                continue
            norm = normalize(word)
            ids = self.exact.get(norm) or (self.tail.get(norm) if _DISTINCTIVE.search(word) else None)
            if ids and (_DISTINCTIVE.search(word) or "_" in word):
                best, best_len = list(ids), len(word)
        return best
