"""Just enough of the protobuf wire format for Connect's binary codec (``application/proto``).

A request is a handful of strings and integers, so it is written here by hand rather than through
generated querier classes; an answer is either the serialized ``google.v1.Profile`` itself
(``SelectMergeProfile``) or that profile two messages deep (``SelectMergeStacktraces`` with
``format=PROFILE_FORMAT_PPROF``: ``pprof[5].profile[1]``), which is found by walking the outer
fields' tags and lengths: the profile's bytes are never decoded or copied here.
"""

from __future__ import annotations

from collections.abc import Iterator

from explainer.errors import DecodeError

Field = tuple[int, str | int]  # (field number, a string or an int64/enum value); empty or 0 is left out, as proto3 does

PPROF_FORMAT = 4  # ProfileFormat.PROFILE_FORMAT_PPROF (Pyroscope after 1.21)
_VARINT, _I64, _LEN, _I32 = 0, 1, 2, 5


def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1  # negative int64 is ten bytes of two's complement
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def encode(fields: list[Field]) -> bytes:
    """One message: strings as length-delimited fields, ints as varints, in the order given."""
    out = bytearray()
    for number, value in fields:
        if isinstance(value, str):
            if value:
                data = value.encode("utf-8")
                out += _varint(number << 3 | _LEN) + _varint(len(data)) + data
        elif value:
            out += _varint(number << 3 | _VARINT) + _varint(value)
    return bytes(out)


def _read_varint(data: bytes | bytearray | memoryview, pos: int, end: int) -> tuple[int, int]:
    value = shift = 0
    while pos < end and shift < 70:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7
    raise DecodeError("malformed protobuf: a varint is cut short")


def fields(
    data: bytes | bytearray | memoryview, start: int = 0, end: int | None = None
) -> Iterator[tuple[int, int, int]]:
    """``(field number, start, end)`` of each length-delimited field in ``data[start:end]``; other
    wire types are skipped. Raises :class:`DecodeError` when a length runs past the end."""
    pos, stop = start, len(data) if end is None else end
    while pos < stop:
        key, pos = _read_varint(data, pos, stop)
        number, wire_type = key >> 3, key & 7
        if wire_type == _VARINT:
            _, pos = _read_varint(data, pos, stop)
            continue
        size = {_I64: 8, _I32: 4}.get(wire_type)
        if wire_type == _LEN:
            size, pos = _read_varint(data, pos, stop)
            if pos + size <= stop:
                yield number, pos, pos + size
        elif size is None:
            raise DecodeError(f"malformed protobuf: wire type {wire_type} of field {number}")
        if pos + size > stop:
            raise DecodeError(f"malformed protobuf: field {number} runs past the end")
        pos += size


def nested(data: bytes | bytearray | memoryview, path: tuple[int, ...]) -> tuple[int, int] | None:
    """Where the message at ``path`` (field numbers, outermost first) lies in ``data``; None when a
    field on the path is absent. A field sent twice would have to be merged; servers send each once,
    so that is refused rather than guessed."""
    start, end = 0, len(data)
    for number in path:
        found = None
        for n, a, b in fields(data, start, end):
            if n == number:
                if found is not None:
                    raise DecodeError(f"malformed answer: field {number} appears twice")
                found = (a, b)
        if found is None:
            return None
        start, end = found
    return start, end
