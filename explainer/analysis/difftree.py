"""The call tree of two profiles at once, for a diff flame graph: per node, before and after.

Both profiles' stacks go into one tree (bar width = before + after, so a call path that
vanished still has a bar), built with the usual node budget; then each side's stacks are
walked down that tree once more to find what each node holds on that side. A stack that
leaves the kept tree is counted in the ``other`` node it was merged into, so for every node
``before + after`` equals its total exactly. Changes are judged by the same noise floor as
:mod:`explainer.analysis.diff` (raw values, both thresholds), so the graph and the
before/after table never disagree about what changed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explainer.analysis.diff import NoiseFloor
from explainer.analysis.tree import DEFAULT_MAX_NODES, CallTree, build_tree
from explainer.model import IntArray, Profile, from_arrays


@dataclass(frozen=True, eq=False)
class DiffTree:
    tree: CallTree  # over both profiles: ``tree.total = before + after``
    before: IntArray  # per node: what the baseline's stacks through this call path hold
    after: IntArray
    noise: np.ndarray  # per node: the change is under the noise floor
    total_before: int
    total_after: int
    name_count: int  # names of both profiles; ``tree.func`` at or past it marks the tree's `other` nodes


def _merged(before: Profile, after: Profile) -> Profile:
    """Both profiles' stacks over one name table: the baseline's first, then the new profile's."""
    names = list(after.names)
    index = {n: i for i, n in enumerate(names)}
    for n in before.names:
        if n not in index:
            index[n] = len(names)
            names.append(n)
    remap = np.asarray([index[n] for n in before.names], dtype=np.int32)
    offsets = np.concatenate((before.offsets[:-1], after.offsets + before.offsets[-1]))
    frames = np.concatenate((remap[before.frames], after.frames))
    values = np.concatenate((before.values, after.values))
    merged = from_arrays(names, offsets, frames, values, after.sample_type)
    # readers and builders keep no empty or zero stacks, so none were dropped and the split holds
    assert merged.stack_count == before.stack_count + after.stack_count
    return merged


def _deepest(tree: CallTree, profile: Profile, stacks: np.ndarray) -> np.ndarray:
    """For each of ``stacks``, the deepest tree node on its path (an ``other`` node if cut)."""
    width = len(profile.names) + 1  # the tree's own `other` nodes have func == len(names)
    keys = tree.parent[1:] * width + tree.func[1:]
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]

    def child(node: np.ndarray, func: np.ndarray) -> np.ndarray:
        want = node * width + func
        pos = np.minimum(np.searchsorted(sorted_keys, want), max(len(sorted_keys) - 1, 0))
        found = sorted_keys[pos] == want if len(sorted_keys) else np.zeros(len(want), dtype=bool)
        return np.where(found, order[pos] + 1, -1)

    offsets, lengths = profile.offsets, np.diff(profile.offsets)
    deepest = np.zeros(len(stacks), dtype=np.int64)
    active = np.flatnonzero(lengths[stacks] > 0)
    d = 0
    while len(active):
        at = stacks[active]
        nxt = child(deepest[active], profile.frames[offsets[at] + d])
        cut = nxt < 0
        nxt[cut] = child(deepest[active][cut], np.full(int(cut.sum()), width - 1))  # its `other` node
        assert (nxt >= 0).all(), "a path left out of the tree always has an `other` node"
        deepest[active] = nxt
        active = active[~cut & (lengths[at] > d + 1)]
        d += 1
    return deepest


def _held(tree: CallTree, deepest: np.ndarray, values: IntArray) -> IntArray:
    held = np.zeros(tree.size, dtype=np.int64)
    np.add.at(held, deepest, values)
    parent = tree.parent.tolist()
    for node in range(tree.size - 1, 0, -1):  # children have larger ids than their parents
        held[parent[node]] += held[node]
    return held


def diff_tree(
    before: Profile, after: Profile, floor: NoiseFloor | None = None, max_nodes: int = DEFAULT_MAX_NODES
) -> DiffTree:
    floor = floor or NoiseFloor()
    merged = _merged(before, after)
    tree = build_tree(merged, max_nodes=max_nodes)
    first = np.arange(before.stack_count)
    held_before = _held(tree, _deepest(tree, merged, first), merged.values[first])
    held_after = tree.total - held_before
    scale = max(before.total, after.total)
    noise = np.asarray(
        [floor.is_noise(b, a, scale) for b, a in zip(held_before.tolist(), held_after.tolist(), strict=True)]
    )
    return DiffTree(tree, held_before, held_after, noise, before.total, after.total, len(merged.names))
