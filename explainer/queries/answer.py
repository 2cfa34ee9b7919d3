"""The one function from a profile's reading to the answer of a query.

Every surface (the chat in each language, ``analyze``, the handoff report, the app's views, the
MCP server and the model's tools) asks here and renders what comes back; none computes an answer
of its own, so no two can disagree.
"""

from __future__ import annotations

from functools import singledispatch
from typing import overload

import numpy as np

from explainer import knowledge
from explainer.analysis.chain import Chain, heaviest_chain, heaviest_chains
from explainer.analysis.diff import diff_profiles
from explainer.analysis.functions import TopRow, top
from explainer.analysis.sandwich import sandwich
from explainer.errors import AnalysisError, NoSuchFunctionError
from explainer.queries import records as q
from explainer.queries.records import Verdict
from explainer.reading import Reading
from explainer.symbols import clean

SMALL_SHARE = 0.01  # below 1% of the total a function is rarely worth optimising first


@overload
def answer(reading: Reading, query: q.Most) -> q.MostResult: ...
@overload
def answer(reading: Reading, query: q.Responsible) -> q.ResponsibleResult: ...
@overload
def answer(reading: Reading, query: q.StartHere) -> q.StartResult: ...
@overload
def answer(reading: Reading, query: q.SelfVsTotal) -> q.SelfTotalResult: ...
@overload
def answer(reading: Reading, query: q.ChainTo) -> q.ChainResult: ...
@overload
def answer(reading: Reading, query: q.Neighbours) -> q.NeighboursResult: ...
@overload
def answer(reading: Reading, query: q.CategoryQuery) -> q.CategoryResult: ...
@overload
def answer(reading: Reading, query: q.UnresolvedShare) -> q.UnresolvedResult: ...
@overload
def answer(reading: Reading, query: q.Knob) -> q.KnobResult: ...
@overload
def answer(reading: Reading, query: q.Meaning) -> q.MeaningResult: ...
@overload
def answer(reading: Reading, query: q.Skip) -> q.SkipResult: ...
@overload
def answer(reading: Reading, query: q.Overview) -> q.OverviewResult: ...
@overload
def answer(reading: Reading, query: q.Compare) -> q.CompareResult: ...
@overload
def answer(reading: Reading, query: q.Handoff) -> q.HandoffResult: ...
def answer(reading: Reading, query: q.Query) -> q.Result:
    """The typed result of ``query`` on the profile ``reading`` was built from."""
    return _answer(query, reading)


@singledispatch
def _answer(query: object, reading: Reading) -> q.Result:
    raise TypeError(f"no answer for {type(query).__name__}")  # a programming error: every query has one


# -- shared pieces ---------------------------------------------------------------------------


def _base(reading: Reading) -> tuple[str, int, tuple[str, ...]]:
    """What every result starts with: the unit, the grand total and the caveats."""
    return reading.summary.unit, reading.summary.total, tuple(c.text for c in reading.caveats)


def fn(reading: Reading, row: TopRow) -> q.Fn:
    return q.Fn(row.name, row.self, row.total, reading.role(row.name))


def function(reading: Reading, name: str) -> q.Fn:
    """The function labelled exactly ``name``; :class:`NoSuchFunctionError` when it has no value here."""
    profile, stats = reading.summary.profile, reading.summary.stats
    fid = profile.function_id(name)
    if fid is None or not stats.total_values[fid]:
        raise NoSuchFunctionError(f"no function named {clean(name, 120)!r} in this profile")
    s, t = stats.of(fid)
    return q.Fn(name, s, t, reading.role(name))


def frame_meaning(reading: Reading, name: str) -> q.FrameMeaning:
    sym = reading.symbol(name)
    entry = knowledge.lookup(name)
    knobs = tuple((a.knob, a.effect) for a in entry.actions) if entry is not None else ()
    explanation = entry.explanation if entry is not None and entry.explanation else None
    return q.FrameMeaning(name, sym.kind, sym.language, sym.meaning, reading.category_label(name), explanation, knobs)


def steps(reading: Reading, chain: Chain) -> tuple[q.Step, ...]:
    return tuple(q.Step(s.name, s.width, s.self, s.total, reading.role(s.name)) for s in chain.steps)


def chain_to(reading: Reading, name: str | None) -> Chain | None:
    summary = reading.summary
    if name is None or (summary.chain is not None and summary.chain.target == name):
        return summary.chain
    fid = summary.profile.function_id(name)
    if fid is None:
        return None
    try:
        return heaviest_chain(summary.profile, summary.stats, fid)
    except (NoSuchFunctionError, AnalysisError):
        return None


HANDOFF_CHAINS = 3
"""Chains a handoff report draws: to its top consumers, or to the allocation sites that asked."""


