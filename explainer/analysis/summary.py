"""One analysed profile: the lists and chain every view (CLI, chat, report) starts from."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from explainer.analysis.chain import Chain, heaviest_chain
from explainer.analysis.filters import focus, hide_trampolines, ignore
from explainer.analysis.functions import FunctionStats, TopList, TopRow, function_stats, leaf_ids, ranked, top
from explainer.errors import AnalysisError
from explainer.model import Profile, once_per_profile
from explainer.symbols.decode import unresolved

if TYPE_CHECKING:
    from explainer.analysis.counts import CallCount


@dataclass(frozen=True, slots=True)
class Options:
    top: int = 10
    focus: str | None = None
    ignore: str | None = None
    hide_trampolines: bool = False


@dataclass(frozen=True, eq=False)
class Summary:
    profile: Profile
    stats: FunctionStats
    top_self: TopList
    top_total: TopList
    orchestrators: tuple[TopRow, ...]  # wide bars with zero self: "what you can skip"
    leaves: tuple[TopRow, ...]  # functions that only ever appear as leaves (self == total)
    unresolved_share: float  # share of the total whose leaf frame is an unresolved address
    options: Options
    # frames that count calls in a byte profile (cuMemFreeAsync): kept out of every byte total
    counted: tuple[CallCount, ...] = ()

    @property
    def total(self) -> int:
        return self.stats.grand_total

    @cached_property
    def chain(self) -> Chain | None:
        """The heaviest chain to the biggest self consumer, walked when first asked for: a report that
        wants more chains (the handoff's, to allocation sites) asks for this one in the same walk."""
        rows = self.top_self.rows
        return heaviest_chain(self.profile, self.stats, rows[0].id) if rows else None

    @property
    def unit(self) -> str:
        return self.profile.unit


def apply_options(profile: Profile, options: Options) -> Profile:
    if options.focus:
        profile = focus(profile, options.focus)
    if options.ignore:
        profile = ignore(profile, options.ignore)
    if options.hide_trampolines:
        profile = hide_trampolines(profile)
    return profile


@once_per_profile
def unresolved_share(profile: Profile) -> float:
    """Share of the total whose leaf frame is a raw address or an unknown frame (once per profile:
    the summary and the profile's semantics both ask, and each leaf name costs a decode)."""
    if not profile.total:
        return 0.0
    leaves = leaf_ids(profile)
    # decode only the names that are some stack's leaf: a few hundred of thousands of names
    is_leaf = np.zeros(len(profile.names), dtype=bool)
    is_leaf[leaves] = True
    is_unresolved = np.zeros(len(profile.names), dtype=bool)
    for i in np.flatnonzero(is_leaf).tolist():
        is_unresolved[i] = unresolved(profile.names[i])
    return float(profile.values[is_unresolved[leaves]].sum()) / profile.total


def summarize(profile: Profile, options: Options | None = None) -> Summary:
    options = options or Options()
    if options.top < 1:
        raise AnalysisError("--top must be at least 1")
    profile, counted = split_counts(profile)
    profile = apply_options(profile, options)
    stats = function_stats(profile)
    top_self = top(stats, "self", options.top)
    top_total = top(stats, "total", options.top)
    by_total = ranked(stats, "total")
    names = profile.names
    orchestrators = tuple(
        TopRow(int(i), names[i], 0, int(stats.total_values[i])) for i in by_total if stats.self_values[i] == 0
    )[: options.top]
    leaves = tuple(
        TopRow(int(i), names[i], int(stats.self_values[i]), int(stats.total_values[i]))
        for i in ranked(stats, "self")
        if stats.self_values[i] == stats.total_values[i] and stats.self_values[i] > 0
    )[: options.top]
    return Summary(
        profile, stats, top_self, top_total, orchestrators, leaves, unresolved_share(profile), options, counted
    )


def split_counts(profile: Profile) -> tuple[Profile, tuple[CallCount, ...]]:
    """The byte profile without its count-valued frames, and their calls: the one place they leave."""
    from explainer.analysis.counts import split_counts as split

    return split(profile)
