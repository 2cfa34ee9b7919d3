"""The family table: every label family in the order they are tried. The one place to add a runtime.

Each row names a decoder module's ``decode(name, hint)``: it returns a :class:`Symbol` when the
label has its family's shape, else ``None``. Rows whose shapes belong to one language are
``decisive``: their labels vote in :func:`explainer.symbols.guess_runtime`. The last rows read
shapes several languages share (``a.b``, ``A::b``, a bare ``name``) and settle them with the
profile's runtime, or say that they are ambiguous.

To add a runtime: write a module with ``decode(name: str, hint: str) -> Symbol | None`` and add
its row here, before the shared shapes its labels would otherwise fall into.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from explainer.symbols import (
    addresses,
    bare,
    cpp,
    dotnet,
    dotted,
    golang,
    gpu,
    java,
    kernel,
    markers,
    node,
    python,
    ruby,
    rust,
)
from explainer.symbols.model import Symbol

Decoder = Callable[[str, str], Symbol | None]


@dataclass(frozen=True, slots=True)
class Family:
    name: str
    decode: Decoder
    decisive: bool  # its shapes belong to one language: they vote for the profile's runtime


FAMILIES: tuple[Family, ...] = (
    Family("markers: <interpreter trampoline>, <module>, other, elided, unknown", markers.decode, True),
    Family("addresses: 0x7f151, [lib.so], lib.so+0x1a2b", addresses.decode, False),
    Family("kernel: do_syscall_64, name_[k]", kernel.decode, True),
    Family("GPU stack: CUDA, NCCL, caching allocator, Triton and inductor kernels", gpu.decode, True),
    Family("Node: file.js:func:line, node: built-ins, (anonymous), (garbage collector)", node.decode, True),
    Family("Ruby: file.rb:line - method, [c function]", ruby.decode, True),
    Family("Python: file.py:line - func, Foo > bar, <locals>, <lambda>, CPython internals", python.decode, True),
    Family(".NET: Module!Namespace.Type.Method, System.*, generic arity", dotnet.decode, True),
    Family("Java and JFR: java/util/Map$Entry.get, lambdas, stubs", java.decode, True),
    Family("Go: package paths, (*T).m, func1, gowrap, generics, runtime", golang.decode, True),
    Family("Rust: paths, <T as Trait>::f, {{closure}}, file.rs:line - path", rust.decode, True),
    Family("C and C++: namespaces, templates, operators, mangled _Z", cpp.decode, True),
    Family("dotted names shared by several languages: Foo.bar, a.b.c", dotted.decode, False),
    Family("bare names: bar, _start, do_page_fault", bare.decode, False),
)
