"""Label selectors in Prometheus metric-selector syntax, as Pyroscope parses them.

A user's ``--selector`` is parsed and written back out canonically rather than passed on
verbatim: quotes and backslashes in values are then always escaped the same way, a typo is
reported here with its position instead of as the server's opaque 400, and ``--label``
values can be added without the user escaping anything.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from explainer.errors import QueryError, SelectorError
from explainer.symbols import clean

_LABEL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_OPS = ("=~", "!~", "!=", "=")  # two-character operators first
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "`": "`"}
_RENDER = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


@dataclass(frozen=True, slots=True)
class Matcher:
    name: str
    op: str
    value: str

    def __str__(self) -> str:
        return f'{self.name}{self.op}"{escape_value(self.value)}"'


def escape_value(value: str) -> str:
    """A label value as a double-quoted selector string body: ``\\`` and ``"`` escaped, controls as escapes."""
    out = []
    for ch in value:
        out.append(_RENDER.get(ch) or (f"\\u{ord(ch):04x}" if ord(ch) < 0x20 or ch == "\x7f" else ch))
    return "".join(out)


def render_selector(matchers: Iterable[Matcher]) -> str:
    return "{" + ",".join(str(m) for m in matchers) + "}"


def build_selector(selector: str = "{}", labels: Iterable[tuple[str, str]] = ()) -> str:
    """The canonical selector: ``selector`` parsed and re-escaped, plus ``name="value"`` for each label."""
    matchers = list(parse_selector(selector))
    for name, value in labels:
        if not _LABEL.fullmatch(name):
            raise QueryError(
                f"{clean(name, 60)!r} is not a label name (letters, digits and _; not starting with a digit)"
            )
        matchers.append(Matcher(name, "=", value))
    return render_selector(matchers)


def parse_selector(text: str) -> tuple[Matcher, ...]:
    """``{a="x", b=~"y.*"}`` (braces optional) into matchers.

    Escapes follow Go's string rules (``\\\\``, ``\\"``, ``\\n``, ``\\uXXXX``...), but an unknown
    escape such as ``\\.`` is kept as written: in a regex that is what the user meant, and
    Prometheus would reject the whole selector for it.
    """
    s = text.strip()
    base = len(text) - len(text.lstrip())  # where the body starts in the text as typed
    if not s.startswith("{"):
        if "{" in s:
            raise SelectorError(
                "put the profile type in --profile-type and only {label matchers} in --selector",
                position=base + s.index("{"),
            )
        s = "{" + s + "}"
    else:
        base += 1
    if not s.endswith("}"):
        raise SelectorError(f"the selector must end with '}}': {clean(text, 120)!r}", position=len(text.rstrip()))
    body, i, out = s[1:-1], 0, []
    while True:
        i = _skip(body, i)
        if i == len(body):
            break
        name = _LABEL.match(body, i)
        if not name:
            raise _syntax(text, "a label name", body, i, base)
        i = _skip(body, name.end())
        op = next((o for o in _OPS if body.startswith(o, i)), None)
        if op is None:
            raise _syntax(text, "one of = != =~ !~", body, i, base)
        value, i = _string(text, body, _skip(body, i + len(op)), base)
        out.append(Matcher(name.group(), op, value))
        i = _skip(body, i)
        if i == len(body):
            break
        if body[i] != ",":
            raise _syntax(text, "',' between matchers", body, i, base)
        i += 1
    return tuple(out)


def _skip(body: str, i: int) -> int:
    while i < len(body) and body[i] in " \t\r\n":
        i += 1
    return i


def _syntax(text: str, expected: str, body: str, i: int, base: int) -> SelectorError:
    near = clean(body[i : i + 20], 20) or "the end"
    return SelectorError(f"bad selector {clean(text, 120)!r}: expected {expected} at {near!r}", position=base + i)


def _string(text: str, body: str, i: int, base: int) -> tuple[str, int]:
    if i >= len(body) or body[i] not in "\"'`":
        raise _syntax(text, "a quoted value", body, i, base)
    quote, j, out = body[i], i + 1, []
    while j < len(body) and body[j] != quote:
        ch = body[j]
        if ch == "\\" and quote != "`" and j + 1 < len(body):
            nxt = body[j + 1]
            hex_len = {"u": 4, "x": 2, "U": 8}.get(nxt, 0)
            digits = body[j + 2 : j + 2 + hex_len]
            if hex_len and len(digits) == hex_len and all(c in "0123456789abcdefABCDEF" for c in digits):
                out.append(chr(min(int(digits, 16), 0x10FFFF)))
                j += 2 + hex_len
                continue
            out.append(_ESCAPES.get(nxt, "\\" + nxt))
            j += 2
            continue
        if ch == "\n" and quote != "`":
            break
        out.append(ch)
        j += 1
    if j >= len(body) or body[j] != quote:
        raise SelectorError(f"bad selector {clean(text, 120)!r}: a value's quote is never closed", position=base + i)
    return "".join(out), j + 1
