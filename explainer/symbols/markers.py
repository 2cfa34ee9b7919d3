"""The seed's marker frames: ``<interpreter trampoline>``, ``<module>``, and frames that are no function
(Pyroscope's ``other``, elided stack middles, the root, frames the profiler could not name)."""

from __future__ import annotations

import re

from explainer.frame_names import ELIDED_PREFIX, OTHER
from explainer.symbols.model import Symbol, make

TRAMPOLINE = "<interpreter trampoline>"
_PROCESS = re.compile(r"^(?P<comm>[a-z][\w.]*)-(?:\?|\d+)(?:/\d+)?$")  # stackcollapse-perf --pid: comm-pid
_UNKNOWN = frozenset({"<unknown>", "[unknown]", "(unknown)", "[UNKNOWN]", ""})

_FIXED = {
    TRAMPOLINE: (
        "trampoline",
        "CPython's dispatch between Python calls; interpreter overhead, safe to ignore when reading.",
        "python",
    ),
    "<module>": (
        "module",
        "the top level of a Python script or module (code outside any function), e.g. an import or the entry script.",
        "python",
    ),
    OTHER: (
        "other",
        "not a function: Pyroscope merged many small call paths here to stay within its node limit (maxNodes).",
        "",
    ),
    "total": ("root", "the whole profile: every sample starts here.", ""),
}


def decode(n: str, hint: str) -> Symbol | None:
    fixed = _FIXED.get(n)
    if fixed is not None:
        kind, meaning, language = fixed
        return make(n, kind, meaning, language)
    if n in _UNKNOWN:
        return make(n, "unknown", "a frame the profiler could not name: native code without symbols.")
    process = _PROCESS.match(n)
    if process:
        return make(
            n,
            "root",
            f"the process {process.group('comm')}: perf groups each process's stacks under its name and pid.",
            package=process.group("comm"),
        )
    if n.startswith(ELIDED_PREFIX):
        return make(
            n,
            "elided",
            "not a function: the middle of a very deep stack, left out to keep it readable; totals still count it.",
        )
    return None
