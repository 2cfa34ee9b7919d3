"""Splitting ``::`` paths (C++, Rust) without cutting inside ``<...>``, ``(...)`` or ``[...]``."""

from __future__ import annotations

_OPEN = {"<": ">", "(": ")", "[": "]", "{": "}"}
_CLOSE = {v: k for k, v in _OPEN.items()}


def split_path(n: str, sep: str = "::") -> list[str]:
    """``std::vector<std::pair<a, b>>::push_back`` -> ``["std", "vector<std::pair<a, b>>", "push_back"]``.

    Unbalanced brackets (``operator<``, a label cut short) fall back to a plain split."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(n):
        ch = n[i]
        if ch in _OPEN and not (ch == "<" and n[max(0, i - 8) : i].endswith("operator")):
            depth += 1
        elif ch in _CLOSE and depth > 0 and not (ch == ">" and n[i - 1 : i] == "-"):
            depth -= 1
        elif depth == 0 and n.startswith(sep, i):
            parts.append(n[start:i])
            start = i + len(sep)
            i += len(sep)
            continue
        i += 1
    parts.append(n[start:])
    return parts if depth == 0 else n.split(sep)


def strip_generics(segment: str) -> tuple[str, str]:
    """``Vec<T>`` -> ``("Vec", "<T>")``; the trailing bracket group of one path segment."""
    cut = segment.find("<")
    if cut <= 0 or not segment.endswith(">"):
        return segment, ""
    return segment[:cut], segment[cut:]
