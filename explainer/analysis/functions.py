"""Self and total per function, with pprof's counting rule, and honest top-N lists.

Self of a function = the values of stacks whose leaf frame is that function. Total = the
values of stacks in which the function appears at least once: a recursive function is not
counted twice in one stack (pprof's flat and cum).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import numpy as np

from explainer.model import OTHER, IntArray, Profile

Order = Literal["self", "total"]

try:  # the compiled fold is an optional accelerator; results are tested equal to the numpy path
    from explainer import _fold as _fold  # type: ignore[attr-defined]  # chain and attribution use it too
except ImportError:  # pragma: no cover - depends on the build
    _fold = None


def leaf_ids(profile: Profile) -> np.ndarray:
    return profile.frames[profile.offsets[1:] - 1] if profile.stack_count else np.zeros(0, dtype=profile.frames.dtype)


def stack_index(profile: Profile) -> IntArray:
    """For every frame position, the index of its stack."""
    lengths = np.diff(profile.offsets)
    return np.repeat(np.arange(profile.stack_count, dtype=np.int64), lengths)


def sum_by(keys: np.ndarray, weights: IntArray, size: int) -> IntArray:
    """Exact int64 sums of ``weights`` grouped by ``keys`` in ``[0, size)`` (bincount is float).

    ``np.add.at`` is unbuffered and exact; since numpy 1.25 it is a tight loop, tens of times
    faster than sorting the keys.
    """
    out = np.zeros(size, dtype=np.int64)
    np.add.at(out, keys, weights)
    return out


def stacks_with(profile: Profile, function_ids: list[int]) -> np.ndarray:
    """A boolean per stack: does it contain any of ``function_ids``?"""
    if not profile.stack_count or not function_ids:
        return np.zeros(profile.stack_count, dtype=bool)
    wanted = np.zeros(len(profile.names), dtype=bool)
    wanted[function_ids] = True
    if _fold is not None:  # stops at the first wanted frame of each stack
        raw = _fold.stacks_with(profile.offsets, profile.frames, wanted, profile.frames.itemsize)
        return np.frombuffer(raw, dtype=bool)
    hit = wanted[profile.frames]
    return np.logical_or.reduceat(hit, profile.offsets[:-1])


def value_of_stacks_with(profile: Profile, function_ids: list[int]) -> int:
    return int(profile.values[stacks_with(profile, function_ids)].sum())


def _self_and_total(profile: Profile) -> tuple[IntArray, IntArray]:
    n_funcs = len(profile.names)
    self_ = sum_by(leaf_ids(profile), profile.values, n_funcs)
    n = max(profile.stack_count, 1)
    # one (function, stack) pair per appearance; unique pairs count a function once per stack
    pairs = np.unique(profile.frames.astype(np.int64) * n + stack_index(profile))
    total = sum_by(pairs // n, profile.values[pairs % n], n_funcs)
    return self_, total


@dataclass(frozen=True, eq=False)
class FunctionStats:
    """Self and total for every function id of one profile."""

    profile: Profile
    self_values: IntArray
    total_values: IntArray

    @property
    def grand_total(self) -> int:
        return self.profile.total

    @cached_property
    def present(self) -> np.ndarray:
        """Ids of functions that carry any value (appear in at least one stack). A server's ``other``
        nodes are merged small subtrees, not a function: no list ranks or names them (their value
        still counts in the total, and the truncation notes say how much it is)."""
        ids = np.flatnonzero(self.total_values > 0)
        if self.profile.truncation.other_nodes and OTHER in self.profile.names:
            ids = ids[ids != self.profile.names.index(OTHER)]
        return ids

    @cached_property
    def name_rank(self) -> IntArray:
        """Each function id's place in name order: ties in value are ordered by name, as pprof does."""
        names = self.profile.names
        rank = np.empty(len(names), dtype=np.int64)
        rank[sorted(range(len(names)), key=names.__getitem__)] = np.arange(len(names), dtype=np.int64)
        return rank

    @property
    def function_count(self) -> int:
        return len(self.present)

    def of(self, fid: int) -> tuple[int, int]:
        return int(self.self_values[fid]), int(self.total_values[fid])


