"""Python frames: py-spy/pyroscope-io ``file.py:line - func``, the seed's ``Foo > bar`` and
``Foo / bar`` methods, ``<locals>`` closures, ``<lambda>``, comprehensions, dunder methods, and the
CPython interpreter's own C functions (``_PyEval_EvalFrameDefault``)."""

from __future__ import annotations

import re

from explainer.symbols import located
from explainer.symbols.model import Symbol, article, at_line, make, restated

_SEPARATORS = (" > ", " / ")
_CPYTHON = re.compile(
    r"^(?:_?Py[A-Z_][A-Za-z_]*\w*|pymain_\w+|cfunction_\w+|method_vectorcall\w*|slot_tp_\w+|vectorcall_\w+"
    r"|run_mod|run_eval_code_obj|builtin_\w+|_?PyEval\w*)$"
)
_COMPREHENSIONS = {"<listcomp>": "list", "<dictcomp>": "dict", "<setcomp>": "set", "<genexpr>": "generator"}
_DUNDER = re.compile(r"^(?P<owner>[A-Za-z_][\w.]*)\.(?P<member>__\w+__)$")


def decode(n: str, hint: str) -> Symbol | None:
    loc = located.split(n)
    if loc is not None:
        python = loc.has_extension(".py", ".pyx", ".pyi") or loc.file.startswith("<frozen ")
        return _located(n, loc) if python else None
    return _unlocated(n)


def _unlocated(n: str) -> Symbol | None:
    for sep in _SEPARATORS:
        if sep in n:
            owner, _, member = n.rpartition(sep)
            return member_of(n, owner.strip(), member.strip())
    if "<" in n:
        return _special(n)
    if _CPYTHON.match(n):
        return make(n, "native", f"{n}, a C function inside the CPython interpreter.", "cpython", member=n)
    dunder = _DUNDER.match(n)
    if dunder:
        return member_of(n, dunder.group("owner"), dunder.group("member"))
    return None


def _located(n: str, loc: located.Located) -> Symbol:
    module = loc.file.removesuffix(".py").replace("/", ".")
    where = at_line(loc.file, loc.line)
    if loc.func == "<module>":
        meaning = f"the top level of the Python module {module} (code outside any function){where}."
        return make(n, "module", meaning, "python", package=module, file=loc.file, line=loc.line)
    if loc.func == "__init__":
        meaning = f"the constructor of a class in the Python module {module} (the label leaves out the class){where}."
        return make(
            n, "constructor", meaning, "python", member="__init__", package=module, file=loc.file, line=loc.line
        )
    inner = _unlocated(loc.func) if "<" in loc.func or "." in loc.func else None
    if inner is None and "." in loc.func.strip("."):
        owner, _, member = loc.func.rpartition(".")
        inner = member_of(loc.func, owner, member)
    if inner is not None:
        meaning = f"{inner.meaning.rstrip('.')}{where}."
        return restated(n, inner, meaning, "python", package=module, file=loc.file, line=loc.line)
    meaning = f"Python function {loc.func}{where}."
    return make(n, "function", meaning, "python", member=loc.func, package=module, file=loc.file, line=loc.line)


def _special(n: str) -> Symbol | None:
    if n.endswith("<lambda>"):
        owner = n.split(".<locals>.")[0] if ".<locals>." in n else n.removesuffix("<lambda>").rstrip(".")
        where = f" defined inside {owner}" if owner else ""
        return make(
            n,
            "lambda",
            f"an anonymous Python lambda function{where}.",
            "python",
            owner=owner,
            member="<lambda>",
            closure="<lambda>",
        )
    for marker, what in _COMPREHENSIONS.items():
        if n.endswith(marker):
            owner = n.removesuffix(marker).rstrip(".").removesuffix(".<locals>")
            where = f" inside {owner}" if owner else ""
            return make(
                n,
                "nested",
                f"a Python {what} comprehension{where}.",
                "python",
                owner=owner,
                member=marker,
                closure=marker,
            )
    if ".<locals>." in n:
        owner, _, inner = n.rpartition(".<locals>.")
        meaning = f"{inner}, a Python function defined inside {owner} (a closure or decorator wrapper)."
        return make(n, "nested", meaning, "python", owner=owner, member=inner, closure=inner)
    return None


def member_of(n: str, owner: str, member: str) -> Symbol:
    """Method ``member`` of the class ``owner`` ends with, in the seed's words."""
    module, _, cls = owner.rpartition(".")
    parts = {"owner": owner, "member": member, "package": module, "type": cls}
    if member == "__init__":
        meaning = f"the constructor of class {cls}: {article(cls)} {cls}(...) object is being created."
        return make(n, "constructor", meaning, "python", **parts)
    if member == "__call__":
        return make(
            n, "method", f"calling an object of class {cls} like a function ({cls}.__call__).", "python", **parts
        )
    if member.startswith("__") and member.endswith("__"):
        return make(n, "method", f"the special method {member} of class {cls}.", "python", **parts)
    meaning = f"method {member} of class {cls} (class {cls}: def {member}(self))."
    return make(n, "method", meaning, "python", **parts)
