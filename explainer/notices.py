"""One-line warnings to the person running a command, each said once per process.

A warning is not an error: the command goes on. The CLI points :data:`sink` at its stderr; the
app and the MCP server leave it at ``sys.stderr`` (their log). Text is cleaned by the caller.
"""

from __future__ import annotations

import sys
import threading
from typing import TextIO

sink: TextIO | None = None  # None: sys.stderr at the time of the warning
_said: set[str] = set()
_lock = threading.Lock()


def warn_once(key: str, text: str) -> bool:
    """Write ``explainer: warning: TEXT`` unless ``key`` was warned about already; True if written."""
    with _lock:
        if key in _said:
            return False
        _said.add(key)
    stream = sink if sink is not None else sys.stderr
    stream.write(f"explainer: warning: {' '.join(text.split())}\n")
    return True


def forget() -> None:
    """Say every warning again (each in-process CLI run starts fresh)."""
    with _lock:
        _said.clear()
