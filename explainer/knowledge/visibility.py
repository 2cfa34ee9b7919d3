"""What a GPU-memory profile can and cannot see, reconciled with the budget the user knows.

The AKS GPU profiler adds up the bytes requested through the cuMemAlloc calls from the moment it
attaches. nvidia-smi shows everything the process holds. Given the GPU's memory and vLLM's
``gpu_memory_utilization`` (or ``--kv-cache-memory``), or vLLM's own start-up log lines,
:func:`audit` puts the budget, vLLM's breakdown and the profile's categories side by side, works
out how much of the budget the profile explains (part by part, never more than vLLM says the part
is) and ranks the likely reasons for the rest by what the frames and settings show.

Every number is in bytes and the reconciliation is exact: the parts add up to the budget, and
explained + not visible = budget, to the byte.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from explainer.analysis.summary import Summary
from explainer.knowledge.attribution import category_breakdown
from explainer.knowledge.semantics import UNRESOLVED_HIGH
from explainer.knowledge.vllm_log import VllmLog


def N_(message: str) -> str:  # marks reason texts for the message catalog (tools/catalogs.py)
    return message


NEAR_EMPTY_SHARE = 0.02  # a profile under 2% of the budget explains nothing about it
NEAR_EMPTY_BYTES = 1 << 30  # without a budget: under 1 GiB and no start-up frames
STARTUP_CATEGORIES = ("weights", "kv-cache")

# vLLM's cumem allocator (sleep mode); a bare cuMemCreate counts only without PyTorch's expandable
# segments, which map their memory with it too
_CUMEM = re.compile(r"CuMemAllocator|cumem_allocator|create_and_map|use_memory_pool")
_CUMEM_CALL = re.compile(r"^cuMem(Create|Map)\b")
_EXPANDABLE = re.compile(r"ExpandableSegment")
_V0 = re.compile(r"determine_num_available_blocks|^LLMEngine\.|CacheEngine\.|\.LLMEngine\.")
_V1 = re.compile(r"GPUModelRunner|determine_available_memory|EngineCore")

# why memory the budget holds is not in the profile, strongest evidence first (the rank order)
REASONS: dict[str, tuple[str, str]] = {
    "cumem": (
        N_("memory was mapped with cuMemCreate (vLLM's sleep mode or cumem allocator)"),
        N_(
            "The profile has frames of cuMemCreate-based allocation (vLLM's sleep mode or its cumem allocator). "
            "The profiler hooks only the cuMemAlloc calls, so weights and the KV cache allocated this way are "
            "not in it."
        ),
    ),
    "expandable": (
        N_("PyTorch's expandable segments are set"),
        N_(
            "PyTorch's expandable segments are in use (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True): its "
            "allocator maps memory with cuMemCreate, which the profiler does not hook, so most allocations are "
            "missing."
        ),
    ),
    "attached-late": (
        N_("the profiler attached after start-up"),
        N_(
            "No start-up frames (model loading, KV cache allocation) are in the profile: the profiler attached "
            "after vLLM had reserved its memory. Start profiling before the server starts, or restart the "
            "workload while profiling."
        ),
    ),
    "raw-addresses": (
        N_("many frames are raw addresses"),
        N_(
            "A large share of the profile ends in raw addresses with no named caller, so part of what is there "
            "cannot be put in a category. Profile a second run: symbols are often resolved by then."
        ),
    ),
    "outside": (
        N_("there is memory outside the allocation calls (CUDA context, libraries)"),
        N_(
            "nvidia-smi also counts what no cuMemAlloc call shows: the CUDA context and the libraries' own "
            "memory (often several hundred MiB per process), and the caching allocator's reserve."
        ),
    ),
}


@dataclass(frozen=True, slots=True)
class Budget:
    """What the user knows about the GPU: all optional, merged from flags, config, sidebar and chat."""

    gpu_memory: int | None = None  # bytes on the card (--gpu-memory 80GB)
    utilization: float | None = None  # vLLM's gpu_memory_utilization
    kv_cache_memory: int | None = None  # vLLM's kv_cache_memory_bytes (--kv-cache-memory)
    log: VllmLog = field(default_factory=VllmLog)

    @property
    def given(self) -> bool:
        return self.gpu_memory is not None or self.kv_cache_memory is not None or self.log.any

    def with_log(self, log: VllmLog) -> Budget:
        return Budget(self.gpu_memory, self.utilization, self.kv_cache_memory, self.log.merged(log))


@dataclass(frozen=True, slots=True)
class Part:
    """One row of the side-by-side table."""

    key: str  # weights, kv-cache, rest, budget
    label: str
    vllm: int  # what vLLM (or the budget) says the part is
    profile: int  # what the profile's categories hold for it (cumulative requested bytes)

    @property
    def visible(self) -> int:
        return min(self.vllm, self.profile)

    @property
    def missing(self) -> int:
        return self.vllm - self.visible


@dataclass(frozen=True, slots=True)
class Reason:
    kind: str  # a key of REASONS
    short: str
    text: str


@dataclass(frozen=True, slots=True)
class Audit:
    budget: int | None  # Y: the memory vLLM may use, when it can be worked out
    budget_from: str  # how: "gpu x utilization", "vllm log", "gpu", "kv cache memory", ""
    parts: tuple[Part, ...]  # add up to ``budget`` exactly
    explained: int  # X: what the profile accounts for, part by part
    reasons: tuple[Reason, ...]  # ranked
    generation: str  # "V0", "V1" or "" (not a vLLM profile, or not told)
    profile_total: int  # the profile's byte total (count frames already out)
    categories: tuple[tuple[str, int], ...]  # the profile's categories, (id, bytes), largest first
    near_empty: bool
    budget_input: Budget

    @property
    def missing(self) -> int:
        """Z = Y - X (0 without a budget)."""
        return (self.budget - self.explained) if self.budget is not None else 0


def vllm_breakdown(log: VllmLog) -> list[tuple[str, int]]:
    """vLLM's own account of its memory, as its log gave it: ``[(label, bytes), ...]``."""
    parts = (
        (N_("model weights"), log.weights_bytes),
        (N_("activation peak"), log.activation_peak),
        (N_("non-torch memory"), log.non_torch),
        (N_("CUDA graphs"), log.cuda_graphs),
        (N_("KV cache"), log.available_kv),
    )
    return [(name, value) for name, value in parts if value is not None]


