"""Every number a person reads is formatted here, and only here.

Values stay raw integers in the profile's own unit everywhere else. Bytes are shown in decimal
units (GB = 10**9) by default because that is what Grafana and the seed document print
("55.1 GB"); binary units (GiB = 2**30) are available and always labelled as such.
"""

from __future__ import annotations

import math
import re
from typing import Literal

ByteStyle = Literal["decimal", "binary"]

_DECIMAL_BYTES = (("TB", 10**12), ("GB", 10**9), ("MB", 10**6), ("kB", 10**3))
_BINARY_BYTES = (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10))
_TIME_NS = (("h", 3_600 * 10**9), ("min", 60 * 10**9), ("s", 10**9), ("ms", 10**6), ("µs", 10**3))

# Units that mean "bytes", "nanoseconds" and friends as they appear in real profiles.
_TIME_FACTORS_NS = {
    "nanoseconds": 1,
    "nanosecond": 1,
    "ns": 1,
    "microseconds": 10**3,
    "microsecond": 10**3,
    "us": 10**3,
    "µs": 10**3,
    "milliseconds": 10**6,
    "millisecond": 10**6,
    "ms": 10**6,
    "seconds": 10**9,
    "second": 10**9,
    "s": 10**9,
    "lock_nanoseconds": 1,
}
_BYTE_UNITS = {"bytes", "byte", "b"}


def kind_of(unit: str) -> Literal["bytes", "time", "count"]:
    """What a unit measures: ``bytes``, ``time`` or a plain ``count``."""
    u = unit.strip().lower()
    if u in _BYTE_UNITS:
        return "bytes"
    if u in _TIME_FACTORS_NS:
        return "time"
    return "count"


def to_base(value: float, unit: str) -> float:
    """The value in the base unit of its kind: bytes, nanoseconds, or the count itself."""
    return value * _TIME_FACTORS_NS.get(unit.strip().lower(), 1)


def _scaled(value: float, table: tuple[tuple[str, int], ...], base: str) -> str:
    magnitude = abs(value)
    for suffix, factor in table:
        if magnitude >= factor:
            return f"{value / factor:.1f} {suffix}"
    return f"{value:g} {base}" if isinstance(value, float) and not value.is_integer() else f"{int(value)} {base}"


def format_bytes(value: float, style: ByteStyle = "decimal") -> str:
    """``55100000000`` -> ``55.1 GB`` (or ``51.3 GiB`` in binary style)."""
    return _scaled(value, _DECIMAL_BYTES if style == "decimal" else _BINARY_BYTES, "B")


def format_duration_ns(value: float) -> str:
    """Nanoseconds to the largest sensible unit: ``1500000`` -> ``1.5 ms``."""
    return _scaled(value, _TIME_NS, "ns")


def format_count(value: float) -> str:
    """Counts with thousands separators: ``4210`` -> ``4,210``."""
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.1f}"
    return f"{int(value):,}"


def counted(value: float, noun: str) -> str:
    """A count with its noun in the right number: ``1 sample``, ``7,686 samples``, ``0 samples``.

    ``noun`` is the plural, as profiles name their units (``samples``, ``objects``)."""
    return f"{format_count(value)} {singular(noun) if value == 1 else noun}"


def singular(noun: str) -> str:
    """``samples`` -> ``sample``: the one rule for a count's noun, here and in the browser (display_rule)."""
    return noun.removesuffix("s") if noun.endswith("s") and not noun.endswith("ss") else noun


def sign_of(value: float) -> str:
    """The sign a change is written with: ``+``, ``-``, or nothing for no change (one rule everywhere)."""
    return "+" if value > 0 else "-" if value < 0 else ""


def format_signed(value: float, unit: str) -> str:
    """A change in a profile value: ``+1.2 GB``, ``-300 MB``, ``0 B`` (the chat, reports, the app)."""
    return sign_of(value) + format_value(abs(value), unit)


def format_value(value: float, unit: str, style: ByteStyle = "decimal") -> str:
    """A profile value in its unit, for a person."""
    kind = kind_of(unit)
    if kind == "bytes":
        return format_bytes(value, style)
    if kind == "time":
        return format_duration_ns(to_base(value, unit))
    label = unit.strip()
    return format_count(value) if label in ("", "count") else counted(value, label)


