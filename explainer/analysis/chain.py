"""The heaviest call chain to a function, read bottom (entry) to top (the function), as the
seed document reads the vLLM KV-cache stack.

We follow the widest bar: starting at the entry point, at each depth we step to the frame
that carries the most of the target's value among the stacks that still agree with the
chain so far, until we reach the target. Each step keeps the value of that prefix (the
width of the bar in the flame graph) and the function's own self.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from explainer.analysis.functions import FunctionStats, _fold, sum_by
from explainer.errors import NoSuchFunctionError
from explainer.model import IntArray, Profile


@dataclass(frozen=True, slots=True)
class ChainStep:
    id: int
    name: str
    width: int  # value of the stacks through this prefix (the bar's width)
    self: int  # the function's self over the whole profile
    total: int  # the function's total over the whole profile


@dataclass(frozen=True, slots=True)
class Chain:
    target: str
    steps: tuple[ChainStep, ...]  # entry first, target last
    value: int  # value reaching the target along this chain
    target_total: int  # the target's total over all chains
    unit: str


@dataclass(frozen=True, eq=False)
class Calls:
    """Each target's calls in some of a profile's stacks: the stacks that hold it (ascending) and the
    depth of its innermost call in each, where its walk starts. Found by one pass over those stacks'
    frames (:func:`find_calls`), so two threads can each find a half; :meth:`joined` puts halves together."""

    at: dict[int, tuple[IntArray, npt.NDArray[np.int32]]]  # target -> (stacks, depths)

    def joined(self, later: Calls) -> Calls:
        """These calls, then ``later``'s (found in the stacks after these), target by target."""
        return Calls(
            {
                t: (np.concatenate((s, later.at[t][0])), np.concatenate((d, later.at[t][1])))
                for t, (s, d) in self.at.items()
            }
        )


_CHAINS: weakref.WeakKeyDictionary[Profile, dict[int, Chain | None]] = weakref.WeakKeyDictionary()
WALK_BATCH = 16  # targets per pass of the compiled walk (its MAX_TARGETS)


def heaviest_chain(profile: Profile, stats: FunctionStats, target: int) -> Chain:
    """The chain to ``target``, computed once per profile: the summary, the reports and the chat
    all ask for the chain to the top consumer, and each walk reads every frame."""
    if not 0 <= target < len(profile.names) or stats.total_values[target] == 0:
        raise NoSuchFunctionError(f"no stack contains function id {target}")
    chain = heaviest_chains(profile, stats, [target])[target]
    if chain is None:  # the target is only ever reached off the widest path
        raise NoSuchFunctionError(f"could not follow a chain to {profile.names[target][:80]!r}")
    return chain


def heaviest_chains(
    profile: Profile, stats: FunctionStats, targets: Sequence[int], calls: Calls | None = None
) -> dict[int, Chain | None]:
    """Chains to several functions with one pass over the frames (none when ``calls``, found before,
    holds every target's); None where none can be followed (absent from every stack, or reached only
    off the widest path)."""
    known = _CHAINS.setdefault(profile, {})
    wanted = [t for t in dict.fromkeys(targets) if t not in known]
    valid = [t for t in wanted if 0 <= t < len(profile.names) and stats.total_values[t] > 0]
    found: dict[int, Chain | None] = dict.fromkeys(wanted)  # invalid ones stay None
    for i in range(0, len(valid), WALK_BATCH):
        batch = valid[i : i + WALK_BATCH]
        paths = _paths(profile, batch) if calls is None else _walks(profile, batch, calls)
        for target, path in zip(batch, paths, strict=True):
            if path and path[-1][0] == target:
                steps = tuple(ChainStep(fid, profile.names[fid], width, *stats.of(fid)) for fid, width in path)
                total = int(stats.total_values[target])
                found[target] = Chain(profile.names[target], steps, steps[-1].width, total, profile.unit)
    # published only once walked: the walk releases the GIL, and another thread (an app session on the
    # same cached profile) asking meanwhile must walk too, never read a placeholder as "no chain"
    known.update(found)
    return {t: known[t] for t in targets}


def _paths(profile: Profile, targets: list[int]) -> list[list[tuple[int, int]]]:
    if _fold is None:
        return [_widest_path(profile, t) for t in targets]
    paths: list[list[tuple[int, int]]] = _fold.heaviest_paths(
        profile.offsets,
        profile.frames,
        profile.values,
        np.asarray(targets, dtype=np.int32),
        len(profile.names),
        profile.frames.itemsize,
    )
    return paths


def find_calls(profile: Profile, targets: Sequence[int], stacks: range) -> Calls:
    """Each target's calls in ``stacks`` (a step-1 range of stack indices): the compiled walk's first
    pass, over those stacks alone. Up to :data:`WALK_BATCH` targets, each a name of the profile, none repeated."""
    assert _fold is not None, "the compiled fold is not built"  # walk_chains asks only when it is
    ids = np.asarray(targets, dtype=np.int32)
    found, depths, counts = _fold.find_calls(
        profile.offsets, profile.frames, ids, len(profile.names), profile.frames.itemsize, stacks.start, stacks.stop
    )
    ends = np.cumsum(counts)[:-1]
    per_stack = np.split(np.frombuffer(found, dtype=np.int64), ends)
    per_depth = np.split(np.frombuffer(depths, dtype=np.int32), ends)
    return Calls({int(t): (s, d) for t, s, d in zip(targets, per_stack, per_depth, strict=True)})


def _walks(profile: Profile, targets: list[int], calls: Calls) -> list[list[tuple[int, int]]]:
    """The compiled walks to ``targets`` from their ``calls``."""
    assert _fold is not None, "the compiled fold is not built"
    at = [calls.at[t] for t in targets]
    paths: list[list[tuple[int, int]]] = _fold.walk_calls(
        profile.offsets,
        profile.frames,
        profile.values,
        np.asarray(targets, dtype=np.int32),
        np.concatenate([s for s, _ in at]),
        np.concatenate([d for _, d in at]),
        tuple(len(s) for s, _ in at),
        len(profile.names),
        profile.frames.itemsize,
    )
    return paths


def _widest_path(profile: Profile, target: int) -> list[tuple[int, int]]:
    """``(function id, width)`` per depth from the root: the numpy twin of the compiled walk."""
    offsets, frames, values = profile.offsets, profile.frames, profile.values
    hit = frames == target
    # first occurrence of the target in each stack (recursion: the outermost call)
    has = np.logical_or.reduceat(hit, offsets[:-1])
    stacks = np.flatnonzero(has)
    positions = np.flatnonzero(hit)
    owner = np.searchsorted(offsets, positions, side="right") - 1
    first_pos = np.full(profile.stack_count, -1, dtype=np.int64)
    first_pos[owner[::-1]] = positions[::-1]
    depth_of_target = first_pos[stacks] - offsets[stacks]
    path: list[tuple[int, int]] = []
    d = 0
    while len(stacks):
        here = frames[offsets[stacks] + d].astype(np.int64)
        widths = sum_by(here, values[stacks], len(profile.names))
        choice = int(np.argmax(widths))  # ties: the lowest id
        path.append((choice, int(widths[choice])))
        if choice == target:
            break
        agree = (here == choice) & (depth_of_target > d)
        stacks, depth_of_target = stacks[agree], depth_of_target[agree]
        d += 1
    return path
