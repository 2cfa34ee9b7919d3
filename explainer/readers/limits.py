"""Size caps, checked before and while inflating.

pprof itself never caps decompression; a 335-byte file can gzip-nest 100 MiB of zeros. We
inflate incrementally and stop the moment the output passes the cap, so memory stays near
the cap whatever the compression ratio.
"""

from __future__ import annotations

import zlib

from explainer.errors import DecodeError, SizeLimitError

DEFAULT_MAX_INPUT = 256 * 2**20
"""Largest input we read at all (compressed), 256 MiB."""

DEFAULT_MAX_DECOMPRESSED = 1024 * 2**20
"""Largest decompressed profile, 1 GiB (a 500k-stack GPU profile is about 65 MB)."""

GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 8 << 20  # inflate in 8 MiB steps: few calls, and never far past the cap


def check_input_size(data: bytes, limit: int = DEFAULT_MAX_INPUT) -> None:
    if len(data) > limit:
        raise SizeLimitError(f"input is {len(data):,} bytes, over the {limit:,}-byte limit")


def is_gzip(data: bytes) -> bool:
    return data[:2] == GZIP_MAGIC


def gunzip(data: bytes, limit: int = DEFAULT_MAX_DECOMPRESSED) -> bytes:
    """Inflate every gzip member of ``data`` (nested gzip too), never producing more than ``limit`` bytes."""
    check_input_size(data)
    layers = 0
    while is_gzip(data):
        layers += 1
        if layers > 4:
            raise DecodeError("decompressing profile: gzip nested more than 4 times")
        data = _inflate_members(data, limit)
    return data


def _inflate_members(data: bytes, limit: int) -> bytes:
    out = bytearray()
    rest = data
    while rest:
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        pending = rest
        try:
            while pending:
                budget = limit - len(out) + 1
                out += inflater.decompress(pending, min(_CHUNK, budget))
                if len(out) > limit:
                    raise SizeLimitError(f"decompressed profile is larger than the {limit:,}-byte limit")
                pending = inflater.unconsumed_tail
                if inflater.eof:
                    break
            if not inflater.eof:
                # drain what zlib still holds, still under the cap
                while not inflater.eof:
                    chunk = inflater.decompress(b"", min(_CHUNK, limit - len(out) + 1))
                    if not chunk:
                        break
                    out += chunk
                    if len(out) > limit:
                        raise SizeLimitError(f"decompressed profile is larger than the {limit:,}-byte limit")
        except zlib.error as exc:
            raise DecodeError(f"decompressing profile: {exc}") from exc
        if not inflater.eof:
            raise DecodeError("decompressing profile: gzip stream is truncated")
        rest = inflater.unused_data
        if rest and not is_gzip(rest):
            break  # trailing garbage after the last member: ignored, as gzip(1) does with a warning
    return bytes(out)
