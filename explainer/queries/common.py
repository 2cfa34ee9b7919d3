"""What every result carries and the pieces several answers share: a function's numbers
(:class:`Fn`), the unit, total and caveats (:class:`Base`), and the helpers that fill them.

Kept apart from :mod:`.records` so the handoff (:mod:`.handoff`) can be answered without defining
the chat's forty other records: Python 3.11 builds each frozen dataclass's methods with ``exec``,
about 0.7 ms a record, in every process.
"""

from __future__ import annotations

from dataclasses import dataclass

from explainer import knowledge
from explainer.analysis.functions import TopRow
from explainer.reading import Reading, Role


@dataclass(frozen=True)
class Fn:
    """A function with its numbers (pprof rules: self is where it is the leaf, total once per stack)."""

    name: str
    self: int
    total: int
    role: Role


@dataclass(frozen=True)
class Base:
    """What every result carries: the unit and the grand total its numbers are in, and its caveats."""

    unit: str
    total: int
    caveats: tuple[str, ...]


def base(reading: Reading) -> tuple[str, int, tuple[str, ...]]:
    """What every result starts with: the unit, the grand total and the caveats."""
    return reading.summary.unit, reading.summary.total, tuple(c.text for c in reading.caveats)


def fn(reading: Reading, row: TopRow) -> Fn:
    return Fn(row.name, row.self, row.total, reading.role(row.name))


def biggest(reading: Reading) -> Fn | None:
    return fn(reading, reading.biggest) if reading.biggest is not None else None


def responsible(reading: Reading) -> Fn | None:
    return fn(reading, reading.responsible) if reading.responsible is not None else None


def knobs(name: str) -> tuple[tuple[str, str], ...]:
    """``(knob, effect)`` of every setting the knowledge base says changes the frame ``name``."""
    entry = knowledge.lookup(name)
    return tuple((a.knob, a.effect) for a in entry.actions) if entry is not None else ()


def named_path(reading: Reading) -> tuple[str, ...]:
    """The heaviest chain's steps, entry first, noise frames left out."""
    chain = reading.summary.chain
    return tuple(s.name for s in chain.steps if not reading.is_noise(s.name)) if chain is not None else ()
