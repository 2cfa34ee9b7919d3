"""What the user knows about the GPU, on ``ask``, ``chat``, ``analyze`` and ``handoff``.

``--gpu-memory SIZE`` (``80GB``, ``80GiB``), ``--gpu-memory-utilization F`` (vLLM's fraction),
``--kv-cache-memory SIZE`` (vLLM's ``kv_cache_memory_bytes``) and ``--vllm-log FILE`` (vLLM's
start-up log), each also a key of the config file's context (``gpu-memory = "80GB"``). Together
they are the :class:`~explainer.knowledge.visibility.Budget` the visibility audit reconciles.
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from explainer import units
from explainer.errors import QueryError

if TYPE_CHECKING:
    from explainer.knowledge.visibility import Budget

# The knowledge package is imported only when a budget is given: a command's read then starts
# without it, and the program's warm-up imports it on the second core during the read.


def add_gpu_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("GPU budget (the visibility audit)")
    group.add_argument("--gpu-memory", metavar="SIZE", help="memory of the GPU, e.g. 80GB or 80GiB")
    group.add_argument(
        "--gpu-memory-utilization", metavar="F", help="vLLM's gpu_memory_utilization, a fraction such as 0.92"
    )
    group.add_argument("--kv-cache-memory", metavar="SIZE", help="vLLM's --kv-cache-memory (kv_cache_memory_bytes)")
    group.add_argument("--vllm-log", metavar="FILE", help="vLLM's start-up log: its memory lines are read")


def _size(flag: str, text: str) -> int:
    value = units.parse_bytes(str(text))
    if value is None:
        raise QueryError(f"{flag}: not a size: {str(text)[:40]!r} (e.g. 80GB, 80GiB, 85899345920)")
    return value


def _fraction(text: str) -> float:
    try:
        value = float(str(text))
    except ValueError:
        raise QueryError(f"--gpu-memory-utilization: not a number: {str(text)[:40]!r}") from None
    if not 0 < value <= 1:
        raise QueryError(f"--gpu-memory-utilization must be above 0 and at most 1, not {value:g}")
    return value


def budget_from(args: argparse.Namespace) -> Budget | None:
    """The budget the flags (or the config file) give; None when none of them is set."""
    gpu = getattr(args, "gpu_memory", None)
    util = getattr(args, "gpu_memory_utilization", None)
    kv = getattr(args, "kv_cache_memory", None)
    path = getattr(args, "vllm_log", None)
    if gpu is None and util is None and kv is None and path is None:
        return None
    from explainer.knowledge.visibility import Budget
    from explainer.knowledge.vllm_log import VllmLog, read_log

    return Budget(
        _size("--gpu-memory", gpu) if gpu is not None else None,
        _fraction(util) if util is not None else None,
        _size("--kv-cache-memory", kv) if kv is not None else None,
        read_log(os.path.expanduser(path)) if path is not None else VllmLog(),
    )
