"""Narrowing a profile, pprof style: focus and ignore keep or drop whole stacks, hide drops frames.

Every function returns a new :class:`Profile`; the input is never changed.
"""

from __future__ import annotations

import re

import numpy as np

from explainer.analysis.functions import stacks_with
from explainer.errors import QueryError
from explainer.model import Profile, _select, with_stacks

TRAMPOLINE = "<interpreter trampoline>"
TRAMPOLINE_PATTERN = r"^<interpreter trampoline>$"


def compile_pattern(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise QueryError(f"invalid regular expression {pattern[:80]!r}: {exc}") from exc


def matching_ids(profile: Profile, pattern: str) -> list[int]:
    """Ids of functions whose name matches ``pattern`` anywhere (``re.search``)."""
    rx = compile_pattern(pattern)
    return [i for i, name in enumerate(profile.names) if rx.search(name)]


def _keep_stacks(profile: Profile, keep: np.ndarray) -> Profile:
    offsets, frames, values = _select(profile.offsets, profile.frames, profile.values, keep)
    return with_stacks(profile, offsets, frames, values)


def focus(profile: Profile, pattern: str) -> Profile:
    """Only the stacks that pass through a function matching ``pattern``."""
    return _keep_stacks(profile, stacks_with(profile, matching_ids(profile, pattern)))


def ignore(profile: Profile, pattern: str) -> Profile:
    """Every stack except those that pass through a function matching ``pattern``."""
    return _keep_stacks(profile, ~stacks_with(profile, matching_ids(profile, pattern)))


def hide(profile: Profile, pattern: str) -> Profile:
    """Remove matching frames from every stack; a hidden leaf's self moves to its caller."""
    ids = matching_ids(profile, pattern)
    if not ids:
        return profile
    keep = ~np.isin(profile.frames, np.asarray(ids, dtype=np.int32))
    kept_per_stack = np.add.reduceat(keep.astype(np.int64), profile.offsets[:-1]) if profile.stack_count else keep
    offsets = np.zeros(profile.stack_count + 1, dtype=np.int64)
    np.cumsum(kept_per_stack, out=offsets[1:])
    return with_stacks(profile, offsets, profile.frames[keep], profile.values)


def hide_trampolines(profile: Profile) -> Profile:
    return hide(profile, TRAMPOLINE_PATTERN)
