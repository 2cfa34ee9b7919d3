"""One reading of a profile: what its values are, what uses the most, what is responsible, and
what role each frame plays.

Built once from the analysis summary and the knowledge base (:func:`read`), and read by every
surface: the chat's answers, the model's facts and tools, and the handoff report. None of them
re-derives any of it, so they can never name different frames for the same question.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np

from explainer import knowledge, units
from explainer.analysis.filters import TRAMPOLINE
from explainer.analysis.functions import TopRow, ranked
from explainer.analysis.summary import Summary
from explainer.knowledge import CategoryShare, Caveat, Site
from explainer.knowledge.classify import ALLOCATOR, IDLE, INTERPRETER, OTHER, UNRESOLVED
from explainer.model import Profile, once_per_profile
from explainer.symbols import Symbol, decode, guess_runtime

Role = Literal["app", "entry", "runtime", "allocator", "noise"]
_NOISE_KINDS = ("trampoline", "address", "unknown", "other", "elided")
_ENTRY_KINDS = ("module",)
_RESOURCE = {"bytes": "memory", "time": "time", "count": "samples"}
_VERB = {"bytes": "allocated", "time": "spent", "count": "counted"}
_TIME_RESOURCES = {"cpu": "CPU time", "wall": "wall-clock time"}
ENTRY_SELF = 0.01  # a frame in every stack with less self than this share is an entry frame, not a cause
IGNORABLE_SHOWN = 5  # zero-self bars named in "what can be ignored"; the rest are counted


@once_per_profile
def runtime_of(profile: Profile) -> str:
    """The profile's runtime (``""`` when unknown or mixed): every surface decodes a frame with it,
    so ``pkg.Foo.bar`` is a Go method in the graph, the tables and the chat alike."""
    return guess_runtime(profile.names)


def symbol(name: str, profile: Profile) -> Symbol:
    """What a frame label is, read with its profile's runtime (the one way every surface decodes)."""
    return decode(name, runtime_of(profile))


def frame_meaning(name: str, profile: Profile) -> str:
    """The one-sentence meaning of a frame label in ``profile`` (tooltips, tables, the sandwich)."""
    return symbol(name, profile).meaning


@lru_cache(maxsize=65_536)
def role(name: str, runtime: str = "") -> Role:
    """How a frame takes part: application code, an entry frame, runtime code, the allocator, or noise.

    Noise (trampolines, addresses, the interpreter, ``other``) is skipped when reading a chain;
    entry frames (``<module>``) are shown but never blamed; runtime and allocator frames carry
    requests without deciding them, so the code that asked is looked for below them.
    """
    sym = decode(name, runtime)
    kind = sym.kind
    if kind in _NOISE_KINDS:
        return "noise"
    category = knowledge.classify(name)
    if category in (INTERPRETER, UNRESOLVED):
        return "noise"
    if kind in _ENTRY_KINDS:
        return "entry"
    if category == ALLOCATOR:
        return "allocator"
    if knowledge.is_runtime(name) or (sym.language == "go" and sym.package == "runtime"):
        return "runtime"  # the Go runtime's own frames (runtime.main, runtime.goexit) carry every goroutine
    return "runtime" if sym.language in ("native", "cpp") or sym.kind == "native" else "app"


@dataclass(frozen=True)
class Start:
    """Where to start: the application frame that asked for what the biggest consumer uses.

    ``why``: ``biggest`` (the biggest consumer is application code itself), ``site`` (it is the
    allocator; the allocation site that asked most), ``caller`` (it is runtime code or noise; the
    nearest application frame below it on its heaviest chain, with the value on that chain), ``busy`` (it is
    idle time, waiting with nothing to run: the application frame with the most self).
    """

    name: str
    value: int
    why: Literal["biggest", "site", "caller", "busy"]
    biggest: str  # the biggest consumer it stands for


@dataclass(frozen=True)
class Ignorable:
    """What can be ignored when hunting the source: one list, never the responsible or start frame."""

    frames: tuple[TopRow, ...]  # wide bars with zero self, widest first (at most IGNORABLE_SHOWN)
    more: int  # further zero-self bars not listed
    trampoline: int  # what passes through ``<interpreter trampoline>`` frames (0 without any)
    unresolved_share: float  # share of the total ending in a raw address
    address: str | None  # an unresolved frame to name as an example

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(r.name for r in self.frames)


