"""What changed between two profiles of the same kind: per function, matched by name.

For every function present on either side we keep self and total before and after, and
derive the absolute change, the relative change and the change in share (percentage points
of each side's own grand total, which is what still compares when two windows differ in
length). New and vanished functions are those with no value on one side.

The noise floor keeps small moves from being called regressions. A change counts only when
it clears **both** thresholds (by default):

- ``min_share`` 1%: the absolute change is at least 1% of the larger of the two grand totals;
- ``min_relative`` 5%: the change is at least 5% of the function's value before.

Both are needed because each alone misfires: a tiny function going from 1 kB to 3 kB is +200%
but immaterial, and the biggest consumer moving 0.5% is a large number that is only jitter.
A new function has no "before", so only the share threshold applies to it.

The diff ranks by the change in self (where the resource is consumed, so a leaf that grew
3x comes first rather than the callers whose totals grew with it); ties break on total,
then name, so the order is deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from explainer.analysis.chain import Chain, heaviest_chain
from explainer.analysis.functions import FunctionStats, function_stats, value_of_stacks_with
from explainer.analysis.noise import DEFAULT_MIN_RELATIVE as DEFAULT_MIN_RELATIVE
from explainer.analysis.noise import DEFAULT_MIN_SHARE as DEFAULT_MIN_SHARE
from explainer.analysis.noise import NoiseFloor as NoiseFloor
from explainer.analysis.summary import split_counts
from explainer.errors import AnalysisError, NoSuchFunctionError
from explainer.model import IntArray, Profile

Order = Literal["self", "total"]
Presence = Literal["both", "new", "vanished"]
Side = Literal["before", "after", ""]

# sample types that readers give inputs which carry none (folded stacks, some JSON): no conflict
_GENERIC_TYPES = frozenset({"", "samples"})


@dataclass(frozen=True, slots=True)
class FunctionChange:
    """One function on both sides; values are raw integers in the diff's unit."""

    name: str
    self_before: int
    self_after: int
    total_before: int
    total_after: int
    presence: Presence
    self_noise: bool  # the self change is under the noise floor
    total_noise: bool

    def before(self, order: Order) -> int:
        return self.self_before if order == "self" else self.total_before

    def after(self, order: Order) -> int:
        return self.self_after if order == "self" else self.total_after

    def delta(self, order: Order = "self") -> int:
        return self.after(order) - self.before(order)

    def relative(self, order: Order = "self") -> float | None:
        """The change as a fraction of the value before; None when there was nothing before."""
        before = self.before(order)
        return self.delta(order) / before if before else None

    def noise(self, order: Order = "self") -> bool:
        return self.self_noise if order == "self" else self.total_noise


@dataclass(frozen=True, eq=False)
class Diff:
    before: Profile
    after: Profile
    changes: tuple[FunctionChange, ...]  # every function on either side, biggest self change first
    floor: NoiseFloor
    chain: Chain | None  # heaviest chain to the biggest significant change
    chain_side: Side  # "before" when that function vanished or shrank to 0
    notes: tuple[str, ...]  # caveats a report must state (sample types, truncation)

    @property
    def unit(self) -> str:
        return self.after.unit

    @property
    def total_before(self) -> int:
        return self.before.total

    @property
    def total_after(self) -> int:
        return self.after.total

    @property
    def scale(self) -> int:
        """The larger grand total: what the share threshold and share changes are measured against."""
        return max(self.total_before, self.total_after)

    def share_delta_pp(self, change: FunctionChange, order: Order = "self") -> float:
        """Change in share of each side's own total, in percentage points."""
        before = change.before(order) / self.total_before if self.total_before else 0.0
        after = change.after(order) / self.total_after if self.total_after else 0.0
        return 100.0 * (after - before)

    def ranked(self, order: Order = "self", *, significant: bool = True) -> tuple[FunctionChange, ...]:
        """Changes by size of change on ``order``; only those above the noise floor by default."""
        rows = [c for c in self.changes if c.delta(order) != 0 and not (significant and c.noise(order))]
        rows.sort(key=lambda c: (-abs(c.delta(order)), -abs(c.delta(_other(order))), c.name))
        return tuple(rows)

    def regressions(self, order: Order = "self") -> tuple[FunctionChange, ...]:
        return tuple(c for c in self.ranked(order) if c.delta(order) > 0)

    def improvements(self, order: Order = "self") -> tuple[FunctionChange, ...]:
        return tuple(c for c in self.ranked(order) if c.delta(order) < 0)

    def with_presence(self, presence: Presence) -> tuple[FunctionChange, ...]:
        """New or vanished functions, largest total first (the order of the ``changes`` tuple otherwise)."""
        rows = [c for c in self.changes if c.presence == presence]
        rows.sort(key=lambda c: (-max(c.total_before, c.total_after), c.name))
        return tuple(rows)

    def noise_count(self, order: Order = "self") -> int:
        """Functions whose value moved, but by less than the noise floor."""
        return sum(1 for c in self.changes if c.delta(order) != 0 and c.noise(order))

    @property
    def biggest(self) -> FunctionChange | None:
        rows = self.ranked("self") or self.ranked("total")
        return rows[0] if rows else None


