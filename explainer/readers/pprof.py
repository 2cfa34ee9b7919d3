"""pprof protobuf (gzip or raw) into the profile model.

Decode with the upb runtime and our own schema, then validate everything we index with
(ids, string indexes, value counts), naming the field on failure, then flatten samples into
root-first frame arrays. Locations with several lines are inlined calls: line[0] is the
innermost frame. A location with no function is named after its mapping.

With the compiled fold (explainer/_fold.c) protobuf parses only the profile's tables and the
samples, nearly all of a large profile's bytes, are decoded where they lie in the input; without
it, numpy flattens the decoded Sample messages. Both give the same arrays (tests check).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from google.protobuf.message import DecodeError as ProtobufDecodeError

from explainer.analysis.functions import preset_stats
from explainer.errors import DecodeError, SampleTypeError, SizeLimitError, ValidationError
from explainer.model import (
    DEFAULT_MAX_DEPTH,
    ELIDED_PREFIX,
    Profile,
    SampleType,
    Source,
    Truncation,
    frame_dtype,
    from_arrays,
)
from explainer.readers.cost import CostBudget
from explainer.readers.pprof_schema import ProfileMessage

try:  # optional compiled fold; the numpy path below gives the same arrays
    from explainer import _fold  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - depends on the build
    _fold = None


def parse_message(data: bytes | bytearray | memoryview) -> Any:
    message = ProfileMessage()
    try:
        message.ParseFromString(data)
    except (ProtobufDecodeError, RuntimeError, ValueError) as exc:
        raise DecodeError(f"malformed profile: {exc}") from exc
    return message


class _Strings:
    def __init__(self, table: Sequence[bytes]) -> None:
        if not table:
            raise ValidationError("is empty; it must start with the empty string", field="string_table")
        if table[0] != b"":
            raise ValidationError("entry 0 must be the empty string", field="string_table[0]")
        self.table = table
        self._cache: dict[int, str] = {}

    def __call__(self, index: int, field: str) -> str:
        text = self._cache.get(index)
        if text is None:
            if not 0 <= index < len(self.table):
                raise ValidationError(f"string index {index} is out of range (0..{len(self.table) - 1})", field=field)
            text = self._cache[index] = self.table[index].decode("utf-8", errors="replace")
        return text


def sample_types(message: Any) -> list[SampleType]:
    strings = _Strings(message.string_table)
    return [
        SampleType(strings(st.type, f"sample_type[{i}].type"), strings(st.unit, f"sample_type[{i}].unit"))
        for i, st in enumerate(message.sample_type)
    ]


def choose_sample_type(types: list[SampleType], default_name: str, wanted: str | None) -> int:
    """Index of the sample type to read: ``wanted`` by name (or index), else the profile's default, else the last."""
    if not types:
        raise ValidationError("the profile declares no sample types", field="sample_type")
    names = [t.type for t in types]
    if wanted:
        if wanted in names:
            return names.index(wanted)
        if wanted.isdigit() and int(wanted) < len(types):
            return int(wanted)
        listed = ", ".join(str(t) for t in types)
        raise SampleTypeError(f"sample type {wanted!r} is not in this profile; it has: {listed}")
    if default_name and default_name in names:
        return names.index(default_name)
    return len(types) - 1


def _unique_ids(items: Any, field: str) -> dict[int, int]:
    index: dict[int, int] = {}
    for i, item in enumerate(items):
        if item.id == 0:
            raise ValidationError("id 0 is reserved", field=f"{field}[{i}].id")
        if item.id in index:
            raise ValidationError(f"id {item.id} is used twice", field=f"{field}[{i}].id")
        index[item.id] = i
    return index


def _location_frames(message: Any, strings: _Strings) -> tuple[dict[int, int], list[str], list[list[int]]]:
    """For every location: the frame names it stands for, caller first (inlined calls expanded)."""
    functions = _unique_ids(message.function, "function")
    mappings = _unique_ids(message.mapping, "mapping")
    locations = _unique_ids(message.location, "location")
    names: list[str] = []
    name_ids: dict[str, int] = {}

    def intern(name: str) -> int:
        fid = name_ids.get(name)
        if fid is None:
            fid = name_ids[name] = len(names)
            names.append(name)
        return fid

    func_names = {
        f.id: strings(f.name, f"function[{i}].name") or strings(f.system_name, f"function[{i}].system_name")
        for i, f in enumerate(message.function)
    }
    loc_frames: list[list[int]] = []
    for i, loc in enumerate(message.location):
        frames: list[int] = []
        for j, line in enumerate(reversed(loc.line)):  # caller first
            if line.function_id not in functions:
                field = f"location[{i}].line[{len(loc.line) - 1 - j}].function_id"
                raise ValidationError(f"function {line.function_id} does not exist", field=field)
            frames.append(intern(func_names[line.function_id] or _unsymbolized(message, mappings, loc, strings)))
        if not frames:
            if loc.mapping_id and loc.mapping_id not in mappings:
                raise ValidationError(f"mapping {loc.mapping_id} does not exist", field=f"location[{i}].mapping_id")
            frames.append(intern(_unsymbolized(message, mappings, loc, strings)))
        loc_frames.append(frames)
    return locations, names, loc_frames


