"""One number per concept for one profile (the answer to :class:`~explainer.queries.records.CategoryQuery`),
so every answer that states it states the same one.

How a concept's share is counted depends on what it is:

- *unresolved*: the stacks whose leaf is a raw address or an unknown frame, the same rule as the
  summary's ``unresolved_share`` that the overview, the analyze report and the model's facts state;
- runtime kinds (GC, kernel, JIT, scheduler): every stack that holds a frame of the
  kind counts whole, so a GC thread rooted in ``GCTaskThread::run`` and a perf stack entering the
  kernel through ``sys_write_[k]`` count with all of their samples, not only their top frame's self;
- the knowledge base's memory categories (KV cache, weights, ...): the attribution of the reading,
  which hands each allocation to the category of the code that asked for it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from explainer import knowledge
from explainer.analysis.functions import leaf_ids
from explainer.model import Profile, once_per_profile
from explainer.queries.records import Share
from explainer.reading import Reading
from explainer.symbols.decode import unresolved

BY_STACK = ("gc", "kernel", "jit", "scheduler")
"""Runtime kinds counted by the stacks that hold one of their frames. The interpreter is not one of
them: its frames sit at the root of nearly every stack of an interpreted program, so it counts by self."""


@once_per_profile
def _categories(profile: Profile) -> list[str]:
    return [knowledge.classify(name) for name in profile.names]


def stacks_holding(profile: Profile, member: np.ndarray) -> int:
    """The value of every stack with at least one frame whose name is marked in ``member``."""
    if not profile.stack_count or not member.any():
        return 0
    hit = member[profile.frames].astype(np.int8)
    lengths = np.diff(profile.offsets)
    starts = profile.offsets[:-1][lengths > 0]
    any_hit = np.zeros(profile.stack_count, dtype=bool)
    any_hit[lengths > 0] = np.maximum.reduceat(hit, starts) > 0
    return int(profile.values[any_hit].sum())


def unresolved_value(profile: Profile) -> int:
    """The value of the stacks whose leaf is unresolved: ``summary.unresolved_share`` times the total, exactly."""
    leaves = leaf_ids(profile)
    if not len(leaves):
        return 0
    marked = np.zeros(len(profile.names), dtype=bool)
    # the distinct leaves, ascending (bincount, not np.unique: that imports numpy.ma, ~8 ms a process)
    for i in np.flatnonzero(np.bincount(leaves, minlength=len(profile.names))).tolist():
        marked[i] = unresolved(profile.names[i])
    return int(profile.values[marked[leaves]].sum())


def share(reading: Reading, concept: str) -> Share:
    profile = reading.summary.profile
    totals = reading.summary.stats.total_values
    if concept == "unresolved":  # one rule on every profile: the summary's unresolved share
        return Share(concept, unresolved_value(profile), "leaf", _heaviest(reading, unresolved))
    if concept in BY_STACK:
        cats = _categories(profile)
        member = np.array([c == concept for c in cats], dtype=bool) if cats else np.zeros(0, dtype=bool)
        frames = tuple(
            profile.names[i]
            for i in sorted(np.flatnonzero(member).tolist(), key=lambda i: -int(totals[i]))[:5]
            if totals[i] > 0
        )
        return Share(concept, stacks_holding(profile, member), "stacks", frames)
    attributed = next((c for c in reading.categories if c.category == concept), None)
    if reading.categories:
        return Share(concept, attributed.self if attributed is not None else 0, "attributed")
    return Share(concept, reading.self_by_category.get(concept, 0), "self")


def _heaviest(reading: Reading, test: Callable[[str], bool]) -> tuple[str, ...]:
    totals = reading.summary.stats.total_values
    names = reading.summary.profile.names
    hits = [i for i, n in enumerate(names) if totals[i] > 0 and test(n)]
    return tuple(names[i] for i in sorted(hits, key=lambda i: -int(totals[i]))[:5])


def breakdown(reading: Reading) -> list[Share]:
    """Every concept with a value in this profile, heaviest first: the memory attribution's categories
    on a memory profile, else the runtime kinds by stack and the rest of the application by self."""
    out: list[Share] = []
    if reading.categories:
        out = [Share(c.category, c.self, "attributed") for c in reading.categories if c.self > 0]
    else:
        for concept in (*BY_STACK, "unresolved"):
            s = share(reading, concept)
            if s.value > 0:
                out.append(s)
        for concept, value in reading.self_by_category.items():
            if concept not in BY_STACK and concept != "unresolved" and value > 0:
                out.append(Share(concept, value, "self"))
    return sorted(out, key=lambda s: -s.value)