def chain_targets(reading: Reading, n: int) -> list[int]:
    """The functions a handoff walks chains to: the top ``n`` by self, or, when one of those is an
    allocator frame, the first ``n`` allocation sites (the application frames that asked)."""
    summary = reading.summary
    names = [r.name for r in top(summary.stats, "self", n).rows]  # not the summary's rows: its --top may be smaller
    if any(reading.role(name) == "allocator" for name in names):
        names = [s.name for s in reading.sites[:n]] or names
    return [fid for fid in (summary.profile.function_id(name) for name in names) if fid is not None]


def named_path(reading: Reading) -> tuple[str, ...]:
    """The heaviest chain's steps, entry first, noise frames left out."""
    chain = reading.summary.chain
    return tuple(s.name for s in chain.steps if not reading.is_noise(s.name)) if chain is not None else ()


def small(reading: Reading) -> tuple[int, int]:
    values = reading.summary.stats.self_values
    mask = (values > 0) & (values < SMALL_SHARE * reading.summary.total)
    return int(np.count_nonzero(mask)), int(values[mask].sum())


def _biggest(reading: Reading) -> q.Fn | None:
    return fn(reading, reading.biggest) if reading.biggest is not None else None


def _responsible(reading: Reading) -> q.Fn | None:
    return fn(reading, reading.responsible) if reading.responsible is not None else None


# -- one answer per query --------------------------------------------------------------------


@_answer.register
def _most(query: q.Most, reading: Reading) -> q.Result:
    lst = top(reading.summary.stats, "self", query.limit)
    start = reading.start if reading.start is not None and reading.start.why != "biggest" else None
    return q.MostResult(
        *_base(reading),
        biggest=_biggest(reading),
        rows=tuple(fn(reading, r) for r in lst.rows),
        of_functions=lst.of_functions,
        start=start,
        sites=reading.sites,
    )


@_answer.register
def _responsible_q(query: q.Responsible, reading: Reading) -> q.Result:
    row = reading.responsible
    path: tuple[q.Step, ...] = ()
    chain = reading.summary.chain
    if row is not None and chain is not None:
        names = [s.name for s in chain.steps]
        if row.name in names[:-1]:
            along = steps(reading, chain)[names.index(row.name) :]
            path = tuple(s for s in along[:-1] if s.role != "noise") + along[-1:]
    return q.ResponsibleResult(
        *_base(reading),
        responsible=_responsible(reading),
        entries=tuple(fn(reading, r) for r in reading.entries),
        rows=tuple(fn(reading, r) for r in top(reading.summary.stats, "total", query.limit).rows),
        path=path,
    )


@_answer.register
def _start(query: q.StartHere, reading: Reading) -> q.Result:
    start = reading.start
    total = reading.summary.total
    rows = top(reading.summary.stats, "self", query.limit).rows
    taken = {start.name, start.biggest} if start is not None else set()
    rest = tuple(fn(reading, r) for r in rows if r.name not in taken and r.self >= SMALL_SHARE * total)
    return q.StartResult(
        *_base(reading),
        start=start,
        biggest=_biggest(reading),
        meaning=frame_meaning(reading, start.name) if start is not None else None,
        next=rest[: max(0, query.limit - 1)],
        small=small(reading),
    )


@_answer.register
def _self_total(query: q.SelfVsTotal, reading: Reading) -> q.Result:
    name = query.name or (reading.biggest.name if reading.biggest else None)
    if name is None:
        raise NoSuchFunctionError("this profile has no samples")
    return q.SelfTotalResult(*_base(reading), function=function(reading, name))


@_answer.register
def _chain(query: q.ChainTo, reading: Reading) -> q.Result:
    if query.name is not None:
        function(reading, query.name)  # one error for a name that is not here
    chain = chain_to(reading, query.name)
    if chain is None:
        raise NoSuchFunctionError("this profile has no samples to follow")
    walked = steps(reading, chain)
    asked_by = None
    if reading.role(chain.target) != "app":
        asked_by = next((s for s in reversed(walked[:-1]) if s.role == "app"), None)
    return q.ChainResult(
        *_base(reading),
        target=chain.target,
        value=chain.value,
        target_total=chain.target_total,
        steps=walked,
        asked_by=asked_by,
    )


@_answer.register
def _neighbours(query: q.Neighbours, reading: Reading) -> q.Result:
    target = function(reading, query.name)
    fid = reading.summary.profile.function_id(query.name)
    assert fid is not None  # function() checked it
    sw = sandwich(reading.summary.profile, fid, query.limit)
    return q.NeighboursResult(
        *_base(reading),
        function=target,
        callers=tuple((n.name, n.value) for n in sw.callers),
        callees=tuple((n.name, n.value) for n in sw.callees),
    )


