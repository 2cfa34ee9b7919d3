"""What the memory of each stack is for: a category per stack, and the frame that asked for it.

Every stack goes to exactly one category, so the shares add up to 100%. The rule, leaf to root:

1. The nearest *site* or *phase* frame decides (``_allocate_kv_cache_tensors``,
   ``create_weights``, ``capture_model``, ``compile_fx``, ``profile_run``). A phase further down
   still beats generic compute nearer the leaf, because the same forward code allocates
   activations while serving, in vLLM's profiling run and during CUDA graph capture.
2. Otherwise the nearest *layer* frame (forward passes, sampling) decides: activations.
3. Otherwise the purpose is not visible, and the category says why: ``unresolved`` when raw
   addresses sit between the nearest application frame and the allocator (the real caller may
   hide there), ``other/application`` for uncurated application code, the allocator/driver or
   PyTorch operators when only they are visible, else the interpreter.

Allocator, operator, interpreter, unresolved and wrapper frames never decide: they carry every
request. The allocation site of a stack is its nearest application frame (or its leaf when it
has none), which is the answer users want when the widest leaf is always ``cuMemAlloc_v2``.

Names are interned, so each is classified once. The compiled fold walks each stack once from the
leaf and stops at the first site or phase frame; its numpy twin (tested equal) finds a stack's
"nearest frame with property P" as the last set position of a boolean frame mask before the
stack's end offset: one ``flatnonzero`` and one ``searchsorted`` per property.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from explainer import units
from explainer.analysis.functions import _fold, sum_by
from explainer.knowledge.classify import ALLOCATOR, INTERPRETER, OTHER, UNRESOLVED, categories, label, traits
from explainer.model import IntArray, Profile, once_per_profile

Mask = npt.NDArray[np.bool_]

_STRONG, _WEAK, _APP, _CARRIER, _UNRESOLVED, _INTERP = 1, 2, 4, 8, 16, 32
_CARRIER_CATEGORIES = (ALLOCATOR, "pytorch-ops")  # frames that carry a request for memory


@dataclass(frozen=True, slots=True)
class CategoryShare:
    category: str  # id, e.g. ``kv-cache``
    label: str  # e.g. ``KV cache``
    self: int  # in the profile's unit
    share: float  # of the profile's total


@dataclass(frozen=True, slots=True)
class Site:
    name: str  # the nearest application frame (raw name; ``clean`` it before showing)
    self: int
    share: float
    category: str  # the category of the stacks this site's memory came from


@dataclass(frozen=True, eq=False)
class Attribution:
    """Per stack: its category (an index into :func:`category_ids`) and its allocation site."""

    stack_category: IntArray  # per stack: index into category_ids()
    site_frame: IntArray  # per stack: name id of its allocation site


def category_ids() -> tuple[str, ...]:
    return tuple(categories())


def _name_tables(names: Sequence[str]) -> tuple[IntArray, npt.NDArray[np.uint8]]:
    """Per interned name: category index and a bit set of the properties the walk tests."""
    index = {c: i for i, c in enumerate(category_ids())}
    cat = np.empty(len(names), dtype=np.int64)
    code = np.zeros(len(names), dtype=np.uint8)
    for i, name in enumerate(names):
        category, role = traits(name)
        cat[i] = index[category]
        bits = 0
        if role in ("site", "phase"):
            bits |= _STRONG
        elif role == "layer":
            bits |= _WEAK
        if role in ("site", "phase", "layer", "orchestrator", "app"):
            bits |= _APP
        elif role == "runtime":
            if category in _CARRIER_CATEGORIES:
                bits |= _CARRIER
            elif category == UNRESOLVED:
                bits |= _UNRESOLVED
            elif category == INTERPRETER:
                bits |= _INTERP
        code[i] = bits
    return cat, code


def _last_in_stack(mask: Mask, offsets: IntArray) -> IntArray:
    """Per stack, the leaf-most frame position where ``mask`` holds, or -1."""
    pos = np.flatnonzero(mask)
    if not len(pos):
        return np.full(len(offsets) - 1, -1, dtype=np.int64)
    idx = np.searchsorted(pos, offsets[1:], side="left") - 1
    cand = pos[np.maximum(idx, 0)]
    return np.where((idx >= 0) & (cand >= offsets[:-1]), cand, -1)


def _first_after(pos: IntArray, lo: IntArray, ends: IntArray) -> IntArray:
    """Per stack, the first of the sorted positions ``pos`` after ``lo``, or the stack's end."""
    if not len(pos):
        return ends.copy()
    idx = np.searchsorted(pos, lo, side="right")
    cand = pos[np.minimum(idx, len(pos) - 1)]
    return np.where((idx < len(pos)) & (cand < ends), cand, ends)