def vllm_generation(names: tuple[str, ...] | list[str]) -> str:
    """V0 or V1 from the frames (V0 sizes the cache in determine_num_available_blocks; V1 has
    GPUModelRunner and determine_available_memory), "" when neither shows."""
    v0 = v1 = False
    for name in names:
        v0 = v0 or bool(_V0.search(name))
        v1 = v1 or bool(_V1.search(name))
    return "V0" if v0 and not v1 else "V1" if v1 else ""


def _budget(b: Budget, weights: int | None, kv: int | None) -> tuple[int | None, str]:
    log = b.log
    utilization = b.utilization if b.utilization is not None else log.utilization
    gpu = b.gpu_memory if b.gpu_memory is not None else log.total_gpu
    if b.kv_cache_memory is not None and log.non_kv is not None:
        return log.non_kv + b.kv_cache_memory, "kv cache memory"  # the fraction no longer sizes the cache
    if gpu is not None and utilization is not None:
        return round(gpu * utilization), "gpu x utilization"
    if log.budget is not None:
        return log.budget, "vllm log"
    if log.non_kv is not None and kv is not None:
        return log.non_kv + kv, "vllm log"
    if gpu is not None:
        return gpu, "gpu"
    if weights is not None and kv is not None:
        return weights + kv, "vllm log"
    return None, ""


def _parts(budget: int | None, b: Budget, by_cat: dict[str, int], total: int) -> tuple[Part, ...]:
    if budget is None:
        return ()
    weights = b.log.weights_bytes
    kv = b.kv_cache_memory if b.kv_cache_memory is not None else b.log.available_kv
    if weights is None and kv is None:
        return (Part("budget", N_("everything vLLM may use"), budget, total),)
    out: list[Part] = []
    rest_profile = total
    for key, label, value in (("weights", N_("model weights"), weights), ("kv-cache", N_("KV cache"), kv)):
        if value is not None:
            value = min(value, budget - sum(p.vllm for p in out))  # never more than the budget leaves
            out.append(Part(key, label, value, by_cat.get(key, 0)))
            rest_profile -= by_cat.get(key, 0)
    rest = budget - sum(p.vllm for p in out)
    out.append(Part("rest", N_("everything else (activations, CUDA graphs, non-torch, headroom)"), rest, rest_profile))
    return tuple(out)


def _reasons(summary: Summary, b: Budget, by_cat: dict[str, int], missing: int, empty: bool) -> tuple[Reason, ...]:
    names = summary.profile.names
    found: list[str] = []
    expandable = b.log.expandable_segments or any(_EXPANDABLE.search(n) for n in names)
    cumem_call = not expandable and any(_CUMEM_CALL.match(n) for n in names)
    if b.log.sleep_mode or cumem_call or any(_CUMEM.search(n) for n in names):
        found.append("cumem")
    if expandable:
        found.append("expandable")
    if not any(by_cat.get(c, 0) for c in STARTUP_CATEGORIES):
        found.append("attached-late")
    hidden = by_cat.get("unresolved", 0)
    if summary.total and hidden / summary.total >= UNRESOLVED_HIGH:
        found.append("raw-addresses")
    if missing > 0 or (empty and not found):
        found.append("outside")
    return tuple(Reason(k, *REASONS[k]) for k in REASONS if k in found)


def audit(summary: Summary, budget: Budget | None = None) -> Audit:
    """The visibility audit of a GPU-memory profile's summary (count-valued frames already out)."""
    b = budget or Budget()
    cats = tuple((c.category, c.self) for c in category_breakdown(summary.profile)) if summary.total else ()
    by_cat = dict(cats)
    total = summary.total
    weights = b.log.weights_bytes
    kv = b.kv_cache_memory if b.kv_cache_memory is not None else b.log.available_kv
    y, how = _budget(b, weights, kv)
    parts = _parts(y, b, by_cat, total)
    if parts:
        y = sum(p.vllm for p in parts)
    explained = sum(p.visible for p in parts) if parts else 0
    startup = any(by_cat.get(c, 0) for c in STARTUP_CATEGORIES)
    near_empty = total == 0 or (total < y * NEAR_EMPTY_SHARE if y else (not startup and total < NEAR_EMPTY_BYTES))
    missing = (y - explained) if y is not None else 0
    reasons = _reasons(summary, b, by_cat, missing, near_empty)
    generation = vllm_generation(summary.profile.names)
    return Audit(y, how, parts, explained, reasons, generation, total, cats, near_empty, b)
