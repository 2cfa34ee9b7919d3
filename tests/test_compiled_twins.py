"""The compiled passes (explainer._fold) give exactly what their numpy twins give.

Each pass the analyzer runs over every frame has a C version and a numpy twin that is used when
the C module is not built: self and total, the per-stack attribution, the heaviest-chain walk and
"stacks with any of these functions". Frames are uint16 up to 65,535 names and int32 above; the C
passes are compiled once per width. GIVEN random profiles over names that hit every rule of each
pass (and the real corpus), WHEN both run, at both widths, THEN the arrays are equal; broken tables
fail with a ValueError.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explainer.analysis import chain, functions
from explainer.errors import ExplainerError
from explainer.knowledge import attribution
from explainer.model import NARROW_NAMES, Profile, ProfileBuilder, SampleType
from explainer.readers import read_path

if functions._fold is None:  # pragma: no cover - depends on the build
    pytest.skip("the compiled fold is not built", allow_module_level=True)
FOLD = functions._fold

# every role the attribution walk tells apart: sites, phases, layers, plain application frames,
# wrappers, carriers (allocator and operators), unresolved addresses, the interpreter, markers
NAMES = [
    "GPUModelRunner._allocate_kv_cache_tensors",
    "GPUModelRunner.profile_run",
    "make_layers",
    "LlamaMLP.forward",
    "apply_top_k_top_p",
    "EngineCore._initialize_kv_caches",
    "my_app.handler",
    "CUDAGraphWrapper.__call__",
    "cuMemAlloc_v2",
    "at::native::empty_cuda",
    "0x7f151a2b",
    "libcuda.so.1+0x1234",
    "<interpreter trampoline>",
    "other",
]
stacks_strategy = st.lists(
    st.tuples(st.lists(st.sampled_from(NAMES), min_size=1, max_size=14), st.integers(1, 10**12)),
    min_size=1,
    max_size=40,
)


def build(stacks: list[tuple[list[str], int]]) -> Profile:
    builder = ProfileBuilder(SampleType("alloc_space", "bytes"))
    for frames, value in stacks:
        builder.add(frames, value)
    return builder.build()


def widened(profile: Profile) -> Profile:
    """The same profile with int32 frames, as a profile of more than 65,535 names has."""
    from dataclasses import replace

    frames = profile.frames.astype(np.int32)
    frames.flags.writeable = False
    return replace(profile, frames=frames)


def assert_twins_agree(profile: Profile) -> None:
    assert profile.frames.dtype == (np.uint16 if len(profile.names) <= NARROW_NAMES else np.int32)
    for each in (profile, widened(profile)):
        assert_twins_agree_at_width(each)


def assert_per_stack_passes_agree(profile: Profile, targets: list[int] | None = None) -> functions.FunctionStats:
    """Attribution, self and total, and the heaviest-chain walks to ``targets`` (default: the first
    16 present functions) agree with their numpy twins."""
    cat, code = attribution._name_tables(profile.names)
    fast, slow = attribution._attribute(profile), attribution._attribute_numpy(profile, cat, code)
    assert np.array_equal(fast.stack_category, slow.stack_category)
    assert np.array_equal(fast.site_frame, slow.site_frame)
    stats = functions.function_stats(profile)
    numpy_self, numpy_total = functions._self_and_total(profile)
    assert np.array_equal(stats.self_values, numpy_self) and np.array_equal(stats.total_values, numpy_total)
    targets = stats.present.tolist()[:16] if targets is None else targets
    ids = np.asarray(targets, dtype=np.int32)
    args = (profile.offsets, profile.frames, profile.values, ids, len(profile.names), profile.frames.itemsize)
    assert FOLD.heaviest_paths(*args) == [chain._widest_path(profile, t) for t in targets]
    return stats


def assert_twins_agree_at_width(profile: Profile) -> None:
    stats = assert_per_stack_passes_agree(profile)
    offsets, frames = profile.offsets, profile.frames
    for wanted_ids in (stats.present[:1].tolist(), stats.present[::3].tolist()):
        wanted = np.zeros(len(profile.names), dtype=bool)
        wanted[wanted_ids] = True
        assert np.array_equal(
            functions.stacks_with(profile, wanted_ids), np.logical_or.reduceat(wanted[frames], offsets[:-1])
        )


def test_the_names_exercise_every_rule_of_the_walk() -> None:
    _, code = attribution._name_tables(NAMES)
    bits = np.bitwise_or.reduce(code)
    assert bits == 0b111111  # site/phase, layer, application, carrier, unresolved, interpreter


@settings(max_examples=400, deadline=None)
@given(stacks_strategy)
@pytest.mark.slow  # seconds of generated shapes: make test runs it, make check does not
def test_compiled_passes_match_numpy(stacks: list[tuple[list[str], int]]) -> None:
    assert_twins_agree(build(stacks))


def real_profiles(real_dir) -> list[Profile]:  # type: ignore[no-untyped-def]
    """Every real profile the readers accept, up to 50,000 stacks (the numpy twins are slow)."""
    found = []
    for path in sorted(p for p in real_dir.rglob("*") if p.is_file() and p.suffix not in (".md", ".txt")):
        try:
            profile = read_path(path)
        except ExplainerError:  # the corpus holds inputs the readers reject on purpose
            continue
        if profile.stack_count and profile.stack_count < 50_000:
            found.append(profile)
    assert len(found) >= 10
    return found


@pytest.mark.slow  # seconds of generated shapes: make test runs it, make check does not
def test_compiled_passes_match_numpy_on_the_real_corpus(real_dir) -> None:  # type: ignore[no-untyped-def]
    for profile in real_profiles(real_dir):
        assert_twins_agree(profile)


@pytest.mark.slow  # generates a 20k-stack profile
def test_generated_gpu_profile_attribution_agrees(generator) -> None:  # type: ignore[no-untyped-def]
    from conftest import generated_profile

    assert_twins_agree_big(read_path(generated_profile(20_000)))


def assert_twins_agree_big(profile: Profile) -> None:
    """On a large profile the walks go to the top 5 by self: walking to 16 functions in numpy is slow."""
    top5 = [row.id for row in functions.top(functions.function_stats(profile), "self", 5).rows]
    assert_per_stack_passes_agree(profile, top5)


@pytest.mark.slow  # a profile of more than 65,535 names
def test_more_names_than_uint16_holds_gives_int32_frames_and_the_same_numbers() -> None:
    """70,000 distinct leaves: ids past 65,535 must not wrap (they would alias other functions)."""
    stacks = [(["main", f"leaf_{i}"], i + 1) for i in range(70_000)]
    profile = build(stacks)
    assert profile.frames.dtype == np.int32 and len(profile.names) == 70_001
    assert_twins_agree_at_width(profile)
    stats = functions.function_stats(profile)
    last = profile.function_id("leaf_69999")
    assert last is not None and stats.of(last) == (70_000, 70_000)


BAD_OFFSETS = [np.array([0, 2, 1, 3]), np.array([1, 3]), np.array([0, 2]), np.array([], dtype=np.int64)]


@pytest.mark.parametrize("offsets", BAD_OFFSETS, ids=["decreasing", "not-from-0", "short", "empty"])
def test_bad_offsets_are_a_value_error(offsets: np.ndarray) -> None:
    frames, names = np.array([0, 1, 0], dtype=np.int32), 2
    offsets = offsets.astype(np.int64)
    code, cat = np.zeros(names, dtype=np.uint8), np.zeros(names, dtype=np.int64)
    with pytest.raises(ValueError, match="offsets"):
        FOLD.attribute(offsets, frames, code, cat, 0, 0, 0, 4)
    with pytest.raises(ValueError, match="offsets"):
        FOLD.stacks_with(offsets, frames, np.zeros(names, dtype=bool), 4)
    with pytest.raises(ValueError, match="offsets"):
        FOLD.self_and_total(offsets, frames, np.ones(max(len(offsets) - 1, 0), dtype=np.int64), names, 4)


@pytest.mark.parametrize(
    ("bad_id", "dtype"), [(-1, np.int32), (2, np.int32), (1 << 30, np.int32), (2, np.uint16), (65_535, np.uint16)]
)
def test_frame_ids_outside_the_name_table_are_a_value_error(bad_id: int, dtype: type) -> None:
    offsets, frames = np.array([0, 1, 3], dtype=np.int64), np.array([0, 1, bad_id], dtype=np.int32).astype(dtype)
    width = frames.itemsize
    code, cat = np.zeros(2, dtype=np.uint8), np.zeros(2, dtype=np.int64)
    values = np.array([1, 1], dtype=np.int64)
    with pytest.raises(ValueError, match="frame id"):
        FOLD.attribute(offsets, frames, code, cat, 0, 0, 0, width)
    with pytest.raises(ValueError, match="frame id"):
        FOLD.stacks_with(offsets, frames, np.zeros(2, dtype=bool), width)
    with pytest.raises(ValueError, match="frame id"):
        FOLD.self_and_total(offsets, frames, values, 2, width)
    with pytest.raises(ValueError, match="frame id"):
        FOLD.heaviest_paths(offsets, frames, values, np.array([0], dtype=np.int32), 2, width)
    # the walk finds a target from the leaf: a bad id nearer the root than the target is still refused
    rootward = np.array([bad_id, 0], dtype=np.int32).astype(dtype)
    with pytest.raises(ValueError, match="frame id"):
        FOLD.heaviest_paths(offsets[:2] * 2, rootward, values[:1], np.array([0], dtype=np.int32), 2, width)
    for targets, message in (([25], "bad target"), ([0, 0], "repeat"), ([], "targets"), (list(range(17)), "targets")):
        with pytest.raises(ValueError, match=message):
            FOLD.heaviest_paths(
                np.array([0, 1, 2], dtype=np.int64),
                frames[:2] * 0,
                values,
                np.array(targets, dtype=np.int32),
                20,
                width,
            )
    with pytest.raises(ValueError, match="2 or 4"):
        FOLD.stacks_with(offsets, frames, np.zeros(2, dtype=bool), 3)


@settings(max_examples=200, deadline=None)
@given(stacks_strategy)
def test_allocation_sites_dense_table_matches_sorting(stacks: list[tuple[list[str], int]]) -> None:
    profile = build(stacks)
    dense = attribution._all_sites(profile)
    attribution._all_sites.forget(profile)
    saved, attribution._DENSE_KEYS = attribution._DENSE_KEYS, 0  # force the np.unique path
    try:
        assert attribution._all_sites(profile) == dense
    finally:
        attribution._DENSE_KEYS = saved


def test_batched_chains_equal_one_at_a_time_and_say_none_for_absent_targets() -> None:
    profile = build([(["main", "a", "x"], 5), (["main", "b", "x"], 3), (["main", "b", "y"], 4), (["other"], 1)])
    stats = functions.function_stats(profile)
    ids = {name: profile.function_id(name) for name in ("x", "y", "b", "main")}
    batched = chain.heaviest_chains(profile, stats, [*ids.values(), len(profile.names) + 3])
    chain._CHAINS.pop(profile)  # one at a time, from scratch
    for name, fid in ids.items():
        assert batched[fid] == chain.heaviest_chain(profile, stats, fid), name
    assert batched[len(profile.names) + 3] is None
    assert [s.name for s in batched[ids["x"]].steps] == ["main", "a", "x"]  # type: ignore[union-attr, index]


def assert_trees_agree(profile: Profile) -> None:
    """The C tree grower gives the numpy twin's nodes, in the same order, for every walk and budget."""
    from explainer.analysis import sandwich, tree

    stats = functions.function_stats(profile)
    walks = [tree.whole(profile)]
    for fid in stats.present[:3].tolist():
        walks += sandwich.sandwich_walks(profile, fid)
    for walk in walks:
        for bound in (None, 1, 3, 50):
            fast, slow = tree._grow(profile, bound, walk), tree._grow_numpy(profile, bound, walk)
            assert all(np.array_equal(a, b) for a, b in zip(fast, slow, strict=True)), (walk.step, bound)


