"""What a frame label means, for the labels every profiler writes.

One small decoder per label family (:mod:`explainer.symbols.families` is the table, in the order
they are tried): the seed's conventions for GPU flame graphs (``Foo > bar``, ``Foo / bar``,
``__init__``, ``<module>``, ``<interpreter trampoline>``, raw addresses), Python, Go, Rust, C and
C++, Java, .NET, Node.js, Ruby, native libraries, the kernel and the GPU stack. Each gives the
language, the parts and one plain-language sentence. :func:`guess_runtime` reads a profile's
labels once and settles the shapes several languages share.

:func:`clean` is the one place where an untrusted name is made safe to show or to put in a prompt.
"""

from explainer.symbols.decode import decode, explain_symbol
from explainer.symbols.model import LANGUAGES, MAX_DISPLAY, Symbol, clean
from explainer.symbols.runtime import Runtime, guess_runtime

__all__ = [
    "LANGUAGES",
    "MAX_DISPLAY",
    "Runtime",
    "Symbol",
    "clean",
    "decode",
    "explain_symbol",
    "guess_runtime",
]