def _unsymbolized(message: Any, mappings: dict[int, int], loc: Any, strings: _Strings) -> str:
    """Native code with no symbol is named after its mapping, as pprof does: ``[libcuda.so.1]``.

    The address is dropped, so every unsymbolized location of one library is one function (at
    pprof's default "functions" granularity); no mapping, or one with no file name, is ``<unknown>``.
    """
    if loc.mapping_id in mappings:
        mapping = message.mapping[mappings[loc.mapping_id]]
        filename = os.path.basename(strings(mapping.filename, "mapping.filename"))
        if filename:
            return f"[{filename}]"
    return "<unknown>"


def read_pprof_message(
    message: Any,
    *,
    sample_type: str | None = None,
    location: str = "",
    max_depth: int = DEFAULT_MAX_DEPTH,
    raw: RawSamples | None = None,
    budget: CostBudget | None = None,
) -> Profile:
    """The profile of a parsed message; its samples are ``raw``'s when given (the compiled path)."""
    budget = budget or CostBudget()
    # before anything is built per type or per function: these tables may be millions long in a small file
    budget.check("max_sample_types", len(message.sample_type))
    budget.check("max_values", len(message.sample_type) * (raw.count if raw is not None else len(message.sample)))
    budget.check("max_names", len(message.function))
    strings = _Strings(message.string_table)
    types = sample_types(message)
    default_name = strings(message.default_sample_type, "default_sample_type") if message.default_sample_type else ""
    k = choose_sample_type(types, default_name, sample_type)
    locations, names, loc_frames = _location_frames(message, strings)

    budget.check("max_names", len(names))  # unsymbolized locations and inlined lines name frames too
    sums: tuple[np.ndarray, np.ndarray] | None = None
    if raw is not None:
        offsets, frames, values, sums = _fold_raw(
            raw, k, len(types), locations, loc_frames, len(names), budget.max_frames
        )
    else:
        offsets, frames, values = _fold_messages(message, k, len(types), locations, loc_frames, budget.max_frames)
    profile = from_arrays(
        names,
        offsets,
        frames,
        values,
        types[k],
        sample_types=tuple(types),
        period=int(message.period),
        period_type=(
            SampleType(
                strings(message.period_type.type, "period_type.type"),
                strings(message.period_type.unit, "period_type.unit"),
            )
            if message.HasField("period_type")
            else None
        ),
        source=Source("file", location, "pprof"),
        duration_ns=int(message.duration_nanos),
        time_ns=int(message.time_nanos),
    )
    capped = _cap_depth(profile, max_depth)
    if sums is not None and capped is profile:  # eliding frames would change the totals
        preset_stats(profile, *sums)
    return capped


@dataclass(frozen=True, slots=True)
class RawSamples:
    """A serialized Profile whose Sample records the compiled fold reads where they lie."""

    data: bytes | bytearray | memoryview
    count: int


MAX_FRAMES_PER_BYTE = 8
"""Frames the samples may expand to, per byte of profile: each location id takes at least a byte,
and inlined lines multiply them. Real profiles stay under one (0.37 at most in the corpus, 0.76 in
the vLLM generator's); a few locations of a million lines each, named by every sample, would be
a bomb of gigabytes from kilobytes."""


SPLIT_FOLD_BYTES = 16 << 20
"""Profiles this large have their samples decoded on two threads, the second half on a thread of
its own (the compiled fold's K(fold)). On its own, cut from the 500k bench profile on two idle cores,
the split fold takes 0.6-0.7x the serial one's time from 4 MiB up (8 MiB: 13 ms against 20 ms; what
it adds, a thread, a scan to the middle record and the join, is about a millisecond). But `analyze`
gains only from about 16 MiB (paired runs against the serial fold: 8 MiB 1.03-1.04x, 16 MiB 0.98-1.0x,
24 MiB 0.91x, 32 MiB 0.85x, 500k stacks 0.82-0.89x): on a shorter read the CLI's warm-up thread
(cli/warmup.py) is still importing on the second core while the samples are decoded."""


