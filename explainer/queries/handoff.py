"""The handoff query and its answer: the facts the one handoff writer renders for the report and
the chat (:mod:`explainer.explain.answers.handoff`).

:func:`explainer.queries.answer` answers :class:`Handoff` here too; the ``handoff`` verb imports
only this module, not the chat's catalogue of records (:mod:`.records`), which costs about 20 ms
to define in every process.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from explainer.analysis.chain import Chain, ChainStep
from explainer.analysis.functions import top
from explainer.knowledge import CategoryShare, Site
from explainer.model import Profile
from explainer.queries.chains import asked_by, chains_to, common_prefix, top_targets
from explainer.queries.common import Base, Fn, base, biggest, fn, knobs, responsible
from explainer.reading import Ignorable, Reading, Start

CHAINS = 3  # the handoff shows the heaviest chains to at most this many consumers (or their sites)

if TYPE_CHECKING:  # the diff is made with a baseline only: analysis.diff loads then (ask on one profile never)
    from explainer.analysis.diff import Diff, NoiseFloor


@dataclass(frozen=True, eq=False)
class Handoff:
    """The on-call handoff: the facts the one handoff writer renders for the report and the chat."""

    top: int = 5
    baseline: Profile | None = None
    floor: NoiseFloor | None = None  # the diff's noise floor (the default one when None)


@dataclass(frozen=True, eq=False)
class HandoffResult(Base):
    resource: str
    meaning: str
    stacks: int
    functions: int
    biggest: Fn | None
    responsible: Fn | None
    start: Start | None
    start_knobs: tuple[tuple[str, str], ...]
    consumers: tuple[Fn, ...]  # by self, ``top`` of them
    of_functions: int
    ignorable: Ignorable
    categories: tuple[CategoryShare, ...]
    sites: tuple[Site, ...]
    diff: Diff | None = field(default=None)
    covered: int = 0  # the consumers' self together
    asked_by: tuple[Site, ...] = ()  # the allocation sites to name: only when a top consumer is the allocator
    chains: tuple[Chain, ...] = ()  # the heaviest chain to each top consumer (to its sites when an allocator)
    common: tuple[ChainStep, ...] = ()  # the entry frames every one of ``chains`` starts with
    runtime: str = ""  # the profile's runtime ("" unknown or mixed), to decode a frame's label with

    @property
    def subject(self) -> str | None:
        return self.start.name if self.start else None


# profile -> baseline -> its diff (default noise floor): the chat's comparison, its handoff and the
# model's facts ask for the same one; profiles are immutable, and a diff lives as long as both do
_DIFFS: weakref.WeakKeyDictionary[Profile, weakref.WeakKeyDictionary[Profile, Diff]] = weakref.WeakKeyDictionary()


def diff_of(baseline: Profile, profile: Profile, floor: NoiseFloor | None = None) -> Diff:
    """``diff_profiles(baseline, profile, floor)``, made once per pair for the default floor."""
    if floor is not None:
        from explainer.analysis.diff import diff_profiles  # with a baseline only

        return diff_profiles(baseline, profile, floor)
    known = _DIFFS.setdefault(profile, weakref.WeakKeyDictionary())
    if baseline not in known:
        from explainer.analysis.diff import diff_profiles

        known[baseline] = diff_profiles(baseline, profile)
    return known[baseline]


def chain_targets(reading: Reading, rows: int) -> list[int]:
    """The function ids :func:`handoff` walks its chains to, for a handoff of ``rows`` rows: a caller
    may walk them first (on another core; the walks are kept per profile), and the handoff finds them."""
    return top_targets(reading, min(rows, CHAINS)) if reading.summary.total else []


def handoff(reading: Reading, query: Handoff) -> HandoffResult:
    """The handoff's facts for the profile ``reading`` was built from."""
    s = reading.summary
    lst = top(s.stats, "self", query.top)  # not the summary's rows: its --top may be smaller
    start = reading.start
    diff = None
    if query.baseline is not None:
        diff = diff_of(query.baseline, s.profile, query.floor)
    chains = chains_to(s, chain_targets(reading, query.top))
    return HandoffResult(
        *base(reading),
        resource=reading.resource,
        meaning=reading.meaning,
        stacks=s.profile.stack_count,
        functions=s.stats.function_count,
        biggest=biggest(reading),
        responsible=responsible(reading),
        start=start,
        start_knobs=knobs(start.name) if start is not None else (),
        consumers=tuple(fn(reading, r) for r in lst.rows),
        of_functions=lst.of_functions,
        ignorable=reading.ignorable,
        categories=reading.categories,
        sites=reading.sites,
        diff=diff,
        covered=lst.covered,
        asked_by=asked_by(reading, query.top),
        chains=chains,
        common=common_prefix(chains),
        runtime=reading.runtime,
    )
