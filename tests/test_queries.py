"""The typed query layer: every query has one answer over the reading, with raw numbers that follow
pprof's rules, and the verdicts (responsible, start, ignorable) never contradict each other."""

from __future__ import annotations

import dataclasses

import pytest

from conftest import profile_of
from explainer.analysis.summary import summarize
from explainer.demo import demo_cpu_profile, demo_profile
from explainer.errors import NoSuchFunctionError
from explainer.queries import (
    Breakdown,
    CategoryQuery,
    ChainTo,
    Compare,
    Group,
    Handoff,
    Knob,
    Meaning,
    Most,
    Neighbours,
    Overview,
    Own,
    Query,
    Responsible,
    SelfVsTotal,
    Skip,
    StartHere,
    UnresolvedShare,
    answer,
)
from explainer.queries import records as q
from explainer.reading import read

GPU = read(summarize(demo_profile()))
CPU = read(summarize(demo_cpu_profile()))
ALLOC = read(
    summarize(
        profile_of(
            {
                "main;Trainer.step;Model.forward;torch.empty;c10::cuda::CUDACachingAllocator::malloc": 900,
                "main;Trainer.step;Logger.write;c10::cuda::CUDACachingAllocator::malloc": 50,
                "main;Trainer.step;Model.forward;Attention.forward": 50,
            },
            unit="bytes",
            sample_type="alloc_space",
        )
    )
)


def _every_query(name: str) -> list[Query]:
    return [
        Most(),
        Responsible(),
        StartHere(),
        SelfVsTotal(name),
        ChainTo(name),
        Neighbours(name),
        CategoryQuery("kv-cache"),
        Breakdown(),
        Group((name,)),
        Own(),
        UnresolvedShare(),
        Knob(name),
        Meaning(name),
        Skip(name),
        Skip(),
        Overview(),
        Compare(None),
        Handoff(),
    ]


@pytest.mark.parametrize("reading", [GPU, CPU, ALLOC], ids=["gpu", "cpu", "allocator"])
def test_every_query_has_a_typed_answer_in_the_profiles_unit(reading: object) -> None:
    from explainer.reading import Reading

    assert isinstance(reading, Reading) and reading.biggest is not None
    kinds = set()
    for query in _every_query(reading.biggest.name):
        result = answer(reading, query)
        assert isinstance(result, q.Base) and dataclasses.is_dataclass(result)
        assert (result.unit, result.total) == (reading.summary.unit, reading.summary.total)
        kinds.add(type(result))
    assert len(kinds) == len(q.Result.__args__)


@pytest.mark.parametrize("reading", [GPU, CPU, ALLOC], ids=["gpu", "cpu", "allocator"])
def test_a_category_has_one_number_whoever_asks(reading: object) -> None:
    """The breakdown and a category's own answer count a concept alike (GC by every stack holding a GC
    frame, memory by attribution), and a group of one function holds that function's total."""
    from explainer.reading import Reading

    assert isinstance(reading, Reading) and reading.biggest is not None
    for share in answer(reading, Breakdown()).shares:
        one = answer(reading, CategoryQuery(share.concept))
        assert one.value == share.value, (share.concept, one.how, share.how)
        assert all(f.total <= reading.summary.total for f in one.frames)
    unresolved = answer(reading, CategoryQuery("unresolved"))
    assert unresolved.value == pytest.approx(reading.summary.unresolved_share * reading.summary.total)
    name = reading.biggest.name
    group = answer(reading, Group((name, "NotInThisProfile.at_all")))
    assert [f.name for f in group.members] == [name] and group.value == group.members[0].total


def test_self_and_total_follow_pprof_and_name_a_present_function() -> None:
    result = answer(GPU, SelfVsTotal())
    assert result.function.name == GPU.summary.top_self.rows[0].name
    assert 0 <= result.function.self <= result.function.total <= GPU.summary.total
    with pytest.raises(NoSuchFunctionError):
        answer(GPU, SelfVsTotal("NotInThisProfile.at_all"))
    assert answer(GPU, Meaning("NotInThisProfile.at_all")).function is None


def test_the_allocator_heavy_profile_starts_at_the_site_that_asked() -> None:
    start = answer(ALLOC, StartHere())
    assert start.biggest is not None and start.biggest.role == "allocator"
    assert start.start is not None and (start.start.name, start.start.value, start.start.why) == (
        "torch.empty",
        900,
        "site",
    )
    assert answer(ALLOC, Handoff()).start == start.start
    assert answer(ALLOC, Knob()).name == "torch.empty"
    chain = answer(ALLOC, ChainTo())
    assert chain.asked_by is not None and chain.asked_by.name == "torch.empty"


@pytest.mark.parametrize("reading", [GPU, CPU, ALLOC], ids=["gpu", "cpu", "allocator"])
def test_no_frame_is_both_a_cause_and_ignorable(reading: object) -> None:
    from explainer.reading import Reading

    assert isinstance(reading, Reading)
    causes = [r.name for r in (reading.responsible,) if r is not None]
    causes += [reading.start.name] if reading.start is not None else []
    for name in causes:
        verdict = answer(reading, Skip(name))
        assert verdict.verdict == "keep" and verdict.reason in ("responsible", "start")
        assert name not in answer(reading, Skip()).ignorable.names
        assert name not in {e.name for e in reading.entries}
    for row in answer(reading, Skip()).ignorable.frames:
        assert row.self == 0 and row.total > 0


def test_the_responsible_path_leads_from_it_to_the_biggest_consumer() -> None:
    result = answer(GPU, Responsible())
    assert result.responsible is not None and result.path
    assert result.path[0].name == result.responsible.name
    assert result.path[-1].name == GPU.summary.top_self.rows[0].name
    assert all(step.role != "noise" for step in result.path)
    assert all(e.total == GPU.summary.total for e in result.entries)


def test_compare_says_why_two_profiles_cannot_be_compared() -> None:
    other = profile_of({"a;b": 5}, unit="nanoseconds", sample_type="cpu")
    result = answer(GPU, Compare(other))
    assert result.diff is None and result.reason
    same = answer(GPU, Compare(demo_profile()))
    assert same.diff is not None and same.diff.total_after == GPU.summary.total


def test_own_code_is_read_with_the_profiles_runtime() -> None:
    """A Go method is Go code, not a Python function written alike (``pkg.Foo.bar``)."""
    go = read(
        summarize(
            profile_of(
                {
                    "runtime.main;main.main;pkg.Foo.bar;runtime.mallocgc": 70,
                    "runtime.main;main.main;net/http.(*conn).serve;pkg.Foo.bar": 30,
                },
                unit="nanoseconds",
                sample_type="cpu",
            )
        )
    )
    own = answer(go, Own("go"))
    assert [f.name for f in own.rows] == ["pkg.Foo.bar"] and own.biggest is not None
    assert own.biggest.name == "runtime.mallocgc"
    assert answer(go, Own("python")).rows == ()


def test_a_comparison_is_made_once_and_shared() -> None:
    """The chat's comparison, its handoff and the model's facts read one diff per pair of profiles."""
    from explainer.explain.context import ProfileContext

    baseline = demo_cpu_profile()
    first = answer(CPU, Compare(baseline)).diff
    assert first is not None and answer(CPU, Compare(baseline)).diff is first
    assert answer(CPU, Handoff(baseline=baseline)).diff is first
    assert ProfileContext(CPU.summary.profile, baseline=baseline, summary=CPU.summary).diff is first
    assert answer(GPU, Compare(baseline)).reason  # bytes against time: a sentence, not a diff
