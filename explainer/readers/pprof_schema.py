"""Our own protobuf schema for pprof's ``profile.proto`` (field numbers are the format's facts).

Built at import time with ``descriptor_pb2`` so no ``protoc`` step is needed. Strings are
declared as ``bytes``: real profiles carry invalid UTF-8 and a ``string`` field would make the
whole decode fail. Unknown fields (newer pprof additions) are ignored by the runtime.
"""

from __future__ import annotations

from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

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

_FDP = descriptor_pb2.FieldDescriptorProto
_KINDS = {
    "m": _FDP.TYPE_MESSAGE,
    "b": _FDP.TYPE_BYTES,
    "i": _FDP.TYPE_INT64,
    "u": _FDP.TYPE_UINT64,
    "t": _FDP.TYPE_BOOL,
}


def _build() -> dict[str, Any]:
    file = descriptor_pb2.FileDescriptorProto(name="explainer_pprof.proto", package=_PACKAGE, syntax="proto3")
    for message, fields in SCHEMA.items():
        m = file.message_type.add(name=message)
        for name, number, kind, repeated, type_name in fields:
            f = m.field.add(name=name, number=number, type=_KINDS[kind])
            f.label = _FDP.LABEL_REPEATED if repeated else _FDP.LABEL_OPTIONAL
            if type_name:
                f.type_name = f".{_PACKAGE}.{type_name}"
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return {m: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{_PACKAGE}.{m}")) for m in SCHEMA}


MESSAGES = _build()
ProfileMessage: Any = MESSAGES["Profile"]
ProfileRawSamplesMessage: Any = MESSAGES["ProfileRawSamples"]
