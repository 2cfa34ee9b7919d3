"""Node.js frames as the Pyroscope Node SDK writes them: ``./file.js:function:line``,
``node:events:emit:532`` built-ins, and V8's pseudo-frames ``(anonymous)``, ``(garbage collector)``,
``(idle)``, ``(program)``, ``(external)``."""

from __future__ import annotations

import re

from explainer.symbols.model import Symbol, at_line, make

_LOCATED = re.compile(r"^(?P<file>.*):(?P<func>[^:]+):(?P<line>-?\d+)$")
_JS_FILE = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx")
_PSEUDO = {
    "(anonymous)": ("lambda", "an anonymous JavaScript function (a callback or arrow function without a name)."),
    "(garbage collector)": ("native", "V8's garbage collector reclaiming unused JavaScript objects."),
    "(idle)": ("native", "Node.js waiting with nothing to run (the event loop is idle): not CPU work."),
    "(program)": ("native", "V8 and Node.js native code outside any JavaScript function."),
    "(external)": (
        "native",
        "native code outside JavaScript (an addon or the runtime) as the Node.js profiler saw it.",
    ),
    "(root)": ("root", "the root of the V8 profile: every sample starts here."),
}


def decode(n: str, hint: str) -> Symbol | None:
    pseudo = _PSEUDO.get(n)
    if pseudo is not None:
        return make(n, pseudo[0], pseudo[1], "js", closure="(anonymous)" if n == "(anonymous)" else "")
    if hint == "js" and re.match(r"^(?:get|set) [\w$]+$", n):
        accessor, _, prop = n.partition(" ")
        return make(n, "method", f"a JavaScript {accessor}ter for the property {prop}.", "js", member=n)
    m = _LOCATED.match(n)
    if m is None or not _is_js_file(m.group("file")):
        return None
    file, func, line = m.group("file"), m.group("func"), max(int(m.group("line")), 0)
    where = at_line(file, line) if file else ""
    if file.startswith("node:"):
        module = file.removeprefix("node:")
        meaning = f"{_function(func)} in Node.js's built-in module {module}{f' (line {line})' if line else ''}."
        return make(
            n, _kind(func), meaning, "js", member=func, package=module, file=file, line=line, closure=_closure(func)
        )
    package = _package(file)
    inside = f" of the npm package {package}" if package else ""
    meaning = f"{_function(func)}{inside}{where}."
    return make(
        n, _kind(func), meaning, "js", member=func, package=package, file=file, line=line, closure=_closure(func)
    )


def _is_js_file(file: str) -> bool:
    return file.startswith("node:") or file.endswith(_JS_FILE) or file == ""


def _package(file: str) -> str:
    """``./node_modules/express/lib/router/index.js`` -> ``express`` (scoped: ``@grpc/grpc-js``)."""
    if "node_modules/" not in file:
        return ""
    rest = file.rsplit("node_modules/", 1)[1].split("/")
    return "/".join(rest[:2]) if rest[0].startswith("@") and len(rest) > 1 else rest[0]


def _closure(func: str) -> str:
    return func if func.startswith("(") else ""


def _kind(func: str) -> str:
    return "lambda" if func == "(anonymous)" else "native" if func.startswith("(") else "function"


def _function(func: str) -> str:
    if func == "(anonymous)":
        return "an anonymous JavaScript function"
    if func.startswith("("):
        return f"V8's {func.strip('()')} pseudo-frame"
    return f"JavaScript function {func}"
