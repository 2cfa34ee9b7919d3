"""The one function from a profile's reading to the answer of a query.

Every surface (the chat in each language, ``analyze``, the handoff report, the app's views, the
MCP server and the model's tools) asks here and renders what comes back; none computes an answer
of its own, so no two can disagree.
"""

from __future__ import annotations

import itertools
import re
from functools import singledispatch
from typing import overload

import numpy as np

from explainer import knowledge
from explainer.analysis.chain import Chain, heaviest_chain
from explainer.analysis.functions import TopRow, ranked, top
from explainer.errors import AnalysisError, NoSuchFunctionError
from explainer.knowledge.classify import IDLE
from explainer.queries import records as q
from explainer.queries import shares
from explainer.queries.common import base, biggest, fn, knobs, named_path, responsible
from explainer.queries.handoff import diff_of, handoff
from explainer.queries.records import Verdict
from explainer.reading import Reading
from explainer.symbols import clean
from explainer.symbols.model import Symbol

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
def answer(reading: Reading, query: q.Breakdown) -> q.BreakdownResult: ...
@overload
def answer(reading: Reading, query: q.Group) -> q.GroupResult: ...
@overload
def answer(reading: Reading, query: q.Own) -> q.OwnResult: ...
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
    explanation = entry.explanation if entry is not None and entry.explanation else None
    label = reading.category_label(name)
    return q.FrameMeaning(name, sym.kind, sym.language, sym.meaning, label, explanation, knobs(name))


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


def small(reading: Reading) -> tuple[int, int]:
    values = reading.summary.stats.self_values
    mask = (values > 0) & (values < SMALL_SHARE * reading.summary.total)
    return int(np.count_nonzero(mask)), int(values[mask].sum())


def causes(reading: Reading, limit: int) -> tuple[q.Fn, ...]:
    """The widest bars by total below the entry points, in pprof's order: the frames every stack passes
    through and those that only pass calls on are no cause (the responsible answer names them apart)."""
    stats, whole = reading.summary.stats, reading.summary.total
    found: list[q.Fn] = []
    for i in ranked(stats, "total").tolist():
        total = int(stats.total_values[i])
        if len(found) >= limit or total <= 0:
            break
        name = stats.profile.names[i]
        if total < whole and reading.role(name) not in ("noise", "entry"):
            found.append(fn(reading, TopRow(i, name, int(stats.self_values[i]), total)))
    return tuple(found)


# -- one answer per query --------------------------------------------------------------------


@_answer.register
def _most(query: q.Most, reading: Reading) -> q.Result:
    lst = top(reading.summary.stats, "self", query.limit)
    start = reading.start if reading.start is not None and reading.start.why != "biggest" else None
    return q.MostResult(
        *base(reading),
        biggest=biggest(reading),
        rows=tuple(fn(reading, r) for r in lst.rows if r.self > 0),  # a function without self uses nothing itself
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
        *base(reading),
        responsible=responsible(reading),
        entries=tuple(fn(reading, r) for r in reading.entries),
        rows=causes(reading, query.limit),
        path=path,
    )


@_answer.register
def _start(query: q.StartHere, reading: Reading) -> q.Result:
    start = reading.start
    total = reading.summary.total
    taken = {start.name, start.biggest} if start is not None else set()
    # the start and the biggest consumer are named on their own: the next candidates are the limit's others
    rows = top(reading.summary.stats, "self", query.limit + len(taken)).rows
    rest = tuple(
        fn(reading, r)
        for r in rows
        if r.name not in taken and r.self >= SMALL_SHARE * total and knowledge.classify(r.name) != IDLE
    )  # idle time is waiting, not a candidate
    return q.StartResult(
        *base(reading),
        start=start,
        biggest=biggest(reading),
        meaning=frame_meaning(reading, start.name) if start is not None else None,
        next=rest[: max(0, query.limit - 1)],
        small=small(reading),
    )


@_answer.register
def _self_total(query: q.SelfVsTotal, reading: Reading) -> q.Result:
    name = query.name or (reading.biggest.name if reading.biggest else None)
    if name is None:
        raise NoSuchFunctionError("this profile has no samples")
    return q.SelfTotalResult(*base(reading), function=function(reading, name))


