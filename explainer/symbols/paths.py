"""Splitting ``::`` paths (C++, Rust) without cutting inside ``<...>``, ``(...)`` or ``[...]``."""

from __future__ import annotations

import functools
import re

_OPEN = {"<": ">", "(": ")", "[": "]", "{": "}"}
_CLOSE = {v: k for k, v in _OPEN.items()}


def split_path(n: str, sep: str = "::") -> list[str]:
    """``std::vector<std::pair<a, b>>::push_back`` -> ``["std", "vector<std::pair<a, b>>", "push_back"]``.

    Unbalanced brackets (``operator<``, a label cut short) fall back to a plain split. The scan
    visits brackets and separators only (a regex finds them), never each character in Python: a
    4,096-character ``a::a::…`` label took 5 ms a decode that way, and names are decoded per view."""
    if not any(ch in n for ch in _OPEN):
        return n.split(sep)  # no bracket: nothing can hide a separator
    parts, depth, start = [], 0, 0
    for m in _tokens(sep).finditer(n):
        i, tok = m.start(), m.group()
        if tok in _OPEN and not (tok == "<" and n[max(0, i - 8) : i].endswith("operator")):
            depth += 1
        elif tok in _CLOSE and depth > 0 and not (tok == ">" and n[i - 1 : i] == "-"):
            depth -= 1
        elif tok == sep and depth == 0:
            parts.append(n[start:i])
            start = i + len(sep)
    parts.append(n[start:])
    return parts if depth == 0 else n.split(sep)


@functools.cache
def _tokens(sep: str) -> re.Pattern[str]:
    return re.compile("|".join([re.escape(sep), *(re.escape(c) for c in (*_OPEN, *_CLOSE))]))


def strip_generics(segment: str) -> tuple[str, str]:
    """``Vec<T>`` -> ``("Vec", "<T>")``; the trailing bracket group of one path segment."""
    cut = segment.find("<")
    if cut <= 0 or not segment.endswith(">"):
        return segment, ""
    return segment[:cut], segment[cut:]
