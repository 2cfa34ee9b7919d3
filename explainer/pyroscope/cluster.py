"""The cluster view: totals per label value (pod, namespace, service) and their course over time.

Everything is pushed down to the server: a top-by-label list is one ``SelectSeries`` grouped by the
label (the server sums and keeps its top N), one ungrouped ``SelectSeries`` for the whole window
(what the list leaves out is the difference) and one ``LabelValues`` to count the values; no pod's
profile is fetched to be added up here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from explainer.pyroscope.query import ProfileType, Query, TimeRange
from explainer.pyroscope.selector import Matcher, parse_selector, render_selector

if TYPE_CHECKING:  # the HTTP client loads only when a server is asked
    from explainer.pyroscope.client import PyroscopeClient, Series

POD, NAMESPACE, SERVICE = "k8s_podName", "k8s_namespace", "service_name"
NICE_STEPS_S = (15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400)
TARGET_POINTS = 60  # a readable curve: about an hour at one-minute steps


def when(ms: int) -> str:
    """A point's time as people read it in a report (UTC, to the second)."""
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M:%SZ")


def default_label(profile_type: ProfileType) -> str:
    """GPU memory is held per pod (vLLM replicas); other profiles are usually read per service."""
    return POD if profile_type.meaning == "gpu-memory" else SERVICE


def with_label(selector: str, name: str, value: str) -> str:
    """``selector`` narrowed to ``name="value"`` (an existing matcher on ``name`` is replaced)."""
    kept = [m for m in parse_selector(selector) if m.name != name]
    return render_selector([*kept, Matcher(name, "=", value)])


def whole_window_step(window: TimeRange) -> float:
    """One step as long as the window: the server then sums the whole window into (at most) two points."""
    return max((window.end_ms - window.start_ms) / 1000, 1.0)


def sensible_step(window: TimeRange, points: int = TARGET_POINTS) -> int:
    """The smallest round step (15 s, 30 s, 1 min, ... 1 day) giving at most ``points`` points."""
    seconds = (window.end_ms - window.start_ms) / 1000
    return next((s for s in NICE_STEPS_S if seconds / s <= points), NICE_STEPS_S[-1])


def series_total(series: Series) -> int:
    return round(sum(v for _t, v in series.points))


@dataclass(frozen=True, slots=True)
class LabelTotal:
    value: str  # "" when the series has no such label
    total: int


@dataclass(frozen=True, slots=True)
class TopByLabel:
    label: str
    query: Query
    rows: tuple[LabelTotal, ...]  # largest first
    whole: int  # the whole selection in the window
    values: int  # how many values the label has in the selection

    @property
    def left_out_values(self) -> int:
        return max(self.values - sum(1 for r in self.rows if r.value), 0)

    @property
    def left_out_total(self) -> int:
        return max(self.whole - sum(r.total for r in self.rows), 0)


def top_by_label(client: PyroscopeClient, query: Query, label: str, limit: int = 10) -> TopByLabel:
    """The ``limit`` largest values of ``label`` in ``query``'s window and selection, with their totals."""
    deadline = client.deadline()
    step = whole_window_step(query.window)
    grouped = client.series(query, step, group_by=(label,), limit=limit, deadline=deadline)
    whole = client.series(query, step, deadline=deadline)
    values = client.label_values(label, query.window, query.selector, deadline=deadline)
    rows = [LabelTotal(dict(s.labels).get(label, ""), series_total(s)) for s in grouped]
    rows.sort(key=lambda r: (-r.total, r.value))
    return TopByLabel(label, query, tuple(rows[:limit]), sum(series_total(s) for s in whole), len(values))


# -- time -------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Course:
    """What a series did over the window. Times are Unix ms; values are each step's total."""

    points: tuple[tuple[int, int], ...]
    step_s: float
    peak: tuple[int, int]  # (time, value) of the largest step
    rise_start: tuple[int, int] | None  # the first step of the rise to the peak (None: high from the start)
    first: float  # mean of the first third of the steps
    last: float  # mean of the last third
    trend: str  # "growing", "falling", "flat" (last third against first third, 10% of the peak apart)

    @property
    def total(self) -> int:
        return sum(v for _t, v in self.points)


def course(series: list[Series], step_s: float) -> Course | None:
    """The course of the sum of ``series`` (one point per step); None when nothing was recorded."""
    by_time: dict[int, float] = {}
    for s in series:
        for t, v in s.points:
            by_time[t] = by_time.get(t, 0.0) + v
    points = tuple((t, round(v)) for t, v in sorted(by_time.items()))
    if not points or not any(v for _t, v in points):
        return None
    peak = max(points, key=lambda p: (p[1], -p[0]))  # the earliest of equal peaks
    i = points.index(peak)
    before = [v for _t, v in points[: i + 1]]
    floor = min(before)
    # the rise: walk back from the peak while the steps stay clearly above the floor before it
    start = i
    threshold = floor + 0.1 * (peak[1] - floor)
    while start > 0 and points[start - 1][1] > threshold:
        start -= 1
    rise = points[start] if start > 0 else None  # at 0 it was already high when the window opened
    third = max(len(points) // 3, 1)
    first = sum(v for _t, v in points[:third]) / third
    last = sum(v for _t, v in points[-third:]) / third
    margin = 0.1 * peak[1]
    trend = "growing" if last - first > margin else "falling" if first - last > margin else "flat"
    return Course(points, step_s, peak, rise, first, last, trend)


def call_site(stacks: list[tuple[tuple[str, ...], int]], function: str) -> tuple[str, ...]:
    """The heaviest path from the root to ``function`` (its first occurrence in each stack): the
    ``callSite`` of a stack-trace selector, which the server matches as a prefix of each stack."""
    weight: dict[tuple[str, ...], int] = {}
    for stack, value in stacks:
        if function in stack:
            path = stack[: stack.index(function) + 1]
            weight[path] = weight.get(path, 0) + value
    return max(weight, key=lambda p: (weight[p], p)) if weight else ()


@dataclass(frozen=True, slots=True)
class Standing:
    """One pod among the other pods of its service."""

    pod: str
    total: int
    peers: dict[str, int]

    @property
    def median(self) -> float:
        values = sorted(self.peers.values())
        n = len(values)
        return float(values[n // 2]) if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2

    @property
    def apart(self) -> float:
        """How far from the peers' median, as a fraction of it (0.37 = 37% more, -0.5 = half)."""
        return (self.total - self.median) / self.median if self.median > 0 else 0.0


def farthest_pod(client: PyroscopeClient, query: Query) -> Standing | None:
    """The pod farthest (relatively) from the median of the other pods of its service: one grouped
    series query for the totals and one ``Series`` call for which pod belongs to which service."""
    totals = {r.value: r.total for r in top_by_label(client, query, POD, limit=1000).rows if r.value}
    services: dict[str, set[str]] = {}
    for labels in client.label_sets(query.window, query.selector, (POD, SERVICE)):
        if labels.get(POD) in totals:
            services.setdefault(labels.get(SERVICE, ""), set()).add(labels[POD])
    best: Standing | None = None
    for pods in services.values():
        for pod in sorted(pods):
            found = Standing(pod, totals[pod], {p: totals[p] for p in pods if p != pod})
            if found.peers and found.median > 0 and (best is None or abs(found.apart) > abs(best.apart)):
                best = found
    return best
