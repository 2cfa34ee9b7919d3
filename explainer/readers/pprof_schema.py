"""Our own protobuf schema for pprof's ``profile.proto`` (field numbers are the format's facts).

Built at import time, so no ``protoc`` step is needed: :data:`SCHEMA` is written out as a
serialized ``FileDescriptorProto`` by a few lines of wire encoding and handed to a descriptor
pool (``descriptor_pb2``, the descriptor messages themselves, costs more start-up than the
whole pprof schema). Strings are declared as ``bytes``: real profiles carry invalid UTF-8 and a
``string`` field would make the whole decode fail. Unknown fields (newer pprof additions) are
ignored by the runtime.
"""

from __future__ import annotations

from typing import Any

from google.protobuf import descriptor_pool, message_factory

_PACKAGE = "explainer.pprof"

# message -> [(field, number, kind, repeated, message type)]; kinds: m=message, b=bytes,
# i=int64, u=uint64, t=bool
SCHEMA: dict[str, list[tuple[str, int, str, bool, str]]] = {
    "Profile": [
        ("sample_type", 1, "m", True, "ValueType"),
        ("sample", 2, "m", True, "Sample"),
        ("mapping", 3, "m", True, "Mapping"),
        ("location", 4, "m", True, "Location"),
        ("function", 5, "m", True, "Function"),
        ("string_table", 6, "b", True, ""),
        ("drop_frames", 7, "i", False, ""),
        ("keep_frames", 8, "i", False, ""),
        ("time_nanos", 9, "i", False, ""),
        ("duration_nanos", 10, "i", False, ""),
        ("period_type", 11, "m", False, "ValueType"),
        ("period", 12, "i", False, ""),
        ("comment", 13, "i", True, ""),
        ("default_sample_type", 14, "i", False, ""),
    ],
    "ValueType": [("type", 1, "i", False, ""), ("unit", 2, "i", False, "")],
    "Sample": [
        ("location_id", 1, "u", True, ""),
        ("value", 2, "i", True, ""),
        ("label", 3, "m", True, "Label"),
    ],
    "Label": [
        ("key", 1, "i", False, ""),
        ("str", 2, "i", False, ""),
        ("num", 3, "i", False, ""),
        ("num_unit", 4, "i", False, ""),
    ],
    "Mapping": [
        ("id", 1, "u", False, ""),
        ("memory_start", 2, "u", False, ""),
        ("memory_limit", 3, "u", False, ""),
        ("file_offset", 4, "u", False, ""),
        ("filename", 5, "i", False, ""),
        ("build_id", 6, "i", False, ""),
        ("has_functions", 7, "t", False, ""),
        ("has_filenames", 8, "t", False, ""),
        ("has_line_numbers", 9, "t", False, ""),
        ("has_inline_frames", 10, "t", False, ""),
    ],
    "Location": [
        ("id", 1, "u", False, ""),
        ("mapping_id", 2, "u", False, ""),
        ("address", 3, "u", False, ""),
        ("line", 4, "m", True, "Line"),
        ("is_folded", 5, "t", False, ""),
    ],
    "Line": [("function_id", 1, "u", False, ""), ("line", 2, "i", False, "")],
    "Function": [
        ("id", 1, "u", False, ""),
        ("name", 2, "i", False, ""),
        ("system_name", 3, "i", False, ""),
        ("filename", 4, "i", False, ""),
        ("start_line", 5, "i", False, ""),
    ],
}

# The same Profile with samples left as raw bytes, for the compiled fold (explainer/_fold.c):
# decoding 500k Sample messages into Python objects costs more than the whole analysis.
SCHEMA["ProfileRawSamples"] = [("sample", 2, "b", True, "") if f[0] == "sample" else f for f in SCHEMA["Profile"]]

# descriptor.proto's numbers (FieldDescriptorProto.Type and .Label), by our kind letters
_TYPES = {"m": 11, "b": 12, "i": 3, "u": 4, "t": 8}
_OPTIONAL, _REPEATED = 1, 3


def _varint(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _tag(number: int, value: int | str | bytes) -> bytes:
    """One field on the wire: a varint for an int, else length-delimited."""
    if isinstance(value, int):
        return _varint(number << 3) + _varint(value)
    data = value.encode() if isinstance(value, str) else value
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def _field(name: str, number: int, kind: str, repeated: bool, type_name: str) -> bytes:
    # FieldDescriptorProto: name 1, number 3, label 4, type 5, type_name 6
    out = _tag(1, name) + _tag(3, number) + _tag(4, _REPEATED if repeated else _OPTIONAL) + _tag(5, _TYPES[kind])
    return out + (_tag(6, f".{_PACKAGE}.{type_name}") if type_name else b"")


def file_descriptor() -> bytes:
    """:data:`SCHEMA` as a serialized ``FileDescriptorProto`` (name 1, package 2, message_type 4,
    syntax 12; each DescriptorProto: name 1, field 2)."""
    out = _tag(1, "explainer_pprof.proto") + _tag(2, _PACKAGE)
    for message, fields in SCHEMA.items():
        out += _tag(4, _tag(1, message) + b"".join(_tag(2, _field(*f)) for f in fields))
    return out + _tag(12, "proto3")


def _build() -> dict[str, Any]:
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(file_descriptor())
    return {m: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{_PACKAGE}.{m}")) for m in SCHEMA}


MESSAGES = _build()
ProfileMessage: Any = MESSAGES["Profile"]
ProfileRawSamplesMessage: Any = MESSAGES["ProfileRawSamples"]
