"""Strict JSON for untrusted input: no NaN/Infinity, no duplicate keys, no recursion blow-ups."""

from __future__ import annotations

import json
from typing import Any

from explainer.errors import DecodeError


def _no_constants(name: str) -> Any:
    raise DecodeError(f"JSON contains {name}, which is not a number")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DecodeError(f"JSON object has the key {key[:40]!r} twice")
        out[key] = value
    return out


def loads(data: bytes | bytearray | str, *, what: str = "JSON") -> Any:
    try:
        return json.loads(data, parse_constant=_no_constants, object_pairs_hook=_unique_keys)
    except RecursionError as exc:
        raise DecodeError(f"{what} is nested too deeply to be a profile") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DecodeError(f"{what} does not parse: {exc}") from exc
    except ValueError as exc:  # e.g. integer strings longer than Python's digit limit
        raise DecodeError(f"{what} does not parse: {str(exc)[:120]}") from exc
