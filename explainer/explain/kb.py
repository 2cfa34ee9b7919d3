"""The GPU-memory knowledge base (:mod:`explainer.knowledge`), imported lazily, every call guarded.

The explanations work without it (falling back to the symbol conventions of
:mod:`explainer.symbols`), and a failure inside it never breaks an answer: it is logged by
exception class only and the answer goes on without it.
"""

from __future__ import annotations

import importlib
import logging
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType
from typing import Any

from explainer.explain.safety import clean_text
from explainer.model import Profile
from explainer.symbols import clean

log = logging.getLogger(__name__)
_UNINFORMATIVE = ("other/application", "other", "")


@dataclass(frozen=True, slots=True)
class Known:
    label: str  # category label, e.g. "KV cache"
    explanation: str
    actions: tuple[tuple[str, str], ...]  # (knob, effect)


@lru_cache(maxsize=1)
def module() -> ModuleType | None:
    try:
        return importlib.import_module("explainer.knowledge")
    except ImportError:
        return None


def _call(name: str, *args: Any) -> Any:
    kb = module()
    fn = getattr(kb, name, None) if kb is not None else None
    if not callable(fn):
        return None
    try:
        return fn(*args)
    except Exception as exc:  # an add-on: log the failure, answer without it
        log.warning("knowledge base %s() failed: %s", name, type(exc).__name__)
        return None


def _str(value: Any, limit: int = 400) -> str:
    return clean(value, limit) if isinstance(value, str) else ""


def lookup(name: str) -> Known | None:
    """The curated entry for a frame, or None when the knowledge base does not know it."""
    entry = _call("lookup", name)
    if entry is None:
        return None
    label = _str(getattr(entry, "label", ""), 60)
    actions = tuple(
        (_str(getattr(a, "knob", ""), 120), _str(getattr(a, "effect", ""), 300))
        for a in getattr(entry, "actions", ()) or ()
    )
    return Known(label, _str(getattr(entry, "explanation", "")), tuple(a for a in actions if a[0]))


def describe(name: str) -> str | None:
    """The knowledge base's paragraph for "What is X?" (it falls back to the symbol convention)."""
    text = _call("describe", name)
    return clean_text(text, 1200) if isinstance(text, str) and text else None


def category_id(name: str) -> str | None:
    """The category id (``kv-cache``, ``interpreter``, ``allocator/driver``, ...) or None without a knowledge base."""
    cid = _call("classify", name)
    return cid if isinstance(cid, str) else None


def is_runtime(name: str) -> bool | None:
    """Does a frame only carry requests (allocator, operators, interpreter, addresses)? None without the base."""
    value = _call("is_runtime", name)
    return value if isinstance(value, bool) else None


def category(name: str) -> str | None:
    """The category label of a frame, when it says more than "other application code"."""
    cid = _call("classify", name)
    if not isinstance(cid, str) or cid in _UNINFORMATIVE:
        return None
    label = _call("label", cid)
    return _str(label if isinstance(label, str) and label else cid, 60) or None


def breakdown(profile: Profile) -> list[tuple[str, int]]:
    """``[(category label, value), ...]`` heaviest first, or ``[]`` without a knowledge base."""
    rows = _call("category_breakdown", profile)
    out: list[tuple[str, int]] = []
    for row in rows or ():
        label = _str(getattr(row, "label", "") or getattr(row, "category", ""), 60)
        value = getattr(row, "self", None)
        if label and isinstance(value, int) and value > 0:
            out.append((label, value))
    return sorted(out, key=lambda lv: -lv[1])


def sites(profile: Profile, n: int = 5) -> list[tuple[str, int, str]]:
    """``[(nearest application frame, value, category label), ...]``: who asked for the memory."""
    rows = _call("allocation_sites", profile, n)
    out: list[tuple[str, int, str]] = []
    for row in rows or ():
        name, value = getattr(row, "name", None), getattr(row, "self", None)
        if isinstance(name, str) and isinstance(value, int) and value > 0:
            cid = getattr(row, "category", "")
            label = _call("label", cid) if isinstance(cid, str) and cid else ""
            out.append((name, value, _str(label, 60)))
    return out


def semantics(profile: Profile) -> tuple[str | None, list[str]]:
    """(what a value means, the caveats a reader must keep in mind, e.g. allocation volume vs in use)."""
    sem = _call("semantics", profile)
    if sem is None:
        return None, []
    raw = getattr(sem, "caveats", ()) or ()
    return _str(getattr(sem, "meaning", None), 300) or None, [_str(c, 300) for c in raw if isinstance(c, str)][:3]
