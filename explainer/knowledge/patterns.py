"""The curated regular expressions of ``frames.toml``, matched in file order, compiled only where a
name can match.

All of them as one alternation cost about 9 ms of CPU to compile (``re``'s parser is Python) in
every process that classifies a frame, ``analyze`` on a 1 KB file too, and 10 us a name to match
(66 alternatives tried in turn). So each pattern is split into *pieces*, its alternatives written
out (``^(take_gil|drop_gil)$`` is ``take_gil$`` or ``drop_gil$``), and each piece is filed under
the first :data:`KEY` characters every match of it starts with, read off its syntax, or when it has
none (``\\w*Worker\\w*\\.load_model$``) under the last ones every match ends with; the few left are
filed under nothing. A name is tried against the groups its own first and last characters name,
and the group of the few; each group is one alternation, compiled the first time a name needs it.

The answer is the one the whole alternation gives: a pattern matches exactly when one of its
pieces does, a piece filed under other characters cannot match the name, and each group keeps the
file order, so the lowest of the groups' first matches is the first in the file
(``tests/test_frame_patterns.py`` holds every name of the real profiles, the demos and the
generator's profile to that).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# a pattern's text as tokens: an escape, a class, a counted repeat, a run of characters that stand
# for themselves (outside a class only these are syntax, no VERBOSE flag is used), one other character
_TOKEN = re.compile(r"\\.|\[\^?\]?(?:\\.|[^\]\\])*\]|\{\d*(?:,\d*)?\}|[^\\\[(){}|?*+.^$]+|.", re.DOTALL)
_QUANTIFIERS = ("?", "*", "+", "{")
# what the splitting does not read: named groups and back-references (a copy would repeat or
# renumber them), inline flags (``(?i)`` makes literals match other characters), numeric escapes
_UNREAD = re.compile(r"\(\?(P|[aiLmsux-])|\\[0-9xuUN]")
KEY = 3  # pieces are filed under up to this many of their leading (or trailing) characters

Tokens = list[str]


def _closing(tokens: Tokens) -> dict[int, int]:
    """Each group's opening token -> its closing token (an unclosed group is left out)."""
    out, opened = {}, []
    for i, t in enumerate(tokens):
        if t == "(":
            opened.append(i)
        elif t == ")" and opened:
            out[opened.pop()] = i
    return out


def alternatives(tokens: Tokens) -> list[Tokens]:
    """``tokens`` split at their top-level ``|``."""
    out, depth, start = [], 0, 0
    for i, t in enumerate(tokens):
        depth += (t == "(") - (t == ")")
        if t == "|" and depth == 0:
            out.append(tokens[start:i])
            start = i + 1
    return [*out, tokens[start:]]


def _inside(tokens: Tokens, start: int, end: int) -> Tokens | None:
    """The pattern of the group from ``tokens[start]`` to ``tokens[end]`` when it is a plain or
    ``(?:`` group (not a look-around, a named group, flags)."""
    if tokens[start + 1 : start + 2] != ["?"]:
        return tokens[start + 1 : end]
    after = tokens[start + 2] if start + 2 < end else ""
    return ([after[1:]] if len(after) > 1 else []) + tokens[start + 3 : end] if after[:1] == ":" else None


def _expand(seq: Tokens) -> list[Tokens]:
    """A sequence as sequences without a leading group or a group before its final ``$``:
    ``(a|b)c`` is ``ac`` or ``bc``, ``c(a|b)$`` is ``ca$`` or ``cb$``."""
    closing = _closing(seq)
    end = closing.get(0) if seq[:1] == ["("] else None
    if end is not None and end + 1 < len(seq) and seq[end + 1][0] in _QUANTIFIERS:
        end = None  # a group that may repeat or be absent stays whole
    inside = _inside(seq, 0, end) if end is not None else None
    if end is not None and inside is not None:
        # each alternative holds no top-level ``|``, so written before the rest it is that sequence
        return [piece for choice in alternatives(inside) for piece in _expand(choice + seq[end + 1 :])]
    if seq[-2:] == [")", "$"]:
        start = next((o for o, c in closing.items() if c == len(seq) - 2), None)
        inside = _inside(seq, start, len(seq) - 2) if start is not None else None
        choices = alternatives(inside) if inside is not None else []
        # a choice starting with ``{`` would quantify what is before it
        if start is not None and choices and not any(c and c[0][0] in _QUANTIFIERS for c in choices):
            return [piece for choice in choices for piece in _expand(seq[:start] + choice + ["$"])]
    return [seq]


def pieces(body: str) -> list[str]:
    """``body`` (a pattern without its ``^``) as sequences that together match what it matches: its
    top-level alternatives, each leading or final group's alternatives written out."""
    return [body] if _UNREAD.search(body) else ["".join(piece) for piece in _pieces(body)]


