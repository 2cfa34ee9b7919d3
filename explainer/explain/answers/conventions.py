"""A frame label's convention in the answer's language, built from the decoded parts.

English answers use the decoder's own sentence (:attr:`explainer.symbols.Symbol.meaning`); other
languages get one catalog sentence per kind of frame, filled with the parts the decoder found,
so a new runtime needs no new translation.
"""

from __future__ import annotations

from collections.abc import Callable

from explainer.explain.answers.language import N_
from explainer.symbols import Symbol

Translate = Callable[..., str]
LANGUAGE_NAMES = {
    "python": N_("Python"),
    "cpython": N_("the CPython interpreter"),
    "go": N_("Go"),
    "rust": N_("Rust"),
    "cpp": N_("C++"),
    "c": N_("C"),
    "java": N_("Java"),
    "dotnet": N_(".NET"),
    "js": N_("JavaScript"),
    "ruby": N_("Ruby"),
    "kernel": N_("the Linux kernel"),
    "cuda": N_("the CUDA stack"),
    "triton": N_("Triton"),
    "native": N_("native code"),
}
_BY_KIND = {
    "constructor": N_("the constructor of class {type}: an object {type}(...) is being created."),
    "method": N_("method {member} of {type} ({language})."),
    "function": N_("function {member}{package} ({language})."),
    "bare": N_("{member}, a function outside any class: a module-level function or a plain C function."),
    "module": N_("the top level of a script or module: code outside any function, such as an import."),
    "trampoline": N_("CPython's dispatch between Python calls: interpreter overhead, safe to ignore when reading."),
    "address": N_("a raw address: native C, C++ or CUDA code with no symbol available."),
    "native": N_("{member}: code in {language}, below the application."),
    "lambda": N_("an anonymous function (lambda) inside {type}."),
    "nested": N_("a function defined inside {type}."),
    "other": N_("the merged rest: smaller call paths that the source combined into one bar."),
    "elided": N_("stack frames left out in the middle of a very deep stack; the totals still count them."),
    "unknown": N_("a frame the profiler could not name."),
    "root": N_("the root of the whole graph: everything in the profile."),
}
_IN_PACKAGE = N_(" in {package}")


def describe(sym: Symbol, t: Translate) -> str:
    """One sentence on what the frame is, from its kind, language and parts."""
    owner = getattr(sym, "type", "") or sym.owner.rsplit(".", 1)[-1].rsplit("::", 1)[-1] or sym.owner
    package = getattr(sym, "package", "") or (sym.owner if not getattr(sym, "type", "") else "")
    language = t(LANGUAGE_NAMES.get(sym.language, "native")) if sym.language else t("an unknown language")
    kind = sym.kind
    if kind in ("method", "lambda", "nested") and not owner:
        kind = "function"
    if kind == "function" and not sym.language and not package:
        kind = "bare"
    return t(
        _BY_KIND.get(kind, _BY_KIND["unknown"]),
        type=owner,
        member=sym.member or sym.display,
        package=t(_IN_PACKAGE, package=package) if package and kind == "function" else "",
        language=language,
    )