def _other(order: Order) -> Order:
    return "total" if order == "self" else "self"


def _by_name(stats: FunctionStats, index: dict[str, int], size: int) -> tuple[IntArray, IntArray]:
    """Self and total of one side laid out on the union name index.

    Readers intern names, so each name has one id; should a profile carry a name twice, its
    self values add up exactly and its total is recounted once per stack (never summed).
    """
    profile = stats.profile
    self_ = np.zeros(size, dtype=np.int64)
    total = np.zeros(size, dtype=np.int64)
    ids_of: dict[int, list[int]] = {}
    for fid in stats.present.tolist():
        ids_of.setdefault(index[profile.names[fid]], []).append(fid)
    for slot, ids in ids_of.items():
        self_[slot] = int(stats.self_values[ids].sum())
        total[slot] = int(stats.total_values[ids[0]]) if len(ids) == 1 else value_of_stacks_with(profile, ids)
    return self_, total


def _check_comparable(before: Profile, after: Profile) -> list[str]:
    if before.unit.strip().lower() != after.unit.strip().lower():
        raise AnalysisError(
            f"cannot compare profiles in different units: {before.unit!r} (baseline) and {after.unit!r} (new)",
            hint="choose the same sample type on both sides with --sample-type, or --unit for folded input",
        )
    notes: list[str] = []
    types = {before.sample_type.type, after.sample_type.type}
    if len(types) > 1 and not types & _GENERIC_TYPES:
        notes.append(
            f"the sample types differ ({before.sample_type} before, {after.sample_type} after); "
            "both are in the same unit, so the numbers compare, but check they measure the same thing"
        )
    for side, p in (("baseline", before), ("new profile", after)):
        t = p.truncation
        if t.other_nodes:
            notes.append(
                f"the {side} has {t.other_nodes:,} merged 'other' node(s): small paths there are not matched by name"
            )
        if t.elided_stacks:
            notes.append(f"the {side} had {t.elided_stacks:,} very deep stack(s) with middle frames elided")
    return notes


def _chain_for(before: Profile, after: Profile, target: FunctionChange | None) -> tuple[Chain | None, Side]:
    """The heaviest chain to the changed function, in the new profile when it is still there."""
    if target is None:
        return None, ""
    side: Side = "after" if target.total_after > 0 else "before"
    profile = after if side == "after" else before
    fid = profile.function_id(target.name)
    if fid is None:
        return None, ""
    try:
        return heaviest_chain(profile, function_stats(profile), fid), side
    except NoSuchFunctionError:  # only reached off the widest path: say nothing rather than guess
        return None, ""


def diff_profiles(before: Profile, after: Profile, floor: NoiseFloor | None = None) -> Diff:
    """Compare ``before`` (the baseline) with ``after``; raises AnalysisError for different units."""
    floor = floor or NoiseFloor()
    notes = _check_comparable(before, after)
    (before, counted_b), (after, counted_a) = split_counts(before), split_counts(after)
    if counted_b or counted_a:  # cuMemFreeAsync and the like count calls: never part of a byte change
        counted = sorted({c.name for c in (*counted_b, *counted_a)})
        notes.append(f"frames that count calls, not bytes, are left out of both sides: {', '.join(counted)}")
    stats_b, stats_a = function_stats(before), function_stats(after)
    names: list[str] = []
    index: dict[str, int] = {}
    for stats in (stats_b, stats_a):
        for fid in stats.present.tolist():
            name = stats.profile.names[fid]
            if name not in index:
                index[name] = len(names)
                names.append(name)
    self_b, total_b = _by_name(stats_b, index, len(names))
    self_a, total_a = _by_name(stats_a, index, len(names))
    scale = max(before.total, after.total)
    changes = []
    for i, name in enumerate(names):
        sb, sa, tb, ta = int(self_b[i]), int(self_a[i]), int(total_b[i]), int(total_a[i])
        presence: Presence = "new" if tb == 0 else "vanished" if ta == 0 else "both"
        changes.append(
            FunctionChange(name, sb, sa, tb, ta, presence, floor.is_noise(sb, sa, scale), floor.is_noise(tb, ta, scale))
        )
    changes.sort(key=lambda c: (-abs(c.delta("self")), -abs(c.delta("total")), c.name))
    partial = Diff(before, after, tuple(changes), floor, None, "", tuple(notes))
    chain, side = _chain_for(before, after, partial.biggest)
    return Diff(before, after, tuple(changes), floor, chain, side, tuple(notes))
