"""A call tree cut at a depth, for what is drawn: the node budget bounds a tree's width, this its height.

Readers keep stacks up to 4,096 frames (``model.DEFAULT_MAX_DEPTH``), and a 26 KB pprof of
repeated location ids is 4,000 frames deep: drawn whole, that is a canvas 72,000 pixels tall
(282 MB of bitmap at 980 px wide, per graph). The real corpus is at most 85 frames deep, so the
graph keeps the first ``MAX_DRAWN_DEPTH`` levels and merges what lies deeper into one ``other``
child per node at the last level, which keeps every total exact (``total = self + children``).
The tables, the call chain and the answers still read every frame; the caption says where it cut.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from explainer.analysis.tree import CallTree
from explainer.model import OTHER

MAX_DRAWN_DEPTH = 512
"""Levels of a flame graph sent to the browser (9,216 px of rows); deeper call paths become `other`."""


@dataclass(frozen=True)
class DepthCut:
    tree: CallTree
    cut_nodes: int  # nodes deeper than the bound, merged into `other` children
    cut_value: int  # what those merged children hold
    carried: tuple[np.ndarray, ...]  # each extra per-node array, cut the same way (markers get their sums)


def cut_depth(
    tree: CallTree, n_profile_names: int, max_depth: int = MAX_DRAWN_DEPTH, carried: tuple[np.ndarray, ...] = ()
) -> DepthCut:
    """``tree`` with its nodes deeper than ``max_depth`` merged into one `other` node per parent at
    ``max_depth``. ``carried`` per-node arrays (a diff's before and after) are cut alike: a new
    `other` node gets the sum over the direct children it replaces. ``n_profile_names``: where the
    tree's marker name (`other`) sits in ``tree.names``, as in :func:`explainer.analysis.tree.build_tree`."""
    deep = tree.depth > max_depth
    if not deep.any():
        return DepthCut(tree, 0, 0, carried)
    keep = ~deep
    kept = np.flatnonzero(keep)
    new_id = np.cumsum(keep) - 1
    parent = np.where(kept == 0, -1, new_id[np.maximum(tree.parent[kept], 0)])
    first = np.flatnonzero(tree.depth == max_depth + 1)  # the direct children of the last kept level
    owners, slot = np.unique(tree.parent[first], return_inverse=True)

    def merged(values: np.ndarray) -> np.ndarray:
        sums = np.zeros(len(owners), dtype=values.dtype)
        np.add.at(sums, slot, values[first])
        return np.concatenate((values[kept], sums))

    total = merged(tree.total)
    names = tree.names if len(tree.names) > n_profile_names else (*tree.names, OTHER)
    cut = replace(
        tree,
        names=names,
        func=np.concatenate((tree.func[kept], np.full(len(owners), n_profile_names, dtype=np.int64))),
        parent=np.concatenate((parent, new_id[owners])).astype(np.int64),
        depth=np.concatenate((tree.depth[kept], np.full(len(owners), max_depth + 1, dtype=np.int64))),
        self=np.concatenate((tree.self[kept], total[len(kept) :])),
        total=total,
    )
    return DepthCut(cut, int(deep.sum()), int(total[len(kept) :].sum()), tuple(merged(a) for a in carried))
