"""Curated GPU-memory knowledge: what a frame is, which category of memory it stands for, which
knob changes it, and what the values of a profile type mean.

- :mod:`.classify`: frame name -> :class:`Entry` (data in ``frames.toml``, ``categories.toml``)
- :mod:`.attribution`: per-stack categories, the category breakdown and allocation sites
- :mod:`.semantics`: what a sample type's values mean, with the caveats a reader needs
- :mod:`.facts`: vLLM, PyTorch and profiler facts with versions and sources (``facts.toml``)
- :mod:`.counts`: frames that count calls in a byte profile, taken out before anything is summed
- :mod:`.vllm_log`: vLLM's start-up memory lines; :mod:`.visibility`: the budget reconciled with the profile
"""

from explainer.knowledge.attribution import (
    CategoryShare,
    Site,
    allocation_sites,
    category_breakdown,
    format_breakdown,
    stack_categories,
)
from explainer.knowledge.classify import (
    Action,
    Category,
    Entry,
    categories,
    classify,
    describe,
    is_runtime,
    label,
    lookup,
)
from explainer.knowledge.semantics import Caveat, Semantics, semantics

__all__ = [
    "Action",
    "Category",
    "CategoryShare",
    "Caveat",
    "Entry",
    "Semantics",
    "Site",
    "allocation_sites",
    "categories",
    "category_breakdown",
    "classify",
    "describe",
    "format_breakdown",
    "is_runtime",
    "label",
    "lookup",
    "semantics",
    "stack_categories",
]
