"""Callers and callees of one function, aggregated over every place it appears (Grafana's
"sandwich view"). An edge is counted once per stack, like pprof's cum rule."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explainer.analysis.functions import sum_by
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
