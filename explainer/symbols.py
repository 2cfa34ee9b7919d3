"""What a frame label means, following the symbol conventions of GPU flame graphs
(``Foo > bar``, ``Foo / bar`` and ``Foo.bar`` methods, ``__init__`` constructors, ``<module>``,
``<interpreter trampoline>``, raw addresses) plus the Go, C++, Java, Rust and JavaScript names
found in real profiles.

Also the one place where an untrusted name is made safe to show or to put in a prompt:
:func:`clean` removes control and bidi characters and caps the length; the raw name stays in
the profile for matching. :func:`terminal_safe` is the last line of defence for whole texts
going to a terminal: it keeps line breaks and tabs and replaces every other control character.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from explainer.model import ELIDED_PREFIX, OTHER

MAX_DISPLAY = 200

_ADDRESS = re.compile(r"^(?:0x)?[0-9a-fA-F]{6,16}$|^0x[0-9a-fA-F]+$")
_LIB_OFFSET = re.compile(r"^(?P<lib>[\w.+-]+\.(?:so(?:\.\d+)*|dll|dylib|exe)|\[[\w.-]+\]|[\w.-]+)\+0x[0-9a-fA-F]+$")
_METHOD_SEPARATORS = (" > ", " / ")
SymbolMaker = Callable[..., "Symbol"]
_PROCESS_START = {"_start", "start_thread", "clone", "clone3", "main", "thread_run"}


@dataclass(frozen=True, slots=True)
class Symbol:
    raw: str
    kind: str  # method, constructor, function, module, trampoline, address, unknown, lambda, nested,
    # native, other, elided, runtime
    display: str  # cleaned and length-capped
    owner: str  # class, package or namespace ("" when none)
    member: str  # method or function name ("" when none)
    language: str  # python, go, cpp, java, rust, js, native, ""
    meaning: str  # one plain-language sentence


def clean(name: str, limit: int = MAX_DISPLAY) -> str:
    """A name safe to display or prompt: no control, format (bidi) or surrogate characters, capped."""
    out = []
    for ch in name[: limit + 1]:  # never scan past what can be shown
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cf", "Cs", "Co", "Cn") or ch in "\u2028\u2029":
            out.append("\ufffd" if cat != "Cc" or ch not in "\t" else " ")
        else:
            out.append(ch)
    text = "".join(out)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


_TERMINAL_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")


def terminal_safe(text: str) -> str:
    """``text`` with C0/C1 controls (ESC, CR, backspace...), bidi and zero-width marks replaced by
    U+FFFD; newlines and tabs stay, so a report keeps its layout but cannot drive the terminal."""
    return _TERMINAL_UNSAFE.sub("\ufffd", text)


def _split_python(name: str) -> tuple[str, str] | None:
    for sep in _METHOD_SEPARATORS:
        if sep in name:
            owner, _, member = name.rpartition(sep)
            return owner.strip(), member.strip()
    return None


@functools.lru_cache(maxsize=32768)
def decode(name: str) -> Symbol:
    """Decode one frame label into a :class:`Symbol` with a one-sentence meaning.

    Cached: views decode the same interned names over and over.
    """
    shown = clean(name)
    n = name.strip()

    def sym(kind: str, meaning: str, owner: str = "", member: str = "", language: str = "") -> Symbol:
        # the meaning quotes parts of the untrusted name: it is cleaned and capped like the name
        return Symbol(name, kind, shown, clean(owner, 120), clean(member, 120), language, clean(meaning, 400))

    if n == "<interpreter trampoline>":
        return sym(
            "trampoline",
            "CPython's dispatch between Python calls; interpreter overhead, safe to ignore when reading.",
            language="python",
        )
    if n == "<module>":
        return sym(
            "module",
            "the top level of a Python script or module (code outside any function), "
            "e.g. an import or the entry script.",
            language="python",
        )
    if n in ("<unknown>", "[unknown]", "(unknown)", ""):
        return sym("unknown", "a frame the profiler could not name: native code without symbols.")
    if n == OTHER:
        return sym(
            "other",
            "not a function: Pyroscope merged many small call paths here to stay within its node limit (maxNodes).",
        )
    if n.startswith(ELIDED_PREFIX):
        return sym(
            "elided",
            "not a function: the middle of a very deep stack, left out to keep it readable; totals still count it.",
        )
    if n == "total":
        return sym("root", "the whole profile: every sample starts here.")
    if _ADDRESS.match(n):
        return sym(
            "address",
            "a raw address: native C, C++ or CUDA code with no symbol available (not yet resolved, or stripped).",
            language="native",
        )
    if n.startswith("[") and n.endswith("]") and len(n) > 2:  # pprof names unsymbolized code by its mapping
        return sym(
            "address",
            f"unsymbolized native code inside {n[1:-1]} (pprof groups all its addresses under the library's name).",
            owner=n[1:-1],
            language="native",
        )
    lib = _LIB_OFFSET.match(n)
    if lib and "::" not in n:
        return sym(
            "address",
            f"an unsymbolized address inside {lib.group('lib')}: native code with no symbol available.",
            owner=lib.group("lib"),
            language="native",
        )
    if n in ("[vdso]", "[kernel.kallsyms]") or n.endswith("_[k]"):
        return sym("native", "kernel code (a system call or interrupt handling).", language="native")
    parts = _split_python(n)
    if parts:
        return _python_member(sym, *parts)
    if "::" in n:
        return _cpp_or_rust(sym, n)
    if "<lambda>" in n:
        owner = n.split(".<locals>.")[0] if ".<locals>." in n else ""
        where = f" defined inside {owner}" if owner else ""
        return sym("lambda", f"an anonymous lambda function{where}.", owner=owner, member="<lambda>", language="python")
    if ".<locals>." in n:
        owner, _, inner = n.rpartition(".<locals>.")
        return sym(
            "nested",
            f"{inner}, a function defined inside {owner} (a closure or decorator wrapper).",
            owner=owner,
            member=inner,
            language="python",
        )
    if "/" in n and ("." in n.rsplit("/", 1)[-1]) and not n.startswith(("./", "/")):
        return _go_or_java_path(sym, n)
    if n.startswith(("java/", "jdk/", "sun/")) or n.startswith(("com.", "org.")):
        return _go_or_java_path(sym, n)
    if "." in n and " " not in n and not n.startswith("."):
        owner, _, member = n.rpartition(".")
        if owner and member:
            if owner.startswith(("runtime", "main", "sync", "net", "syscall")) or "(*" in owner:
                return sym("function", f"Go function {member} of {owner}.", owner, member, "go")
            return _python_member(sym, owner, member)
    if re.match(r"^[A-Za-z_][\w]*$", n):
        if n.startswith(("cu", "nccl")):
            return sym("native", f"{n}, a CUDA or NCCL library function (native code).", member=n, language="native")
        if n.startswith(("_Py", "Py", "pymain_")):
            return sym("native", f"{n}, a function inside the CPython interpreter.", member=n, language="native")
        if n in _PROCESS_START or n.startswith(("__libc", "pthread", "clone")):
            return sym("native", f"{n}, process or thread start-up code in the C library.", member=n, language="native")
        return sym(
            "function",
            f"{n}, a function outside any class: in Python a module-level def {n}(), "
            "in native code a plain C function.",
            member=n,
            language="",
        )
    return sym("function", "a function frame as the profiler named it.")


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _python_member(sym: SymbolMaker, owner: str, member: str) -> Symbol:
    cls = owner.rsplit(".", 1)[-1]
    if member == "__init__":
        return sym(
            "constructor",
            f"the constructor of class {cls}: {_article(cls)} {cls}(...) object is being created.",
            owner,
            member,
            "python",
        )
    if member == "__call__":
        return sym(
            "method", f"calling an object of class {cls} like a function ({cls}.__call__).", owner, member, "python"
        )
    if member.startswith("__") and member.endswith("__"):
        return sym("method", f"the special method {member} of class {cls}.", owner, member, "python")
    return sym("method", f"method {member} of class {cls} (class {cls}: def {member}(self)).", owner, member, "python")


def _cpp_or_rust(sym: SymbolMaker, n: str) -> Symbol:
    core = re.sub(r"<[^<>]*>", "", re.sub(r"<[^<>]*>", "", n))  # drop up to two levels of template args
    core = core.split("(")[0]
    owner, _, member = core.rpartition("::")
    lang = "rust" if re.search(r"::h[0-9a-f]{16}$", n) or n.startswith(("core::", "alloc::", "std::rt")) else "cpp"
    if lang == "rust":
        owner, _, member = re.sub(r"::h[0-9a-f]{16}$", "", core).rpartition("::")
    if owner.startswith(("c10::cuda::CUDACachingAllocator", "at::", "c10::", "torch::")):
        return sym("native", f"{member} in PyTorch's C++ core ({owner}).", owner, member, "cpp")
    kind = "constructor" if owner and owner.rsplit("::", 1)[-1] == member else "method" if owner else "function"
    what = "constructor of" if kind == "constructor" else "function"
    return sym(
        kind,
        f"{'Rust' if lang == 'rust' else 'C++'} {what} {member} in {owner or 'the global namespace'}.",
        owner,
        member,
        lang,
    )


def _go_or_java_path(sym: SymbolMaker, n: str) -> Symbol:
    if n.startswith(("java/", "jdk/", "sun/", "com/", "org/", "io/")) or "$" in n:
        cls, _, member = n.replace("/", ".").rpartition(".")
        return sym("method", f"Java method {member} of {cls}.", cls, member, "java")
    pkg, _, rest = n.rpartition("/")
    owner, _, member = rest.rpartition(".")
    owner = f"{pkg}/{owner}" if owner else pkg
    return sym("function", f"Go function {member} in package {owner}.", owner, member, "go")


def explain_symbol(name: str) -> str:
    """``name``: meaning — one line."""
    s = decode(name)
    return f"`{s.display}`: {s.meaning}"
