"""The heaviest-chain walk without the GIL, and the passes handoff and ask run on both cores (issue 27).

``heaviest_paths`` scans every frame for its targets eight frames at a time and walks without the GIL,
writing its steps into C arrays that become the lists after. GIVEN deep stacks (past the walk's 16-depth
tile and across many groups of eight) with targets, recursion and bad ids anywhere in a group, at both
frame widths, WHEN the compiled walk runs, THEN it equals the numpy twin, refuses bad ids, and lets
another thread run while it walks. ``cli/passes.summarize_beside_attribution`` gives the summary
``summarize`` gives, with the attribution of that very profile worked out beside it.

GIVEN real and generated profiles and the chains the handoff shows (to the top consumers, or to
their allocation sites), WHEN they are walked in one batch, or on both cores (``passes.walk_chains``:
each thread finds the calls in half of the frames with ``find_calls``, then the first chain is walked
beside and the rest on this thread with ``walk_calls``), THEN every chain, its steps and their values,
equals the chain to that target walked alone; calls found in any parts walk as one pass does.
"""

from __future__ import annotations

import functools
import itertools
import threading
from collections.abc import Iterator
from dataclasses import replace

import numpy as np
import pytest
from test_compiled_twins import widened
from test_warmup import progress_while

from explainer.analysis import chain, functions
from explainer.analysis.summary import Options, Summary, split_counts, summarize
from explainer.cli import passes, warmup
from explainer.knowledge import attribution
from explainer.model import Profile, ProfileBuilder, SampleType
from explainer.queries.chains import chains_to
from explainer.queries.handoff import chain_targets
from explainer.reading import read

if functions._fold is None:  # pragma: no cover - depends on the build
    pytest.skip("the compiled fold is not built", allow_module_level=True)
FOLD = functions._fold

NAMES = [f"pkg.mod.f{i}" for i in range(40)] + ["cuMemAlloc_v2", "GPUModelRunner._allocate_kv_cache_tensors"]


def deep_profile(seed: int, stacks: int = 300) -> Profile:
    """Stacks of 1 to 90 frames over few names: shared roots (so the walk has a chain to follow),
    recursion, and every name at every depth of some stack."""
    rng = np.random.default_rng(seed)
    builder = ProfileBuilder(SampleType("alloc_space", "bytes"))
    for _ in range(stacks):
        depth = int(rng.integers(1, 91))
        root = [NAMES[0], NAMES[1]][: min(depth, int(rng.integers(0, 3)))]
        frames = root + [NAMES[int(i)] for i in rng.integers(0, len(NAMES), depth - len(root))]
        builder.add(frames, int(rng.integers(1, 10**9)))
    return builder.build()


def paths(profile: Profile, targets: list[int]) -> list[list[tuple[int, int]]]:
    ids = np.asarray(targets, dtype=np.int32)
    out: list[list[tuple[int, int]]] = FOLD.heaviest_paths(
        profile.offsets, profile.frames, profile.values, ids, len(profile.names), profile.frames.itemsize
    )
    return out


@pytest.mark.parametrize("seed", range(6))
def test_deep_stacks_walk_as_the_numpy_twin_at_both_widths(seed: int) -> None:
    profile = deep_profile(seed)
    present = functions.function_stats(profile).present.tolist()
    for each in (profile, widened(profile)):
        for targets in (present[:1], present[-1:], present[:16], present[::3][:16]):
            assert paths(each, targets) == [chain._widest_path(each, t) for t in targets]


@pytest.mark.parametrize("dtype", [np.uint16, np.int32])
@pytest.mark.parametrize("where", [0, 3, 8, 12, 16, 29])
def test_a_bad_id_anywhere_in_a_group_is_a_value_error(dtype: type, where: int) -> None:
    # one stack of 30 frames, the target at its root: the scan reads every frame, eight at a time
    frames = np.zeros(30, dtype=dtype)
    frames[1:] = 1
    frames[where] = 7  # past the 2 names
    offsets = np.array([0, 30], dtype=np.int64)
    values = np.ones(1, dtype=np.int64)
    target = np.array([0 if where else 1], dtype=np.int32)
    with pytest.raises(ValueError, match="bad frame id"):
        FOLD.heaviest_paths(offsets, frames, values, target, 2, np.dtype(dtype).itemsize)


