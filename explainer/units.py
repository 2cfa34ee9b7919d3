"""Every number a person reads is formatted here, and only here.

Values stay raw integers in the profile's own unit everywhere else. Bytes are shown in decimal
units (GB = 10**9) by default because that is what Grafana and the seed document print
("55.1 GB"); binary units (GiB = 2**30) are available and always labelled as such.
"""

from __future__ import annotations

import math
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


def format_value(value: float, unit: str, style: ByteStyle = "decimal") -> str:
    """A profile value in its unit, for a person."""
    kind = kind_of(unit)
    if kind == "bytes":
        return format_bytes(value, style)
    if kind == "time":
        return format_duration_ns(to_base(value, unit))
    label = unit.strip()
    suffix = "" if label in ("", "count") else f" {label}"
    return format_count(value) + suffix


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
    return {"kind": kind, "steps": [list(s) for s in steps], "base": base, "toBase": to}


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


def parse_quantity(number: str, suffix: str) -> float | None:
    """``("55.1", "GB")`` -> bytes or nanoseconds as a float; None for an unknown suffix."""
    try:
        value = float(number.replace(",", ""))
    except ValueError:
        return None
    if math.isnan(value):
        return None
    key = suffix.strip()
    for table in (_DECIMAL_BYTES, _BINARY_BYTES, _TIME_NS):
        for name, factor in table:
            if key.lower() == name.lower():
                return value * factor
    aliases = {"b": 1, "bytes": 1, "ns": 1, "kb": 10**3, "k": 10**3, "m": 10**6, "g": 10**9, "sec": 10**9}
    alias = aliases.get(key.lower())
    return value * alias if alias is not None else None
