"""Itanium C++ demangling (``_ZN3foo3barEv`` -> ``foo::bar()``) through libstdc++'s own
``abi::__cxa_demangle``, loaded with :mod:`ctypes`. Fails soft: without libstdc++ (or for a name it
rejects) the mangled name is kept."""

from __future__ import annotations

import ctypes
from functools import cache

MAX_MANGLED = 4096  # demangling cost grows with the name; longer names are shown as they are


@cache
def _library() -> tuple[ctypes.CDLL, ctypes.CDLL] | None:
    import ctypes.util  # here: it imports subprocess, tempfile and shutil, and most profiles have no mangled name

    try:
        found = ctypes.util.find_library("stdc++")
        cxx = ctypes.CDLL(found or "libstdc++.so.6")
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None
    fn = cxx.__cxa_demangle
    fn.restype = ctypes.c_void_p  # a malloc'ed buffer we must free
    fn.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
    libc.free.argtypes = [ctypes.c_void_p]
    return cxx, libc


def demangle(mangled: str) -> str | None:
    """The demangled name, or None when it cannot be demangled here."""
    lib = _library()
    if lib is None or len(mangled) > MAX_MANGLED or not mangled.isascii():
        return None
    cxx, libc = lib
    status = ctypes.c_int(0)
    ptr = cxx.__cxa_demangle(mangled.encode("ascii"), None, None, ctypes.byref(status))
    if not ptr:
        return None
    try:
        text = ctypes.string_at(ptr).decode("utf-8", errors="replace")
    finally:
        libc.free(ptr)
    return text if status.value == 0 else None