@pytest.mark.parametrize("seed", range(4))
def test_calls_found_in_parts_walk_as_one_pass_at_both_widths(seed: int) -> None:
    profile = deep_profile(seed)
    present = functions.function_stats(profile).present.tolist()
    cuts = [0, seed * 7, profile.stack_count // 2 + seed, profile.stack_count]  # an empty part too, at seed 0
    for each in (profile, widened(profile)):
        for targets in (present[:1], present[seed::3][:16]):
            parts = [chain.find_calls(each, targets, range(a, b)) for a, b in itertools.pairwise(cuts)]
            calls = functools.reduce(chain.Calls.joined, parts)
            assert chain._walks(each, targets, calls) == paths(each, targets)
            some = targets[len(targets) // 2 :]  # a part of what was found, as each thread walks
            assert chain._walks(each, some, calls) == paths(each, some)


def test_calls_outside_their_stacks_or_the_profile_are_a_value_error() -> None:
    profile = deep_profile(1)
    target = int(functions.function_stats(profile).present[0])
    stacks, depths = chain.find_calls(profile, [target], range(profile.stack_count)).at[target]
    for bad in ((stacks + profile.stack_count, depths), (stacks, depths + 100), (stacks, depths - 100)):
        with pytest.raises(ValueError, match="bad calls"):
            chain._walks(profile, [target], chain.Calls({target: bad}))
    args = (profile.offsets, profile.frames, profile.values, np.array([target], np.int32), stacks, depths)
    with pytest.raises(ValueError, match="bad calls"):
        FOLD.walk_calls(*args, (len(stacks) + 1,), len(profile.names), 2)  # more calls than given
    with pytest.raises(ValueError, match="bad calls"):
        FOLD.walk_calls(*args, (len(stacks), 0), len(profile.names), 2)  # counts for two targets, one given
    for stacks_range in (range(0, profile.stack_count + 1), range(-1, 3)):
        with pytest.raises(ValueError, match="bad stack range"):
            chain.find_calls(profile, [target], stacks_range)
    with pytest.raises(ValueError, match="repeat"):
        chain.find_calls(profile, [target, target], range(3))


def test_a_long_walk_lets_another_thread_run_and_is_right() -> None:
    # the target is every stack's leaf: the scan ends at the first frame, and most of the time is the
    # walk's (which took the GIL back before: the progress alone cannot tell the scan's from the walk's)
    depth, n = 60, 200_000
    offsets = np.arange(n + 1, dtype=np.int64) * depth
    frames = np.tile(np.arange(depth, dtype=np.uint16), n)
    values = np.ones(n, dtype=np.int64)
    leaf = np.array([depth - 1], np.int32)
    out: list[object] = []
    held, released = progress_while(lambda: out.append(FOLD.heaviest_paths(offsets, frames, values, leaf, depth, 2)))
    assert held == 0 and released > 0
    assert out[-1] == [[(d, n) for d in range(depth)]]


@pytest.fixture
def in_the_program(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """As ``main.run`` arms it: ``warmup.beside`` runs its work on a second thread; no size floor."""
    monkeypatch.setattr(warmup, "_program", True)
    monkeypatch.setattr(passes, "BESIDE_MIN_FRAMES", 0)
    yield


def test_the_summary_beside_the_attribution_is_the_plain_summary(in_the_program: None) -> None:
    profile = deep_profile(7)
    threads: list[str] = []
    real = attribution.attribute._fn

    def recorded(p: Profile) -> attribution.Attribution:
        threads.append(threading.current_thread().name)
        return real(p)

    attribution.attribute._fn = recorded
    try:
        summary = passes.summarize_beside_attribution(profile, Options(top=5), chain=True)
    finally:
        attribution.attribute._fn = real
    assert threads == ["explainer-beside"]
    assert summary.profile is split_counts(profile)[0]
    assert summary.profile in attribution.attribute._known  # the reading finds it worked out
    assert "chain" in summary.__dict__  # walked before the block ended
    plain = summarize(profile, Options(top=5))
    assert (summary.top_self, summary.top_total, summary.chain) == (plain.top_self, plain.top_total, plain.chain)


def test_a_filtered_summary_is_made_plainly(in_the_program: None) -> None:
    profile = deep_profile(8)
    attribution.attribute.forget(profile)
    summary = passes.summarize_beside_attribution(profile, Options(top=5, focus="pkg.mod.f3"))
    assert summary.options.focus == "pkg.mod.f3"
    assert profile not in attribution.attribute._known  # nothing attributed beside: a focus reads another profile


def test_a_chain_asked_for_while_another_thread_walks_it_is_walked_not_taken_as_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # app sessions share a cached profile: one asks for a chain while another's walk (GIL released) runs
    profile = deep_profile(3)
    stats = functions.function_stats(profile)
    target = int(stats.present[0])
    real = chain._paths
    entered, release = threading.Event(), threading.Event()
    calls: list[str] = []

    def first_waits(p: Profile, batch: list[int]) -> list[list[tuple[int, int]]]:
        calls.append(threading.current_thread().name)
        if len(calls) == 1:
            entered.set()
            release.wait(30)
        return real(p, batch)

    monkeypatch.setattr(chain, "_paths", first_waits)
    got: dict[str, chain.Chain | None] = {}
    walker = threading.Thread(target=lambda: got.update(a=chain.heaviest_chains(profile, stats, [target])[target]))
    walker.start()
    assert entered.wait(30)
    got["b"] = chain.heaviest_chains(profile, stats, [target])[target]  # while the first walk is under way
    release.set()
    walker.join(30)
    assert got["a"] is not None and got["a"] == got["b"]


def walked_alone(summary: Summary, target: int) -> chain.Chain | None:
    """The chain to ``target`` walked by itself, on a copy of the profile (walks are kept per profile object)."""
    copy = replace(summary.profile)
    return chain.heaviest_chains(copy, functions.function_stats(copy), [target])[target]


def handoff_summary(profile: Profile) -> tuple[Summary, list[int]]:
    summary = summarize(profile, Options(top=5))
    return summary, chain_targets(read(summary), 5)


def assert_batch_is_each_alone(summary: Summary, targets: list[int]) -> None:
    alone = [walked_alone(summary, t) for t in targets]
    copy = replace(summary.profile)
    batch = chain.heaviest_chains(copy, functions.function_stats(copy), targets)
    assert [batch[t] for t in targets] == alone


def test_the_handoff_chains_in_one_batch_are_each_walked_alone_on_the_real_corpus(real_dir) -> None:  # type: ignore[no-untyped-def]
    from test_compiled_twins import real_profiles

    for profile in real_profiles(real_dir):
        summary, targets = handoff_summary(profile)
        assert_batch_is_each_alone(summary, targets)
        present = functions.function_stats(summary.profile).present.tolist()
        assert_batch_is_each_alone(summary, present[:: max(1, len(present) // 16)][:16])


@pytest.mark.parametrize("seed", range(4))
def test_the_chains_walked_on_both_cores_are_each_walked_alone(in_the_program: None, seed: int) -> None:
    profile = deep_profile(seed, stacks=2_000)
    summary = summarize(profile, Options(top=5))
    targets = functions.function_stats(summary.profile).present.tolist()[seed : seed + 4]
    passes.walk_chains(summary, targets)
    assert chains_to(summary, targets) == tuple(c for c in (walked_alone(summary, t) for t in targets) if c)


@pytest.mark.slow  # generates a 20k-stack GPU profile (kept in .pytest_cache/gen once made)
def test_the_handoff_chains_of_a_generated_gpu_profile_on_both_cores(in_the_program: None, generator) -> None:  # type: ignore[no-untyped-def]
    from conftest import generated_profile
    from explainer.readers import read_path

    summary, targets = handoff_summary(read_path(generated_profile(20_000)))
    assert len(targets) == 3  # the allocator is the top consumer: its three allocation sites
    assert_batch_is_each_alone(summary, targets)
    passes.walk_chains(summary, targets)
    assert chains_to(summary, targets) == tuple(walked_alone(summary, t) for t in targets)


def test_both_cores_find_half_the_calls_each_and_walk_the_first_chain_beside(
    in_the_program: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = summarize(deep_profile(5), Options(top=5))
    profile = summary.profile
    targets = functions.function_stats(profile).present.tolist()[:3]
    found: list[tuple[str, range]] = []
    walked: list[tuple[str, list[int]]] = []
    real_find, real_walks = chain.find_calls, chain._walks

    def finding(p: Profile, ids: list[int], stacks: range) -> chain.Calls:
        found.append((threading.current_thread().name, stacks))
        return real_find(p, ids, stacks)

    def walking(p: Profile, batch: list[int], calls: chain.Calls) -> list[list[tuple[int, int]]]:
        walked.append((threading.current_thread().name, batch))
        return real_walks(p, batch, calls)

    monkeypatch.setattr(chain, "find_calls", finding)
    monkeypatch.setattr(chain, "_walks", walking)
    passes.walk_chains(summary, [*targets, targets[0]])  # a repeated target is walked once
    (beside, first), (here, rest) = sorted(found, key=lambda f: f[1].start)
    assert (beside, here) == ("explainer-beside", "MainThread")
    assert first.start == 0 and first.stop == rest.start and rest.stop == profile.stack_count
    assert sorted(walked) == [("MainThread", targets[1:]), ("explainer-beside", targets[:1])]
    monkeypatch.setattr(chain, "_paths", lambda *_: pytest.fail("walked again"))
    assert len(chains_to(summary, targets)) == 3  # the handoff finds them walked


def test_outside_the_program_nothing_is_walked_ahead(monkeypatch: pytest.MonkeyPatch) -> None:
    # warmup.beside runs nothing there (tests, the app, EXPLAINER_WARMUP=0): the handoff walks its one batch
    monkeypatch.setattr(passes, "BESIDE_MIN_FRAMES", 0)
    summary = summarize(deep_profile(6), Options(top=5))
    for walk in ("_paths", "find_calls", "_walks"):
        monkeypatch.setattr(chain, walk, lambda *_: pytest.fail("walked ahead"))
    passes.walk_chains(summary, functions.function_stats(summary.profile).present.tolist()[:3])
    assert summary.profile not in chain._CHAINS or not chain._CHAINS[summary.profile]