def display_rule(unit: str) -> dict[str, object]:
    """How :func:`format_value` scales values of ``unit``, for a formatter in the browser.

    The flame graph formats its hover text in JavaScript from raw numbers; it gets this table
    instead of its own copy, so both sides print ``55.1 GB`` for the same value.
    """
    kind = kind_of(unit)
    steps: tuple[tuple[str, int], ...]
    if kind == "bytes":
        steps, base, to = _DECIMAL_BYTES, "B", 1
    elif kind == "time":
        steps, base, to = _TIME_NS, "ns", _TIME_FACTORS_NS[unit.strip().lower()]
    else:
        label = unit.strip()
        steps, base, to = (), "" if label in ("", "count") else label, 1
    return {"kind": kind, "steps": [list(s) for s in steps], "base": base, "one": singular(base), "toBase": to}


def format_share(part: float, whole: float) -> str:
    """A percentage with one decimal; tiny but non-zero shares say so instead of ``0.0%``."""
    if whole <= 0:
        return "0%"
    pct = 100.0 * part / whole
    if 0 < pct < 0.05:
        return "<0.1%"
    return f"{pct:.1f}%"


def share(part: float, whole: float) -> float:
    """The fraction ``part / whole`` as a float in [0, 1] (0 when ``whole`` is 0)."""
    return part / whole if whole > 0 else 0.0


def readable_equivalents(value: float, unit: str) -> set[str]:
    """Every way a person (or a model) might write this value, for checking numbers in prose.

    Includes decimal and binary byte units and one or two decimals, so ``55.1 GB`` and
    ``51.3 GiB`` both match the same raw value.
    """
    out: set[str] = set()
    kind = kind_of(unit)
    base = to_base(value, unit)
    tables: tuple[tuple[tuple[str, int], ...], ...]
    if kind == "bytes":
        tables = (_DECIMAL_BYTES, _BINARY_BYTES)
    elif kind == "time":
        tables = (_TIME_NS,)
    else:
        tables = ()
    for table in tables:
        for suffix, factor in table:
            scaled = base / factor
            if scaled >= 0.01:
                for digits in (0, 1, 2):
                    out.add(f"{scaled:.{digits}f} {suffix}")
    out.add(format_count(value))
    return out


# Parsing: the one table of unit words, read the way people (and models) write them ----------

UNIT_WORDS: dict[str, tuple[str, int]] = {
    "%": ("percent", 1),
    "percent": ("percent", 1),
    "procent": ("percent", 1),
    "points": ("percent", 1),  # percentage points, as in "55.3 points above the weights"
    "percentage points": ("percent", 1),
    "procentpunt": ("percent", 1),
    "procentpunten": ("percent", 1),
    "b": ("bytes", 1),
    "byte": ("bytes", 1),
    "bytes": ("bytes", 1),
    **{s.lower(): ("bytes", f) for s, f in _DECIMAL_BYTES + _BINARY_BYTES},
    **{
        f"{w}byte{p}": ("bytes", f)
        for w, f in (("kilo", 10**3), ("mega", 10**6), ("giga", 10**9), ("tera", 10**12))
        for p in ("", "s")
    },
    "gibibytes": ("bytes", 2**30),
    "mebibytes": ("bytes", 2**20),
    **{k: ("time", f) for k, f in _TIME_FACTORS_NS.items() if k != "lock_nanoseconds"},
    "sec": ("time", 10**9),
    "seconde": ("time", 10**9),
    "seconden": ("time", 10**9),
    "milliseconden": ("time", 10**6),
    "min": ("time", 60 * 10**9),
    "minute": ("time", 60 * 10**9),
    "minutes": ("time", 60 * 10**9),
    "minuten": ("time", 60 * 10**9),
    "h": ("time", 3600 * 10**9),
    "hour": ("time", 3600 * 10**9),
    "hours": ("time", 3600 * 10**9),
    "uur": ("time", 3600 * 10**9),
}
"""Every unit word a quantity may be written with: its kind and its factor to the base unit."""

# ``1,234,567.8`` (English), ``1.234.567,8`` (Dutch), or plain ``55.1`` / ``55,1``; a lone
# ``1,234`` or ``1.234`` is ambiguous and read both ways
NUMBER_PATTERN = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!,?\d)|\d{1,3}(?:\.\d{3})+(?:,\d+)?(?!\.?\d)|\d+(?:[.,]\d+)?"
_THOUSANDS = re.compile(r"\d{1,3}([.,])\d{3}$")

