"""A regular expression compiled on first use, for patterns a module holds but not every run needs.

``re.compile`` costs 0.1-1 ms a pattern (more for long alternations), paid when a module is imported.
The question reader and the answer checks hold dozens; a file's ``ask`` uses a handful of them, so the
rest are :func:`lazy`: written where they were, with the same methods, compiled when first asked.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

_MAX = 2**63 - 1  # re's own default for endpos


class LazyPattern:
    """``re.compile(pattern, flags)``, done on the first search, match or substitution."""

    __slots__ = ("_compiled", "flags", "pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, self.flags)
        return self._compiled

    def search(self, string: str, pos: int = 0, endpos: int = _MAX) -> re.Match[str] | None:
        return self.compiled.search(string, pos, endpos)

    def match(self, string: str, pos: int = 0, endpos: int = _MAX) -> re.Match[str] | None:
        return self.compiled.match(string, pos, endpos)

    def fullmatch(self, string: str, pos: int = 0, endpos: int = _MAX) -> re.Match[str] | None:
        return self.compiled.fullmatch(string, pos, endpos)

    def finditer(self, string: str, pos: int = 0, endpos: int = _MAX) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(string, pos, endpos)

    def findall(self, string: str, pos: int = 0, endpos: int = _MAX) -> list[Any]:
        return self.compiled.findall(string, pos, endpos)

    def split(self, string: str, maxsplit: int = 0) -> list[str | Any]:
        return self.compiled.split(string, maxsplit)

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> str:
        return self.compiled.sub(repl, string, count)

    def subn(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> tuple[str, int]:
        return self.compiled.subn(repl, string, count)


def lazy(pattern: str, flags: int = 0) -> LazyPattern:
    """A pattern written at module level and compiled on first use (``flags`` as :func:`re.compile`'s)."""
    return LazyPattern(pattern, flags)
