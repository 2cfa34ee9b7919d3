"""vLLM's own start-up log lines about GPU memory, read into numbers.

vLLM logs its memory plan once at start-up; people paste those lines into a chat or pass the log
with ``--vllm-log``. Only the lines below are read (with any logger prefix before them, such as
``INFO 06-10 12:00:00 [gpu_worker.py:227]`` or ``(EngineCore_0 pid=42)``); everything else is
ignored. The input is bounded: at most :data:`MAX_BYTES` are read and at most :data:`MAX_LINE`
characters of a line are looked at, so a huge or hostile file costs little.

Shapes (V1 and V0, several releases):

- ``Model loading took 14.99 GiB and 6.1 seconds`` (also ``... GiB memory and ...``)
- ``Memory profiling takes 8.61 seconds. Total non KV cache memory: 19.24GiB; torch peak memory
  increase: 4.23GiB; non-torch forward increase memory: 0.02GiB; weights memory: 14.99GiB.``
- V0: ``the current vLLM instance can use total_gpu_memory (79.19GiB) x gpu_memory_utilization
  (0.90) = 71.27GiB`` and ``model weights take 14.99GiB; non_torch_memory takes 0.14GiB; PyTorch
  activation peak memory takes 4.35GiB; the rest of the memory reserved for KV Cache is 51.79GiB.``
- ``Available KV cache memory: 51.79 GiB``
- ``GPU KV cache size: 424,176 tokens``
- ``Graph capturing finished in 12 secs, took 0.49 GiB``
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace
from typing import Any

from explainer import units
from explainer.errors import SourceNotFoundError
from explainer.lazyre import LazyPattern, lazy

MAX_BYTES = 4 << 20  # a start-up log is a few hundred KB; a whole day's log is read up to here
MAX_LINE = 2_000
MAX_LINES = 100_000

_SIZE = r"(-?\d+(?:\.\d+)?)\s*(GiB|GB|MiB|MB|KiB|kB|B)\b"
# Compiled when a log is first read (about 3 ms): ``analyze`` without a log imports this module for the
# budget's types and never reads one.
_PATTERNS: tuple[tuple[str, LazyPattern], ...] = tuple(
    (field, lazy(pattern, re.IGNORECASE))
    for field, pattern in (
        ("model_loading", r"model loading took " + _SIZE),
        ("non_kv", r"total non[- _]?kv[- _]cache memory:?\s*" + _SIZE),
        ("activation_peak", r"torch peak memory increase:?\s*" + _SIZE),
        ("activation_peak", r"pytorch activation peak memory takes\s*" + _SIZE),
        ("non_torch", r"non-torch forward increase memory:?\s*" + _SIZE),
        ("non_torch", r"non_torch_memory takes\s*" + _SIZE),
        ("weights", r"weights memory:?\s*" + _SIZE),
        ("weights", r"model weights take\s*" + _SIZE),
        ("available_kv", r"available kv cache memory:?\s*" + _SIZE),
        ("available_kv", r"reserved for kv cache is\s*" + _SIZE),
        ("cuda_graphs", r"graph capturing finished in [\d.]+ secs?, took " + _SIZE),
        ("cuda_graphs", r"cuda graph (?:capturing|memory)[^:\d]*:?\s*(?:took\s*)?" + _SIZE),
        ("total_gpu", r"total_gpu_memory \(" + _SIZE + r"\)"),
        ("budget", r"gpu_memory_utilization \([\d.]+\) = " + _SIZE),
    )
)
_UTILIZATION = lazy(r"gpu_memory_utilization \(([\d.]+)\)", re.IGNORECASE)
_TOKENS = lazy(r"gpu kv cache size:?\s*([\d,]+)\s*tokens", re.IGNORECASE)
_EXPANDABLE = lazy(r"expandable_segments\s*[:=]\s*true", re.IGNORECASE)
_SLEEP = lazy(r"enable_sleep_mode\s*[=:]\s*true|sleep mode", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class VllmLog:
    """What vLLM said about its memory, in bytes (None when no line said it)."""

    model_loading: int | None = None  # "Model loading took": the weights as loaded
    weights: int | None = None  # the weights as the memory profiling counted them
    non_kv: int | None = None  # everything but the KV cache (weights, activation peak, non-torch, graphs)
    activation_peak: int | None = None
    non_torch: int | None = None  # memory outside PyTorch's allocator (CUDA context growth, NCCL, ...)
    cuda_graphs: int | None = None
    available_kv: int | None = None  # the KV cache
    kv_tokens: int | None = None
    total_gpu: int | None = None
    utilization: float | None = None
    budget: int | None = None  # total_gpu x utilization, as V0 logs it
    expandable_segments: bool = False  # the log shows PYTORCH_CUDA_ALLOC_CONF with expandable segments
    sleep_mode: bool = False
    lines: int = 0  # lines with a memory number (the settings above alone do not count)

    @property
    def any(self) -> bool:
        return self.lines > 0

    @property
    def weights_bytes(self) -> int | None:
        return self.weights if self.weights is not None else self.model_loading

    def merged(self, newer: VllmLog) -> VllmLog:
        """This log with what ``newer`` says on top (a second paste in the chat adds to the first)."""
        changes: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(newer, f.name)
            if f.name == "lines":
                changes["lines"] = self.lines + newer.lines
            elif isinstance(value, bool):
                changes[f.name] = value or getattr(self, f.name)
            elif value is not None:
                changes[f.name] = value
        return replace(self, **changes)


def _bytes(number: str, unit: str) -> int:
    value = units.parse_quantity(number, unit)
    return round(value) if value is not None else 0


def parse(text: str) -> VllmLog:
    """The memory lines of a vLLM log (or of a chat message with log lines pasted in it)."""
    found: dict[str, object] = {}
    lines = 0
    for i, line in enumerate(text[:MAX_BYTES].splitlines()):
        if i >= MAX_LINES:
            break
        line = line[:MAX_LINE]
        hit = False
        for field, pattern in _PATTERNS:
            if field in found and field != "cuda_graphs":
                continue
            m = pattern.search(line)
            if m is not None:
                found[field] = _bytes(m.group(1), m.group(2))
                hit = True
        if (m := _UTILIZATION.search(line)) is not None:
            found["utilization"], hit = float(m.group(1)), True
        if (m := _TOKENS.search(line)) is not None:
            found["kv_tokens"], hit = int(m.group(1).replace(",", "")), True
        if _EXPANDABLE.search(line):  # settings, not memory lines: they do not make text a log
            found["expandable_segments"] = True
        if _SLEEP.search(line):
            found["sleep_mode"] = True
        lines += hit
    return VllmLog(**found, lines=lines)  # type: ignore[arg-type]


def read_log(path: str) -> VllmLog:
    """``--vllm-log FILE``: the file's memory lines; a missing or unreadable file is one line of error."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES)
    except OSError as exc:
        raise SourceNotFoundError(f"--vllm-log: cannot read {path[:200]!r}: {exc.strerror or exc}") from exc
    log = parse(data.decode("utf-8", "replace"))
    if not log.any:
        raise SourceNotFoundError(
            f"--vllm-log: {path[:200]!r} has no vLLM memory lines (Model loading took, Available KV cache memory, ...)"
        )
    return log
