"""Reading the numbers written in a line: each with its kind and every reading of it in base units.

Numbers are read by :mod:`explainer.units`, English or Dutch ("55.1 GB", "55,1 GB", "1.234.567").
Skipped by design: numbers inside code spans (names such as ``0x7f151``), ordered-list markers,
fact ids, URLs, and bare integers up to 10 (ordinals and small counts of things on the screen).
The grounding reads our own texts with it, and the claim check reads answers with it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from explainer import units

_UNITS_RX = "|".join(sorted((re.escape(u) for u in units.UNIT_WORDS if u != "%"), key=len, reverse=True))
_NUMBER = re.compile(
    rf"(?P<lt><\s?)?(?<![\w.,$#/])(?P<num>{units.NUMBER_PATTERN})"
    rf"(?:\s?(?P<unit>%|(?:{_UNITS_RX})(?![\w])))?",
    re.I,
)
_WORDS_RX = "|".join(units.NUMBER_WORDS)
# "4x the weights", "about four times the weights", "twice as much", "vier keer zoveel"
_RATIO = re.compile(
    rf"(?<![\w.,])(?P<num>{units.NUMBER_PATTERN}|{_WORDS_RX})\s?(?:x|×|times|keer)?"
    r"(?=\s+(?:the|as|more|larger|bigger|greater|smaller|higher|lower|what|that|than|its|zo|zoveel|meer|groter|de|het)\b)",
    re.I,
)
_FACTOR = re.compile(rf"\b(?:a )?factor (?:of )?(?:about |roughly |~)?(?P<num>{units.NUMBER_PATTERN})(?!\d)", re.I)
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_MASKS = re.compile(r"\[F\d+\]|https?://\S+|<<<PROFILE_DATA[^\n]*|PROFILE_DATA>>>")
_LIST_MARKER = re.compile(r"^\s*(?:>\s*)*\d+[.)]\s")


@dataclass(frozen=True, slots=True)
class Quantity:
    """A number as written: its kind and every reading of it in base units (value, half-width)."""

    text: str
    start: int
    end: int
    kind: str  # bytes, time, percent, bare, ratio
    readings: tuple[tuple[float, float], ...]
    below: bool = False  # written "<0.1%": any grounded value under it supports it


def mask(line: str) -> str:
    line = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
    return _MASKS.sub(lambda m: " " * len(m.group(0)), line)


def quantities(line: str) -> list[Quantity]:
    masked = mask(line)
    marker = _LIST_MARKER.match(masked)
    out = _ratios(line, masked)
    for m in _NUMBER.finditer(masked):
        if marker and m.start("num") < marker.end():
            continue
        if any(r.start <= m.start("num") < r.end for r in out if r.kind == "ratio"):
            continue
        end = m.end()
        if end < len(masked) and (masked[end].isalnum() or masked[end] == "_") and not m.group("unit"):
            continue  # part of a word: 3rd, 2x, cl100k
        kind, factor = units.unit_word(m.group("unit") or "") or ("bare", 1)
        readings = units.number_readings(m.group("num"))
        if kind == "bare" and all(v <= 10 and h >= 0.5 for v, h in readings):
            continue
        scaled = tuple((v * factor, h * factor * 1.0001) for v, h in readings)
        out.append(Quantity(line[m.start("num") : end], m.start("num"), end, kind, scaled, bool(m.group("lt"))))
    return sorted(out, key=lambda q: q.start)


def _ratios(line: str, masked: str) -> list[Quantity]:
    out = []
    for m in _FACTOR.finditer(masked):
        out.append(
            Quantity(line[m.start() : m.end()], m.start(), m.end(), "ratio", units.number_readings(m.group("num")))
        )
    for m in _RATIO.finditer(masked):
        word = m.group("num").lower()
        readings: tuple[tuple[float, float], ...]
        if word in units.NUMBER_WORDS:
            if word not in ("twice", "double", "dubbel") and not m.group(0)[len(word) :].strip():
                continue  # "four the" is not a ratio; "twice the" is
            readings = ((float(units.NUMBER_WORDS[word]), 0.5),)
        elif m.group(0)[len(word) :].strip():
            readings = units.number_readings(m.group("num"))
        else:
            continue  # a plain number before "the": not a ratio
        out.append(Quantity(line[m.start() : m.end()], m.start(), m.end(), "ratio", readings))
    return out
