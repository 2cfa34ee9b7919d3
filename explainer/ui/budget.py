"""The sidebar's GPU budget: the GPU's memory, vLLM's utilisation and its start-up lines, for the chat's
"where is the rest?" and the handoff's visibility section (the same inputs as ``--gpu-memory``,
``--gpu-memory-utilization`` and ``--vllm-log``)."""

from __future__ import annotations

from typing import Any

from explainer import units
from explainer.knowledge.visibility import Budget
from explainer.knowledge.vllm_log import MAX_BYTES, parse
from explainer.ui import expanders

MAX_LOG_CHARS = 200_000  # pasted log text beyond this is not read
KEYS = ("gpu_memory", "gpu_util", "vllm_log")


def sidebar(st: Any) -> tuple[Budget, list[str]]:
    """The budget the fields give, and one line per field that could not be read."""
    errors: list[str] = []
    gpu_text = util_text = log_text = ""
    holds_value = expanders.has_any(st, *KEYS)
    box, draw = expanders.expander(st, "GPU budget (where is the rest?)", expanders.BUDGET, holds_value)
    with box:
        if draw:
            gpu_text = st.text_input("GPU memory", placeholder="80GB", key=KEYS[0]).strip()
            util_text = st.text_input("gpu_memory_utilization", placeholder="0.92", key=KEYS[1]).strip()
            log_text = st.text_area(
                "vLLM start-up log lines",
                placeholder="Model loading took 14.99 GiB …\nAvailable KV cache memory: 51.79 GiB",
                key=KEYS[2],
                max_chars=MAX_LOG_CHARS,
            )
    gpu = units.parse_bytes(gpu_text) if gpu_text else None
    if gpu_text and gpu is None:
        errors.append("GPU memory: not a size (e.g. 80GB or 80GiB)")
    util: float | None = None
    if util_text:
        try:
            util = float(util_text)
        except ValueError:
            util = None
        if util is None or not 0 < util <= 1:
            errors.append("gpu_memory_utilization: a fraction above 0 and at most 1, e.g. 0.92")
            util = None
    log = parse(log_text[:MAX_BYTES]) if log_text else parse("")
    if log_text.strip() and not log.any:
        errors.append("vLLM log: no memory lines found (Model loading took …, Available KV cache memory: …)")
    return Budget(gpu, util, None, log), errors
