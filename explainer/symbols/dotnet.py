""".NET frames: the Pyroscope .NET profiler's ``Assembly!Namespace.Type.Method(args)``, namespaces
such as ``System.*`` and ``Microsoft.*``, generic arity (``Task`1``), nested types (``Outer+Inner``)
and the compiler's async state machines (``<GetCartAsync>d__13.MoveNext``)."""

from __future__ import annotations

import re

from explainer.symbols.model import Symbol, make
from explainer.symbols.paths import strip_generics

_NAMESPACES = ("System.", "Microsoft.", "Grpc.", "Newtonsoft.", "Swashbuckle.")
_ASYNC = re.compile(r"<(?P<method>\w+)>d__\d+|<<(?P<outer>\w+)>g__(?P<local>\w+)\|\w+>d")
_ARITY = re.compile(r"`\d+")


def decode(n: str, hint: str) -> Symbol | None:
    assembly, bang, rest = n.partition("!")
    rest = rest.lstrip(".")
    if not bang or " " in assembly or not assembly:
        if not (n.startswith(_NAMESPACES) or (hint == "dotnet" and "." in n)):
            return None
        assembly, rest = "", n.lstrip("!.")
    return _method(n, assembly, rest)


def _split(rest: str) -> tuple[str, str, str]:
    """``(qualified type, method, arguments)``; brackets and parentheses may hold dots."""
    head, paren, args = rest.partition("(")
    depth, cut = 0, -1
    for i, ch in enumerate(head):
        depth += ch in "[<"
        depth -= ch in "]>"
        if ch == "." and depth == 0 and i > 0 and head[i - 1] != ".":
            cut = i
    if cut < 0:
        return "", head, args.rstrip(")") if paren else ""
    return head[:cut], head[cut + 1 :], args.rstrip(")") if paren else ""


def _method(n: str, assembly: str, rest: str) -> Symbol:
    owner, member, _args = _split(rest)
    member, generic_args = strip_generics(member)
    namespace, _, cls = _plain(owner).rpartition(".")
    params = generic_args or ", ".join(m.group(0) for m in re.finditer(r"`\d+(?:\[[^\]]*\])?", owner))
    generic = f" (generic: {_ARITY.sub('', params) or params})" if params else ""
    state = _ASYNC.search(owner)
    if state:
        inner = state.group("local") or state.group("method")
        what = f"a step of the async method {inner} (its compiler-generated state machine {member})"
        closure = state.group(0)
    else:
        what, closure = f".NET method {_plain(member)}", ""
    where = f" of {cls}" if cls else ""
    space = f" in namespace {namespace}" if namespace else ""
    lib = f", assembly {assembly}" if assembly and assembly != namespace else ""
    meaning = f"{what}{where}{space}{lib}{generic}."
    return make(
        n,
        "method",
        meaning,
        "dotnet",
        owner=owner,
        member=_plain(member),
        package=namespace or assembly,
        type=cls,
        closure=closure,
        params=params,
    )


def _plain(text: str) -> str:
    """Without generic arity and type arguments: ``Task`1[System.__Canon]`` -> ``Task``."""
    return re.sub(r"\[[^\[\]]*\]", "", re.sub(r"\[[^\[\]]*\]", "", _ARITY.sub("", text)))
