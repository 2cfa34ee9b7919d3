"""Sandwich flame graphs: the callees and callers trees of a function, against the stacks written plainly."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_analysis_properties import build, reference, stacks_strategy

from explainer.analysis.sandwich import sandwich_walks
from explainer.analysis.tree import CallTree, build_tree


def paths(tree: CallTree) -> dict[tuple[str, ...], tuple[int, int]]:
    """Call path (names from the root's child) -> (self, total), for every node of an unbudgeted tree."""
    nodes = range(1, tree.size)
    return {tuple(tree.name(n) for n in tree.path(i)): (int(tree.self[i]), int(tree.total[i])) for i in nodes}


@settings(max_examples=300, deadline=None)
@given(stacks_strategy, st.sampled_from([0, 4, 12]))
@pytest.mark.slow  # seconds of generated shapes: make test runs it, make check does not
def test_both_sides_hold_the_function_total_and_match_the_stacks(
    stacks: list[tuple[list[str], int]], budget: int
) -> None:
    profile = build(stacks)
    _, total = reference(stacks)
    for name in set(profile.names):
        up_walk, down_walk = sandwich_walks(profile, profile.names.index(name))
        up, down = build_tree(profile, budget, up_walk), build_tree(profile, budget, down_walk)
        assert int(up.total[0]) == int(down.total[0]) == total[name]  # one stack counts once on each side
        if budget:
            assert up.size <= max(budget, 2) and down.size <= max(budget, 2)
            continue
        through = [(frames, v) for frames, v in stacks if name in frames and v > 0]
        above = [(frames[frames.index(name) :], v) for frames, v in through]  # from the outermost call on
        below = [(frames[: len(frames) - frames[::-1].index(name)][::-1], v) for frames, v in through]  # back up
        if through:
            assert paths(up) == paths(build_tree(build(above), 0)) and paths(down) == paths(build_tree(build(below), 0))
