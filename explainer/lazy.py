"""Lazy package faces: a package says which submodule holds each name it offers, and the
submodule is imported on first use. ``import explainer`` (every command, ``--help`` too) must
not pay for numpy, the call tree, the HTTP client or LangChain before a verb needs them."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def face(package: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: ``where`` maps each public name to its submodule."""

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{module}"), name)

    return __getattr__