@_answer.register
def _category(query: q.CategoryQuery, reading: Reading) -> q.Result:
    share = next((c for c in reading.categories if c.category == query.category), None)
    value: int | None = share.self if share is not None else None
    if value is None and reading.kind != "bytes":
        value = reading.self_by_category.get(query.category)
    example = next((s.name for s in reading.sites if s.category == query.category), None)
    if example is None:
        example = next(
            (r.name for r in reading.summary.top_self.rows if knowledge.classify(r.name) == query.category), None
        )
    return q.CategoryResult(
        *_base(reading),
        category=query.category,
        label=knowledge.label(query.category),
        value=value,
        example=example,
    )


@_answer.register
def _unresolved(query: q.UnresolvedShare, reading: Reading) -> q.Result:
    ign = reading.ignorable
    return q.UnresolvedResult(*_base(reading), share=ign.unresolved_share, example=ign.address)


@_answer.register
def _knob(query: q.Knob, reading: Reading) -> q.Result:
    name = query.name or (reading.start.name if reading.start else None)
    knobs = frame_meaning(reading, name).knobs if name is not None else ()
    return q.KnobResult(*_base(reading), name=name, knobs=knobs)


@_answer.register
def _meaning(query: q.Meaning, reading: Reading) -> q.Result:
    try:
        present: q.Fn | None = function(reading, query.name)
    except NoSuchFunctionError:
        present = None
    return q.MeaningResult(*_base(reading), frame=frame_meaning(reading, query.name), function=present)


@_answer.register
def _skip(query: q.Skip, reading: Reading) -> q.Result:
    if query.name is None:
        return q.SkipResult(*_base(reading), ignorable=reading.ignorable)
    f = function(reading, query.name)
    start = reading.start
    reason = ""
    verdict: Verdict
    if reading.responsible is not None and f.name == reading.responsible.name:
        reason = "responsible"
    elif start is not None and f.name in (start.name, start.biggest):
        reason = "start"
    if reason:
        verdict = "keep"
    elif f.role == "noise":
        verdict = "skip"
    elif f.self == 0:
        verdict = "pass-through"
    else:
        verdict, reason = "keep", "consumer"
    return q.SkipResult(
        *_base(reading),
        ignorable=reading.ignorable,
        name=f.name,
        verdict=verdict,
        reason=reason,
    )


@_answer.register
def _overview(query: q.Overview, reading: Reading) -> q.Result:
    s = reading.summary
    return q.OverviewResult(
        *_base(reading),
        resource=reading.resource,
        meaning=reading.meaning,
        stacks=s.profile.stack_count,
        functions=s.stats.function_count,
        biggest=_biggest(reading),
        responsible=_responsible(reading),
        start=reading.start,
        ignorable=reading.ignorable,
        path=named_path(reading),
        categories=reading.categories,
    )


@_answer.register
def _compare(query: q.Compare, reading: Reading) -> q.Result:
    if query.baseline is None:
        return q.CompareResult(*_base(reading), diff=None, reason=None)
    try:
        diff = diff_profiles(query.baseline, reading.summary.profile)
    except AnalysisError as exc:
        return q.CompareResult(*_base(reading), diff=None, reason=str(exc))
    return q.CompareResult(*_base(reading), diff=diff, reason=None)


@_answer.register
def _handoff(query: q.Handoff, reading: Reading) -> q.Result:
    s = reading.summary
    lst = top(s.stats, "self", query.top)  # not the summary's rows: its --top may be smaller
    # every chain a handoff shows, the summary's own (to the top by self, for the path) among them, in one
    # walk over the frames: named_path below asks for the summary's first, the report for the rest after
    first = [r.id for r in s.top_self.rows[:1]]
    heaviest_chains(s.profile, s.stats, [*chain_targets(reading, min(query.top, HANDOFF_CHAINS)), *first])
    start = reading.start
    diff = None
    if query.baseline is not None:
        diff = diff_profiles(query.baseline, s.profile)
    return q.HandoffResult(
        *_base(reading),
        resource=reading.resource,
        meaning=reading.meaning,
        stacks=s.profile.stack_count,
        functions=s.stats.function_count,
        biggest=_biggest(reading),
        responsible=_responsible(reading),
        start=start,
        start_knobs=frame_meaning(reading, start.name).knobs if start is not None else (),
        consumers=tuple(fn(reading, r) for r in lst.rows),
        of_functions=lst.of_functions,
        ignorable=reading.ignorable,
        path=named_path(reading),
        categories=reading.categories,
        sites=reading.sites,
        diff=diff,
    )
