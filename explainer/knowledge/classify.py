"""Frame name -> curated knowledge: category, explanation, the knobs that change it.

The data lives in ``frames.toml`` and ``categories.toml`` inside the package, loaded once with
:mod:`tomllib` through the package's loader (:func:`pkgutil.get_data`, so it works from a wheel
or a zip; :mod:`importlib.resources` would add tempfile and zipfile to every ``analyze``); the
regular expressions are compiled only where a name can match (:mod:`.patterns`). A name nobody
curated falls back to what its *shape* says (:func:`explainer.symbols.decode`): raw addresses are
unresolved native code, the trampoline and ``_Py*`` functions are the interpreter, anything else is
application code. Nothing is invented for unknown names: :func:`describe` then returns the symbol
convention only.
"""

from __future__ import annotations

import pkgutil
import re
import tomllib
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from explainer.knowledge.patterns import PatternIndex
from explainer.symbols import clean, decode, explain_symbol

ROLES = ("site", "phase", "layer", "orchestrator", "wrapper", "runtime")
UNRESOLVED = "unresolved"
INTERPRETER = "interpreter"
OTHER = "other/application"
ALLOCATOR = "allocator/driver"
IDLE = "scheduler"  # waiting for work (an event loop idle, a parked thread): time, not work

FRAMEWORKS = {
    "vllm": "vLLM",
    "vllm-v0": "vLLM V0 engine",
    "vllm-v1": "vLLM V1 engine",
    "pytorch": "PyTorch",
    "transformers": "Hugging Face transformers",
    "accelerate": "Hugging Face accelerate",
    "bitsandbytes": "bitsandbytes",
    "cpython": "CPython",
    "libc": "C library",
    "cuda": "CUDA",
    "nccl": "NCCL",
    "triton": "Triton",
    "go": "the Go runtime",
    "jvm": "the Java virtual machine",
    "node": "Node.js and V8",
    "linux": "the Linux kernel",
}

# ``Project >=X[, <Y]`` with an optional note in brackets: every fact says which releases it holds for
VERSIONS = re.compile(r"^[A-Za-z][\w .+-]* (>=|>|<|==)\s*v?\d+(\.\d+)*(, *<\s*v?\d+(\.\d+)*)?( \(.+\))?$")

# a leading module path (``vllm.v1.worker.gpu_model_runner.``) is dropped one lowercase part at a
# time; a capitalised part is a class and ends the stripping, so ``Foo.forward`` never shrinks
# to a bare ``forward`` that would match unrelated entries
_MODULE_PART = re.compile(r"^[a-z_][a-z0-9_]*$")
# the common shapes of raw addresses (a subset of what explainer.symbols.decode calls an address),
# tested first because unsymbolized profiles can intern hundreds of thousands of them
_RAW_ADDRESS = re.compile(r"^(?:0x[0-9a-fA-F]+|[\w.-]+\+0x[0-9a-fA-F]+)$")
# no curated name is longer than this (the longest is under 100 characters): a longer form is never
# built nor scanned, so classifying a 40,000-character hostile name costs what a short one does
FORM_LIMIT = 512


@dataclass(frozen=True, slots=True)
class Action:
    knob: str
    effect: str
    risk: str = ""  # what goes wrong or what it hides (expandable segments hide allocations from the profiler)


@dataclass(frozen=True, slots=True)
class Category:
    id: str
    label: str
    description: str
    runtime: bool  # looked through by attribution: never decides what memory is for


@dataclass(frozen=True, slots=True)
class Entry:
    pattern: str
    category: str
    role: str
    framework: str
    explanation: str
    actions: tuple[Action, ...]
    source: str
    versions: str = ""  # the releases it holds for: ``vLLM >=0.8.0``

    @property
    def label(self) -> str:
        return categories()[self.category].label


@dataclass(frozen=True, slots=True)
class _Table:
    exact: dict[str, Entry]
    regexes: tuple[Entry, ...]  # the ``^`` patterns, in file order
    index: PatternIndex  # finds the first of ``regexes`` matching a name, compiling only what it needs


def _load(name: str) -> dict[str, Any]:
    data = pkgutil.get_data("explainer.knowledge", name)
    if data is None:  # a loader that cannot read package data: the install is broken
        raise FileNotFoundError(f"explainer.knowledge: {name} is missing from the package")
    return tomllib.loads(data.decode("utf-8"))


@cache
def categories() -> dict[str, Category]:
    """Every category by id, in report order."""
    out: dict[str, Category] = {}
    for raw in _load("categories.toml")["category"]:
        cat = Category(str(raw["id"]), str(raw["label"]), str(raw["description"]), bool(raw.get("runtime", False)))
        out[cat.id] = cat
    return out


def _entry(raw: dict[str, Any], known: dict[str, Category]) -> Entry:
    pattern, category = str(raw["pattern"]), str(raw["category"])
    if category not in known:
        raise ValueError(f"frames.toml: {pattern!r} has unknown category {category!r}")
    role = str(raw.get("role") or ("runtime" if known[category].runtime else "site"))
    if role not in ROLES:
        raise ValueError(f"frames.toml: {pattern!r} has unknown role {role!r}")
    framework = str(raw["framework"])
    if framework not in FRAMEWORKS:
        raise ValueError(f"frames.toml: {pattern!r} has unknown framework {framework!r}")
    actions = tuple(Action(str(a["knob"]), str(a["effect"]), str(a.get("risk", ""))) for a in raw.get("actions", []))
    versions = str(raw.get("versions", ""))
    if not VERSIONS.match(versions):
        raise ValueError(f"frames.toml: {pattern!r} needs versions such as 'vLLM >=0.8.0', not {versions!r}")
    explanation, source = str(raw["explanation"]), str(raw["source"])
    return Entry(pattern, category, role, framework, explanation, actions, source, versions)


