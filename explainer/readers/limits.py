"""Size caps, checked while reading and while inflating.

pprof itself never caps decompression; a 335-byte file can gzip-nest 100 MiB of zeros. Every
layer of gzip is inflated as a stream (by ISA-L where its wheels exist, else zlib): the input is
fed to the inflater in small slices of one memoryview (so the unconsumed input is never copied
whole), nested layers are chained chunk by chunk (no intermediate layer is ever held), and only
the innermost output is collected, in one buffer that stops within one chunk of the cap. Memory
stays near the cap whatever the compression ratio.
"""

from __future__ import annotations

import importlib
import zlib
from collections.abc import Callable, Generator, Iterable, Iterator
from types import ModuleType
from typing import Any, Protocol

from explainer.errors import DecodeError, SizeLimitError

inflating: ModuleType = zlib
try:  # ISA-L inflates 2.5x faster than zlib (a 500k-stack profile: 0.11 s, not 0.27), with zlib's API
    from isal import isal_zlib

    inflating = isal_zlib
except ImportError:  # pragma: no cover - a platform without its wheels (see pyproject.toml)
    pass
_INFLATE_ERRORS: tuple[type[Exception], ...] = (zlib.error, inflating.error)

try:  # a buffer that is not zeroed first: a large file's read writes each byte once
    _read_buffer: Callable[[int], bytearray] = importlib.import_module("explainer._fold").read_buffer
except ImportError:  # pragma: no cover - depends on the build (the compiled fold is optional)
    _read_buffer = bytearray

Data = bytes | bytearray
"""What readers accept: the file reader and the inflater hand back bytearrays (no final copy)."""
Chunk = bytes | bytearray | memoryview

DEFAULT_MAX_INPUT = 256 * 2**20
"""Largest input we read at all (compressed), 256 MiB; never more than the decompressed cap."""

DEFAULT_MAX_DECOMPRESSED = 384 * 2**20
"""Largest decompressed profile, 384 MiB: six times a 500k-stack GPU profile (about 65 MB), and
Pyroscope itself caps an uncompressed profile at 4 MiB. The cap is what a bomb can cost in memory."""

GZIP_MAGIC = b"\x1f\x8b"
MAX_GZIP_LAYERS = 4
_IN_CHUNK = 64 << 10  # compressed bytes fed to zlib per call: its copy of the unconsumed tail stays small
_OUT_CHUNK = 1 << 20  # inflated bytes per call: the buffer never passes the cap by more than this
_READ_CHUNK = 1 << 20
_GZIP_WBITS = 16 + zlib.MAX_WBITS


class Readable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...

    def readinto(self, buffer: Any, /) -> int | None: ...


def input_limit(max_input: int, max_decompressed: int) -> int:
    """The raw-byte cap: the input cap, and never more than the decompressed cap (``--max-size``)."""
    return min(max_input, max_decompressed)


def check_input_size(data: Data, limit: int = DEFAULT_MAX_INPUT) -> None:
    if len(data) > limit:
        raise SizeLimitError(f"input is {len(data):,} bytes, over the {limit:,}-byte limit")


def is_gzip(data: Data) -> bool:
    return data[:2] == GZIP_MAGIC


def read_capped(stream: Readable, limit: int, what: str, size_hint: int = 0) -> bytearray:
    """Every byte of ``stream`` in one buffer, failing as soon as it holds more than ``limit``.

    ``size_hint`` (a regular file's size) lets the buffer be allocated once and filled in place;
    without it (a pipe) the buffer grows by appending, which never holds two copies.
    """
    buf = _read_buffer(min(size_hint, limit) + 1)  # one byte more than expected: a file that grew shows
    filled = 0
    with memoryview(buf) as view:
        while filled < len(view) and (n := stream.readinto(view[filled:])):
            filled += n
    complete = filled < len(buf)  # the end came before the buffer was full
    del buf[filled:]
    while not complete and len(buf) <= limit:
        piece = stream.read(min(_READ_CHUNK, limit + 1 - len(buf)))
        if not piece:
            break
        buf += piece
    if len(buf) > limit:
        raise SizeLimitError(f"{what} is larger than the {limit:,}-byte limit")
    return buf


def gunzip(data: Data, limit: int = DEFAULT_MAX_DECOMPRESSED) -> Data:
    """Inflate every gzip member of ``data`` (nested gzip too), never producing more than ``limit`` bytes."""
    whole = _one_member(data, limit)
    if whole is not None:
        return whole
    stream: Iterator[Chunk] = _slices(data)
    head = data[:2]
    layers = 0
    while head == GZIP_MAGIC:
        layers += 1
        if layers > MAX_GZIP_LAYERS:
            raise DecodeError(f"decompressing profile: gzip nested more than {MAX_GZIP_LAYERS} times")
        stream = _capped(_inflate(stream), limit)
        first, stream = _peek(stream, 2)
        head = first[:2]
    out = bytearray()
    for piece in stream:
        out += piece
    return out


