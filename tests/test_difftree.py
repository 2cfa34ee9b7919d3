"""The diff call tree: each node's before and after add up to its width, and match the stacks."""

from __future__ import annotations

from collections import defaultdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_analysis_properties import build, stacks_strategy

from explainer.analysis.diff import NoiseFloor
from explainer.analysis.difftree import diff_tree


def by_path(stacks: list[tuple[list[str], int]]) -> dict[tuple[str, ...], int]:
    """What the stacks hold through each call path (every prefix of every stack), written plainly."""
    out: dict[tuple[str, ...], int] = defaultdict(int)
    for frames, value in stacks:
        for depth in range(1, len(frames) + 1):
            out[tuple(frames[:depth])] += value
    return out


@settings(max_examples=200, deadline=None)
@given(stacks_strategy, stacks_strategy, st.sampled_from([0, 3, 8, 30]))
@pytest.mark.slow  # seconds of generated shapes: make test runs it, make check does not
def test_before_and_after_add_up_and_match_the_stacks(before, after, budget) -> None:  # type: ignore[no-untyped-def]
    b, a = build(before), build(after)
    d = diff_tree(b, a, max_nodes=budget)
    tree = d.tree
    assert (d.before + d.after == tree.total).all() and (d.before >= 0).all() and (d.after >= 0).all()
    assert int(d.before[0]) == b.total and int(d.after[0]) == a.total
    if budget == 0:  # nothing merged: every node is one call path, exactly as the stacks say
        want_b, want_a = by_path(before), by_path(after)
        for node in range(1, tree.size):
            path = tuple(tree.name(n) for n in tree.path(node))
            assert (int(d.before[node]), int(d.after[node])) == (want_b.get(path, 0), want_a.get(path, 0))


def test_a_grown_call_path_is_a_change_and_jitter_is_noise() -> None:
    before = build([(["main", "load", "weights"], 1000), (["main", "serve", "kv_cache"], 1000)])
    after = build([(["main", "load", "weights"], 1010), (["main", "serve", "kv_cache"], 3000)])
    d = diff_tree(before, after, NoiseFloor())
    node = {tuple(d.tree.name(n) for n in d.tree.path(i)): i for i in range(1, d.tree.size)}
    grown, jitter = node[("main", "serve", "kv_cache")], node[("main", "load", "weights")]
    assert (int(d.before[grown]), int(d.after[grown])) == (1000, 3000) and not d.noise[grown]
    assert d.noise[jitter], "+1% is under the 5% relative floor"
