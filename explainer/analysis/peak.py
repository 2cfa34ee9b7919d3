"""Finding the peak of a time series, so ``--at-peak`` can analyse the window where the value was highest.

:func:`peak_window` is pure: given the points of Pyroscope's SelectSeries (one value per step;
timestamps in Unix milliseconds at the start of each step) it returns the step with the
highest value, widened by ``around`` steps on each side and clamped to the queried range.
Several series (one per label set) are summed per timestamp first: the peak of the whole
selection is what a person sees in Grafana's time series for the same query.

Ties go to the earliest step, so the answer is deterministic.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from explainer.errors import EmptyResultError, QueryError


@dataclass(frozen=True, slots=True)
class Window:
    start_ms: int
    end_ms: int
    peak_ms: int  # timestamp of the highest step
    peak_value: float  # the series value there, in the profile's unit
    step_ms: int

    @property
    def duration_ms(self) -> int:
        return self.end_ms - self.start_ms


def merge_series(series: Iterable[Sequence[tuple[int, float]]]) -> tuple[list[int], list[float]]:
    """Sum several series of ``(timestamp_ms, value)`` per timestamp; non-finite values are skipped."""
    sums: dict[int, float] = {}
    for points in series:
        for ts, value in points:
            if isinstance(value, (int, float)) and math.isfinite(value):
                sums[int(ts)] = sums.get(int(ts), 0.0) + float(value)
    stamps = sorted(sums)
    return stamps, [sums[t] for t in stamps]


def peak_window(
    timestamps_ms: Sequence[int],
    values: Sequence[float],
    *,
    step_ms: int,
    range_start_ms: int | None = None,
    range_end_ms: int | None = None,
    around: int = 0,
) -> Window:
    """The highest step, ``around`` steps either side, clamped to ``[range_start_ms, range_end_ms]``."""
    if len(timestamps_ms) != len(values):
        raise QueryError("series timestamps and values differ in length")
    if step_ms <= 0:
        raise QueryError(f"series step must be positive, got {step_ms} ms")
    if around < 0:
        raise QueryError(f"--peak-around must be 0 or more steps, got {around}")
    best = -1
    for i, value in enumerate(values):
        if math.isfinite(value) and (best < 0 or value > values[best]):
            best = i
    if best < 0 or values[best] <= 0:
        raise EmptyResultError("the series has no value above zero in this window, so there is no peak")
    peak = int(timestamps_ms[best])
    start = peak - around * step_ms
    end = peak + (around + 1) * step_ms
    if range_start_ms is not None:
        start = max(start, range_start_ms)
    if range_end_ms is not None:
        end = min(end, range_end_ms)
    if end <= start:  # a peak stamped at the very end of the range: keep one step inside it
        start = end - step_ms if range_start_ms is None else max(end - step_ms, range_start_ms)
    return Window(start, end, peak, float(values[best]), step_ms)


def default_step_ms(range_start_ms: int, range_end_ms: int, points: int = 60) -> int:
    """A step giving about ``points`` points over the range, at least one second (Pyroscope's unit is s)."""
    span = max(range_end_ms - range_start_ms, 1)
    return max(1000, (span // points) // 1000 * 1000)


class _Points(Protocol):
    @property
    def points(self) -> Sequence[tuple[int, float]]: ...


class SeriesClient(Protocol):
    """What :func:`find_peak` needs of a Pyroscope client: SelectSeries (``PyroscopeClient.series``)."""

    def series(self, query: Any, step_s: float) -> Sequence[_Points]: ...


def find_peak(client: SeriesClient, query: Any, start_ms: int, end_ms: int, *, around: int = 0) -> Window:
    """Ask the client for the series of ``query`` over ``[start_ms, end_ms]`` and return its peak window.

    The client and query are injected (this layer does no I/O of its own and knows no server).
    """
    step_ms = default_step_ms(start_ms, end_ms)
    series = client.series(query, step_ms / 1000)
    stamps, values = merge_series(s.points for s in series)
    if not stamps:
        raise EmptyResultError("the server returned no time series for this query and window")
    return peak_window(stamps, values, step_ms=step_ms, range_start_ms=start_ms, range_end_ms=end_ms, around=around)
