"""Pure functions over :class:`~explainer.model.Profile`; every number a user sees comes from here."""

from explainer.analysis.functions import FunctionStats, TopList, TopRow, function_stats, top
from explainer.analysis.tree import CallTree, build_tree

__all__ = ["CallTree", "FunctionStats", "TopList", "TopRow", "build_tree", "function_stats", "top"]
