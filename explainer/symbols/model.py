"""The decoded symbol, the one place an untrusted name is made safe to show, and small wording helpers.

:func:`clean` removes control and bidi characters and caps the length; the raw name stays in the
profile for matching. Every part a decoder quotes in a meaning goes through it too.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

MAX_DISPLAY = 200
PART_LIMIT = 120
MEANING_LIMIT = 400

# languages (or runtimes, where the label names one rather than a language) a decoder may give
LANGUAGES = (
    "python",
    "cpython",
    "go",
    "rust",
    "cpp",
    "c",
    "java",
    "dotnet",
    "js",
    "ruby",
    "kernel",
    "cuda",
    "triton",
    "native",
)


@dataclass(frozen=True, slots=True)
class Symbol:
    raw: str
    kind: str  # method, constructor, function, module, trampoline, address, unknown, lambda, nested,
    # native, other, elided, root
    display: str  # cleaned and length-capped
    owner: str  # everything that qualifies the member: package, namespace and/or class ("" when none)
    member: str  # method or function name ("" when none)
    language: str  # one of LANGUAGES, or "" when the label alone cannot say (see ``ambiguous``)
    meaning: str  # one plain-language sentence
    package: str = ""  # module, package, crate, namespace or library
    type: str = ""  # class, struct or receiver type
    file: str = ""
    line: int = 0  # 0 when the label carries no line
    closure: str = ""  # func1, {{closure}}, <lambda>, lambda$0, (anonymous) ...
    params: str = ""  # generic, template or trait parameters as written
    ambiguous: bool = False  # several languages write labels of this shape and nothing settled it


def clean(name: str, limit: int = MAX_DISPLAY) -> str:
    """A name safe to display or prompt: no control, format (bidi) or surrogate characters, capped."""
    if len(name) <= limit and name.isascii() and name.isprintable():
        return name  # the common case, and exactly what the loop below returns for it
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


def make(raw: str, kind: str, meaning: str, language: str = "", **parts: str | int | bool) -> Symbol:
    """A :class:`Symbol` with every quoted part cleaned and capped (decoders quote untrusted names)."""
    texts = {k: clean(v, PART_LIMIT) if isinstance(v, str) else v for k, v in parts.items()}
    texts.setdefault("owner", "")
    texts.setdefault("member", "")
    return Symbol(
        raw=raw,
        kind=kind,
        display=clean(raw),
        language=language,
        meaning=clean(meaning, MEANING_LIMIT),
        **texts,  # type: ignore[arg-type]
    )


def restated(raw: str, inner: Symbol, meaning: str, language: str, **parts: str | int | bool) -> Symbol:
    """``inner`` (a label decoded from inside ``raw``: a demangled name, a located function's
    path) told again as ``raw``: its kind and its qualified parts, a new meaning, and ``parts``
    (a file and line, the library it is in) over the inner ones."""
    named = {k: getattr(inner, k) for k in ("owner", "member", "package", "type", "closure", "params")}
    return make(raw, inner.kind, meaning, language, **{**named, **parts})


def article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def at_line(file: str, line: int) -> str:
    """`` (file.py, line 12)`` or ``""``: where a frame's code is, when the label says."""
    if not file:
        return ""
    return f" ({file}, line {line})" if line > 0 else f" ({file})"
