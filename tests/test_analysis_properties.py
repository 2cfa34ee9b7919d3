"""Invariants of self and total (pprof's rules), checked over generated stacks with recursion."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from explainer.analysis.functions import _self_and_total, function_stats
from explainer.analysis.tree import build_tree
from explainer.model import ProfileBuilder, SampleType
from explainer.readers import read_bytes
from explainer.writers import to_folded, to_pprof

NAMES = ["a", "b", "c", "d", "e"]  # few names, so recursion (a;b;a) is common
stacks_strategy = st.lists(
    st.tuples(st.lists(st.sampled_from(NAMES), min_size=1, max_size=12), st.integers(0, 10**12)),
    min_size=1,
    max_size=40,
)


def build(stacks: list[tuple[list[str], int]]):  # type: ignore[no-untyped-def]
    builder = ProfileBuilder(SampleType("alloc_space", "bytes"))
    for frames, value in stacks:
        builder.add(frames, value)
    return builder.build()


def reference(stacks: list[tuple[list[str], int]]) -> tuple[dict[str, int], dict[str, int]]:
    """The rule written plainly: self from the leaf, total once per stack."""
    self_: dict[str, int] = defaultdict(int)
    total: dict[str, int] = defaultdict(int)
    for frames, value in stacks:
        self_[frames[-1]] += value
        for name in set(frames):
            total[name] += value
    return self_, total


@settings(max_examples=1000, deadline=None)
@given(stacks_strategy)
@pytest.mark.slow  # seconds of generated shapes: make test runs it, make check does not
def test_self_and_total_follow_pprof_rules(stacks: list[tuple[list[str], int]]) -> None:
    profile = build(stacks)
    stats = function_stats(profile)
    grand = sum(v for _, v in stacks)
    assert profile.total == grand
    assert int(stats.self_values.sum()) == grand  # sum of self = total
    ref_self, ref_total = reference(stacks)
    for fid, name in enumerate(profile.names):
        s, t = stats.of(fid)
        assert s == ref_self.get(name, 0)
        assert t == ref_total.get(name, 0)  # recursion counted once per stack
        assert 0 <= s <= t <= grand


@settings(max_examples=200, deadline=None)
@given(stacks_strategy, st.randoms(use_true_random=False))
def test_results_do_not_depend_on_sample_order(stacks: list[tuple[list[str], int]], rnd) -> None:  # type: ignore[no-untyped-def]
    shuffled = list(stacks)
    rnd.shuffle(shuffled)
    a, b = function_stats(build(stacks)), function_stats(build(shuffled))
    by_name_a = {n: a.of(i) for i, n in enumerate(a.profile.names)}
    by_name_b = {n: b.of(i) for i, n in enumerate(b.profile.names)}
    assert by_name_a == by_name_b


@settings(max_examples=200, deadline=None)
@given(stacks_strategy)
def test_pprof_to_model_to_folded_to_model_is_exact(stacks: list[tuple[list[str], int]]) -> None:
    original = build(stacks)
    assume(original.stack_count > 0)  # an all-zero profile has no folded form
    from_pprof = read_bytes(to_pprof(original))
    from_folded = read_bytes(to_folded(from_pprof).encode(), location="x")
    assert sorted(from_pprof.stacks()) == sorted(original.stacks())
    assert sorted(from_folded.stacks()) == sorted(original.stacks())


@settings(max_examples=200, deadline=None)
@given(stacks_strategy)
def test_call_tree_totals_are_self_plus_children(stacks: list[tuple[list[str], int]]) -> None:
    profile = build(stacks)
    for budget in (0, 5):
        tree = build_tree(profile, max_nodes=budget)
        inner = np.zeros(tree.size, dtype=np.int64)
        np.add.at(inner, tree.parent[1:], tree.total[1:])
        assert np.array_equal(tree.total, tree.self + inner)
        assert int(tree.total[0]) == profile.total


def _paths(tree) -> dict[tuple[int, ...], int]:  # type: ignore[no-untyped-def]
    """Node path (function ids from the root) -> total, for the nodes that are real functions."""
    out = {}
    for node in range(1, tree.size):
        if tree.names[int(tree.func[node])] != "other" or int(tree.func[node]) < len(tree.names) - 1:
            out[tuple(int(tree.func[n]) for n in tree.path(node))] = int(tree.total[node])
    return out


@settings(max_examples=300, deadline=None)
@given(stacks_strategy, st.integers(2, 30))
def test_the_budget_keeps_the_widest_nodes_and_counts_other(stacks: list[tuple[list[str], int]], budget: int) -> None:
    profile = build(stacks)
    full = _paths(build_tree(profile, max_nodes=0))
    tree = build_tree(profile, max_nodes=budget)
    assert tree.size <= budget or tree.size == 2  # root plus one other is the least there can be
    kept = _paths(tree)
    assert all(full[path] == total for path, total in kept.items())  # kept nodes keep exact totals
    left_out = [total for path, total in full.items() if path not in kept]
    if kept and left_out:
        assert min(kept.values()) >= max(left_out)  # nothing left out is wider than anything kept


@settings(max_examples=200, deadline=None)
@given(stacks_strategy)
def test_compiled_fold_matches_numpy(stacks: list[tuple[list[str], int]]) -> None:
    profile = build(stacks)
    s1, t1 = _self_and_total(profile)
    stats = function_stats(profile)
    assert np.array_equal(s1, stats.self_values) and np.array_equal(t1, stats.total_values)


def test_compiled_and_numpy_pprof_paths_agree(real_dir) -> None:  # type: ignore[no-untyped-def]
    """The C fold of raw samples and the numpy fold of decoded samples give the same arrays."""
    import gzip as _gzip

    from explainer.readers import pprof as reader

    if reader._fold is None:
        import pytest

        pytest.skip("the compiled fold is not built")
    checked = 0
    for path in sorted(real_dir.rglob("*")):
        data = path.read_bytes() if path.is_file() else b""
        if not data or path.suffix in (".json", ".txt", ".md"):
            continue
        raw = _gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
        try:
            fast = reader.read_pprof(raw)
        except Exception as exc:
            with __import__("pytest").raises(type(exc)):
                reader.read_pprof_message(reader.parse_message(raw))
            continue
        slow = reader.read_pprof_message(reader.parse_message(raw))
        assert np.array_equal(fast.offsets, slow.offsets) and np.array_equal(fast.frames, slow.frames)
        assert np.array_equal(fast.values, slow.values)
        checked += 1
    assert checked >= 20


def test_a_tight_budget_never_empties_the_tree() -> None:
    """Regression: with more `other` nodes than budget, the selection once shrank to nothing."""
    stacks = [(["a", "a"], 1), (["b"], 1), (["d"], 1), (["b", "a"], 1), (["c", "a"], 2), (["a", "b", "a"], 2)]
    profile = build(stacks)
    for budget in range(1, 12):
        tree = build_tree(profile, max_nodes=budget)
        assert tree.size >= 2 and int(tree.total[0]) == profile.total


@st.composite
def wide_and_deep(draw: st.DrawFn) -> list[tuple[list[str], int]]:
    """Many equal siblings (each with a short chain of callees) beside a few deep paths."""
    siblings = draw(st.integers(1, 400))
    chain = draw(st.integers(0, 4))
    values = st.sampled_from([1, 1, 1, 2, 7]) if draw(st.booleans()) else st.just(5)
    stacks = [(["main", f"f{i}", *(f"f{i}.c{j}" for j in range(chain))], draw(values)) for i in range(siblings)]
    for _ in range(draw(st.integers(0, 3))):
        depth = draw(st.integers(1, 300))
        stacks.append((["main", *(f"deep{j % 7}" for j in range(depth))], draw(st.integers(1, 3000))))
    return stacks


@settings(max_examples=150, deadline=None)
@given(wide_and_deep(), st.integers(2, 600))
@pytest.mark.slow  # seconds of generated shapes: make test runs it, make check does not
def test_the_budget_is_spent_on_wide_and_deep_shapes(stacks: list[tuple[list[str], int]], budget: int) -> None:
    profile = build(stacks)
    full = build_tree(profile, max_nodes=0)
    tree = build_tree(profile, max_nodes=budget)
    inner = np.zeros(tree.size, dtype=np.int64)
    np.add.at(inner, tree.parent[1:], tree.total[1:])
    assert np.array_equal(tree.total, tree.self + inner) and int(tree.total[0]) == profile.total
    assert tree.size <= max(budget, 2)
    if full.size > budget:  # every bar costs at most two (itself and an `other`): at most one is left unused
        assert tree.size >= budget - 1, (tree.size, budget, full.size)
    kept = _paths(tree)
    left_out = [t for path, t in _paths(full).items() if path not in kept]
    if kept and left_out:
        assert min(kept.values()) >= max(left_out)


def test_fifty_thousand_functions_under_one_root_fill_the_budget() -> None:
    """Regression: equal siblings that each need an `other` once collapsed the tree to one `other` bar."""
    stacks = [(["main", f"handler_{i}", "leaf"], 1000) for i in range(50_000)]
    tree = build_tree(build(stacks), max_nodes=8192)
    real = [i for i in range(1, tree.size) if tree.name(i) != "other"]
    assert tree.size >= 8191 and len(real) >= 8000, (tree.size, len(real))
