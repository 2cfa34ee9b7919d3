"""What to ask a Pyroscope server for: a profile type, a label selector, a time window, a node budget.

Everything here is checked before a request is sent, because the server's own answers to a
bad query are either an opaque 400 or, worse, silence: a typo'd type or a window older than
the lookback returns an empty profile, not an error.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from explainer.errors import QueryError, UnknownProfileTypeError
from explainer.pyroscope.defaults import DEFAULT_MAX_NODES as DEFAULT_MAX_NODES
from explainer.pyroscope.defaults import DEFAULT_TIMEOUT as DEFAULT_TIMEOUT
from explainer.symbols import clean

MAX_NODES_LIMIT = 1 << 20  # max_flamegraph_nodes_max: above it the server errors rather than caps
MAX_RANGE_MS = 24 * 3600 * 1000  # max_query_length default: a longer window is an error
MEANINGS: dict[str, tuple[str, str, str]] = {
    # name: (sample type, unit, what it is) -- the AKS GPU profiler reports cuMemAlloc* bytes as malloc/bytes
    "gpu-memory": ("malloc", "bytes", "GPU memory allocated through cuMemAlloc* (Inspektor Gadget)"),
    "cpu": ("cpu", "nanoseconds", "CPU time"),
}


@dataclass(frozen=True, slots=True)
class ProfileType:
    """``name:sample_type:sample_unit:period_type:period_unit`` (an optional 6th part is ``delta``)."""

    id: str
    name: str
    sample_type: str
    sample_unit: str
    period_type: str = ""
    period_unit: str = ""

    @classmethod
    def from_id(cls, text: str) -> ProfileType:
        parts = text.split(":")
        if len(parts) not in (5, 6) or not parts[1] or not parts[2]:
            raise QueryError(
                f"{clean(text, 100)!r} is not a profile type ID (name:sample_type:unit:period_type:period_unit, "
                "e.g. process_cpu:cpu:nanoseconds:cpu:nanoseconds) nor one of " + ", ".join(MEANINGS)
            )
        return cls(text, *parts[:5])

    @classmethod
    def from_json(cls, obj: Any) -> ProfileType | None:
        """From the ``ProfileTypes`` answer (``ID`` with a capital D; empty parts omitted)."""
        if not isinstance(obj, dict) or not isinstance(obj.get("ID"), str):
            return None
        fields = ("name", "sampleType", "sampleUnit", "periodType", "periodUnit")
        values = [obj.get(f, "") for f in fields]
        if not all(isinstance(v, str) for v in values):
            return None
        return cls(obj["ID"], *values)

    @property
    def meaning(self) -> str:
        """``gpu-memory`` or ``cpu`` when this type is what that word asks for, else ``""``."""
        for word, (sample, unit, _what) in MEANINGS.items():
            if (self.sample_type, self.sample_unit) == (sample, unit):
                return word
        return ""


def resolve_profile_type(wanted: str, available: Sequence[ProfileType] | None, window: str = "") -> ProfileType:
    """The type the user means. ``available`` is what the server listed (None: could not ask)."""
    wanted = wanted.strip()
    when = f" between {window}" if window else ""
    if wanted in MEANINGS:
        sample, unit, what = MEANINGS[wanted]
        if available is None:
            raise UnknownProfileTypeError(f"cannot list the server's profile types to find {wanted}; give a type ID")
        matches = [t for t in available if (t.sample_type, t.sample_unit) == (sample, unit)]
        if len(matches) == 1:
            return matches[0]
        if matches:
            raise UnknownProfileTypeError(
                f"{wanted} matches several profile types: {_listing(matches)}; pick one with --profile-type ID"
            )
        raise UnknownProfileTypeError(
            f"the server has no {wanted} profile ({what}: sample type {sample}, unit {unit}){when}; " + _has(available),
            hint="widen --from, or pass one of the listed IDs to --profile-type",
        )
    requested = ProfileType.from_id(wanted)
    if available is None:
        return requested
    for t in available:
        if t.id == wanted:
            return t
    raise UnknownProfileTypeError(
        f"the server has no profile type {clean(wanted, 100)!r}{when}; " + _has(available),
        hint="widen --from, or pass one of the listed IDs to --profile-type",
    )


def _has(available: Sequence[ProfileType]) -> str:
    return f"it has: {_listing(available)}" if available else "it has no profiles at all in that window"


def _listing(types: Sequence[ProfileType], limit: int = 20) -> str:
    shown = [clean(t.id, 120) + (f" ({t.meaning})" if t.meaning else "") for t in sorted(types, key=lambda t: t.id)]
    more = len(shown) - limit
    return ", ".join(shown[:limit]) + (f" and {more} more" if more > 0 else "")


# -- time --------------------------------------------------------------------------------------

# Grafana's relative times: ``now``, offsets (``now-1h30m``, ``now+5m``), then an optional rounding
# (``now/d``, ``now-1d/d``) to the start of the unit, or to its last millisecond for a window's end
_RELATIVE = re.compile(r"now(?P<offsets>(?:[+-](?:\d+(?:ms|s|m|h|d|w))+)*)(?:/(?P<round>[smhdw]))?")
_OFFSET = re.compile(r"([+-])((?:\d+(?:ms|s|m|h|d|w))+)")
_PART = re.compile(r"(\d+)(ms|s|m|h|d|w)")
_UNIT_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 604_800_000}
_MONDAY_BEFORE_EPOCH_MS = -3 * 86_400_000  # 1970-01-01 was a Thursday; weeks start on Monday (ISO)
TIME_FORMS = "now, now-1h, now-30m, now-1d/d (rounded, UTC), RFC 3339 (2026-08-21T10:00:00Z) or Unix seconds/ms"


def _relative(match: re.Match[str], now_ms: int, round_up: bool) -> int:
    when = now_ms
    for sign, parts in _OFFSET.findall(match.group("offsets")):
        step = sum(int(n) * _UNIT_MS[u] for n, u in _PART.findall(parts))
        when += step if sign == "+" else -step
    unit = match.group("round")
    if unit:
        size = _UNIT_MS[unit]
        origin = _MONDAY_BEFORE_EPOCH_MS if unit == "w" else 0
        when = origin + (when - origin) // size * size + (size - 1 if round_up else 0)
    return when


def parse_time(text: str, now_ms: int, *, round_up: bool = False) -> int:
    """Unix milliseconds from Grafana's relative times (``now-1h``, ``now-1d/d``), RFC 3339, or
    Unix seconds/milliseconds. ``round_up``: a rounding ``/unit`` goes to the unit's end (a window's end)."""
    s = text.strip()
    rel = _RELATIVE.fullmatch(s)
    if rel:
        return _relative(rel, now_ms, round_up)
    if s.isdigit():
        n = int(s)
        if n >= 10**14:  # microseconds or nanoseconds would silently land thousands of years away
            raise QueryError(f"time {s} looks like micro- or nanoseconds; give Unix seconds or milliseconds")
        return n * 1000 if n < 10**11 else n  # 10**11 s is the year 5138; 10**11 ms is 1973
    try:
        when = datetime.fromisoformat(s.replace("z", "Z"))
    except ValueError:
        when = None
    if when is None or ("T" not in s.upper() and " " not in s):
        raise QueryError(f"cannot read the time {clean(s, 60)!r}: use {TIME_FORMS}")
    if when.tzinfo is None:
        raise QueryError(f"the time {clean(s, 60)!r} has no time zone; add Z for UTC or an offset like +02:00")
    return int(when.timestamp() * 1000)


@dataclass(frozen=True, slots=True)
class TimeRange:
    start_ms: int
    end_ms: int

    def describe(self) -> str:
        return f"{_iso(self.start_ms)} and {_iso(self.end_ms)}"


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_window(start: str, end: str, now_ms: int, max_range_ms: int = MAX_RANGE_MS) -> TimeRange:
    """A checked window: start before end, both after 1970, no longer than the server's 24 h limit."""
    lo, hi = parse_time(start, now_ms), parse_time(end, now_ms, round_up=True)
    if lo <= 0 or hi <= 0:
        raise QueryError("times must be after 1970-01-01 (Pyroscope reads 0 as 'no time range')")
    if lo >= hi:
        raise QueryError(f"--from ({_iso(lo)}) must be before --until ({_iso(hi)})")
    if hi - lo > max_range_ms:
        hours = (hi - lo) / 3_600_000
        raise QueryError(
            f"the window is {hours:.1f} h long; Pyroscope answers at most {max_range_ms / 3_600_000:g} h per query "
            "(max_query_length)",
            hint="narrow --from/--until, or query several windows",
        )
    return TimeRange(lo, hi)


def check_max_nodes(n: int) -> int:
    if not 1 <= n <= MAX_NODES_LIMIT:
        raise QueryError(f"--max-nodes must be between 1 and {MAX_NODES_LIMIT:,} (the server's limit), got {n:,}")
    return n


@dataclass(frozen=True, slots=True)
class Query:
    """One flame-graph query. ``selector`` is already canonical (see :func:`build_selector`)."""

    profile_type: ProfileType
    selector: str
    window: TimeRange
    max_nodes: int = DEFAULT_MAX_NODES

    def describe(self) -> str:
        return (
            f"{self.profile_type.id}{self.selector} from {_iso(self.window.start_ms)} until {_iso(self.window.end_ms)}"
        )

    def connect_body(self) -> dict[str, Any]:
        """SelectMergeStacktracesRequest fields 1-5 only: Pyroscope 1.15 knows fields 1-7, and
        newer ones would be dropped there silently. ``profileTypeID`` has a capital D; a
        misspelt key is dropped too and yields an empty profile."""
        return {
            "profileTypeID": self.profile_type.id,
            "labelSelector": self.selector,
            "start": self.window.start_ms,
            "end": self.window.end_ms,
            "maxNodes": self.max_nodes,
        }
