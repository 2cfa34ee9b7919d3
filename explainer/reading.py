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
from explainer.analysis.functions import TopRow, ranked
from explainer.analysis.summary import Summary
from explainer.knowledge import CategoryShare, Caveat, Site
from explainer.knowledge.classify import ALLOCATOR, INTERPRETER, OTHER, UNRESOLVED
from explainer.symbols import decode

Role = Literal["app", "entry", "runtime", "allocator", "noise"]
_NOISE_KINDS = ("trampoline", "address", "unknown", "other", "elided")
_ENTRY_KINDS = ("module",)
_RESOURCE = {"bytes": "memory", "time": "time", "count": "samples"}
_VERB = {"bytes": "allocated", "time": "spent", "count": "counted"}
_TIME_RESOURCES = {"cpu": "CPU time", "wall": "wall-clock time"}


@lru_cache(maxsize=65_536)
def role(name: str) -> Role:
    """How a frame takes part: application code, an entry frame, runtime code, the allocator, or noise.

    Noise (trampolines, addresses, the interpreter, ``other``) is skipped when reading a chain;
    entry frames (``<module>``) are shown but never blamed; runtime and allocator frames carry
    requests without deciding them, so the code that asked is looked for below them.
    """
    kind = decode(name).kind
    if kind in _NOISE_KINDS:
        return "noise"
    category = knowledge.classify(name)
    if category in (INTERPRETER, UNRESOLVED):
        return "noise"
    if kind in _ENTRY_KINDS:
        return "entry"
    if category == ALLOCATOR:
        return "allocator"
    if knowledge.is_runtime(name):
        return "runtime"
    sym = decode(name)
    return "runtime" if sym.language in ("native", "cpp") or sym.kind == "native" else "app"


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
    focus: tuple[str, int] | None  # where to start: the biggest consumer, or the site that asked for it
    sites: tuple[Site, ...]  # allocation sites (GPU memory only)
    categories: tuple[CategoryShare, ...]  # the knowledge base's breakdown (bytes only)
    self_by_category: dict[str, int]  # self summed per category of the frames that have it (any unit)

    @staticmethod
    def role(name: str) -> Role:
        return role(name)

    def is_noise(self, name: str) -> bool:
        return role(name) == "noise"

    def is_runtime(self, name: str) -> bool:
        return role(name) in ("runtime", "allocator", "noise")

    @property
    def breakdown(self) -> list[tuple[str, int]]:
        """``[(category label, value), ...]`` heaviest first, categories with a value only."""
        return sorted(((c.label, c.self) for c in self.categories if c.self > 0), key=lambda lv: -lv[1])

    @staticmethod
    def category_label(name: str) -> str | None:
        """The knowledge base's category of a frame, when it says more than "other application code"."""
        cid = knowledge.classify(name)
        return None if cid in (OTHER, "other", "") else knowledge.label(cid)


def read(summary: Summary) -> Reading:
    profile = summary.profile
    kind = units.kind_of(summary.unit)
    sem = knowledge.semantics(profile)
    gpu = kind == "bytes" and (sem.gpu or _gpu_source(summary))
    memory = kind == "bytes"
    sites = tuple(knowledge.allocation_sites(profile, 10)) if memory and summary.total else ()
    categories = tuple(knowledge.category_breakdown(profile)) if memory and summary.total else ()
    biggest = summary.top_self.rows[0] if summary.top_self.rows else None
    resource = _resource(summary, kind, gpu)
    plural = kind == "count" and resource.endswith("s")
    return Reading(
        summary,
        kind,
        gpu,
        resource,
        _VERB[kind],
        f"{'are' if plural else 'is'} {_VERB[kind]}",
        sem.meaning,
        (*sem.caveats, *counts_caveats(summary)),
        biggest,
        most_responsible(summary),
        _focus(biggest, sites),
        sites,
        categories,
        _self_by_category(summary),
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


def most_responsible(summary: Summary) -> TopRow | None:
    """The widest application bar that not every stack passes through: where the work first branches.

    Entry frames, runtime code and noise carry every request but are never the reason for one.
    """
    stats = summary.stats
    for fid in ranked(stats, "total").tolist():
        s, t = stats.of(fid)
        name = summary.profile.names[fid]
        if t < summary.total and role(name) == "app":
            return TopRow(fid, name, s, t)
    return None


def _focus(biggest: TopRow | None, sites: tuple[Site, ...]) -> tuple[str, int] | None:
    """The biggest consumer, or, when that is the allocator, the application frame that asked most."""
    if biggest is None:
        return None
    if role(biggest.name) == "allocator" and sites and role(sites[0].name) == "app":
        return sites[0].name, sites[0].self
    return biggest.name, biggest.self
