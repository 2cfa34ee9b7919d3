"""Callers and callees of one function, aggregated over every place it appears (Grafana's
"sandwich view"). An edge is counted once per stack, like pprof's cum rule."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explainer.analysis.functions import sum_by
from explainer.analysis.tree import Walk
from explainer.model import Profile

ENTRY = "(entry point)"
SELF = "(self)"


@dataclass(frozen=True, slots=True)
class Neighbour:
    name: str
    value: int


@dataclass(frozen=True, slots=True)
class Sandwich:
    function: str
    callers: tuple[Neighbour, ...]  # heaviest first; ENTRY where the function is a root frame
    callees: tuple[Neighbour, ...]  # heaviest first; SELF for the function's own self
    unit: str


def _edges(
    profile: Profile, positions: np.ndarray, neighbour: np.ndarray, valid: np.ndarray, limit: int
) -> list[tuple[int, int]]:
    owner = np.searchsorted(profile.offsets, positions, side="right") - 1
    n_names = len(profile.names)
    ids = np.where(valid, profile.frames[np.where(valid, neighbour, 0)], n_names)  # n_names = ENTRY/SELF
    pairs = np.unique(owner * (n_names + 1) + ids)  # once per stack
    sums = sum_by(pairs % (n_names + 1), profile.values[pairs // (n_names + 1)], n_names + 1)
    order = sorted(np.flatnonzero(sums).tolist(), key=lambda i: (-int(sums[i]), i))
    return [(i, int(sums[i])) for i in order[:limit]]


def sandwich(profile: Profile, function_id: int, limit: int = 20) -> Sandwich:
    positions = np.flatnonzero(profile.frames == function_id)
    owner = np.searchsorted(profile.offsets, positions, side="right") - 1
    starts, ends = profile.offsets[owner], profile.offsets[owner + 1]
    names = (*profile.names, "")
    callers = _edges(profile, positions, positions - 1, positions > starts, limit)
    callees = _edges(profile, positions, positions + 1, positions + 1 < ends, limit)
    return Sandwich(
        profile.names[function_id],
        tuple(Neighbour(names[i] or ENTRY, v) for i, v in callers),
        tuple(Neighbour(names[i] or SELF, v) for i, v in callees),
        profile.unit,
    )


def sandwich_walks(profile: Profile, function_id: int) -> tuple[Walk, Walk]:
    """What the two sandwich flame graphs are built from, both rooted at the function (Grafana's layout).

    Callees: each stack through the function from its outermost call on, so the tree's root is
    the function with everything it calls above it. Callers: each such stack from its innermost
    call back to the entry point, so the root is the function and its children are its callers.
    One stack counts once in each, so both roots hold the function's total. No frame is copied:
    a 500k-stack profile's callers are walks over its own frame array.
    """
    positions = np.flatnonzero(profile.frames == function_id)
    owner = np.searchsorted(profile.offsets, positions, side="right") - 1
    stacks, first_at = np.unique(owner, return_index=True)  # positions are sorted: the first is outermost
    first = positions[first_at]
    last = positions[np.concatenate((first_at[1:] - 1, [len(positions) - 1]))] if len(positions) else first
    starts, ends = profile.offsets[stacks], profile.offsets[stacks + 1]
    return Walk(stacks, first, ends - first, 1), Walk(stacks, last, last - starts + 1, -1)
