"""Dotted names several languages write alike: ``Foo.bar``, ``a.b.c``, ``time.Now``.

The profile's runtime settles them. Without one, the seed's convention reads ``Foo.bar`` (a
class and its method) as Python; a dotted name of lower-case parts is ambiguous, and says so."""

from __future__ import annotations

import re

from explainer.symbols import golang, java, python
from explainer.symbols.model import Symbol, make

_DOTTED = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$<][\w$<>]*)+$")


def decode(n: str, hint: str) -> Symbol | None:
    if not _DOTTED.match(n):
        return None
    owner, _, member = n.rpartition(".")
    if hint == "go":
        return golang.decode(n, "go")
    if hint == "java":
        return java.decode(n, "java")
    if hint == "js":
        return _js(n, owner, member)
    if hint == "python" or (not hint and owner.rsplit(".", 1)[-1][:1].isupper()):
        return (
            python.member_of(n, owner, member) if owner.rsplit(".", 1)[-1][:1].isupper() else _module(n, owner, member)
        )
    return _ambiguous(n, owner, member)


def _module(n: str, module: str, func: str) -> Symbol:
    meaning = f"Python function {func} of the module {module} (def {func}() at the module's top level)."
    return make(n, "function", meaning, "python", owner=module, member=func, package=module)


def _js(n: str, owner: str, member: str) -> Symbol:
    return make(n, "method", f"JavaScript method {member} of {owner}.", "js", owner=owner, member=member, type=owner)


def _ambiguous(n: str, owner: str, member: str) -> Symbol:
    meaning = (
        f"{member} qualified by {owner}: a Python module function, a Go package function and a Java or JavaScript "
        "method are all written this way, and the label alone does not say which."
    )
    return make(n, "function", meaning, "", owner=owner, member=member, ambiguous=True)