def head(data: Data, size: int = 1 << 16) -> bytes:
    """At most the first ``size`` bytes of ``data`` as inflated (through every gzip layer), without
    inflating the rest: enough to sniff the format before the whole read. A damaged stream gives what
    came before the damage (the full inflate reports it)."""
    src: Data = data
    room = 4 * size  # a layer with gzip inside must give its inner layer enough to start from
    for _ in range(MAX_GZIP_LAYERS):
        if not is_gzip(src):
            break
        inflater = inflating.decompressobj(_GZIP_WBITS)
        out = bytearray()
        try:
            for piece in _slices(src):  # input in small slices: the unconsumed tail is never the whole file
                out += inflater.decompress(piece, room - len(out))
                if len(out) >= room or inflater.eof:
                    break
        except _INFLATE_ERRORS:
            pass
        src = out
    return bytes(src[:size])


_TRUSTED_RATIO = 64
"""The largest compression ratio whose stated size :func:`_one_member` believes. Profiles gzip 2 to
10 times; a bomb's ratio is in the hundreds or thousands, so its trailer is never trusted."""


def _one_member(data: Data, limit: int) -> bytes | None:
    """The usual input in one call: one gzip member, inflated into a buffer of the size its trailer
    states (ISIZE) instead of a megabyte at a time into a growing one (a 500k-stack profile: about
    30 ms less, and no spare capacity left in the result). None when the input is anything else
    (several members, nested gzip, trailing bytes, a wrong or implausible size, a damaged stream):
    the streaming path then reads it and says what is wrong. The output is bounded by the stated
    size, itself at most ``_TRUSTED_RATIO`` times the input and never over ``limit``.
    """
    if len(data) < 18 or data[:2] != GZIP_MAGIC:
        return None
    size = int.from_bytes(data[-4:], "little")
    if not 0 < size <= min(limit, _TRUSTED_RATIO * len(data)):
        return None
    inflater = inflating.decompressobj(_GZIP_WBITS)
    try:
        out: bytes = inflater.decompress(data, size + 1)
    except _INFLATE_ERRORS:
        return None
    if not inflater.eof or inflater.unused_data or len(out) != size or out[:2] == GZIP_MAGIC:
        return None
    return out


def _slices(data: Data) -> Iterator[memoryview]:
    view = memoryview(data)  # slices share the buffer: nothing is copied here
    for start in range(0, len(view), _IN_CHUNK):
        yield view[start : start + _IN_CHUNK]


def _peek(stream: Iterator[Chunk], n: int) -> tuple[bytes, Iterator[Chunk]]:
    """The first ``n`` bytes of ``stream`` (fewer at its end), and the stream with them put back."""
    taken: list[Chunk] = []
    got = 0
    for piece in stream:
        taken.append(piece)
        got += len(piece)
        if got >= n:
            break
    return b"".join(taken)[:n], _prepend(taken, stream)


def _prepend(taken: list[Chunk], stream: Iterator[Chunk]) -> Iterator[Chunk]:
    while taken:
        yield taken.pop(0)  # popped, not iterated: a peeked chunk is not kept alive to the end
    yield from stream


def _capped(stream: Iterable[Chunk], limit: int) -> Iterator[Chunk]:
    """``stream`` unchanged, failing once it has produced more than ``limit`` bytes (every layer counts)."""
    total = 0
    for piece in stream:
        total += len(piece)
        if total > limit:
            raise SizeLimitError(f"decompressed profile is larger than the {limit:,}-byte limit")
        yield piece


class GzipStream:
    """One gzip layer, fed chunk by chunk: every member in turn, in bounded output steps.

    Bytes after the last member are ignored, as gzip(1) does (with a warning). Used for files
    (through :func:`gunzip`) and for HTTP bodies (``explainer.pyroscope.wire``) alike.
    """

    def __init__(self) -> None:
        self._inflater = inflating.decompressobj(_GZIP_WBITS)
        self._between = b""  # bytes after a member's end: the next member's header, or trailing garbage
        self._ignoring = False

    def feed(self, chunk: Chunk) -> Iterator[bytes]:
        data: Chunk = chunk
        try:
            while data and not self._ignoring:
                if self._inflater.eof:
                    self._between += data
                    if len(self._between) < 2:
                        return
                    if self._between[:2] != GZIP_MAGIC:
                        self._ignoring = True
                        return
                    self._inflater, data, self._between = inflating.decompressobj(_GZIP_WBITS), self._between, b""
                data = yield from _inflate_chunk(self._inflater, data)
        except _INFLATE_ERRORS as exc:
            raise DecodeError(f"decompressing profile: {exc}") from exc

    @property
    def complete(self) -> bool:
        """At least one member, and the last one ended (not cut short)."""
        return bool(self._inflater.eof)

    def finish(self) -> None:
        if not self.complete:
            raise DecodeError("decompressing profile: gzip stream is truncated")


def _inflate(chunks: Iterator[Chunk]) -> Iterator[bytes]:
    stream = GzipStream()
    for chunk in chunks:
        yield from stream.feed(chunk)
    stream.finish()


def _inflate_chunk(inflater: Any, data: Chunk) -> Generator[bytes, None, bytes]:
    """Feed ``data`` to ``inflater`` in bounded output steps; returns what follows the member's end."""
    while True:
        piece: bytes = inflater.decompress(data, _OUT_CHUNK)
        if piece:
            yield piece
        if inflater.eof:
            rest: bytes = inflater.unused_data
            return rest
        data = inflater.unconsumed_tail
        if not data and len(piece) < _OUT_CHUNK:
            return b""  # zlib needs more input
