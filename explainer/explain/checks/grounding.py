"""What an answer may cite: every value shown to the model (or written by us), and whose it is.

A :class:`Grounding` is filled as facts, tool results and offline answers format their numbers
(``value``/``share``/``count``), so nothing is shown that is not also known here. Values written
about something (a function, a category such as "KV cache", the total) are also recorded under
that :class:`Subject`, so a check can tell "12.0 GB is the weights'" from "12.0 GB is in the profile".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from explainer import units
from explainer.explain.checks.names import normalize
from explainer.explain.checks.quantities import quantities

KINDS = ("bytes", "time", "percent", "bare", "ratio")  # ratios ("4x the weights") are never grounded, only derived


@dataclass(frozen=True, slots=True)
class Subject:
    """What a value is about: ``key`` is how it is looked up, ``label`` how it is shown."""

    key: str
    label: str
    kind: Literal["function", "category", "total"]


TOTAL = Subject("total", "the total", "total")


def function(name: str) -> Subject:
    return Subject(normalize(name), name, "function")


def category(label: str) -> Subject:
    return Subject("category:" + label.casefold(), label, "category")


About = Subject | str | tuple[Subject | str, ...] | None  # a str names a function


@dataclass
class Grounding:
    """The values an answer may cite; ``value``/``share``/``count`` format a number and record it."""

    unit: str = "count"
    _lo: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in KINDS})
    _hi: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in KINDS})
    texts: list[str] = field(default_factory=list)
    subjects: dict[str, Subject] = field(default_factory=dict)
    owned: dict[str, dict[str, set[float]]] = field(default_factory=dict)  # subject key -> kind -> values
    wholes: dict[str, set[str]] = field(default_factory=dict)  # subject key -> what it is part of
    roles: dict[tuple[str, str, float], set[str]] = field(default_factory=dict)  # (key, kind, value) -> self/total
    _arrays: dict[str, tuple[np.ndarray, np.ndarray]] | None = None

    def add(self, kind: str, value: float, half: float = 0.0) -> None:
        self._lo[kind].append(value - half)
        self._hi[kind].append(value + half)
        self._arrays = None

    def own(self, about: About, kind: str, value: float, role: str | None = None) -> None:
        """Record ``value`` as one of ``about``'s own (its self, total, share, before, after...)."""
        for one in about if isinstance(about, tuple) else (about,):
            if one is None:
                continue
            subject = one if isinstance(one, Subject) else function(one)
            self.subjects.setdefault(subject.key, subject)
            self.owned.setdefault(subject.key, {}).setdefault(kind, set()).add(value)
            if role is not None:
                self.roles.setdefault((subject.key, kind, value), set()).add(role)

    def part_of(self, part: str, whole: Subject) -> None:
        """Record that function ``part`` belongs to ``whole`` (its category), as the facts say."""
        self.wholes.setdefault(function(part).key, set()).add(whole.key)

    def value(self, raw: float, unit: str | None = None, about: About = None, role: str | None = None) -> str:
        """``role``: "self" or "total" when the value is one of ``about``'s (checked against "720 MB of self")."""
        unit = unit or self.unit
        kind = units.kind_of(unit)
        if kind in ("bytes", "time"):
            base = units.to_base(raw, unit)
            self.add(kind, base)
            self.own(about, kind, base, role)
        self.add("bare", float(raw))
        return units.format_value(raw, unit)

    def share(self, part: float, whole: float, about: About = None, role: str | None = None) -> str:
        pct = 100.0 * units.share(part, whole)
        self.add("percent", pct)
        self.own(about, "percent", pct, role)
        return units.format_share(part, whole)

    def count(self, n: int) -> str:
        self.add("bare", float(n))
        return f"{n:,}"

    def text(self, text: str) -> str:
        """Our own text (e.g. the knowledge base's): its numbers and names become citable."""
        self.texts.append(normalize(text))
        for q in quantities(text):
            for value, half in q.readings:
                self.add(q.kind, value, half)
        return text

    def merge(self, other: Grounding) -> None:
        for k in KINDS:
            self._lo[k] += other._lo[k]
            self._hi[k] += other._hi[k]
        self.texts += other.texts
        for role_key, roles in other.roles.items():
            self.roles.setdefault(role_key, set()).update(roles)
        for key, wholes in other.wholes.items():
            self.wholes.setdefault(key, set()).update(wholes)
        for key, subject in other.subjects.items():
            self.subjects.setdefault(key, subject)
            mine = self.owned.setdefault(key, {})
            for kind, values in other.owned.get(key, {}).items():
                mine.setdefault(kind, set()).update(values)
        self._arrays = None

    # looking values up
    def _array(self, kind: str) -> tuple[np.ndarray, np.ndarray]:
        if self._arrays is None:
            self._arrays = {k: (np.asarray(self._lo[k]), np.asarray(self._hi[k])) for k in KINDS}
        return self._arrays[kind]

    def overlaps(self, kind: str, value: float, half: float) -> bool:
        """Is any grounded value of ``kind`` within ``value ± half``?"""
        lo, hi = self._array(kind)
        return bool(np.any((lo <= value + half) & (hi >= value - half)))

    def below(self, kind: str, value: float) -> bool:
        """Is any positive grounded value of ``kind`` under ``value`` (for "<0.1%")?"""
        lo, hi = self._array(kind)
        return bool(np.any((lo <= value) & (hi > 0)))

    def values_of(self, key: str, kind: str) -> set[float]:
        return self.owned.get(key, {}).get(kind, set())

    def owners(self, kind: str, value: float, half: float) -> list[Subject]:
        """The subjects that own a value of ``kind`` within ``value ± half``."""
        return [
            self.subjects[key]
            for key, by_kind in self.owned.items()
            if any(abs(v - value) <= half for v in by_kind.get(kind, ()))
        ]

    def mentions(self, name: str) -> bool:
        norm = normalize(name)
        return any(norm in t for t in self.texts)
