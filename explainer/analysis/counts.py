"""Frames that count calls in a byte profile, taken out of it in one place.

A newer profile_cuda program records ``cuMemFreeAsync`` and ``cuMemPoolCreate`` as 1 per call in
the same "bytes" profile as the allocations. Added to bytes they would be nonsense, so
:func:`split_counts` removes every stack through such a frame before anything is summed, and keeps
the calls apart; :func:`explainer.analysis.summary.summarize` calls it, so every total, share,
category and surface built on a summary follows.

Which frames count calls is data in the knowledge base's ``facts.toml`` (``[[count_frame]]``). The
analysis reads that table's names itself, as data, because the knowledge layer builds on the
analysis; :func:`explainer.knowledge.facts.count_frames` reads the same table with each frame's
versions and source, and the knowledge tests hold every entry to both.
"""

from __future__ import annotations

import pkgutil
import tomllib
from dataclasses import dataclass
from functools import cache

import numpy as np

from explainer import units
from explainer.analysis.functions import stacks_with
from explainer.model import Profile, _select, once_per_profile, with_stacks


@cache
def count_frames() -> dict[str, str]:
    """Every count-valued frame's name and what one call of it does, in ``facts.toml``'s order."""
    data = pkgutil.get_data("explainer.knowledge", "facts.toml")
    table = tomllib.loads(data.decode("utf-8")) if data else {}
    return {str(raw["name"]): str(raw["does"]) for raw in table.get("count_frame", [])}


@dataclass(frozen=True, slots=True)
class CallCount:
    name: str  # the count-valued frame (cuMemFreeAsync)
    calls: int  # the sum of its stacks' values: one per call
    stacks: int
    does: str


@once_per_profile
def split_counts(profile: Profile) -> tuple[Profile, tuple[CallCount, ...]]:
    """``profile`` without the stacks of count-valued frames, and those frames' call counts.

    Only byte profiles are split: in a count or time profile the same frames mean what they say.
    A stack through two count frames is counted once, for the first in ``facts.toml``.
    """
    if units.kind_of(profile.unit) != "bytes" or not profile.stack_count:
        return profile, ()
    known = count_frames()
    ids = {name: fid for fid, name in enumerate(profile.names) if name in known}
    if not ids:
        return profile, ()
    taken = np.zeros(profile.stack_count, dtype=bool)
    counts: list[CallCount] = []
    for name in known:
        if name not in ids:
            continue
        mask = stacks_with(profile, [ids[name]]) & ~taken
        taken |= mask
        if mask.any():
            calls = int(profile.values[mask].sum())
            counts.append(CallCount(name, calls, int(mask.sum()), known[name]))
    if not taken.any():
        return profile, ()
    offsets, frames, values = _select(profile.offsets, profile.frames, profile.values, ~taken)
    kept = with_stacks(profile, offsets, frames, values)
    return kept, tuple(counts)
