"""Sandwich flame graphs: the callees and callers profiles of a function, checked against the stacks."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given, settings
from test_analysis_properties import build, reference, stacks_strategy

from explainer.analysis.sandwich import sandwich_profiles


def stacks_of(profile) -> list[list[str]]:  # type: ignore[no-untyped-def]
    return [[profile.names[f] for f in profile.frames[a:b]] for a, b in pairwise(profile.offsets.tolist())]


@settings(max_examples=300, deadline=None)
@given(stacks_strategy)
def test_both_sides_hold_the_function_total_and_start_at_it(stacks: list[tuple[list[str], int]]) -> None:
    profile = build(stacks)
    _, total = reference(stacks)
    for name in set(profile.names):
        callees, callers = sandwich_profiles(profile, profile.names.index(name))
        assert callees.total == callers.total == total[name]  # one stack counts once on each side
        with_name = [(frames, v) for frames, v in stacks if name in frames and v > 0]
        want_up = sorted((frames[frames.index(name) :], v) for frames, v in with_name)  # from the outermost call
        inner = [len(frames) - 1 - frames[::-1].index(name) for frames, _ in with_name]
        want_down = sorted((frames[: i + 1][::-1], v) for (frames, v), i in zip(with_name, inner, strict=True))
        assert sorted(zip(stacks_of(callees), callees.values.tolist(), strict=True)) == want_up
        assert sorted(zip(stacks_of(callers), callers.values.tolist(), strict=True)) == want_down