_PRESET: dict[int, tuple[weakref.ref[np.ndarray], IntArray, IntArray, int, IntArray, IntArray]] = {}


def preset_stats(profile: Profile, self_values: IntArray, total_values: IntArray) -> None:
    """Self and total that the reader summed as it decoded the samples (the compiled fold): what
    :func:`function_stats` returns for these very arrays instead of another pass over every frame.
    Kept by the frames array's identity, checked with the offsets, values and name count, and
    forgotten with the frames: a profile rebuilt from other stacks (a filter, the count-frame
    split) has other arrays and is counted afresh."""
    frames = profile.frames
    key = id(frames)

    def forget(_: weakref.ref[np.ndarray]) -> None:
        _PRESET.pop(key, None)

    ref = weakref.ref(frames, forget)
    _PRESET[key] = (ref, profile.offsets, profile.values, len(profile.names), self_values, total_values)


def _preset(profile: Profile) -> tuple[IntArray, IntArray] | None:
    known = _PRESET.get(id(profile.frames))
    if known is None:
        return None
    ref, offsets, values, n_names, self_values, total_values = known
    if (
        ref() is profile.frames
        and offsets is profile.offsets
        and values is profile.values
        and n_names == len(profile.names)
    ):
        return self_values, total_values
    return None


def function_stats(profile: Profile) -> FunctionStats:
    preset = _preset(profile)
    if preset is not None:
        return FunctionStats(profile, *preset)
    if _fold is not None:
        raw_self, raw_total = _fold.self_and_total(
            profile.offsets, profile.frames, profile.values, len(profile.names), profile.frames.itemsize
        )
        self_, total = np.frombuffer(raw_self, dtype=np.int64), np.frombuffer(raw_total, dtype=np.int64)
    else:
        self_, total = _self_and_total(profile)
    return FunctionStats(profile, self_, total)


@dataclass(frozen=True, slots=True)
class TopRow:
    id: int
    name: str
    self: int
    total: int


@dataclass(frozen=True, slots=True)
class TopList:
    """The first ``len(rows)`` of ``of_functions`` functions and how much of the total they cover."""

    order: Order
    rows: tuple[TopRow, ...]
    of_functions: int
    covered: int  # sum of the ordering value over the rows (self sums never double count)
    grand_total: int
    unit: str

    @property
    def coverage(self) -> float:
        return self.covered / self.grand_total if self.grand_total else 0.0

    @property
    def truncated(self) -> bool:
        return len(self.rows) < self.of_functions


def ranked(stats: FunctionStats, order: Order) -> np.ndarray:
    """Function ids in pprof's order: value descending, then name, then the other value."""
    ids = stats.present
    primary = stats.self_values if order == "self" else stats.total_values
    secondary = stats.total_values if order == "self" else stats.self_values
    # lexsort sorts by its last key first; negated values sort descending (values are >= 0)
    keys = (-secondary[ids], stats.name_rank[ids], -primary[ids])
    return ids[np.lexsort(keys)].astype(np.int64, copy=False)


def top(stats: FunctionStats, order: Order = "self", n: int = 10) -> TopList:
    """The top ``n`` functions by self or total, with the coverage a report must state."""
    ids = ranked(stats, order)[: max(n, 0)]
    names = stats.profile.names
    rows = tuple(TopRow(int(i), names[i], int(stats.self_values[i]), int(stats.total_values[i])) for i in ids)
    if order == "self":
        covered = sum(r.self for r in rows)
    else:  # totals overlap (a caller's total holds its callee's): count each stack once
        covered = value_of_stacks_with(stats.profile, [r.id for r in rows])
    return TopList(order, rows, stats.function_count, covered, stats.grand_total, stats.profile.unit)
