"""The call tree a person looks at, built from the profile's stacks with a node budget.

Built breadth first: at each depth the children of kept nodes are grouped from the stacks
(one numpy pass per depth, no recursion, so 10,000-frame stacks are fine), and the widest
children are kept while the budget lasts. What does not fit is merged into one ``other``
child per parent, as Pyroscope does, so every node's total stays exact:
``total = self + sum(children)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from explainer.model import OTHER, IntArray, Profile

DEFAULT_MAX_NODES = 8192


@dataclass(frozen=True, eq=False)
class CallTree:
    """Node 0 is the root ("total"). ``func[i]`` indexes ``names``; -1 only for the root."""

    names: tuple[str, ...]
    func: np.ndarray
    parent: np.ndarray
    depth: np.ndarray
    self: IntArray
    total: IntArray
    max_nodes: int
    merged_nodes: int  # how many children were merged into ``other`` nodes
    unit: str

    @property
    def size(self) -> int:
        return len(self.func)

    def name(self, node: int) -> str:
        return "total" if node == 0 else self.names[int(self.func[node])]

    @cached_property
    def _children(self) -> tuple[np.ndarray, np.ndarray]:
        order = np.argsort(self.parent[1:], kind="stable") + 1
        starts = np.searchsorted(self.parent[order], np.arange(self.size + 1))
        return order, starts

    def children(self, node: int) -> list[int]:
        order, starts = self._children
        kids = order[starts[node] : starts[node + 1]].tolist()
        return sorted(kids, key=lambda k: self.names[int(self.func[k])])

    def path(self, node: int) -> list[int]:
        """Node ids from the root's child down to ``node``."""
        out = []
        while node > 0:
            out.append(node)
            node = int(self.parent[node])
        return out[::-1]


def build_tree(profile: Profile, max_nodes: int = DEFAULT_MAX_NODES) -> CallTree:
    """The call tree, with at most about ``max_nodes`` nodes (0 = no limit)."""
    n_names = len(profile.names)
    other_id = n_names  # "other" gets an id past the profile's names
    offsets, frames, values = profile.offsets, profile.frames, profile.values
    lengths = np.diff(offsets)
    func: list[int] = [-1]
    parent: list[int] = [-1]
    depth: list[int] = [0]
    self_: list[IntArray] = [np.zeros(1, dtype=np.int64)]
    total: list[IntArray] = [np.asarray([profile.total], dtype=np.int64)]
    other_self: dict[int, int] = {}
    count = 1
    merged = 0
    active = np.flatnonzero(lengths > 0)
    node_of = np.zeros(profile.stack_count, dtype=np.int64)
    d = 0
    budget = max_nodes if max_nodes > 0 else None
    while len(active):
        f = frames[offsets[active] + d].astype(np.int64)
        key = node_of[active] * (n_names + 1) + f
        uniq, inverse = np.unique(key, return_inverse=True)
        sums = np.zeros(len(uniq), dtype=np.int64)
        np.add.at(sums, inverse, values[active])
        ends_here = lengths[active] == d + 1
        self_here = np.zeros(len(uniq), dtype=np.int64)
        np.add.at(self_here, inverse[ends_here], values[active][ends_here])
        keep = np.ones(len(uniq), dtype=bool)
        if budget is not None and count + len(uniq) > budget:
            room = max(budget - count, 0)
            order = np.lexsort((uniq, -sums))  # widest first, ties by key for determinism
            keep[:] = False
            keep[order[:room]] = True
        new_ids = np.full(len(uniq), -1, dtype=np.int64)
        new_ids[keep] = np.arange(count, count + int(keep.sum()))
        count += int(keep.sum())
        func.extend((uniq[keep] % (n_names + 1)).tolist())
        parent.extend((uniq[keep] // (n_names + 1)).tolist())
        depth.extend([d + 1] * int(keep.sum()))
        self_.append(self_here[keep])
        total.append(sums[keep])
        dropped = ~keep
        if dropped.any():
            merged += int(dropped.sum())
            for p, v in zip((uniq[dropped] // (n_names + 1)).tolist(), sums[dropped].tolist(), strict=True):
                other_self[p] = other_self.get(p, 0) + v
        child = new_ids[inverse]
        node_of[active] = child
        active = active[(child >= 0) & ~ends_here]
        d += 1
    names = profile.names
    for p, v in sorted(other_self.items()):
        func.append(other_id)
        parent.append(p)
        depth.append(int(depth[p]) + 1)
        self_.append(np.asarray([v], dtype=np.int64))
        total.append(np.asarray([v], dtype=np.int64))
    if other_self:
        names = (*names, OTHER)
    return CallTree(
        names=names,
        func=np.asarray(func, dtype=np.int64),
        parent=np.asarray(parent, dtype=np.int64),
        depth=np.asarray(depth, dtype=np.int64),
        self=np.concatenate(self_),
        total=np.concatenate(total),
        max_nodes=max_nodes,
        merged_nodes=merged,
        unit=profile.unit,
    )
