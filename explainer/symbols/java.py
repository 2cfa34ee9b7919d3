"""Java (and Scala, Kotlin) frames as async-profiler and JFR write them: ``java/util/HashMap.get``,
nested classes ``Map$Entry``, lambdas ``Foo$$Lambda_.apply`` / ``lambda$run$0``, constructors
``<init>``, JVM stubs (``itable stub``), and dotted JFR names such as ``java.lang.Thread.run``."""

from __future__ import annotations

import re

from explainer.symbols.model import Symbol, make

_SLASHED = re.compile(r"^(?P<path>(?:[a-z_][\w]*/)+)(?P<cls>[A-Z$][\w$]*)\.(?P<method>[\w$<>]+)$")
_DOTTED = re.compile(
    r"^(?P<path>(?:java|javax|jdk|sun|kotlin|kotlinx|scala|akka)\.(?:[a-z_]\w*\.)*)(?P<cls>[A-Z][\w$]*)"
    r"\.(?P<method>[\w$<>]+)$"
)
_ANY_DOTTED = re.compile(r"^(?P<path>(?:[a-z_]\w*\.)+)(?P<cls>[\w$]+)\.(?P<method>[\w$<>]+)$")
# async-profiler's and the JVM's own frames: dispatch stubs, the interpreter, adapters, GC barriers
_JVM_FRAMES = re.compile(
    r"^\.?(?:itable stub|vtable stub|vtable chunks|Interpreter|call_stub|StubRoutines(?: \(\d+\))?|I2C/C2I adapters"
    r"|unknown_Java|no_Java_frame|not_walkable_Java|\[unknown_Java\]|\[not_walkable_Java\])$"
)
_JIT = re.compile(r"_\[[jib]\]$")  # perf-map-agent: JIT-compiled, inlined, builtin
_PERF_MAP = re.compile(r"^L?(?P<path>(?:[\w$]+/)+)(?P<cls>[\w$]+);?:{1,2}\.?(?P<method>[\w$<>]+)$")
_HEX_SEGMENT = re.compile(r"[./]0x[0-9a-f]+(?=\.)")  # hidden classes: LambdaForm$DMH.0x.., $$Lambda$12/0x..
_LAMBDA = re.compile(r"\$\$Lambda")  # Foo$$Lambda_, Foo$$Lambda$12/0x0000000800c0b040


def decode(n: str, hint: str) -> Symbol | None:
    jit = _JIT.search(n)
    if jit:
        n = n[: jit.start()]
    if _JVM_FRAMES.match(n) or (hint == "java" and n.startswith(".") and n[1:2].isalpha()):
        return make(
            n,
            "native",
            f"{n.lstrip('.')}: code the JVM generates or runs itself (dispatch stubs, the "
            "interpreter, adapters, intrinsics); not application code.",
            "java",
            member=n.lstrip("."),
        )
    n = _HEX_SEGMENT.sub("", n)
    m = _SLASHED.match(n) or _DOTTED.match(n) or (_PERF_MAP.match(n) if jit else None)
    if m is None and hint == "java":
        m = _ANY_DOTTED.match(n)
    if m is None and "$" in n and "/" not in n and "." in n and " " not in n and "::" not in n:
        m = _ANY_DOTTED.match(n)
    if m is None:
        return None
    return method(n, m.group("path").replace("/", ".").rstrip("."), m.group("cls"), m.group("method"))


def method(n: str, package: str, cls: str, member: str) -> Symbol:
    owner = f"{package}.{cls}" if package else cls
    outer, _, nested = cls.partition("$")
    parts = {"owner": owner, "member": member, "package": package, "type": cls}
    if _LAMBDA.search(cls) or member.startswith("lambda$") or "$anonfun$" in member:
        body = member.split("$")[1] if member.startswith(("lambda$", "$anonfun$")) else member
        return make(
            n,
            "lambda",
            f"a lambda (anonymous function) in Java class {outer}, here running its {body} code.",
            "java",
            closure=member if "$" in member else "$$Lambda",
            **parts,
        )
    if member == "<init>":
        return make(n, "constructor", f"the constructor of Java class {cls}: a new {cls} object.", "java", **parts)
    if member == "<clinit>":
        return make(
            n,
            "method",
            f"the static initialiser of Java class {cls} (runs once, when the class loads).",
            "java",
            **parts,
        )
    inner = f" (nested class {nested} of {outer})" if nested and not nested.isdigit() else ""
    anon = f" (an anonymous class inside {outer})" if nested.isdigit() else ""
    space = f" in package {package}" if package else ""
    return make(n, "method", f"Java method {member} of class {cls}{inner}{anon}{space}.", "java", **parts)
