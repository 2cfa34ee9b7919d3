"""Checking every number (and function name) in an answer against what the analyzer said.

A :class:`Grounding` collects the exact values behind the facts and the tool results of one
conversation, recorded as they are formatted, so nothing is shown to the model that is not also
known here. A number in an answer passes when the interval its written precision allows (``55.1
GB`` is 55.05 to 55.15 GB; ``51.3 GiB`` is 51.25 to 51.35 GiB) contains a grounded value of the
same kind; units convert, so 55.1 GB and 51.3 GiB both match 55,100,000,000 bytes. What is
skipped, by design: numbers inside code spans (names such as ``0x7f151``), ordered-list markers,
fact ids, and bare integers up to 10 (ordinals and small counts of things on the screen).

Checking is line by line, so a streamed answer can be flagged as it arrives (:class:`LineVerifier`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from explainer import units
from explainer.explain.checks.names import NameIndex, normalize

KINDS = ("bytes", "time", "percent", "bare")
FLAG = " [unverified]"
NAME_FLAG = " [not in this profile]"
GENERIC_NAMES = frozenset({"<module>", "<interpreter trampoline>", "other", "total", "(self)", "(entry point)"})

_UNIT_ALIASES = {
    "%": ("percent", 1.0),
    "percent": ("percent", 1.0),
    "b": ("bytes", 1),
    "byte": ("bytes", 1),
    "bytes": ("bytes", 1),
    "kb": ("bytes", 10**3),
    "mb": ("bytes", 10**6),
    "gb": ("bytes", 10**9),
    "tb": ("bytes", 10**12),
    "kib": ("bytes", 2**10),
    "mib": ("bytes", 2**20),
    "gib": ("bytes", 2**30),
    "tib": ("bytes", 2**40),
    "kilobytes": ("bytes", 10**3),
    "megabytes": ("bytes", 10**6),
    "gigabytes": ("bytes", 10**9),
    "terabytes": ("bytes", 10**12),
    "gibibytes": ("bytes", 2**30),
    "mebibytes": ("bytes", 2**20),
    "ns": ("time", 1),
    "nanoseconds": ("time", 1),
    "µs": ("time", 10**3),
    "us": ("time", 10**3),
    "microseconds": ("time", 10**3),
    "ms": ("time", 10**6),
    "milliseconds": ("time", 10**6),
    "s": ("time", 10**9),
    "sec": ("time", 10**9),
    "second": ("time", 10**9),
    "seconds": ("time", 10**9),
    "min": ("time", 60 * 10**9),
    "minute": ("time", 60 * 10**9),
    "minutes": ("time", 60 * 10**9),
    "h": ("time", 3600 * 10**9),
    "hour": ("time", 3600 * 10**9),
    "hours": ("time", 3600 * 10**9),
}
_UNITS_RX = "|".join(sorted((re.escape(u) for u in _UNIT_ALIASES if u != "%"), key=len, reverse=True))
_NUMBER = re.compile(
    r"(?P<lt><\s?)?(?<![\w.,$#/])(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    rf"(?:\s?(?P<unit>%|(?:{_UNITS_RX})(?![\w])))?",
    re.I,
)
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_MASKS = re.compile(r"\[F\d+\]|https?://\S+|<<<PROFILE_DATA[^\n]*|PROFILE_DATA>>>")
_LIST_MARKER = re.compile(r"^\s*(?:>\s*)*\d+[.)]\s")
_DOTTED = re.compile(r"(?<![\w/.`])([A-Za-z_][\w]*(?:(?:\.|::)[A-Za-z_<][\w<>]*)+)(?:\(\))?(?![\w`])")
_FILE_EXT = re.compile(r"\.(py|so|md|txt|json|gz|pb|toml|yaml|yml|html|com|org|io|net|ai|dev|cfg|ini|sh|log)$", re.I)
# how a bare number in a table under a "GB" or "ms" header may scale a grounded value
_SCALES = {
    "bytes": (1, 10**3, 10**6, 10**9, 10**12, 2**10, 2**20, 2**30, 2**40),
    "time": (1, 10**3, 10**6, 10**9, 60 * 10**9, 3600 * 10**9),
}


def _interval(num: str, factor: float) -> tuple[float, float]:
    value = float(num.replace(",", ""))
    decimals = len(num.split(".", 1)[1]) if "." in num else 0
    half = 0.5 * 10.0**-decimals * factor * 1.0001
    return value * factor, half


@dataclass
class Grounding:
    """The values an answer may cite; ``value``/``share``/``count`` format a number and record it."""

    unit: str = "count"
    _lo: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in KINDS})
    _hi: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in KINDS})
    texts: list[str] = field(default_factory=list)
    _arrays: dict[str, tuple[np.ndarray, np.ndarray]] | None = None

    def add(self, kind: str, value: float, half: float = 0.0) -> None:
        self._lo[kind].append(value - half)
        self._hi[kind].append(value + half)
        self._arrays = None

    def value(self, raw: float, unit: str | None = None) -> str:
        unit = unit or self.unit
        kind = units.kind_of(unit)
        if kind in ("bytes", "time"):
            self.add(kind, units.to_base(raw, unit))
        self.add("bare", float(raw))
        return units.format_value(raw, unit)

    def share(self, part: float, whole: float) -> str:
        self.add("percent", 100.0 * units.share(part, whole))
        return units.format_share(part, whole)

    def count(self, n: int) -> str:
        self.add("bare", float(n))
        return f"{n:,}"

    def text(self, text: str) -> str:
        """Our own text (e.g. the knowledge base's): its numbers and names become citable."""
        self.texts.append(normalize(text))
        for claim in claims_in_line(text):
            self.add(claim.kind, claim.value, claim.half)
        return text

    def merge(self, other: Grounding) -> None:
        for k in KINDS:
            self._lo[k] += other._lo[k]
            self._hi[k] += other._hi[k]
        self.texts += other.texts
        self._arrays = None

    def _array(self, kind: str) -> tuple[np.ndarray, np.ndarray]:
        if self._arrays is None:
            self._arrays = {k: (np.asarray(self._lo[k]), np.asarray(self._hi[k])) for k in KINDS}
        return self._arrays[kind]

    def supports(self, claim: Claim) -> bool:
        if claim.kind == "bare":
            scaled = (self._overlaps(k, claim.value * f, claim.half * f) for k, fs in _SCALES.items() for f in fs)
            return self._overlaps("bare", claim.value, claim.half) or any(scaled)
        if claim.below:
            lo, hi = self._array(claim.kind)
            return bool(np.any((lo <= claim.value) & (hi > 0)))
        return self._overlaps(claim.kind, claim.value, claim.half)

    def _overlaps(self, kind: str, value: float, half: float) -> bool:
        lo, hi = self._array(kind)
        return bool(np.any((lo <= value + half) & (hi >= value - half)))

    def mentions(self, name: str) -> bool:
        norm = normalize(name)
        return any(norm in t for t in self.texts)


@dataclass(frozen=True, slots=True)
class Claim:
    text: str
    start: int
    end: int
    kind: str
    value: float
    half: float
    below: bool = False  # written "<0.1%": any grounded value under it supports it


def _mask(line: str) -> str:
    line = _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
    return _MASKS.sub(lambda m: " " * len(m.group(0)), line)


def claims_in_line(line: str) -> list[Claim]:
    masked = _mask(line)
    marker = _LIST_MARKER.match(masked)
    out = []
    for m in _NUMBER.finditer(masked):
        if marker and m.start("num") < marker.end():
            continue
        end = m.end()
        if end < len(masked) and (masked[end].isalnum() or masked[end] == "_") and not m.group("unit"):
            continue  # part of a word: 3rd, 2x, cl100k
        unit = (m.group("unit") or "").casefold()
        if unit:
            kind, factor = _UNIT_ALIASES[unit]
        else:
            kind, factor = "bare", 1
        num = m.group("num")
        value, half = _interval(num, float(factor))
        if kind == "bare" and "." not in num and value <= 10:
            continue
        out.append(Claim(line[m.start("num") : end], m.start("num"), end, kind, value, half, bool(m.group("lt"))))
    return out


def _looks_like_symbol(text: str) -> bool:
    t = text.strip()
    if not t or len(t) > 300 or (t[0].isdigit() and not t.startswith("0x")):
        return False
    if t.startswith("0x") or (t.startswith("<") and t.endswith(">")):
        return True
    if re.fullmatch(r"[A-Z0-9_]+", t) or "=" in t or t.startswith("-") or _FILE_EXT.search(t):
        return False
    if " " in t.replace(" > ", "").replace(" / ", ""):
        return False
    return bool(re.search(r"\.|::| > | / |\(|_|[a-z][A-Z]", t))


def names_in_line(line: str) -> list[tuple[str, int]]:
    """(name, end offset) of every function-looking name: code spans and dotted identifiers."""
    found = [(m.group(2), m.end()) for m in _CODE_SPAN.finditer(line) if _looks_like_symbol(m.group(2))]
    plain = _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), _MASKS.sub(lambda m: " " * len(m.group(0)), line))
    for m in _DOTTED.finditer(plain):
        word = m.group(1)
        parts = re.split(r"\.|::", word)
        if (
            min(len(p) for p in parts) >= 2
            and len(word) >= 6
            and not _FILE_EXT.search(word)
            and ("_" in word or re.search(r"[a-z][A-Z]|^[A-Z]", word))
        ):
            found.append((word, m.end()))
    return found


