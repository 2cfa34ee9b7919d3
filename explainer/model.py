"""The one profile model every reader produces.

A profile is a set of distinct call stacks, each with one value in the chosen sample type.
Stacks are stored root-first in compressed arrays (``offsets`` into ``frames``), frames are
indexes into an interned table of function names. This keeps every number exact for
profiles of millions of frames (a node-per-prefix call tree of a 500k-stack GPU profile has
tens of millions of nodes), while the call tree a person looks at is derived from it with a
stated node budget (``explainer.analysis.tree``).

Only :class:`ProfileBuilder` mutates; a built :class:`Profile` is frozen and its arrays are
read-only.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import numpy as np
import numpy.typing as npt

from explainer.frame_names import ELIDED_PREFIX as ELIDED_PREFIX  # the model's names too: callers import them
from explainer.frame_names import OTHER as OTHER  # from here

T = TypeVar("T")
IntArray = npt.NDArray[np.int64]
FrameArray = npt.NDArray[np.integer[Any]]  # uint16 or int32: see frame_dtype


DEFAULT_MAX_DEPTH = 4096

NARROW_NAMES = 65_535
"""Up to this many names, frames are uint16: half the memory of int32, and half the memory
traffic of every pass over a large profile (a 500k-stack GPU profile has 40M frames and 4k names)."""


def frame_dtype(n_names: int) -> np.dtype[np.uint16] | np.dtype[np.int32]:
    """The narrowest frame type that holds every id below ``n_names`` (and ``n_names`` itself, a
    sentinel some analyses use)."""
    return np.dtype(np.uint16) if n_names <= NARROW_NAMES else np.dtype(np.int32)


@dataclass(frozen=True, slots=True)
class SampleType:
    """What the values count, e.g. ``alloc_space``/``bytes`` or ``cpu``/``nanoseconds``."""

    type: str
    unit: str

    def __str__(self) -> str:
        return f"{self.type}/{self.unit}"


@dataclass(frozen=True, slots=True)
class Source:
    """Where a profile came from, for the report's scope and reproducibility lines."""

    kind: str  # "file", "pyroscope", "upload", "demo"
    location: str  # a path, a file name or a server URL (never with credentials)
    format: str  # "pprof", "flamebearer", "connect-flamegraph", "folded", ...
    query: str = ""  # for servers: profile type, selector and window, for people to read
    digest: str = ""  # sha256 of the input bytes, for reproducibility
    profile_type: str = ""  # for servers: the profile type ID queried (the window is time_ns/duration_ns)
    selector: str = ""  # for servers: the label selector queried
    note: str = ""  # how the answer was obtained when that changes what it means (e.g. refetched in full)


@dataclass(frozen=True, slots=True)
class Truncation:
    """What the input (or our reading of it) left out, so every report can say so."""

    other_value: int = 0  # value held by Pyroscope ``other`` nodes (merged small subtrees)
    other_nodes: int = 0
    max_nodes: int = 0  # the node budget a server applied, when known
    elided_stacks: int = 0  # stacks deeper than the depth cap, middle frames elided
    max_depth: int = 0  # the depth cap that applied
    skipped_lines: int = 0  # folded input: lines that were not ``stack count``
    dropped_samples: int = 0  # samples with no frames or zero value

    @property
    def any(self) -> bool:
        return bool(self.other_nodes or self.elided_stacks or self.skipped_lines)


@dataclass(frozen=True, eq=False)
class Profile:
    """An immutable profile: interned function names and distinct stacks with values."""

    names: tuple[str, ...]
    offsets: IntArray  # len = stacks + 1; stack i is frames[offsets[i]:offsets[i+1]]
    frames: FrameArray  # root first, indexes into names (uint16 up to NARROW_NAMES names, else int32)
    values: IntArray  # one per stack, >= 0, in ``sample_type.unit``
    sample_type: SampleType
    sample_types: tuple[SampleType, ...] = ()
    period: int = 0
    period_type: SampleType | None = None
    labels: tuple[tuple[str, str], ...] = ()
    source: Source = field(default_factory=lambda: Source("memory", "", "none"))
    truncation: Truncation = field(default_factory=Truncation)
    duration_ns: int = 0
    time_ns: int = 0

    @property
    def unit(self) -> str:
        return self.sample_type.unit

    @functools.cached_property
    def total(self) -> int:
        """The grand total: the sum of every stack's value (pprof's "total"). Kept once worked out:
        the values are read-only, and every share of a report divides by it (a large profile's
        analysis asked for it about 170 times, each a pass over every stack's value)."""
        return int(self.values.sum())

    @property
    def stack_count(self) -> int:
        return len(self.values)

    def stack(self, i: int) -> tuple[str, ...]:
        """Stack ``i`` as names, root first."""
        lo, hi = int(self.offsets[i]), int(self.offsets[i + 1])
        return tuple(self.names[f] for f in self.frames[lo:hi])

    def stacks(self) -> Iterable[tuple[tuple[str, ...], int]]:
        """Every (stack, value) pair, root first; for small profiles and tests."""
        for i in range(self.stack_count):
            yield self.stack(i), int(self.values[i])

    def function_id(self, name: str) -> int | None:
        try:
            return self.names.index(name)
        except ValueError:
            return None


class PerProfile(Generic[T]):
    """``fn(profile)`` worked out once per profile object and forgotten with it: a profile is
    immutable, so what is derived from it cannot change (the summary, the reading, the reports
    and the chat ask for the same attribution, sites and semantics)."""

    def __init__(self, fn: Callable[[Profile], T]) -> None:
        self._fn = fn
        self._known: weakref.WeakKeyDictionary[Profile, T] = weakref.WeakKeyDictionary()
        functools.update_wrapper(self, fn)

    def __call__(self, profile: Profile) -> T:
        if profile in self._known:
            return self._known[profile]
        value = self._known[profile] = self._fn(profile)
        return value

    def forget(self, profile: Profile) -> None:
        """Work it out again next time (for tests that compare two ways of computing it)."""
        self._known.pop(profile, None)