@dataclass(frozen=True, eq=False)
class Reading:
    summary: Summary
    kind: Literal["bytes", "time", "count"]
    gpu: bool  # the bytes are GPU memory
    resource: str  # what the widths measure, for prose: "GPU memory", "CPU time", "samples"
    verb: str  # what happens to it: allocated, spent, counted
    is_verb: str  # the verb agreeing with the resource: "is allocated", "are counted" (the samples are counted)
    meaning: str  # what one value is
    caveats: tuple[Caveat, ...]
    biggest: TopRow | None  # what uses the most: the widest self
    responsible: TopRow | None  # the widest application bar that not every stack passes through
    start: Start | None  # where to start (see :class:`Start`)
    sites: tuple[Site, ...]  # allocation sites (GPU memory only)
    categories: tuple[CategoryShare, ...]  # the knowledge base's breakdown (bytes only)
    self_by_category: dict[str, int]  # self summed per category of the frames that have it (any unit)
    runtime: str  # the profile's runtime, "" when unknown or mixed
    ignorable: Ignorable
    entries: tuple[TopRow, ...]  # bars every stack passes through: entry points, not causes (at most 4)

    @property
    def focus(self) -> tuple[str, int] | None:
        """``(name, value)`` of :attr:`start`."""
        return (self.start.name, self.start.value) if self.start is not None else None

    def role(self, name: str) -> Role:
        return role(name, self.runtime)

    def symbol(self, name: str) -> Symbol:
        return decode(name, self.runtime)

    def frame_meaning(self, name: str) -> str:
        return decode(name, self.runtime).meaning

    def is_noise(self, name: str) -> bool:
        return self.role(name) == "noise"

    def is_runtime(self, name: str) -> bool:
        return self.role(name) in ("runtime", "allocator", "noise")

    def can_ignore(self, name: str) -> bool:
        """Is ``name`` on the one list of what can be ignored (or noise, which is never a cause)?"""
        if self.responsible is not None and name == self.responsible.name:
            return False
        if self.start is not None and name in (self.start.name, self.start.biggest):
            return False
        return name in self.ignorable.names or self.is_noise(name) or name == TRAMPOLINE

    @property
    def breakdown(self) -> list[tuple[str, int]]:
        """``[(category label, value), ...]`` heaviest first, categories with a value only."""
        return sorted(((c.label, c.self) for c in self.categories if c.self > 0), key=lambda lv: -lv[1])

    @staticmethod
    def category_label(name: str) -> str | None:
        """The knowledge base's category of a frame, when it says more than "other application code"."""
        cid = knowledge.classify(name)
        return None if cid in (OTHER, "other", "") else knowledge.label(cid)


@dataclass(frozen=True, eq=False)
class Verdicts:
    """What every surface must say alike (the biggest consumer, the responsible frame, where to
    start, what to ignore, the entry frames) and the runtime frames are read with: the part of the
    reading ``analyze`` needs, without the semantics' pass over every name."""

    summary: Summary
    runtime: str
    biggest: TopRow | None
    responsible: TopRow | None
    start: Start | None
    ignorable: Ignorable
    entries: tuple[TopRow, ...]


def verdicts(summary: Summary, sites: tuple[Site, ...] | None = None) -> Verdicts:
    """The verdicts of :func:`read` (which passes the allocation sites it has; without them they are
    computed only when the biggest consumer is the allocator of a memory profile)."""
    profile = summary.profile
    runtime = runtime_of(profile)
    biggest = summary.top_self.rows[0] if summary.top_self.rows else None
    if sites is None:
        asks = biggest is not None and role(biggest.name, runtime) == "allocator"
        memory = units.kind_of(summary.unit) == "bytes" and summary.total
        sites = tuple(knowledge.allocation_sites(profile, 10)) if asks and memory else ()
    responsible = most_responsible(summary, runtime)
    start = _start(biggest, sites, summary, runtime)
    return Verdicts(
        summary, runtime, biggest, responsible, start, _ignorable(summary, responsible, start), _entries(summary, start)
    )


def read(summary: Summary) -> Reading:
    profile = summary.profile
    kind = units.kind_of(summary.unit)
    sem = knowledge.semantics(profile)
    gpu = kind == "bytes" and (sem.gpu or _gpu_source(summary))
    memory = kind == "bytes"
    sites = tuple(knowledge.allocation_sites(profile, 10)) if memory and summary.total else ()
    categories = tuple(knowledge.category_breakdown(profile)) if memory and summary.total else ()
    resource = _resource(summary, kind, gpu)
    plural = kind == "count" and resource.endswith("s")
    v = verdicts(summary, sites)
    return Reading(
        summary,
        kind,
        gpu,
        resource,
        _VERB[kind],
        f"{'are' if plural else 'is'} {_VERB[kind]}",
        sem.meaning,
        (*sem.caveats, *counts_caveats(summary)),
        v.biggest,
        v.responsible,
        v.start,
        sites,
        categories,
        _self_by_category(summary),
        v.runtime,
        v.ignorable,
        v.entries,
    )


def counts_caveats(summary: Summary) -> tuple[Caveat, ...]:
    """The caveat for frames that count calls in a byte profile: what they are, and that no byte
    total includes them (the summary took them out)."""
    if not summary.counted:
        return ()
    calls = "; ".join(f"{c.name} {units.counted(c.calls, 'calls')} ({c.does})" for c in summary.counted)
    return (
        Caveat(
            "counts",
            f"Some frames count calls, not bytes: {calls}. The profiler records them as 1 per call in the "
            "same bytes profile, so they are left out of every byte total, share and category here.",
        ),
    )