@_answer.register
def _chain(query: q.ChainTo, reading: Reading) -> q.Result:
    if query.name is not None:
        function(reading, query.name)  # one error for a name that is not here
    chain = chain_to(reading, query.name)
    if chain is None:
        raise NoSuchFunctionError("this profile has no samples to follow")
    walked = steps(reading, chain)
    narrows = next(
        (
            i
            for i, (prev, step) in enumerate(itertools.pairwise(walked), 1)
            if step.total < prev.total and prev.total - step.total >= SMALL_SHARE * reading.summary.total
        ),
        None,
    )
    asked_by = None
    if reading.role(chain.target) != "app":
        asked_by = next((s for s in reversed(walked[:-1]) if s.role == "app"), None)
    return q.ChainResult(
        *base(reading),
        target=chain.target,
        value=chain.value,
        target_total=chain.target_total,
        steps=walked,
        asked_by=asked_by,
        narrows=narrows,
    )


@_answer.register
def _neighbours(query: q.Neighbours, reading: Reading) -> q.Result:
    target = function(reading, query.name)
    fid = reading.summary.profile.function_id(query.name)
    assert fid is not None  # function() checked it
    from explainer.analysis.sandwich import sandwich  # only questions about one function's neighbours

    sw = sandwich(reading.summary.profile, fid, query.limit)
    return q.NeighboursResult(
        *base(reading),
        function=target,
        callers=tuple((n.name, n.value) for n in sw.callers),
        callees=tuple((n.name, n.value) for n in sw.callees),
    )


@_answer.register
def _category(query: q.CategoryQuery, reading: Reading) -> q.Result:
    concept = query.category
    counted = shares.share(reading, concept)
    by_self: tuple[q.Fn, ...] = ()
    if counted.how == "self":
        rows = reading.summary.top_self.rows
        by_self = tuple(fn(reading, r) for r in rows if knowledge.classify(r.name) == concept)[:5]
    sites = tuple(s for s in reading.sites if s.category == concept)
    example = sites[0].name if sites else None
    if example is None:
        example = next((r.name for r in reading.summary.top_self.rows if knowledge.classify(r.name) == concept), None)
    return q.CategoryResult(
        *base(reading),
        category=concept,
        label=knowledge.label(concept),
        value=counted.value,
        how=counted.how,
        frames=tuple(function(reading, name) for name in counted.frames),
        by_self=by_self,
        sites=sites[:3] if counted.how == "attributed" else (),
        example=example,
    )


@_answer.register
def _breakdown(query: q.Breakdown, reading: Reading) -> q.Result:
    return q.BreakdownResult(*base(reading), shares=tuple(shares.breakdown(reading)))


@_answer.register
def _group(query: q.Group, reading: Reading) -> q.Result:
    profile, stats = reading.summary.profile, reading.summary.stats
    ids = [fid for fid in (profile.function_id(n) for n in query.names) if fid is not None]
    marked = np.zeros(len(profile.names), dtype=bool)
    marked[ids] = True
    members = []
    for fid in sorted(ids, key=lambda fid: -int(stats.total_values[fid])):
        s, t = stats.of(fid)
        members.append(q.Fn(profile.names[fid], s, t, reading.role(profile.names[fid])))
    return q.GroupResult(*base(reading), value=shares.stacks_holding(profile, marked), members=tuple(members))


OWN_SCAN = 500  # the heaviest functions by self looked at: the own-code rows are among them


@_answer.register
def _own(query: q.Own, reading: Reading) -> q.Result:
    stats = reading.summary.stats
    values = stats.total_values if query.by_total else stats.self_values
    entries = {e.name for e in reading.entries}  # every stack passes through them: never "our code's" answer
    candidates = [
        name
        for fid in np.argsort(-values, kind="stable")[:OWN_SCAN].tolist()
        if values[fid] > 0
        and reading.role(name := reading.summary.profile.names[fid]) == "app"
        and name not in entries
        and (query.language is None or reading.symbol(name).language == query.language)
    ]
    # the platform's own libraries (System.*, java.*, Go's standard library, node_modules) are not the team's code
    own = [name for name in candidates if not platform_code(reading.symbol(name))]
    rows = tuple(function(reading, name) for name in own[: query.limit])
    return q.OwnResult(*base(reading), rows=rows, biggest=biggest(reading))


