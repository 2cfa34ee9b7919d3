"""Untrusted text into Markdown, in one place: the edge where names, labels and a model's text
meet a page, a report or a chat.

A profile's function names and labels are chosen by whoever runs the profiled process, so none
of them may format, link or embed anything. Every surface writes them through these three:

- :func:`code`: a name as one code span, cleaned and capped, its backticks neutralised and its
  pipes escaped, so it stays one cell in a table;
- :func:`exact_code`: text that must stay exact (a selector, a command), fenced by more backticks
  than any run inside it;
- :func:`text`: prose with every character that could format escaped.
"""

from __future__ import annotations

import re

from explainer.symbols import clean

NAME_LIMIT = 120
_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&])")


def code(name: str, limit: int = NAME_LIMIT) -> str:
    """``name`` as a code span that is also safe in a table cell."""
    safe = clean(name[: limit + 1], limit)  # slice first: names can be 100 KB
    return "`" + safe.replace("`", "'").replace("|", "\\|") + "`"


def exact_code(text: str, limit: int = 600) -> str:
    """``text`` as one exact code span: the fence is longer than any backtick run inside it."""
    safe = clean(text, limit)
    runs = [len(r) for r in re.findall(r"`+", safe)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if safe.startswith("`") or safe.endswith("`") else ""
    return f"{fence}{pad}{safe}{pad}{fence}"


def no_html(value: str) -> str:
    """Text that may hold Markdown (a model's) with every angle bracket neutralised: no raw HTML."""
    return value.replace("<", "&lt;").replace(">", "&gt;")


def text(value: str, limit: int = 200) -> str:
    """Untrusted prose: cleaned, capped, every character that could format escaped."""
    return _SPECIAL.sub(r"\\\1", clean(value, limit))


def first_sentence(value: str, limit: int = 300) -> str:
    """The first sentence of our own prose (a knowledge-base explanation), cut at a clause boundary,
    else at a word, with an ellipsis when it is still longer than ``limit``: the one sentence cutter
    the chat and the reports share."""
    value = " ".join(value.split())
    head, dot, _ = value.partition(". ")
    value = head + "." if dot else value
    if len(value) <= limit:
        return value
    cut = max(value.rfind(sep, 0, limit - 1) for sep in ("; ", ", ", ": ", " ("))
    if cut < limit // 3:
        cut = value.rfind(" ", 0, limit - 1)
    if cut <= 0:
        cut = limit - 1
    return value[:cut].rstrip(" ,;:") + "…"
