"""Bare names (``bar``, ``emit``, ``do_page_fault``, ``_start``): the seed's module-level function.

Many languages write a function this way. C-library start-up code is named as such; otherwise
the profile's runtime says which language it is, and without one the label says it is ambiguous."""

from __future__ import annotations

import re

from explainer.symbols import kernel
from explainer.symbols.model import Symbol, make

_VERSIONED = re.compile(r"^(?P<sym>[A-Za-z_]\w*)@@?(?P<lib>GLIBC[\w.]*)$")
_NAME = re.compile(r"^[A-Za-z_$][\w$]*$")
_LIBC = re.compile(
    r"^(?:_start|__libc_\w+|start_thread|clone3?|thread_run|__?pthread_\w+|pthread_\w+|_dl_\w+|__GI_\w+|malloc|calloc"
    r"|realloc|free|memcpy|memmove|memset|__mem\w+|__str\w+|epoll_wait|__?clock_gettime|__write\w*|__read\w*|__?poll"
    r"|__?select|__?nanosleep|__futex\w*|syscall|__GI___\w+)$"
)
# kernel function prefixes too common to trust outside a native profile
_KERNEL_PREFIXES = (
    "vfs_",
    "tcp_",
    "ip_",
    "__tcp_",
    "sys_",
    "do_",
    "__do_",
    "xfs_",
    "ext4_",
    "irq_",
    "smp_",
    "xen_",
    "__xen_",
    "futex_",
    "sock_",
    "inet_",
    "__sys_",
    "ksys_",
    "__handle_",
    "try_to_",
    "migrate_",
    "flush_tlb",
    "ptep_",
    "cpumask_",
    "generic_",
    "__perf_",
    "perf_",
    "intel_pmu",
    "__wake_up",
    "wake_up",
    "find_next_bit",
    "_raw_spin",
    "notify_remote",
)
# where a bare name is native code: runtimes whose own functions always carry a package or class
_NATIVE_UNDER = frozenset({"native", "cpp", "c", "kernel", "go", "java", "dotnet"})
_LANGUAGE_WORDS = {
    "python": ("a Python function defined at a module's top level (def {n}())", "python"),
    "js": ("a JavaScript function", "js"),
    "ruby": ("a Ruby method", "ruby"),
    "rust": ("a Rust function or a C function linked into the program (the label alone does not say which)", "native"),
    "go": ("a function without a Go package path: assembly or C (cgo) code linked into the program", "native"),
    "java": ("a function of the JVM itself or a native library (Java methods carry their class)", "native"),
    "dotnet": ("a function of the .NET runtime itself or a native library (.NET methods carry their type)", "native"),
    "cpp": ("a C or C++ function", "native"),
    "c": ("a C function", "native"),
    "kernel": ("a native (C) function", "native"),
    "native": ("a native (C or C++) function", "native"),
}


def decode(n: str, hint: str) -> Symbol | None:
    versioned = _VERSIONED.match(n)
    if versioned:  # sem_post@@GLIBC_2.2.5: a symbol of a versioned shared library (glibc)
        lib = versioned.group("lib")
        return make(
            n,
            "native",
            f"{versioned.group('sym')}, a function of the C library ({lib}).",
            "c",
            member=versioned.group("sym"),
            package=lib,
        )
    if not _NAME.match(n):
        return _unnamed(n)
    if _LIBC.match(n):
        return make(n, "native", f"{n}, C library or process and thread start-up code (native code).", "c", member=n)
    if hint in (*_NATIVE_UNDER, "rust") and n.startswith(_KERNEL_PREFIXES):
        return kernel.describe(n, n)
    if hint == "python" and n.startswith("__") and n.endswith("__"):
        return make(
            n,
            "method",
            f"the special method {n} of a Python class (the profiler left out the class).",
            "python",
            member=n,
        )
    words = _LANGUAGE_WORDS.get(hint)
    if words is not None:
        text, language = words
        return make(n, "function", f"{n}, {text.format(n=n)}.", language, member=n)
    meaning = (
        f"{n}, a function outside any class: in Python a module-level def {n}(), in native code a plain C function; "
        "the label alone does not say which language."
    )
    return make(n, "function", meaning, "", member=n, ambiguous=True)


def _unnamed(n: str) -> Symbol:
    return make(n, "function", "a function frame as the profiler named it.", "", ambiguous=True)