NUMBER_WORDS = {
    "twice": 2,
    "double": 2,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "dubbel": 2,
    "twee": 2,
    "drie": 3,
    "vier": 4,
    "vijf": 5,
    "zes": 6,
    "zeven": 7,
    "acht": 8,
    "negen": 9,
    "tien": 10,
}
"""Small numbers written as words, as in "about four times the weights" ("vier keer zoveel")."""


def display_half(value: float, kind: str) -> float:
    """Half the last step of ``value`` as :func:`format_value` / :func:`format_share` print it
    (one decimal in the chosen unit): how far a reader's copy of the number may be off."""
    if kind == "percent":
        return 0.05
    table = _DECIMAL_BYTES if kind == "bytes" else _TIME_NS if kind == "time" else ()
    for _, factor in table:
        if abs(value) >= factor:
            return 0.05 * factor
    return 0.5


def unit_word(word: str) -> tuple[str, int] | None:
    """``"GiB"`` -> ``("bytes", 2**30)``; None for a word that is not a unit."""
    return UNIT_WORDS.get(word.strip().lower())


def _reading(digits: str, decimal: str) -> tuple[float, float]:
    thousands = "," if decimal == "." else "."
    whole, _, frac = digits.replace(thousands, "").partition(decimal)
    value = float(f"{whole}.{frac}" if frac else whole)
    return value, 0.5 * 10.0 ** -len(frac)


def number_readings(digits: str) -> tuple[tuple[float, float], ...]:
    """Each way a written number can be read: ``(value, half the step its precision allows)``.

    ``55.1`` and ``55,1`` are 55.1 (half 0.05); ``1,234,567`` and ``1.234.567`` are 1,234,567;
    ``1,234`` is 1,234 in English and 1.234 in Dutch, so both readings are returned.
    """
    has_dot, has_comma = "." in digits, "," in digits
    if has_dot and has_comma:
        return (_reading(digits, "." if digits.rfind(".") > digits.rfind(",") else ","),)
    if not (has_dot or has_comma):
        return (_reading(digits, "."),)
    sep = "." if has_dot else ","
    if digits.count(sep) > 1:  # only thousands separators repeat
        return (_reading(digits, "," if sep == "." else "."),)
    if _THOUSANDS.match(digits):
        return (_reading(digits, "," if sep == "." else "."), _reading(digits, sep))
    return (_reading(digits, sep),)


def parse_quantity(number: str, suffix: str) -> float | None:
    """``("55.1", "GB")`` -> bytes or nanoseconds as a float; None for an unknown suffix."""
    readings = number_readings(number.strip()) if re.fullmatch(NUMBER_PATTERN, number.strip()) else ()
    if not readings or math.isnan(readings[0][0]):
        return None
    unit = unit_word(suffix) or {"k": ("count", 10**3), "m": ("count", 10**6), "g": ("count", 10**9)}.get(
        suffix.strip().lower()
    )
    return readings[0][0] * unit[1] if unit is not None else None


LANGUAGES = ("en", "nl")
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def localize(text: str, lang: str) -> str:
    """A formatted number (or a phrase holding some) written the way ``lang`` writes numbers.

    Dutch swaps the separators: ``55.1 GB`` -> ``55,1 GB``, ``7,686`` -> ``7.686``, ``73.8%`` -> ``73,8%``.
    Only digits and their separators change, so units and names in the text are left alone.
    """
    if lang != "nl":
        return text
    return _NUMBER.sub(lambda m: m.group(0).translate(_NL_SEPARATORS), text)


_NL_SEPARATORS = str.maketrans({",": ".", ".": ","})


_BYTE_SIZE = re.compile(r"\s*([0-9][0-9_,]*(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*")


def parse_bytes(text: str) -> int | None:
    """``"256 MiB"``, ``"300MB"`` or ``"268435456"`` -> bytes; None when it is not a byte size."""
    match = _BYTE_SIZE.fullmatch(text)
    if match is None:
        return None
    suffix = match.group(2) or "B"
    names = {name.lower() for name, _ in (*_DECIMAL_BYTES, *_BINARY_BYTES)} | _BYTE_UNITS
    value = parse_quantity(match.group(1).replace("_", ""), suffix) if suffix.lower() in names else None
    return int(value) if value is not None and value >= 1 else None
