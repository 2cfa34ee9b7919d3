"""Go frames: ``import/path.Func``, methods on pointer and value receivers (``pkg.(*T).M``, ``pkg.T.M``),
closures (``Func.func1``, ``.func2.3``), ``go`` statement wrappers (``.gowrap1``), package
initialisers (``glob..func1``, ``init.0``), generics (``pkg.F[...]``) and the runtime itself."""

from __future__ import annotations

import re

from explainer.symbols.model import Symbol, make

# roots of Go's standard library: read as Go in a Go profile (Python has time, os, io too)
STDLIB = frozenset(
    [
        "runtime",
        "sync",
        "syscall",
        "strconv",
        "bufio",
        "fmt",
        "reflect",
        "sort",
        "context",
        "errors",
        "unicode",
        "bytes",
        "main",
        "internal",
        "crypto",
        "encoding",
        "compress",
        "container",
        "hash",
        "mime",
        "regexp",
        "text",
        "html",
        "path",
        "log",
        "net",
        "os",
        "io",
        "time",
        "math",
        "strings",
    ]
)
_SURE = frozenset(
    ["runtime", "sync", "syscall", "strconv", "bufio", "fmt", "reflect", "main"]
)  # roots no Python, Java or JavaScript profile writes: Go even without a runtime
_CLOSURE = re.compile(r"\.(?:func\d+|gowrap\d+|deferwrap\d+)(?:\.\d+)*$|\.\d+$")
_RECEIVER = re.compile(r"^(?P<pkg>.+?)\.\((?P<ptr>\*?)(?P<type>[\w\[\],. *]+)\)\.(?P<rest>.+)$")


def package_of(n: str) -> tuple[str, str] | None:
    """``(import path, the rest)`` of a Go label, or None when it has no Go package path."""
    slash = n.rfind("/", 0, n.find("(") if "(" in n else len(n))
    head, dot, rest = n[slash + 1 :].partition(".")
    if not dot or not rest or not head:
        return None
    return n[: slash + 1] + head, rest


def is_go(n: str, hint: str) -> bool:
    """Shapes only Go writes, or a standard-library package in a Go profile."""
    if " " in n or "::" in n or ":" in n or n.startswith((".", "/")):
        return False
    if "(*" in n or ".gowrap" in n or "..func" in n:
        return True
    split = package_of(n)
    if split is None:
        return False
    pkg = split[0]
    first = pkg.split("/", 1)[0]
    if "/" in pkg and "." in first:  # github.com/..., k8s.io/..., go.opentelemetry.io/...
        return True
    root = first.split("/")[0]
    return root in _SURE or (hint == "go" and (root in STDLIB or "/" in pkg or split[1][:1].isalpha()))


def without_generics(n: str) -> tuple[str, str]:
    """``pkg.(*Tree[go.shape.int]).Next`` -> (``pkg.(*Tree).Next``, ``[go.shape.int]``): type arguments
    may hold spaces, dots and slashes that would confuse every other check."""
    out, params, depth = [], [], 0
    for ch in n:
        if ch == "[":
            depth += 1
        if depth:
            params.append(ch)
        else:
            out.append(ch)
        if ch == "]" and depth:
            depth -= 1
    return "".join(out), "".join(params)


def decode(n: str, hint: str) -> Symbol | None:
    plain, params = without_generics(n) if "[" in n and not n.startswith("[") else (n, "")
    if not is_go(plain, hint):
        return None
    split = package_of(plain)
    if split is None:
        return None
    pkg, rest = split
    closure = ""
    c = _CLOSURE.search(rest)
    if c:
        closure, rest = c.group(0).lstrip("."), rest[: c.start()].rstrip(".")
    return _function(n, pkg, rest, closure, params)


def _function(n: str, pkg: str, rest: str, closure: str, params: str) -> Symbol:
    recv = _RECEIVER.match(f"{pkg}.{rest}")
    typ, ptr = "", False
    if recv:
        typ, ptr, rest = recv.group("type"), bool(recv.group("ptr")), recv.group("rest")
    elif "." in rest.strip(".") and not closure:  # pkg.T.M: a method on a value receiver
        typ, _, rest = rest.partition(".")
    member = rest.split(".")[-1] if "." in rest and not typ else rest
    owner = f"{pkg}.({'*' if ptr else ''}{typ})" if recv else f"{pkg}.{typ}" if typ else pkg
    return make(
        n,
        "nested" if closure else ("method" if typ else "function"),
        _meaning(pkg, typ, ptr, member, closure, params),
        "go",
        owner=owner,
        member=member,
        package=pkg,
        type=typ,
        closure=closure,
        params=params,
    )


def _meaning(pkg: str, typ: str, ptr: bool, member: str, closure: str, params: str) -> str:
    if member.strip(".") == "glob":
        return f"an anonymous function in the initialiser of a package-level variable ({closure}) in package {pkg}."
    if typ:
        receiver = "pointer receiver *" if ptr else "value receiver "
        base = f"Go method {member} on {typ} ({receiver}{typ})"
    else:
        base = f"Go function {member}"
    if params:
        base += f", generic, instantiated as {params}"
    where = "the Go runtime (scheduler, memory allocator, garbage collector)" if pkg == "runtime" else f"package {pkg}"
    if closure.startswith("gowrap"):
        return f"the wrapper Go generates for a `go` statement inside {base.removeprefix('Go ')} in {where}."
    if closure.startswith("deferwrap"):
        return f"the wrapper Go generates for a `defer` inside {base.removeprefix('Go ')} in {where}."
    if closure:
        return f"an anonymous function (closure {closure}) defined inside {base.removeprefix('Go ')} in {where}."
    return f"{base} in {where}."
