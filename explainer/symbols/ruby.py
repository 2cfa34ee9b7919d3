"""Ruby frames as rbspy and the Pyroscope Ruby SDK write them: ``file.rb:line - method``,
``block in method``, and C functions of the interpreter: ``(unknown):0 - new [c function]``."""

from __future__ import annotations

import re

from explainer.symbols import located
from explainer.symbols.model import Symbol, at_line, make

_C_FUNCTION = " [c function]"
_BLOCK = re.compile(r"^(?:block \((?P<depth>\d+) levels\)|block) in (?P<method>.+)$")


def decode(n: str, hint: str) -> Symbol | None:
    loc = located.split(n)
    if loc is None:
        return None
    if loc.func.endswith(_C_FUNCTION):
        method = loc.func.removesuffix(_C_FUNCTION).strip()
        meaning = f"Ruby's built-in method {method}, implemented in C inside the Ruby interpreter."
        return make(n, "native", meaning, "ruby", member=method)
    if not loc.has_extension(".rb", ".rake", ".ru", ".erb"):
        return None
    where = at_line(loc.file, loc.line)
    package = _gem(loc.file)
    of = f" of the gem {package}" if package else ""
    block = _BLOCK.match(loc.func)
    if block:
        method = block.group("method")
        meaning = f"a block (closure) inside Ruby method {method}{of}{where}."
        return make(
            n, "nested", meaning, "ruby", member=method, package=package, file=loc.file, line=loc.line, closure="block"
        )
    return make(
        n,
        "method",
        f"Ruby method {loc.func}{of}{where}.",
        "ruby",
        member=loc.func,
        package=package,
        file=loc.file,
        line=loc.line,
    )


def _gem(file: str) -> str:
    """``gems/sinatra-2.0.3/lib/sinatra/base.rb`` -> ``sinatra-2.0.3``."""
    parts = file.split("/")
    return parts[parts.index("gems") + 1] if "gems" in parts[:-1] else ""
