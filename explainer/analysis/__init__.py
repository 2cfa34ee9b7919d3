"""Pure functions over :class:`~explainer.model.Profile`; every number a user sees comes from here.

The face is lazy: ``explainer analyze`` needs the functions and the chain, not the call tree
(the flame graph's), and importing a module costs start-up. Name -> submodule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explainer.lazy import face

if TYPE_CHECKING:
    from explainer.analysis.functions import FunctionStats, TopList, TopRow, function_stats, top
    from explainer.analysis.tree import CallTree, build_tree

_WHERE = {
    **dict.fromkeys(("FunctionStats", "TopList", "TopRow", "function_stats", "top"), "functions"),
    **dict.fromkeys(("CallTree", "build_tree"), "tree"),
}

__all__ = ["CallTree", "FunctionStats", "TopList", "TopRow", "build_tree", "function_stats", "top"]


if not TYPE_CHECKING:  # for mypy the names are the imports above
    __getattr__ = face(__name__, _WHERE)
