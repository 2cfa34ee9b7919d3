"""Callers and callees of one function, aggregated over every place it appears (Grafana's
"sandwich view"). An edge is counted once per stack, like pprof's cum rule."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from explainer.analysis.functions import sum_by
from explainer.model import Profile

if TYPE_CHECKING:  # the call tree is the flame graphs' (the app): a sandwich's numbers never need it
    from explainer.analysis.tree import Walk

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


CHUNK = 1 << 22
"""Frames looked at per step: a function that recurses through every frame of a 20M-frame profile
(26 KB as a pprof of repeated location ids) took 1.3 GB when its positions were taken at once."""


def _occurrences(profile: Profile, function_id: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(positions of the function, the stack each is in), one chunk of frames at a time, in order."""
    for at in range(0, len(profile.frames), CHUNK):
        positions = np.flatnonzero(profile.frames[at : at + CHUNK] == function_id) + at
        if len(positions):
            yield positions, np.searchsorted(profile.offsets, positions, side="right") - 1


def _edges(profile: Profile, function_id: int, step: int, limit: int) -> list[tuple[int, int]]:
    """The heaviest neighbours ``step`` away (-1 callers, +1 callees), each edge once per stack;
    ``len(names)`` stands for ENTRY or SELF (no neighbour that way)."""
    n_names = len(profile.names)
    found = []
    for positions, owner in _occurrences(profile, function_id):
        neighbour = positions + step
        valid = neighbour >= profile.offsets[owner] if step < 0 else neighbour < profile.offsets[owner + 1]
        ids = np.where(valid, profile.frames[np.where(valid, neighbour, 0)], n_names)
        keys = owner * (n_names + 1) + ids
        keys = keys[np.concatenate(([True], keys[1:] != keys[:-1]))]  # recursion repeats a pair: drop it before sorting
        found.append(np.unique(keys))  # once per stack (a stack may span two chunks)
    pairs = np.unique(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)
    sums = sum_by(pairs % (n_names + 1), profile.values[pairs // (n_names + 1)], n_names + 1)
    order = sorted(np.flatnonzero(sums).tolist(), key=lambda i: (-int(sums[i]), i))
    return [(i, int(sums[i])) for i in order[:limit]]


def sandwich(profile: Profile, function_id: int, limit: int = 20) -> Sandwich:
    names = (*profile.names, "")
    callers = _edges(profile, function_id, -1, limit)
    callees = _edges(profile, function_id, 1, limit)
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
    from explainer.analysis.tree import Walk

    firsts, lasts = [], []
    for positions, owner in _occurrences(profile, function_id):  # in order: the first is outermost
        _, first_at = np.unique(owner, return_index=True)
        firsts.append(positions[first_at])
        lasts.append(positions[np.concatenate((first_at[1:] - 1, [len(positions) - 1]))])
    empty = np.zeros(0, dtype=np.int64)
    first_all, last_all = (np.concatenate(p) if p else empty for p in (firsts, lasts))
    owner_first = np.searchsorted(profile.offsets, first_all, side="right") - 1
    stacks, first_at = np.unique(owner_first, return_index=True)  # a stack in two chunks: its first chunk's
    first = first_all[first_at]
    owner_last = np.searchsorted(profile.offsets, last_all, side="right") - 1
    last_at = len(owner_last) - 1 - np.unique(owner_last[::-1], return_index=True)[1]  # and its last chunk's
    last = last_all[last_at]
    starts, ends = profile.offsets[stacks], profile.offsets[stacks + 1]
    return Walk(stacks, first, ends - first, 1), Walk(stacks, last, last - starts + 1, -1)
