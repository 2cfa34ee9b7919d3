"""Labels that carry their source location, as the Pyroscope SDKs write them.

``file:line - function`` (Python via py-spy, Ruby via rbspy, Rust via pprof-rs) and py-spy's own
``function (file:line)``. Each language's decoder checks the file's extension itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_DASHED = re.compile(r"^(?P<file>[^\s:][^:]*?):(?P<line>-?\d+) - (?P<func>.+)$")
_PARENS = re.compile(r"^(?P<func>\S.*?) \((?P<file>[^():]+):(?P<line>\d+)\)$")


@dataclass(frozen=True, slots=True)
class Located:
    file: str
    line: int  # 0 when unknown (the SDKs write -1 or 0)
    func: str

    def has_extension(self, *extensions: str) -> bool:
        return self.file.endswith(extensions)


def split(n: str) -> Located | None:
    m = _DASHED.match(n) or _PARENS.match(n)
    if m is None:
        return None
    return Located(m.group("file"), max(int(m.group("line")), 0), m.group("func").strip())