def once_per_profile(fn: Callable[[Profile], T]) -> PerProfile[T]:
    return PerProfile(fn)


def _frozen(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


def from_arrays(
    names: Sequence[str],
    offsets: npt.ArrayLike,
    frames: npt.ArrayLike,
    values: npt.ArrayLike,
    sample_type: SampleType,
    **meta: object,
) -> Profile:
    """Build a profile from ready arrays, dropping stacks that are empty or worth zero.

    Identical stacks may appear more than once (pprof samples that differ only in labels);
    every analysis sums them, so they are kept as they are: merging would cost a pass over
    every frame of a large profile for no change in any number.
    """
    # contiguous: the compiled passes read them as flat buffers
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    frames = np.ascontiguousarray(frames, dtype=frame_dtype(len(names)))
    values = np.ascontiguousarray(values, dtype=np.int64)
    lengths = np.diff(offsets)
    keep = (values > 0) & (lengths > 0)
    dropped = int(np.count_nonzero(~keep))
    if dropped:
        offsets, frames, values = _select(offsets, frames, values, keep)
    truncation = meta.pop("truncation", Truncation())
    assert isinstance(truncation, Truncation)
    if dropped:
        truncation = _replace(truncation, dropped_samples=truncation.dropped_samples + dropped)
    return Profile(
        names=tuple(names),
        offsets=_frozen(offsets),
        frames=_frozen(frames),
        values=_frozen(values),
        sample_type=sample_type,
        truncation=truncation,
        **meta,  # type: ignore[arg-type]
    )


def with_stacks(profile: Profile, offsets: npt.ArrayLike, frames: npt.ArrayLike, values: npt.ArrayLike) -> Profile:
    """``profile`` with other stacks (a filter's, or without count-valued frames): names, sample
    types, labels, source, period, times and the input's truncation carry over unchanged."""
    from dataclasses import replace

    built = from_arrays(
        profile.names,
        offsets,
        frames,
        values,
        profile.sample_type,
        sample_types=profile.sample_types,
        period=profile.period,
        period_type=profile.period_type,
        labels=profile.labels,
        source=profile.source,
        duration_ns=profile.duration_ns,
        time_ns=profile.time_ns,
    )
    return replace(built, truncation=profile.truncation)


def _replace(t: Truncation, **changes: int) -> Truncation:
    from dataclasses import replace

    return replace(t, **changes)


def _select(
    offsets: IntArray, frames: FrameArray, values: IntArray, keep: np.ndarray
) -> tuple[IntArray, FrameArray, IntArray]:
    """The stacks where ``keep`` is true, re-packed (a byte mask per frame: cheap at 40M frames)."""
    lengths = np.diff(offsets)
    new_offsets = np.zeros(int(keep.sum()) + 1, dtype=np.int64)
    np.cumsum(lengths[keep], out=new_offsets[1:])
    new_frames = frames[np.repeat(keep, lengths)] if len(frames) else frames
    return new_offsets, new_frames, values[keep]


class ProfileBuilder:
    """Collects stacks one at a time (names, root first) and interns frame names."""

    def __init__(self, sample_type: SampleType, *, max_depth: int = DEFAULT_MAX_DEPTH) -> None:
        self.sample_type = sample_type
        self.max_depth = max_depth
        self._ids: dict[str, int] = {}
        self._names: list[str] = []
        self._frames: list[int] = []
        self._offsets: list[int] = [0]
        self._values: list[int] = []
        self.elided_stacks = 0

    def __len__(self) -> int:
        return len(self._values)

    def intern_table(self) -> Mapping[str, int]:
        """The names interned so far (read only: a reader's cost check counts them)."""
        return self._ids

    def intern(self, name: str) -> int:
        fid = self._ids.get(name)
        if fid is None:
            fid = self._ids[name] = len(self._names)
            self._names.append(name)
        return fid

    def add_ids(self, frame_ids: Sequence[int], value: int) -> None:
        """Add a stack of already interned ids (root first)."""
        if len(frame_ids) > self.max_depth:
            frame_ids = self._elide(frame_ids)
        self._frames.extend(frame_ids)
        self._offsets.append(len(self._frames))
        self._values.append(value)

    def add(self, stack: Sequence[str], value: int) -> None:
        """Add a stack of names (root first)."""
        intern = self.intern
        self.add_ids([intern(n) for n in stack], value)

    def _elide(self, frame_ids: Sequence[int]) -> list[int]:
        keep = (self.max_depth - 1) // 2
        hidden = len(frame_ids) - 2 * keep
        self.elided_stacks += 1
        marker = self.intern(f"{ELIDED_PREFIX}{hidden:,} frames]")
        return [*frame_ids[:keep], marker, *frame_ids[-keep:]]

    def build(self, **meta: object) -> Profile:
        truncation = meta.pop("truncation", Truncation())
        assert isinstance(truncation, Truncation)
        if self.elided_stacks:
            truncation = _replace(truncation, elided_stacks=self.elided_stacks, max_depth=self.max_depth)
        return from_arrays(
            self._names,
            np.asarray(self._offsets, dtype=np.int64),
            np.asarray(self._frames, dtype=frame_dtype(len(self._names))),
            np.asarray(self._values, dtype=np.int64),
            self.sample_type,
            truncation=truncation,
            **meta,
        )