@settings(max_examples=200, deadline=None)
@given(stacks_strategy)
@pytest.mark.slow  # seconds of generated shapes: make test runs it, make check does not
def test_the_compiled_tree_grower_matches_numpy(stacks: list[tuple[list[str], int]]) -> None:
    profile = build(stacks)
    assert_trees_agree(profile)
    assert_trees_agree(widened(profile))


def test_the_compiled_tree_grower_matches_numpy_on_the_real_corpus(real_dir) -> None:  # type: ignore[no-untyped-def]
    for profile in real_profiles(real_dir):
        assert_trees_agree(profile)


def test_a_tree_walk_outside_the_frames_is_a_value_error() -> None:
    frames = np.array([0, 1, 0], dtype=np.uint16)
    ones = np.ones(1, dtype=np.int64)
    for starts, lengths, step in ((np.array([2]), np.array([2]), 1), (np.array([0]), np.array([2]), -1)):
        with pytest.raises(ValueError, match="walk"):
            FOLD.grow_tree(frames, starts.astype(np.int64), lengths.astype(np.int64), ones, step, 2, 0, 2)
    with pytest.raises(ValueError, match="frame id"):
        FOLD.grow_tree(frames, np.array([0]), np.array([3]), ones, 1, 1, 0, 2)


@settings(max_examples=150, deadline=None)
@given(stacks_strategy)
def test_self_and_total_summed_while_decoding_equal_the_numpy_pass(stacks: list[tuple[list[str], int]]) -> None:
    """The compiled fold sums self and total as it writes each sample's frames; what the analysis
    then takes for the read profile is the numpy twin's, and a profile rebuilt from other stacks
    is counted afresh."""
    from explainer.readers import read_bytes
    from explainer.writers import to_pprof

    profile = read_bytes(to_pprof(build(stacks)))
    preset = functions._preset(profile)
    assert preset is not None
    numpy_self, numpy_total = functions._self_and_total(profile)
    assert np.array_equal(preset[0], numpy_self) and np.array_equal(preset[1], numpy_total)
    stats = functions.function_stats(profile)
    assert stats.self_values is preset[0] and stats.total_values is preset[1]
    widened_profile = widened(profile)  # other frames: not the decoded arrays
    assert functions._preset(widened_profile) is None
    assert np.array_equal(functions.function_stats(widened_profile).total_values, numpy_total)