def _pieces(body: str) -> list[Tokens]:
    return [piece for alt in alternatives(_TOKEN.findall(body)) for piece in _expand(alt)]


def _plain(token: str) -> str | None:
    """The characters a token stands for when it is plain (a run, or ``\\.`` for ``.``), else None."""
    if token[0] == "\\":
        return token[1] if len(token) == 2 and not token[1].isalnum() else None
    return token if token[0] not in ".^$|()[{}?*+" else None


def literal_affixes(piece: str) -> tuple[str, str]:
    """The plain characters every match of ``piece`` starts with, and those it ends with when it
    ends with ``$`` (which also matches before a final newline: :meth:`PatternIndex.first` looks at
    both ends). Nothing for a piece with a top-level ``|`` or syntax this does not read."""
    return ("", "") if _UNREAD.search(piece) else _affixes(_TOKEN.findall(piece))


def _affixes(tokens: Tokens) -> tuple[str, str]:
    if "|" in tokens and len(alternatives(tokens)) > 1:
        return "", ""
    prefix = ""
    for i, token in enumerate(tokens):
        plain = _plain(token)
        if plain is None:
            break
        if i + 1 < len(tokens) and tokens[i + 1][0] in _QUANTIFIERS:  # its last character may repeat or be absent
            prefix += plain[:-1]
            break
        prefix += plain
    suffix = ""
    if tokens and tokens[-1] == "$":
        for token in reversed(tokens[:-1]):  # walking back from ``$``, a quantifier or ``)`` ends the run
            plain = _plain(token)
            if plain is None:
                break
            suffix = plain + suffix
    return prefix, suffix


class PatternIndex:
    """The first of ``bodies`` (patterns without their ``^``, in file order) matching at the start of
    a name, each group of pieces compiled on first use."""

    def __init__(self, bodies: Sequence[str]) -> None:
        # pieces by the first KEY characters of their literal prefix, else by the last KEY of their
        # literal suffix, else under ``(False, "")``: tried on every name. ``_needs``: a group's whole
        # prefixes (suffixes), one of which a name must start (end) with before the group is compiled
        self._pieces: dict[tuple[bool, str], dict[int, list[str]]] = {}
        affixes: dict[tuple[bool, str], set[str]] = {}
        for k, body in enumerate(bodies):
            readable = not _UNREAD.search(body)
            for tokens in _pieces(body) if readable else [[body]]:
                piece = "".join(tokens)
                prefix, suffix = _affixes(tokens) if readable else ("", "")
                end = bool(suffix) and not prefix
                key = (end, suffix[-KEY:] if end else prefix[:KEY])
                self._pieces.setdefault(key, {}).setdefault(k, []).append(piece)
                affixes.setdefault(key, set()).add(suffix if end else prefix)
        self._needs = {key: tuple(sorted(whole)) for key, whole in affixes.items()}
        self._compiled: dict[tuple[bool, str], re.Pattern[str]] = {}

    def _group(self, key: tuple[bool, str]) -> re.Pattern[str]:
        compiled = self._compiled.get(key)
        if compiled is None:
            # one alternation tried left to right is the loop over the patterns: nothing follows
            # the alternatives, so entry K's group matches exactly when one of its pieces matches
            members = sorted(self._pieces[key].items())
            alternation = "|".join(f"(?P<_{k}>{'|'.join(ps)})" for k, ps in members)
            compiled = self._compiled[key] = re.compile(f"^(?:{alternation})")
        return compiled

    def _candidates(self, name: str) -> list[tuple[bool, str]]:
        """The groups a match of ``name`` can be in: those its first and last characters name whose
        whole prefix (suffix) it has (``$`` also matches before a final newline)."""
        out = []
        for n in range(min(len(name), KEY) + 1):
            needs = self._needs.get((False, name[:n]))
            if needs is not None and name.startswith(needs):
                out.append((False, name[:n]))
        for e in (name, name[:-1]) if name.endswith("\n") else (name,):
            for n in range(1, min(len(e), KEY) + 1):
                needs = self._needs.get((True, e[-n:]))
                if needs is not None and e.endswith(needs):
                    out.append((True, e[-n:]))
        return out

    def first(self, name: str) -> int | None:
        """The index of the first pattern that matches ``name`` at its start, or None."""
        best: int | None = None
        for key in self._candidates(name):
            m = self._group(key).match(name)
            if m is not None and m.lastgroup:
                k = int(m.lastgroup[1:])
                best = k if best is None else min(best, k)
        return best

    def compile_all(self) -> None:
        """Compile every group now: the CLI's warm-up, and a test that every curated pattern is valid."""
        for key in self._pieces:
            self._group(key)
