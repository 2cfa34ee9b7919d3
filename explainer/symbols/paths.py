"""Splitting ``::`` paths (C++, Rust) without cutting inside ``<...>``, ``(...)`` or ``[...]``."""

from __future__ import annotations

import functools
import re

_OPEN = {"<": ">", "(": ")", "[": "]", "{": "}"}
_CLOSE = {v: k for k, v in _OPEN.items()}


def split_path(n: str, sep: str = "::") -> list[str]:
    """``std::vector<std::pair<a, b>>::push_back`` -> ``["std", "vector<std::pair<a, b>>", "push_back"]``.

    Unbalanced brackets (``operator<``, a label cut short) fall back to a plain split. The scan
    visits brackets and separators only (``re.split`` finds them), never each character in Python: a
    4,096-character ``a::a::…`` label took 5 ms a decode that way, and names are decoded per view."""
    if not any(ch in n for ch in _OPEN):
        return n.split(sep)  # no bracket: nothing can hide a separator
    return list(_split_bracketed(n, sep))


@functools.lru_cache(maxsize=4096)
def _split_bracketed(n: str, sep: str) -> tuple[str, ...]:
    """Cached: a C++ label is split for its head and again for its parts, by every decode of it.
    ``re.split`` cuts the label into text and tokens in C; the loop only counts brackets."""
    pieces = _tokens(sep).split(n)  # text, token, text, token, ..., text
    parts, current, depth = [], [pieces[0]], 0
    for k in range(1, len(pieces), 2):
        tok = pieces[k]
        if tok == sep and depth == 0:
            parts.append("".join(current))
            current = [pieces[k + 1]]
            continue
        step = _STEP.get(tok, 0)  # "operator<" and "->" are tokens that open or close nothing
        if step > 0 or depth > 0:
            depth += step
        current += (tok, pieces[k + 1])
    parts.append("".join(current))
    return tuple(parts if depth == 0 else n.split(sep))


_STEP = {**dict.fromkeys(_OPEN, 1), **dict.fromkeys(_CLOSE, -1)}


@functools.cache
def _tokens(sep: str) -> re.Pattern[str]:
    alternatives = [re.escape(sep), "operator<", "->", *(re.escape(c) for c in (*_OPEN, *_CLOSE))]
    return re.compile("(" + "|".join(alternatives) + ")")


def strip_generics(segment: str) -> tuple[str, str]:
    """``Vec<T>`` -> ``("Vec", "<T>")``; the trailing bracket group of one path segment."""
    cut = segment.find("<")
    if cut <= 0 or not segment.endswith(">"):
        return segment, ""
    return segment[:cut], segment[cut:]