def _self_by_category(summary: Summary) -> dict[str, int]:
    """Where the self goes by kind of frame (GC, JIT, the kernel...): for CPU profiles, whose values
    the memory attribution does not read. Only functions with self are classified."""
    out: dict[str, int] = {}
    values = summary.stats.self_values
    for fid in np.flatnonzero(values).tolist():
        category = knowledge.classify(summary.profile.names[fid])
        out[category] = out.get(category, 0) + int(values[fid])
    return out


def _gpu_source(summary: Summary) -> bool:
    text = f"{summary.profile.sample_type.type} {summary.profile.source.query}".lower()
    return "gpu" in text or "cuda" in text or summary.profile.sample_type.type == "malloc"


def _resource(summary: Summary, kind: str, gpu: bool) -> str:
    st = summary.profile.sample_type.type.lower()
    if kind == "bytes":
        return "GPU memory" if gpu else "memory"
    if kind == "time":
        return _TIME_RESOURCES.get(st, "time")
    return "samples" if st in ("samples", "sample", "") else st.replace("_", " ")


def most_responsible(summary: Summary, runtime: str = "") -> TopRow | None:
    """The widest application bar that is not a shared entry frame: where the work first branches, or
    a frame every stack passes through that uses a real part itself (a Go method called everywhere).

    Entry frames, runtime code and noise carry every request but are never the reason for one.
    """
    stats = summary.stats
    for fid in ranked(stats, "total").tolist():
        s, t = stats.of(fid)
        name = summary.profile.names[fid]
        if not _carries_all(summary, s, t) and role(name, runtime) == "app":
            return TopRow(fid, name, s, t)
    return None


def _carries_all(summary: Summary, self_value: int, total: int) -> bool:
    """An entry frame: every stack passes through it and it uses (almost) nothing itself."""
    return total == summary.total and self_value < ENTRY_SELF * summary.total


def _start(biggest: TopRow | None, sites: tuple[Site, ...], summary: Summary, runtime: str) -> Start | None:
    """One rule: the application frame that asked. The biggest consumer when it is application code;
    for the allocator, the allocation site that asked most; for other runtime code or noise, the
    nearest application frame below it on its heaviest chain (walked only then: a report that wants
    more chains, the handoff's, asks for this one in the same walk); for idle time, the application frame with
    the most self."""
    if biggest is None:
        return None
    if knowledge.classify(biggest.name) == IDLE:  # Node's (idle) on top of a wall-clock profile: waiting is not work
        busy = next((r for r in summary.top_self.rows if _works(r.name, runtime)), None)
        if busy is not None:
            return Start(busy.name, busy.self, "busy", biggest.name)
    if role(biggest.name, runtime) != "app":
        if role(biggest.name, runtime) == "allocator" and sites and role(sites[0].name, runtime) == "app":
            return Start(sites[0].name, sites[0].self, "site", biggest.name)
        chain = summary.chain
        if chain is not None and chain.target == biggest.name:
            for step in reversed(chain.steps[:-1]):
                if role(step.name, runtime) == "app":
                    return Start(step.name, step.width, "caller", biggest.name)
    return Start(biggest.name, biggest.self, "biggest", biggest.name)


def _works(name: str, runtime: str) -> bool:
    """Application code that does work (not waiting for it)."""
    return role(name, runtime) == "app" and knowledge.classify(name) != IDLE


def _ignorable(summary: Summary, responsible: TopRow | None, start: Start | None) -> Ignorable:
    """Wide bars with zero self (they only pass calls on), widest first; never the responsible frame
    or where to start, so no frame is named both a cause and ignorable."""
    stats, names = summary.stats, summary.profile.names
    keep = {r.name for r in (responsible,) if r is not None} | ({start.name} if start is not None else set())
    zero = [
        i
        for i in ranked(stats, "total").tolist()
        if stats.self_values[i] == 0 and stats.total_values[i] > 0 and names[i] != TRAMPOLINE and names[i] not in keep
    ]
    rows = tuple(TopRow(i, names[i], 0, int(stats.total_values[i])) for i in zero[:IGNORABLE_SHOWN])
    fid = summary.profile.function_id(TRAMPOLINE)
    trampoline = int(stats.total_values[fid]) if fid is not None else 0
    address = None
    if summary.unresolved_share > 0:
        address = next((r.name for r in summary.top_total.rows if decode(r.name).kind == "address"), None)
    return Ignorable(rows, max(0, len(zero) - len(rows)), trampoline, summary.unresolved_share, address)


def _entries(summary: Summary, start: Start | None) -> tuple[TopRow, ...]:
    """The shared entry frames (see :func:`_carries_all`), widest first; never where to start."""
    stats, names = summary.stats, summary.profile.names
    out = []
    for fid in ranked(stats, "total").tolist()[:12]:
        s, t = stats.of(fid)
        if _carries_all(summary, s, t) and (start is None or names[fid] != start.name):
            out.append(TopRow(fid, names[fid], s, t))
    return tuple(out[:4])