def split_fold_bytes() -> int:
    """The least profile size the compiled fold decodes on two threads; -1 (never) with one usable CPU."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return SPLIT_FOLD_BYTES if usable >= 2 else -1


def frame_budget(profile_bytes: int) -> int:
    return MAX_FRAMES_PER_BYTE * profile_bytes + 4096


def _too_many_frames(max_frames: int) -> SizeLimitError:
    return SizeLimitError(
        f"the samples expand to more than {max_frames:,} frames ({MAX_FRAMES_PER_BYTE} per byte of the "
        "profile): its locations hold very many inlined lines"
    )


_FOLD_ERRORS = {
    "profile": ("sample[{i}]", "is not a valid Sample message, or the profile is cut short"),
    "sample": ("sample[{i}]", "is not a valid Sample message"),
    "value": ("sample[{i}].value", "has a value count that differs from the {n} sample types"),
    "negative": ("sample[{i}].value", "negative value"),
    "location": ("sample[{i}].location_id", "refers to a location that does not exist"),
}


def _fold_raw(
    raw: RawSamples,
    k: int,
    n_types: int,
    locations: dict[int, int],
    loc_frames: list[list[int]],
    n_names: int,
    bound: int = 2**62,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray] | None]:
    """The compiled path: the samples are decoded from the serialized profile, in C, with each name's
    self and total (pprof's flat and cum) summed as the frames are written."""
    max_id = max(locations, default=0)
    if max_id > 4 * len(locations) + 1_000_000:  # sparse ids: a dense lookup table would be wasteful
        return *_fold_messages(parse_message(raw.data), k, n_types, locations, loc_frames, bound), None
    lookup = np.full(max_id + 1, -1, dtype=np.int32)
    for loc_id, index in locations.items():
        lookup[loc_id] = index
    per_loc = np.fromiter((len(f) for f in loc_frames), dtype=np.int64, count=len(loc_frames))
    loc_start = np.zeros(len(loc_frames) + 1, dtype=np.int64)
    np.cumsum(per_loc, out=loc_start[1:])
    flat = np.fromiter((x for f in loc_frames for x in f), dtype=np.int32, count=int(loc_start[-1]))
    dtype = frame_dtype(n_names)
    max_frames = min(frame_budget(len(raw.data)), bound)
    tables = (lookup, loc_start, flat, dtype.itemsize, max_frames, n_names)
    out = _fold.fold_samples(raw.data, raw.count, k, n_types, *tables, split_fold_bytes())
    if len(out) == 3 and isinstance(out[0], str):
        kind, i, _ = out
        if kind == "frames":
            if max_frames == bound:
                CostBudget(max_frames=bound).check("max_frames", bound + 1, at_least=True)
            raise _too_many_frames(max_frames)
        field, text = _FOLD_ERRORS[kind]
        raise ValidationError(text.format(n=n_types), field=field.format(i=i))
    offsets, frames, values, self_values, total_values = out
    return (
        np.frombuffer(offsets, dtype=np.int64),
        np.frombuffer(frames, dtype=dtype),
        np.frombuffer(values, dtype=np.int64),
        (np.frombuffer(self_values, dtype=np.int64), np.frombuffer(total_values, dtype=np.int64)),
    )


def _fold_messages(
    message: Any, k: int, n_types: int, locations: dict[int, int], loc_frames: list[list[int]], bound: int = 2**62
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The numpy path over decoded Sample messages."""
    max_frames = min(frame_budget(message.ByteSize()), bound)
    samples = message.sample
    lengths = np.fromiter((len(s.location_id) for s in samples), dtype=np.int64, count=len(samples))
    values = np.empty(len(samples), dtype=np.int64)
    flat_ids: list[int] = []
    for i, s in enumerate(samples):
        if len(s.value) != n_types:
            raise ValidationError(
                f"has a value count that differs from the {n_types} sample types", field=f"sample[{i}].value"
            )
        values[i] = s.value[k]
        flat_ids.extend(s.location_id)
    if not samples:
        return np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32), values
    if len(values) and int(values.min()) < 0:
        bad = int(np.argmax(values < 0))
        raise ValidationError(f"negative value {int(values[bad])}", field=f"sample[{bad}].value")
    try:
        loc_index = np.fromiter((locations[i] for i in flat_ids), dtype=np.int64, count=len(flat_ids))
    except KeyError as exc:
        owner = int(np.searchsorted(np.cumsum(lengths), flat_ids.index(exc.args[0]), side="right"))
        raise ValidationError(
            f"refers to location {exc.args[0]}, which does not exist", field=f"sample[{owner}].location_id"
        ) from exc
    offsets, frames = _expand(lengths, loc_index, loc_frames, max_frames)
    return offsets, frames, values


def _expand(
    lengths: np.ndarray, loc_index: np.ndarray, loc_frames: list[list[int]], max_frames: int
) -> tuple[np.ndarray, np.ndarray]:
    """Samples list locations leaf first; the model wants frames root first, inlined calls expanded."""
    n = len(lengths)
    sample_offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=sample_offsets[1:])
    # reverse each sample's location list: position p in sample s maps to start + end - 1 - p
    owner = np.repeat(np.arange(n, dtype=np.int64), lengths)
    pos = np.arange(len(loc_index), dtype=np.int64)
    reversed_locs = loc_index[sample_offsets[owner] + sample_offsets[owner + 1] - 1 - pos] if len(pos) else loc_index
    per_loc = np.fromiter((len(f) for f in loc_frames), dtype=np.int64, count=len(loc_frames))
    if len(per_loc) and per_loc.max(initial=1) == 1:
        table = np.fromiter((f[0] for f in loc_frames), dtype=np.int32, count=len(loc_frames))
        return sample_offsets, table[reversed_locs]
    flat = np.fromiter((x for f in loc_frames for x in f), dtype=np.int32)
    loc_start = np.zeros(len(loc_frames) + 1, dtype=np.int64)
    np.cumsum(per_loc, out=loc_start[1:])
    counts = per_loc[reversed_locs]
    if int(counts.sum()) > max_frames:
        raise _too_many_frames(max_frames)
    frame_owner = np.repeat(np.arange(len(reversed_locs), dtype=np.int64), counts)
    out_offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=out_offsets[1:])
    within = np.arange(out_offsets[-1], dtype=np.int64) - out_offsets[frame_owner]
    frames = flat[loc_start[reversed_locs][frame_owner] + within]
    per_sample = np.add.reduceat(counts, sample_offsets[:-1]) if n and len(counts) else np.zeros(n, dtype=np.int64)
    per_sample = np.where(lengths > 0, per_sample, 0)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(per_sample, out=offsets[1:])
    return offsets, frames


def _cap_depth(profile: Profile, max_depth: int) -> Profile:
    lengths = np.diff(profile.offsets)
    if not len(lengths) or int(lengths.max()) <= max_depth:
        return profile
    from explainer.model import ProfileBuilder

    builder = ProfileBuilder(profile.sample_type, max_depth=max_depth)
    for name in profile.names:
        builder.intern(name)
    for i in range(profile.stack_count):
        lo, hi = int(profile.offsets[i]), int(profile.offsets[i + 1])
        builder.add_ids(profile.frames[lo:hi].tolist(), int(profile.values[i]))
    assert ELIDED_PREFIX
    return builder.build(
        sample_types=profile.sample_types,
        period=profile.period,
        period_type=profile.period_type,
        source=profile.source,
        duration_ns=profile.duration_ns,
        time_ns=profile.time_ns,
        truncation=Truncation(dropped_samples=profile.truncation.dropped_samples),
    )


def read_pprof(
    data: bytes | bytearray, *, sample_type: str | None = None, location: str = "", budget: CostBudget | None = None
) -> Profile:
    """``data`` must already be decompressed (see :func:`explainer.readers.read_bytes`).

    With the compiled fold, protobuf parses only the profile's tables: the samples (nearly all
    of a large profile's bytes) are decoded in place, never copied into messages.
    """
    if _fold is None:
        return read_pprof_message(parse_message(data), sample_type=sample_type, location=location, budget=budget)
    apart = _fold.samples_apart(data)
    if isinstance(apart[0], str):
        raise DecodeError("malformed profile: a field is cut short or has an unknown wire type")
    tables, count = apart
    message = parse_message(tables)
    raw = RawSamples(data, count)
    return read_pprof_message(message, sample_type=sample_type, location=location, raw=raw, budget=budget)
