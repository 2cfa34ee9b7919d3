"""Native code without symbols: raw addresses (``0x7f151``), pprof's per-mapping names
(``[libc-2.15.so]``) and ``library+offset`` (``libcudart.so.12+0x4a2f0``)."""

from __future__ import annotations

import re

from explainer.symbols import cpp, gpu
from explainer.symbols.model import Symbol, make, restated

_ADDRESS = re.compile(r"^(?:0x)?[0-9a-fA-F]{6,16}$|^0x[0-9a-fA-F]+$")
_LIB_OFFSET = re.compile(r"^(?P<lib>[\w.+-]+|\[[\w.-]+\])\+0x[0-9a-fA-F]+$")
_MAPPING = re.compile(r"^\[{1,2}(?P<lib>[^\[\]\s]+)\]{1,2}$")
_KERNEL_MAPPINGS = frozenset({"kernel.kallsyms", "vdso", "vsyscall"})
_PERF_MAP = re.compile(r"^perf-\d+\.map$")
# Pyroscope's JFR conversion writes native frames as library.symbol: libjvm.so.Parker::park
_LIB_SYMBOL = re.compile(r"^(?P<lib>lib[\w+.-]*?\.so(?:\.\d+)*)\.(?:void |bool |int )?(?P<sym>[^\s].*)$")


def decode(n: str, hint: str) -> Symbol | None:
    if _ADDRESS.match(n):
        return make(
            n,
            "address",
            "a raw address: native C, C++ or CUDA code with no symbol available (not yet resolved, or stripped).",
            "native",
        )
    lib = _LIB_OFFSET.match(n) or _MAPPING.match(n)
    if lib is None:
        qualified = _LIB_SYMBOL.match(n)
        return _library_symbol(n, qualified.group("lib"), qualified.group("sym")) if qualified else None
    return _in_library(n, lib.group("lib").strip("[]"), offset="+0x" in n)


def _in_library(n: str, lib: str, *, offset: bool) -> Symbol:
    if lib in _KERNEL_MAPPINGS:
        return make(n, "native", f"kernel code ({lib}): a system call or interrupt handling.", "kernel", package=lib)
    if _PERF_MAP.match(lib):
        return make(
            n,
            "address",
            f"code compiled at run time by a JIT (Java, Node.js), named only by its perf map file {lib}.",
            "native",
            package=lib,
        )
    language = "cuda" if gpu.is_gpu_library(lib) else "native"
    what = "an unsymbolized address inside" if offset else "unsymbolized native code inside"
    grouped = "" if offset else " (pprof groups all its addresses under the library's name)"
    library = f"{lib}, {gpu.library_role(lib)}" if language == "cuda" else lib
    return make(
        n,
        "address",
        f"{what} {library}{grouped}: native code with no symbol available.",
        language,
        owner=lib,
        package=lib,
    )


def _library_symbol(n: str, lib: str, sym: str) -> Symbol:
    if "::" in sym:
        inner = cpp.name(sym, raw=n)
        meaning = f"{inner.meaning.rstrip('.')}, in the native library {lib}."
        return restated(n, inner, meaning, "cpp", package=lib)
    language = "cuda" if gpu.is_gpu_library(lib) else "c"
    return make(n, "native", f"{sym}, a native function in {lib}.", language, member=sym, package=lib)