def _fallback(code_f: npt.NDArray[np.uint8], profile: Profile, app: IntArray, cat: IntArray) -> IntArray:
    """Categories for stacks with no deciding frame (rule 3 of the module docstring)."""
    ids = {c: i for i, c in enumerate(category_ids())}
    offsets = profile.offsets
    starts, ends = offsets[:-1], offsets[1:]
    carrier_mask = (code_f & _CARRIER) != 0
    carrier = _last_in_stack(carrier_mask, offsets)
    lo = np.where(app >= 0, app, starts - 1)
    # raw addresses between the requester (or the root) and the first allocator frame hide the
    # real caller; addresses inside the allocator and driver are just their internals
    hi = _first_after(np.flatnonzero(carrier_mask), lo, ends)
    unresolved = np.flatnonzero(code_f & _UNRESOLVED)
    gap = np.searchsorted(unresolved, hi, "left") - np.searchsorted(unresolved, lo, "right") > 0
    no_app = app < 0
    out = np.full(len(starts), ids[OTHER], dtype=np.int64)
    out[no_app & (_last_in_stack((code_f & _INTERP) != 0, offsets) >= 0)] = ids[INTERPRETER]
    with_carrier = no_app & (carrier >= 0)
    out[with_carrier] = cat[profile.frames[carrier[with_carrier]]]
    out[gap] = ids[UNRESOLVED]
    return out


def _attribute_numpy(profile: Profile, cat: IntArray, code: npt.NDArray[np.uint8]) -> Attribution:
    offsets, frames = profile.offsets, profile.frames
    code_f = code[frames]
    strong = _last_in_stack((code_f & _STRONG) != 0, offsets)
    weak = _last_in_stack((code_f & _WEAK) != 0, offsets)
    app = _last_in_stack((code_f & _APP) != 0, offsets)
    decider = np.where(strong >= 0, strong, weak)
    stack_cat = np.empty(profile.stack_count, dtype=np.int64)
    decided = decider >= 0
    stack_cat[decided] = cat[frames[decider[decided]]]
    if not decided.all():
        rest = ~decided
        stack_cat[rest] = _fallback(code_f, profile, app, cat)[rest]
    site_pos = np.where(app >= 0, app, offsets[1:] - 1)
    return Attribution(stack_cat, frames[site_pos].astype(np.int64))


def _attribute(profile: Profile) -> Attribution:
    if not profile.stack_count:
        empty = np.zeros(0, dtype=np.int64)
        return Attribution(empty, empty)
    cat, code = _name_tables(profile.names)
    if _fold is None:
        return _attribute_numpy(profile, cat, code)
    ids = {c: i for i, c in enumerate(category_ids())}
    raw_cat, raw_site = _fold.attribute(
        profile.offsets,
        profile.frames,
        code,
        cat,
        ids[OTHER],
        ids[INTERPRETER],
        ids[UNRESOLVED],
        profile.frames.itemsize,
    )
    return Attribution(np.frombuffer(raw_cat, dtype=np.int64), np.frombuffer(raw_site, dtype=np.int64))


attribute = once_per_profile(_attribute)
"""Per-stack category and site, computed once per profile object."""


def stack_categories(profile: Profile) -> list[str]:
    """The category id of every stack, in stack order (for tests and drill-downs)."""
    ids = category_ids()
    return [ids[i] for i in attribute(profile).stack_category.tolist()]


def category_breakdown(profile: Profile) -> list[CategoryShare]:
    """Categories with a non-zero share, largest first (ties in category order)."""
    ids = category_ids()
    sums = sum_by(attribute(profile).stack_category, profile.values, len(ids))
    total = profile.total
    order = sorted((i for i in range(len(ids)) if sums[i] > 0), key=lambda i: (-int(sums[i]), i))
    return [CategoryShare(ids[i], label(ids[i]), int(sums[i]), units.share(int(sums[i]), total)) for i in order]


def allocation_sites(profile: Profile, n: int = 10) -> list[Site]:
    """The ``n`` largest allocation sites: memory by nearest application frame and category."""
    return _all_sites(profile)[: max(n, 0)]


_DENSE_KEYS = 1 << 22  # (site, category) pairs summed in a table up to 32 MiB, else sorted


@once_per_profile
def _all_sites(profile: Profile) -> list[Site]:
    """Every site, largest first (ties by name), computed once per profile: reports ask for several ``n``."""
    att = attribute(profile)
    ids = category_ids()
    keys = att.site_frame * len(ids) + att.stack_category
    if len(profile.names) * len(ids) <= _DENSE_KEYS:  # a dense table: no sort of every stack's key
        dense = sum_by(keys, profile.values, len(profile.names) * len(ids))
        uniq = np.flatnonzero(dense)
        sums = dense[uniq]
    else:
        uniq, inverse = np.unique(keys, return_inverse=True)
        sums = sum_by(inverse.astype(np.int64), profile.values, len(uniq))
    total = profile.total
    names = profile.names
    order = sorted(range(len(uniq)), key=lambda k: (-int(sums[k]), names[int(uniq[k]) // len(ids)]))
    sites = [
        Site(
            names[int(uniq[k]) // len(ids)],
            int(sums[k]),
            units.share(int(sums[k]), total),
            ids[int(uniq[k]) % len(ids)],
        )
        for k in order
        if sums[k] > 0
    ]
    return sites


def format_breakdown(shares: Sequence[CategoryShare], limit: int = 6) -> str:
    """``KV cache 73.8%, model weights 18.5%, ...``: the largest ``limit``, the rest summed."""
    shown = [f"{s.label} {units.format_share(s.share, 1)}" for s in shares[:limit]]
    rest = shares[limit:]
    if rest:
        shown.append(f"{len(rest)} more {units.format_share(sum(s.share for s in rest), 1)}")
    return ", ".join(shown)
