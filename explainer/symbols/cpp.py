"""C and C++ frames: namespaces, classes, templates, operators, destructors, argument lists, and
mangled ``_Z...`` names (demangled when libstdc++ is there, see :mod:`demangle`).

A plain ``A::b`` is written the same way by C++ and Rust: without anything that settles it (a
C++ argument list, ``std::__``, a known C++ library, or the profile's runtime) it is ambiguous."""

from __future__ import annotations

import re

from explainer.symbols.demangle import demangle
from explainer.symbols.model import Symbol, make, restated
from explainer.symbols.paths import split_path, strip_generics

_MANGLED = re.compile(r"^_Z[A-Za-z0-9_.$]+$")
_CPP_MARKS = re.compile(
    r"\boperator\b|::~|\(anonymous namespace\)|std::__|__cxx11|\[clone |\bconst$|\((?:void|int|unsigned|char|long|bool"
    r"|double|float|[\w:<>]+[*&])[^)]*\)|_M_\w+"
)
NAMESPACES = frozenset(
    [
        "std",
        "c10",
        "at",
        "torch",
        "caffe2",
        "boost",
        "absl",
        "folly",
        "google",
        "grpc",
        "v8",
        "node",
        "llvm",
        "tensorflow",
        "tflite",
        "cv",
        "Eigen",
        "cutlass",
        "cub",
        "thrust",
        "triton",
        "mlir",
        "nvinfer1",
        "onnxruntime",
        "OptoRuntime",
        "JavaThread",
    ]
)
_PYTORCH = frozenset({"c10", "at", "torch", "caffe2"})
_NATIVE_HINTS = frozenset({"cpp", "c", "native", "python", "java", "go", "js", "dotnet", "ruby", "cpython"})


def decode(n: str, hint: str) -> Symbol | None:
    if _MANGLED.match(n):
        return _mangled(n, hint)
    if ("::" not in n and not n.startswith("operator ")) or " - " in n:
        return None
    head = strip_generics(split_path(n)[0])[0]
    if _CPP_MARKS.search(n) or head in NAMESPACES or hint in _NATIVE_HINTS:
        return name(n, raw=n)
    return name(n, raw=n, ambiguous=True)


def _mangled(n: str, hint: str) -> Symbol:
    text = demangle(n)
    if text is None:
        return make(n, "native", f"a mangled C++ name ({n[:60]}) that could not be demangled here.", "cpp", member=n)
    inner = name(text, raw=n)
    return restated(n, inner, f"{inner.meaning.rstrip('.')} (demangled from {n[:40]}).", "cpp")


def name(text: str, *, raw: str, ambiguous: bool = False) -> Symbol:
    """A demangled C++ name: ``ns::Class<T>::method(args) const``."""
    core = text.split(" [clone")[0]
    if core.endswith(")") and "(" in core and not core.startswith("("):
        cut = _args_start(core)
        core = core[:cut]
    parts = split_path(core.removesuffix(" const"))
    member, params = strip_generics(parts[-1])
    owner_parts = [strip_generics(p)[0] for p in parts[:-1]]
    owner = "::".join(owner_parts)
    # a class is capitalised or takes template arguments; a lower-case plain part is a namespace
    typ = owner_parts[-1] if owner_parts and (owner_parts[-1][:1].isupper() or "<" in parts[-2]) else ""
    package = "::".join(owner_parts[:-1]) if typ else owner
    kind = "constructor" if typ and member == typ else "method" if typ else "function"
    language = "" if ambiguous else "cpp"
    meaning = _meaning(kind, member, owner, params, ambiguous)
    if owner_parts and owner_parts[0] in _PYTORCH:
        kind, meaning = "native", f"{member} in PyTorch's C++ core ({owner})."
    return make(
        raw,
        kind,
        meaning,
        language,
        owner=owner,
        member=member,
        package=package,
        type=typ,
        params=params,
        ambiguous=ambiguous,
    )


def _args_start(core: str) -> int:
    depth = 0
    for i in range(len(core) - 1, -1, -1):
        depth += core[i] == ")"
        depth -= core[i] == "("
        if depth == 0:
            return i
    return len(core)


def _meaning(kind: str, member: str, owner: str, params: str, ambiguous: bool) -> str:
    lang = "C++ or Rust (the label alone does not say which)" if ambiguous else "C++"
    where = owner or "the global namespace"
    if member.startswith("~"):
        return f"{lang} destructor of {owner}: an object being destroyed."
    if member.startswith("operator"):
        return f"{lang} operator {member.removeprefix('operator').strip()} of {where}."
    what = "constructor of" if kind == "constructor" else "function"
    generic = f" (template arguments {params})" if params else ""
    return f"{lang} {what} {member} in {where}{generic}."
