"""What reaches a terminal: every write passes through :func:`terminal_safe`.

Whatever a verb prints (function names, file names, a model's answer) can hold escape sequences
chosen by whoever named a symbol; on a terminal they could move the cursor, rewrite earlier lines
or change the window title. Kept free of heavy imports: ``explainer --help`` loads it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any, TextIO

# every control (Cc), format character (Cf: bidi marks, zero-width, U+061C, tag characters...) and
# line or paragraph separator but newline and tab, as Unicode 14-15 lists them (a test checks the
# running Python's table); written out, not computed, because --help imports this module
_TERMINAL_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e"
    "\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]"
)


def terminal_safe(text: str) -> str:
    """``text`` with C0/C1 controls (ESC, CR, backspace...), bidi and zero-width marks replaced by
    U+FFFD; newlines and tabs stay, so a report keeps its layout but cannot drive the terminal."""
    return _TERMINAL_UNSAFE.sub("\ufffd", text)


class TerminalText:
    """A text stream that passes every write through :func:`terminal_safe`."""

    def __init__(self, inner: TextIO) -> None:
        self.inner = inner

    def write(self, text: str) -> int:
        return self.inner.write(terminal_safe(text))

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:  # flush, fileno, isatty, encoding...
        return getattr(self.inner, name)


def json_text(obj: Any, *, indent: int | None = 2) -> str:
    """``obj`` as JSON that is exact data and safe on a terminal: every character that could drive
    one is written as its ``\\uXXXX`` escape (JSON already escapes the C0 controls)."""
    text = json.dumps(obj, indent=indent, ensure_ascii=False)
    return _TERMINAL_UNSAFE.sub(lambda m: json.dumps(m.group())[1:-1], text)  # astral: a surrogate pair
