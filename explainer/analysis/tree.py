"""The call tree a person looks at, built from the profile's stacks with a node budget.

Which nodes are kept follows Pyroscope's rule: the widest nodes of the whole tree, whatever
their depth, and what does not fit is merged into one ``other`` child per parent, so every
node's total stays exact (``total = self + sum(children)``). The budget counts those ``other``
nodes too. A child is never wider than its parent, so "the N widest" is always a proper tree.

Built breadth first with numpy, one pass per depth and no recursion, so 10,000-frame stacks
are fine. While building, a node narrower than the N-th widest node seen so far can never be
among the N widest of the whole tree, so its stacks are dropped at once: large profiles stay
cheap.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from itertools import pairwise

import numpy as np

from explainer.analysis.functions import _fold
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
    merged_nodes: int  # how many nodes of the full tree are folded into ``other`` nodes (at least)
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


@dataclass
class _Nodes:
    """The growing node table of the breadth-first build (plain lists of numpy chunks)."""

    func: list[np.ndarray]
    parent: list[np.ndarray]
    depth: list[np.ndarray]
    self_: list[np.ndarray]
    total: list[np.ndarray]
    count: int = 1

    def add(self, func: np.ndarray, parent: np.ndarray, depth: int, self_: np.ndarray, total: np.ndarray) -> np.ndarray:
        ids = np.arange(self.count, self.count + len(func), dtype=np.int64)
        self.func.append(func)
        self.parent.append(parent)
        self.depth.append(np.full(len(func), depth, dtype=np.int64))
        self.self_.append(self_)
        self.total.append(total)
        self.count += len(func)
        return ids

    def arrays(self) -> tuple[np.ndarray, ...]:
        return tuple(np.concatenate(x) for x in (self.func, self.parent, self.depth, self.self_, self.total))


@dataclass(frozen=True, eq=False)
class Walk:
    """Which frames of which stacks a tree is built from: ``lengths[k]`` frames of stack
    ``stacks[k]`` from index ``starts[k]`` of ``profile.frames``, by ``step`` (+1 root to leaf,
    -1 leaf to root). A sandwich's callers walk back from the function to the entry point
    without copying any frames (see :func:`explainer.analysis.sandwich.sandwich_walks`)."""

    stacks: IntArray
    starts: IntArray
    lengths: IntArray
    step: int = 1


def whole(profile: Profile) -> Walk:
    """Every stack, root to leaf."""
    return Walk(np.arange(profile.stack_count), profile.offsets[:-1], np.diff(profile.offsets))


def _grow(profile: Profile, bound_of: int | None, walk: Walk) -> tuple[np.ndarray, ...]:
    """Every node of the full tree, except those provably outside the ``bound_of`` widest."""
    if _fold is not None:  # the same nodes in the same order, grouped by hashing in C
        out = _fold.grow_tree(
            profile.frames,
            np.ascontiguousarray(walk.starts, dtype=np.int64),
            np.ascontiguousarray(walk.lengths, dtype=np.int64),
            np.ascontiguousarray(profile.values[walk.stacks], dtype=np.int64),
            walk.step,
            len(profile.names),
            bound_of or 0,
            profile.frames.itemsize,
        )
        return tuple(np.frombuffer(column, dtype=np.int64) for column in out)
    return _grow_numpy(profile, bound_of, walk)


def _grow_numpy(profile: Profile, bound_of: int | None, walk: Walk) -> tuple[np.ndarray, ...]:
    """:func:`_grow`'s numpy twin: one ``np.unique`` per depth."""
    width = len(profile.names) + 1
    frames, values = profile.frames, profile.values[walk.stacks]
    starts, lengths = walk.starts, walk.lengths
    one = np.ones(1, dtype=np.int64)
    nodes = _Nodes([-one], [-one], [0 * one], [0 * one], [np.asarray([int(values.sum())], dtype=np.int64)])
    widest = np.zeros(0, dtype=np.int64)  # the largest totals seen so far (at most bound_of of them)
    active = np.flatnonzero(lengths > 0)
    node_of = np.zeros(len(values), dtype=np.int64)
    d = 0
    while len(active):
        key = node_of[active] * width + frames[starts[active] + walk.step * d]
        uniq, inverse = np.unique(key, return_inverse=True)
        totals = np.zeros(len(uniq), dtype=np.int64)
        np.add.at(totals, inverse, values[active])
        ends = lengths[active] == d + 1
        selfs = np.zeros(len(uniq), dtype=np.int64)
        np.add.at(selfs, inverse[ends], values[active][ends])
        keep = np.ones(len(uniq), dtype=bool)
        if bound_of is not None:
            if len(widest) >= bound_of:
                keep = totals >= widest[-bound_of]
            widest = np.sort(np.concatenate((widest, totals[keep])))[-bound_of:]
        ids = np.full(len(uniq), -1, dtype=np.int64)
        ids[keep] = nodes.add(uniq[keep] % width, uniq[keep] // width, d + 1, selfs[keep], totals[keep])
        node_of[active] = ids[inverse]
        active = active[(ids[inverse] >= 0) & ~ends]
        d += 1
    return nodes.arrays()


def _levels(depth: np.ndarray) -> list[slice]:
    """Node ids by depth: ``_grow`` adds one depth at a time, so each level is a contiguous run."""
    bounds = np.searchsorted(depth, np.arange(int(depth.max(initial=0)) + 2)).tolist()
    return [slice(a, b) for a, b in pairwise(bounds)]


def _preorder(parent: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """Each node's position in a depth-first walk (parent, then each child's whole subtree).

    Within a level ``_grow`` orders nodes by parent, so a child's position is its parent's
    plus one plus the subtree sizes of its earlier siblings; one numpy pass per depth.
    """
    levels = _levels(depth)
    size = np.ones(len(parent), dtype=np.int64)
    for level in reversed(levels[1:]):
        np.add.at(size, parent[level], size[level])
    pre = np.zeros(len(parent), dtype=np.int64)
    for level in levels[1:]:
        p, s = parent[level], size[level]
        before = np.cumsum(s) - s
        first = np.r_[True, p[1:] != p[:-1]]
        group_start = np.maximum.accumulate(np.where(first, np.arange(len(p)), 0))
        pre[level] = pre[p] + 1 + before - before[group_start]
    return pre


def _select(total: np.ndarray, depth: np.ndarray, parent: np.ndarray, self_: np.ndarray, budget: int) -> np.ndarray:
    """The widest nodes that fit in ``budget`` together with the ``other`` nodes they need.

    Nodes are taken widest first, so nothing left out is wider than anything kept. Equal
    widths are taken in depth-first order, so a subtree is completed before its next equal
    sibling starts: 50,000 equal one-child functions give 4,000 functions with their callee,
    not 8,000 functions that each need an ``other`` bar (or, as once, a single ``other``).
    A node costs one bar, plus one ``other`` bar while some of its children are left out,
    minus its parent's ``other`` bar when it is the last child missing there.
    """
    order = np.lexsort((_preorder(parent, depth), -total)).tolist()
    missing = (total - self_).tolist()  # what each node's children hold beyond the kept ones
    widths, parents = total.tolist(), parent.tolist()
    keep = np.zeros(len(total), dtype=bool)
    keep[0] = True
    used = 1 + (missing[0] > 0)
    for node in order:
        if node == 0:
            continue
        up = parents[node]  # kept already: it is at least as wide and comes first in the walk
        cost = 1 + (missing[node] > 0) - (missing[up] == widths[node])
        if used + cost > budget:
            break
        keep[node] = True
        used += cost
        missing[up] -= widths[node]
    return keep


def build_tree(profile: Profile, max_nodes: int = DEFAULT_MAX_NODES, walk: Walk | None = None) -> CallTree:
    """The call tree, at most ``max_nodes`` nodes including ``other`` ones (0 = no limit), of
    the whole profile or of the frames ``walk`` picks."""
    budget = max_nodes if max_nodes > 0 else None
    func, parent, depth, self_, total = _grow(profile, budget, walk or whole(profile))
    full_size = len(func)
    keep = _select(total, depth, parent, self_, budget) if budget and full_size > budget else np.ones(full_size, bool)
    new_id = np.cumsum(keep) - 1
    kept = np.flatnonzero(keep)
    func, depth, self_, total = func[kept], depth[kept], self_[kept], total[kept]
    parent = np.where(kept == 0, -1, new_id[np.maximum(parent[kept], 0)])
    inner = np.zeros(len(kept), dtype=np.int64)
    np.add.at(inner, parent[1:], total[1:])
    rest = total - self_ - inner  # what left-out children (and their subtrees) held
    owners = np.flatnonzero(rest > 0)
    names = profile.names
    if len(owners):
        names = (*names, OTHER)
        func = np.concatenate((func, np.full(len(owners), len(profile.names))))
        parent = np.concatenate((parent, owners))
        depth = np.concatenate((depth, depth[owners] + 1))
        self_ = np.concatenate((self_, rest[owners]))
        total = np.concatenate((total, rest[owners]))
    return CallTree(
        names=names,
        func=func.astype(np.int64),
        parent=parent.astype(np.int64),
        depth=depth.astype(np.int64),
        self=self_.astype(np.int64),
        total=total.astype(np.int64),
        max_nodes=max_nodes,
        merged_nodes=max(full_size - len(kept), len(owners)),
        unit=profile.unit,
    )
