"""What the values of a profile mean, and what a reader must keep in mind.

The same flame graph reads differently per sample type: the AKS GPU profiler's ``malloc``/
``bytes`` counts every byte requested from the CUDA driver while it ran (frees are not
subtracted, earlier allocations are missing), ``inuse_space`` is a snapshot of live memory,
``cpu`` is time. Every explanation and report starts from :func:`semantics`.
"""

from __future__ import annotations

from dataclasses import dataclass

from explainer import units
from explainer.analysis.summary import unresolved_share
from explainer.knowledge.attribution import category_breakdown
from explainer.knowledge.classify import ALLOCATOR, UNRESOLVED, lookup
from explainer.model import Profile, once_per_profile

UNRESOLVED_HIGH = 0.2  # the share of the total at which unresolved symbols change the reading

AKS_SOURCE = "https://learn.microsoft.com/en-us/azure/aks/gpu-profiling"

_MEANINGS: dict[tuple[str, str], str] = {
    ("malloc", "bytes"): "cumulative bytes of GPU memory requested from the CUDA driver (cuMemAlloc* calls) by each "
    "call stack while the profiler ran",
    ("alloc_space", "bytes"): "cumulative bytes allocated by each call stack during the profile, including memory "
    "freed since",
    ("alloc_objects", "count"): "the number of allocations each call stack made during the profile",
    ("inuse_space", "bytes"): "bytes in use (allocated, not yet freed) when the profile was taken, by the call stack "
    "that allocated them",
    ("inuse_objects", "count"): "the number of allocations still live when the profile was taken",
    ("cpu", "nanoseconds"): "CPU time spent in each call stack",
    ("samples", "count"): "the number of profiler samples that hit each call stack (proportional to time)",
    ("wall", "nanoseconds"): "wall-clock time in each call stack, including time spent waiting (I/O, locks, sleep)",
    ("contentions", "count"): "how many times each call stack waited for a lock",
    ("delay", "nanoseconds"): "time each call stack spent waiting for locks",
}

_CUMULATIVE = (
    "These are bytes allocated, not memory in use: frees are not subtracted, so memory freed and allocated again "
    "counts every time, and the total can exceed the memory the GPU has."
)
_BEFORE_START = (
    "Allocations made before profiling started are missing. vLLM reserves its weights and KV cache once at "
    "start-up, so enable profiling before the workload starts (or restart the workload) to see them."
)
_DRIVER_ONLY = (
    "Only requests that reach the CUDA driver are counted: tensors PyTorch's caching allocator serves from memory "
    "it already holds add nothing, and memory mapped through cuMemCreate (PyTorch's expandable segments) is not "
    "among the hooked allocation calls."
)
_SNAPSHOT = "A snapshot of live memory: memory allocated and freed before it was taken does not appear."


@dataclass(frozen=True, slots=True)
class Caveat:
    """One thing a reader must keep in mind; ``kind`` is what code tests, ``text`` what people read."""

    kind: str  # cumulative, before-start, driver-only, snapshot, counts-once, unresolved, unresolved-rerun
    text: str

    @property
    def about_symbols(self) -> bool:
        return self.kind.startswith("unresolved")


@dataclass(frozen=True, slots=True)
class Semantics:
    sample_type: str  # ``type/unit``
    meaning: str  # one phrase: what a value is
    caveats: tuple[Caveat, ...]  # what a reader must keep in mind, most important first
    gpu: bool  # CUDA allocation frames are present: the bytes are GPU memory
    unresolved_share: float  # share of the total whose leaf frame is an unresolved address
    source: str = ""  # documentation the meaning rests on, when there is one


def _has_cuda_frames(profile: Profile) -> bool:
    for name in profile.names:
        entry = lookup(name)
        if entry is not None and entry.category == ALLOCATOR and entry.framework in ("cuda", "pytorch"):
            return True
    return False


def _unresolved_caveat(profile: Profile, leaf_share: float) -> Caveat | None:
    if leaf_share < UNRESOLVED_HIGH:
        return None
    share = units.format_share(leaf_share, 1)
    hidden = sum(c.share for c in category_breakdown(profile) if c.category == UNRESOLVED)
    if hidden < UNRESOLVED_HIGH:
        # addresses inside the driver or libraries, below named application frames: still readable
        return Caveat(
            "unresolved",
            f"{share} of the total ends in raw addresses (native code without symbols), but named application "
            f"frames sit above most of them, so the breakdown by purpose is not affected "
            f"(only {units.format_share(hidden, 1)} has no named caller).",
        )
    return Caveat(
        "unresolved-rerun",
        f"{share} of the total ends in raw addresses: native code whose symbols were not resolved. On a first "
        f"profiling run symbols may not be resolved yet; run the workload again and profile the new run "
        f"({units.format_share(hidden, 1)} of the total has no named caller at all).",
    )


@once_per_profile
def semantics(profile: Profile) -> Semantics:
    """What ``profile``'s values mean and the caveats that apply to it (worked out once per profile:
    the reading and the report's scope both ask)."""
    st = profile.sample_type
    key = (st.type, st.unit)
    gpu = _has_cuda_frames(profile)
    meaning = _MEANINGS.get(key) or f"values of {st.type!r}, in {st.unit}"
    caveats: list[Caveat] = []
    source = ""
    leaf_share = unresolved_share(profile)
    symbols = _unresolved_caveat(profile, leaf_share)
    if key == ("malloc", "bytes"):
        # readers often take only the first few: unresolved symbols that hide callers outrank the
        # finer point about which calls the hooks see
        caveats += [Caveat("cumulative", _CUMULATIVE), Caveat("before-start", _BEFORE_START)]
        if symbols is not None and symbols.kind == "unresolved-rerun":
            caveats.append(symbols)
        caveats.append(Caveat("driver-only", _DRIVER_ONLY))
        gpu, source = True, AKS_SOURCE
    elif st.type.startswith("alloc_"):
        once = "Each allocation counts once, freed or not."
        caveats.append(Caveat("cumulative", _CUMULATIVE) if st.unit == "bytes" else Caveat("counts-once", once))
        if gpu:
            meaning += " (GPU memory: CUDA allocation frames are present)"
    elif st.type.startswith("inuse_"):
        caveats.append(Caveat("snapshot", _SNAPSHOT))
    if symbols and symbols not in caveats:
        caveats.append(symbols)
    return Semantics(str(st), meaning, tuple(caveats), gpu, leaf_share, source)