@dataclass
class LineVerifier:
    """Flags unverified numbers and names line by line; feed streamed text, then :meth:`finish`."""

    grounding: Grounding
    names: NameIndex
    transform: Callable[[str], str] | None = None  # applied to each line first (e.g. sanitising)
    checked: int = 0
    unverified: list[str] = field(default_factory=list)
    _pending: str = ""

    def feed(self, text: str) -> str:
        self._pending += text
        if "\n" not in self._pending:
            return ""
        done, self._pending = self._pending.rsplit("\n", 1)
        return "\n".join(self._line(line) for line in done.split("\n")) + "\n"

    def finish(self) -> str:
        rest, self._pending = self._pending, ""
        return self._line(rest) if rest else ""

    def _line(self, line: str) -> str:
        if self.transform is not None:
            line = self.transform(line)
        inserts: list[tuple[int, str]] = []
        for claim in claims_in_line(line):
            self.checked += 1
            if not self.grounding.supports(claim):
                self.unverified.append(claim.text)
                inserts.append((claim.end, FLAG))
        for name, end in names_in_line(line):
            if not self._name_ok(name):
                self.unverified.append(f"{name} (not a function in this profile)")
                inserts.append((end, NAME_FLAG))
        for at, mark in sorted(inserts, reverse=True):
            line = line[:at] + mark + line[at:]
        return line

    def _name_ok(self, name: str) -> bool:
        bare = name.strip().removesuffix("()")
        return bare in GENERIC_NAMES or self.names.known(bare) or self.grounding.mentions(bare)


def verify(text: str, grounding: Grounding, names: NameIndex) -> tuple[str, int, list[str]]:
    """(text with flags, numbers checked, unverified claims) for a complete answer."""
    v = LineVerifier(grounding, names)
    flagged = v.feed(text) + v.finish()
    return flagged, v.checked, v.unverified


def footer(unverified: list[str]) -> str:
    """The note under an answer whose claims did not all check out."""
    if not unverified:
        return ""
    shown = "; ".join(u[:120] for u in unverified[:8])
    more = f" and {len(unverified) - 8} more" if len(unverified) > 8 else ""
    return (
        f"\n\n> **Not verified:** {len(unverified)} claim(s) above could not be traced to this profile's facts "
        f"or tool results, so treat them as unverified: {shown}{more}."
    )