@cache
def _table() -> _Table:
    known = categories()
    exact: dict[str, Entry] = {}
    regexes: list[Entry] = []
    for raw in _load("frames.toml")["frame"]:
        entry = _entry(raw, known)
        if entry.pattern.startswith("^"):
            regexes.append(entry)  # compiled when a name needs it (tests compile every one)
        elif exact.setdefault(entry.pattern, entry) is not entry:
            raise ValueError(f"frames.toml: {entry.pattern!r} is listed twice")
    return _Table(exact, tuple(regexes), PatternIndex([entry.pattern[1:] for entry in regexes]))


def warm() -> None:
    """Load the table and compile every pattern group now, not when a profile's names first need them:
    the CLI's warm-up does this on the second core during the read (about 10 ms that would follow it)."""
    _table().index.compile_all()


def entries() -> tuple[Entry, ...]:
    """Every curated entry, exact ones first."""
    table = _table()
    return (*table.exact.values(), *table.regexes)


_NODE_MARKER = re.compile(r":(\([a-z ]+\)):\d+")


def candidates(name: str) -> list[str]:
    """The normalised forms of ``name`` to match: ``Foo > bar`` -> ``Foo.bar``, module path dropped,
    ``torch/nn/modules/module.py:1736 - _call_impl`` -> its function ``_call_impl``."""
    n = name.strip()
    for sep in (" > ", " / "):
        n = n.replace(sep, ".")
    out = [n]
    sym = decode(name) if " - " in name or ")" in name else None  # the only shapes with a file and a line
    if sym and sym.file and sym.member and sym.language == "python":  # py-spy's ``file.py:12 - func``
        return [*out, f"{sym.type}.{sym.member}" if sym.type else sym.member]
    node = _NODE_MARKER.fullmatch(n)
    if node:  # Node's ":(garbage collector):0", ":(idle):0": V8's markers with an empty file and line 0
        return [*out, node.group(1)]
    if "::" in n or " " in n:
        return out
    parts = n.split(".")
    left = len(n)  # the length of ".".join(parts[i:]), kept as parts are dropped
    for i in range(1, len(parts)):
        if not _MODULE_PART.match(parts[i - 1]):
            break
        left -= len(parts[i - 1]) + 1
        if left <= FORM_LIMIT:  # a longer form can match no entry: never build it (``a.a.a...`` was quadratic)
            out.append(".".join(parts[i:]))
    return out


@lru_cache(maxsize=1 << 16)
def lookup(name: str) -> Entry | None:
    """The curated entry for a frame name, or None when nobody curated it."""
    if _RAW_ADDRESS.match(name):
        return None
    table = _table()
    forms = candidates(name)
    for form in forms:
        hit = table.exact.get(form)
        if hit is not None:
            return hit
    for form in forms:
        if len(form) > FORM_LIMIT:
            continue
        hit = _regex_entry(form)  # one cheap scan; the name is decoded only when a pattern matched
        if hit is not None:
            return None if decode(name).kind in _NO_NAME else hit
    return None


_NO_NAME = ("address", "unknown", "other", "elided", "root")  # shapes that carry no name worth matching


def _regex_entry(form: str) -> Entry | None:
    """The first curated pattern (in file order) matching ``form`` (:mod:`.patterns`: at most two
    scans, of the pieces that can start with its first character and of those that can start with any)."""
    table = _table()
    k = table.index.first(form)
    return table.regexes[k] if k is not None else None


@lru_cache(maxsize=1 << 16)
def traits(name: str) -> tuple[str, str]:
    """``(category, role)`` of any frame; ``role`` is ``app`` for uncurated application frames
    and ``skip`` for markers that are no frame at all (Pyroscope's ``other``, elided stacks)."""
    if _RAW_ADDRESS.match(name):
        return UNRESOLVED, "runtime"
    entry = lookup(name)
    if entry is not None:
        return entry.category, entry.role
    kind = decode(name).kind
    if kind in ("address", "unknown"):
        return UNRESOLVED, "runtime"
    if kind == "trampoline":
        return INTERPRETER, "runtime"
    if kind in ("other", "elided", "root"):
        return OTHER, "skip"
    return OTHER, "app"


def is_unresolved(name: str) -> bool:
    """A raw address or an unknown frame (``decode`` kinds ``address``/``unknown``), fast."""
    return bool(_RAW_ADDRESS.match(name)) or decode(name).kind in ("address", "unknown")


def classify(name: str) -> str:
    """The category id of a frame name (curated, or from the symbol convention)."""
    return traits(name)[0]


def is_runtime(name: str) -> bool:
    """Allocator, driver, operator, interpreter or unresolved frames: they carry requests made elsewhere."""
    return categories()[classify(name)].runtime


def label(category: str) -> str:
    """The human label of a category id (``kv-cache`` -> ``KV cache``)."""
    cat = categories().get(category)
    return cat.label if cat else category


def describe(name: str) -> str:
    """One paragraph for "What is X?": category, explanation, knobs and source when curated;
    otherwise exactly the symbol-convention sentence, so nothing is invented."""
    entry = lookup(name)
    if entry is None:
        return explain_symbol(name)
    where = FRAMEWORKS[entry.framework]
    lines = [f"`{clean(name)}` ({where}) — category: {entry.label}. {entry.explanation}"]
    if entry.actions:
        lines.append("What changes it:")
        lines += [f"  - {a.knob}: {a.effect}" + (f" (risk: {a.risk})" if a.risk else "") for a in entry.actions]
    lines.append(f"Holds for: {entry.versions}. Source: {entry.source}")
    return "\n".join(lines)
