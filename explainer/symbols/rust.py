"""Rust frames: paths (``tokio::runtime::task::harness::Harness<T,S>::poll``), trait
implementations (``<T as Trait>::f``), closures (``{{closure}}``, ``{closure#0}``), shims
(``{{vtable.shim}}``), hashes (``::h0123456789abcdef``) and pprof-rs's ``file.rs:line - path``."""

from __future__ import annotations

import re

from explainer.symbols import located
from explainer.symbols.model import Symbol, at_line, make, restated
from explainer.symbols.paths import split_path, strip_generics

_HASH = re.compile(r"::h[0-9a-f]{16}$")
_MARKERS = re.compile(
    r"\{\{(?:closure|vtable\.shim|constant|constructor)\}\}|\{(?:closure|impl|async_fn_env|async_block_env|closure_env|shim)#\d+\}"
)
_TRAIT = re.compile(r"^<(?P<type>.+?) as (?P<trait>.+)>$")
CRATES = frozenset(
    [
        "core",
        "alloc",
        "tokio",
        "hyper",
        "futures",
        "futures_util",
        "reqwest",
        "serde",
        "serde_json",
        "backtrace",
        "pprof",
        "tracing",
        "tonic",
        "axum",
        "mio",
        "rayon",
        "rayon_core",
        "crossbeam",
        "crossbeam_channel",
        "parking_lot",
        "hashbrown",
        "prost",
        "h2",
        "tower",
        "actix_web",
        "rustls",
        "ring",
        "clap",
        "anyhow",
        "regex_automata",
        "aho_corasick",
        "tokio_util",
        "async_std",
        "smallvec",
    ]
)
_STD_MODULES = frozenset(
    [
        "rt",
        "sys",
        "sys_common",
        "panicking",
        "panic",
        "io",
        "fs",
        "net",
        "process",
        "sync",
        "thread",
        "collections",
        "env",
        "ffi",
        "backtrace",
        "alloc",
        "hash",
    ]
)
_RUST_TYPES = re.compile(r"<(?:[ui](?:8|16|32|64|128|size)|f32|f64|bool|char|str|\(\))[,>]")


def is_rust(n: str) -> bool:
    if _MARKERS.search(n) or _HASH.search(n) or (n.startswith("<") and " as " in n):
        return True
    head = n.split("::", 1)[0].split("<", 1)[0].lstrip("<&*")
    if "::" in n and head in CRATES:
        return True
    if n.startswith("std::") and n.split("::")[1] in _STD_MODULES and "(" not in n:
        return True
    return bool(_RUST_TYPES.search(n)) or bool(re.search(r"<(?:core|alloc|std)::", n))


def decode(n: str, hint: str) -> Symbol | None:
    loc = located.split(n)
    if loc is not None:
        return _located(n, loc) if loc.has_extension(".rs") else None
    if not (is_rust(n) or (hint == "rust" and "::" in n)):
        return None
    return path(n)


def _located(n: str, loc: located.Located) -> Symbol:
    inner = path(loc.func) if "::" in loc.func else None
    where = at_line(loc.file, loc.line)
    if inner is None:
        return make(
            n, "function", f"Rust function {loc.func}{where}.", "rust", member=loc.func, file=loc.file, line=loc.line
        )
    return restated(n, inner, f"{inner.meaning.rstrip('.')}{where}.", "rust", file=loc.file, line=loc.line)


def path(n: str) -> Symbol:
    """A Rust path, with its closure, trait and generic parts named."""
    parts = split_path(_HASH.sub("", n))
    closures = []
    while len(parts) > 1 and _MARKERS.fullmatch(parts[-1]):
        closures.append(parts.pop())
    shim = _MARKERS.search(parts[-1])
    if shim and shim.end() == len(parts[-1]) and shim.start() > 0:  # call_once{{vtable.shim}}
        closures.append(shim.group(0))
        parts[-1] = parts[-1][: shim.start()]
    member, params = strip_generics(parts[-1])
    owner_parts = parts[:-1]
    trait = _TRAIT.match(owner_parts[0]) if owner_parts else None
    typ, trait_name = (trait.group("type"), trait.group("trait")) if trait else ("", "")
    if not trait and owner_parts and owner_parts[-1][:1].isupper():
        typ, params = strip_generics(owner_parts[-1])[0], params or strip_generics(owner_parts[-1])[1]
    crate = owner_parts[0] if owner_parts and not trait else (typ.split("::")[0] if trait else "")
    owner = "::".join(owner_parts)
    closure = "::".join(reversed(closures))
    return make(
        n,
        _kind(closure, typ),
        _meaning(member, typ, trait_name, crate, closure, params),
        "rust",
        owner=owner,
        member=member,
        package=crate,
        type=typ,
        closure=closure,
        params=params or trait_name,
    )


def _kind(closure: str, typ: str) -> str:
    if "closure" in closure or "async" in closure:
        return "nested"
    return "method" if typ else "function"


def _meaning(member: str, typ: str, trait: str, crate: str, closure: str, params: str) -> str:
    what = f"Rust method {member} of {typ}" if typ else f"Rust function {member}"
    if trait:
        what += f", implementing the trait {trait}"
    if params and not trait:
        what += f" (generic: {params})"
    if crate:
        what += f" in the crate {crate}"
    if "vtable.shim" in closure:
        return f"a compiler-generated shim that calls {what} through a trait object (dynamic dispatch)."
    if "closure" in closure or "async" in closure:
        return f"a closure (or async block) inside {what}."
    return f"{what}."
