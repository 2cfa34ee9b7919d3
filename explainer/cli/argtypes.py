"""Argument types shared by several verbs (kept free of heavy imports: ``--help`` loads them)."""

from __future__ import annotations

import argparse


def byte_count(text: str) -> int:
    """A size in bytes, at least 1: ``--max-size 0`` would refuse every input with a confusing error."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of bytes, at least 1, not {text[:20]!r}")
    return value