_PLATFORM = {
    # .NET's own assemblies, and the libraries nearly every service loads (gRPC, protobuf, Redis, JSON, logging)
    "dotnet": (
        "System", "Microsoft", "mscorlib", "netstandard", "Grpc.", "Google.", "StackExchange.", "Pipelines.",
        "Newtonsoft.", "Serilog", "NLog", "Npgsql", "Polly", "Azure.", "AWSSDK",
    ),
    "java": ("java.", "javax.", "jdk.", "sun.", "com.sun.", "kotlin.", "scala."),
}  # fmt: skip
# the first path element of Go's standard library packages (a module of one's own may also lack a dot)
_GO_STANDARD = frozenset(
    {"archive", "bufio", "bytes", "cmp", "compress", "container", "context", "crypto", "database", "debug", "embed",
     "encoding", "errors", "expvar", "flag", "fmt", "go", "hash", "html", "image", "index", "internal", "io", "iter",
     "log", "maps", "math", "mime", "net", "os", "path", "plugin", "reflect", "regexp", "runtime", "slices", "sort",
     "strconv", "strings", "sync", "syscall", "testing", "text", "time", "unicode", "unique", "unsafe", "vendor",
     "weak"}
)  # fmt: skip
_NATIVE_LIBRARY = re.compile(r"\.so(?:\.[\d.]+)?$|\.so\b|^vdso\b|^\[", re.I)


def platform_code(sym: Symbol) -> bool:
    """A frame of the runtime's own libraries or of a dependency, as far as its label tells: .NET's System and
    Microsoft assemblies and the libraries nearly every service loads, the JDK, Go's standard library, node_modules,
    Ruby gems, Python's site-packages, shared libraries and the kernel."""
    package, language = sym.package, sym.language
    if sym.kind in ("address", "native") or _NATIVE_LIBRARY.search(sym.raw):
        return True  # a shared library or the kernel's vdso: not code the team wrote
    if language in _PLATFORM:
        return package.startswith(_PLATFORM[language]) or package in ("java", "javax", "System", "Microsoft")
    if language == "go":
        return package.split("/")[0] in _GO_STANDARD
    if language in ("js", "ruby"):
        return bool(package)  # a node_modules package or a gem
    if language == "python":
        return "site-packages" in sym.file or "/lib/python" in sym.file
    return False


@_answer.register
def _unresolved(query: q.UnresolvedShare, reading: Reading) -> q.Result:
    ign = reading.ignorable
    return q.UnresolvedResult(*base(reading), share=ign.unresolved_share, example=ign.address)


@_answer.register
def _knob(query: q.Knob, reading: Reading) -> q.Result:
    name = query.name or (reading.start.name if reading.start else None)
    knobs = frame_meaning(reading, name).knobs if name is not None else ()
    return q.KnobResult(*base(reading), name=name, knobs=knobs)


@_answer.register
def _meaning(query: q.Meaning, reading: Reading) -> q.Result:
    try:
        present: q.Fn | None = function(reading, query.name)
    except NoSuchFunctionError:
        present = None
    return q.MeaningResult(*base(reading), frame=frame_meaning(reading, query.name), function=present)


@_answer.register
def _skip(query: q.Skip, reading: Reading) -> q.Result:
    if query.name is None:
        return q.SkipResult(*base(reading), ignorable=reading.ignorable, small=small(reading))
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
        *base(reading),
        ignorable=reading.ignorable,
        name=f.name,
        verdict=verdict,
        reason=reason,
        function=f,
    )


@_answer.register
def _overview(query: q.Overview, reading: Reading) -> q.Result:
    s = reading.summary
    return q.OverviewResult(
        *base(reading),
        resource=reading.resource,
        meaning=reading.meaning,
        stacks=s.profile.stack_count,
        functions=s.stats.function_count,
        biggest=biggest(reading),
        responsible=responsible(reading),
        start=reading.start,
        ignorable=reading.ignorable,
        path=named_path(reading),
        categories=reading.categories,
    )


@_answer.register
def _compare(query: q.Compare, reading: Reading) -> q.Result:
    if query.baseline is None:
        return q.CompareResult(*base(reading), diff=None, reason=None)
    try:
        diff = diff_of(query.baseline, reading.summary.profile)
    except AnalysisError as exc:
        return q.CompareResult(*base(reading), diff=None, reason=str(exc))
    return q.CompareResult(*base(reading), diff=diff, reason=None)


@_answer.register
def _handoff(query: q.Handoff, reading: Reading) -> q.Result:
    return handoff(reading, query)
