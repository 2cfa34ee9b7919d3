"""Labelled series for the test server: a small cluster whose profiles are known, queried as Pyroscope does.

A :class:`Cluster` holds series (a profile type plus labels such as ``k8s_podName``,
``k8s_namespace`` and ``service_name``), each with profiles ingested at known times. The server's
Connect handlers answer from it exactly as docs/pyroscope-api.md describes:

* label selectors in Prometheus syntax, ``=``, ``!=``, ``=~``, ``!~``, regexes fully anchored, a
  label a series lacks read as the empty string (Prometheus semantics);
* SelectMergeStacktraces / SelectMergeProfile: every matching series' profiles in [start, end] merged;
* SelectSeries: ``groupBy`` labels, ``step`` seconds, ``aggregation`` sum (0) or average (1),
  ``limit`` (the top N series by their summed values), ``stackTraceSelector.callSite`` (only stacks
  that begin, root first, with the call site's names); points at ``start, start+step, ... <= end``,
  each point aggregating the profiles in ``(t - step, t]`` (the first also takes ``t == start``);
* LabelNames, LabelValues, Series (``labelNames`` keeps only those labels), ProfileTypes,
  each with ``matchers``; Diff: the two sides' merges, aligned.

The parser here is deliberately our own and tiny (canonical ``name op "value"`` with ``\\\\`` and
``\\"`` escapes), so the product's selector code is not used to check itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from explainer.model import Profile, ProfileBuilder

_MATCHER = re.compile(r'\s*([A-Za-z_][A-Za-z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"\s*(?:,|$)')


class BadSelector(ValueError):
    pass


def parse(selector: str) -> list[tuple[str, str, str]]:
    s = selector.strip()
    if not (s.startswith("{") and s.endswith("}")):
        raise BadSelector(f"parse error: unexpected {s[:1] or 'end'!r}")
    body, out, i = s[1:-1], [], 0
    while i < len(body):
        m = _MATCHER.match(body, i)
        if not m or m.end() == i:
            raise BadSelector(f"parse error at char {i + 1}: unexpected character")
        value = re.sub(r"\\(.)", lambda e: {"n": "\n", "t": "\t"}.get(e.group(1), e.group(1)), m.group(3))
        out.append((m.group(1), m.group(2), value))
        i = m.end()
    return out


def matches(labels: dict[str, str], matchers: list[tuple[str, str, str]]) -> bool:
    for name, op, value in matchers:
        have = labels.get(name, "")
        if (op == "=" and have != value) or (op == "!=" and have == value):
            return False
        if op in ("=~", "!~") and (re.fullmatch(value, have) is not None) != (op == "=~"):
            return False
    return True


@dataclass
class LabelledSeries:
    profile_type: str
    labels: dict[str, str]
    samples: list[tuple[int, Profile]]  # (Unix ms, the profile ingested then)

    def all_labels(self) -> dict[str, str]:
        return {**self.labels, "__profile_type__": self.profile_type}


@dataclass
class Cluster:
    series: list[LabelledSeries] = field(default_factory=list)

    def select(self, profile_type: str, selector: str) -> list[LabelledSeries]:
        wanted = parse(selector or "{}")
        return [s for s in self.series if s.profile_type == profile_type and matches(s.labels, wanted)]

    def merged(
        self, profile_type: str, selector: str, start: int, end: int, call_site: list[str] | None = None
    ) -> Profile | None:
        picked = [(p, t) for s in self.select(profile_type, selector) for t, p in s.samples if start <= t <= end]
        if not picked:
            return None
        builder = ProfileBuilder(picked[0][0].sample_type)
        for profile, _t in picked:
            for stack, value in profile.stacks():
                if call_site is None or list(stack[: len(call_site)]) == call_site:
                    builder.add(stack, value)
        return builder.build(sample_types=picked[0][0].sample_types) if len(builder) else None

    def range_series(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        tid, start, end = str(body.get("profileTypeID", "")), int(body["start"]), int(body["end"])
        step = max(int(float(body.get("step", 15)) * 1000), 1)
        group_by = [str(g) for g in body.get("groupBy", [])]
        average = body.get("aggregation") in (1, "TIME_SERIES_AGGREGATION_TYPE_AVERAGE")
        site = [str(c.get("name", "")) for c in (body.get("stackTraceSelector") or {}).get("callSite", [])]
        groups: dict[tuple[tuple[str, str], ...], dict[int, list[int]]] = {}
        stamps = list(range(start, end + 1, step))
        for s in self.select(tid, str(body.get("labelSelector", "{}"))):
            key = tuple((g, s.labels[g]) for g in group_by if g in s.labels)
            buckets = groups.setdefault(key, {})
            for t, profile in s.samples:
                if not start <= t <= end:
                    continue
                at = next(ts for ts in stamps if ts >= t) if t <= stamps[-1] else None
                if at is None:
                    continue
                value = sum(v for stack, v in profile.stacks() if not site or list(stack[: len(site)]) == site)
                buckets.setdefault(at, []).append(value)
        out = []
        for key, buckets in groups.items():
            points = [
                {"value": (sum(vs) / len(vs) if average else float(sum(vs))), "timestamp": str(ts)}
                for ts, vs in sorted(buckets.items())
            ]
            if points:
                out.append({"labels": [{"name": n, "value": v} for n, v in key], "points": points})
        out.sort(key=lambda s: -sum(p["value"] for p in s["points"]))
        limit = int(body.get("limit", 0) or 0)
        return out[:limit] if limit > 0 else out

    def label_names(self, matchers: list[str]) -> list[str]:
        names = {n for s in self._matching(matchers) for n in s.all_labels()}
        return sorted(names)

    def label_values(self, name: str, matchers: list[str]) -> list[str]:
        return sorted({s.all_labels()[name] for s in self._matching(matchers) if name in s.all_labels()})

    def label_sets(self, matchers: list[str], names: list[str]) -> list[dict[str, str]]:
        sets = []
        for s in self._matching(matchers):
            labels = {k: v for k, v in s.all_labels().items() if not names or k in names}
            if labels not in sets:
                sets.append(labels)
        return sets

    def types(self) -> list[str]:
        return sorted({s.profile_type for s in self.series})

    def _matching(self, matchers: list[str]) -> list[LabelledSeries]:
        parsed = [parse(m) for m in matchers]
        return [s for s in self.series if not parsed or any(matches(s.all_labels(), p) for p in parsed)]


# -- a known cluster: four vLLM replicas (one far above its peers from minute 5) and one embedder -------------

GPU = "process_cpu:malloc:bytes::"
CPU = "process_cpu:cpu:nanoseconds:cpu:nanoseconds"
MINUTE = 60_000
KV = "GPUModelRunner._allocate_kv_cache_tensors"
WEIGHTS = "LlamaModel.load_weights"
ROOT = ("<module>", "EngineCore.__init__")
GB = 10**9


def _profile(stacks: dict[tuple[str, ...], int], sample: str = "malloc", unit: str = "bytes") -> Profile:
    from explainer.model import SampleType

    builder = ProfileBuilder(SampleType(sample, unit))
    for stack, value in stacks.items():
        builder.add(stack, value)
    return builder.build()


def vllm_minute(kv: int, weights: int) -> Profile:
    return _profile({(*ROOT, "GPUModelRunner.initialize_kv_cache", KV): kv, (*ROOT, WEIGHTS): weights})


def demo_cluster(t0: int) -> Cluster:
    """Ten one-minute samples from ``t0`` per pod. Totals: vllm-0, -1, -3 = 10 x (4 + 1.4) GB = 54 GB;
    vllm-2 = 5 x (4 + 1.4) + 5 x (8 + 1.4) GB = 74 GB (its KV cache doubles from minute 5);
    embedder-0 = 10 x 0.5 GB = 5 GB. Whole: 241 GB."""
    series = []
    for pod in ("vllm-0", "vllm-1", "vllm-2", "vllm-3"):
        labels = {"k8s_podName": pod, "k8s_namespace": "inference", "service_name": "vllm"}
        samples = [
            (t0 + k * MINUTE, vllm_minute((8 if pod == "vllm-2" and k >= 5 else 4) * GB, 14 * GB // 10))
            for k in range(10)
        ]
        series.append(LabelledSeries(GPU, labels, samples))
        cpu = _profile({(*ROOT, "EngineCore.step"): 3 * 10**9}, "cpu", "nanoseconds")
        series.append(LabelledSeries(CPU, labels, [(t0 + k * MINUTE, cpu) for k in range(10)]))
    embed = {"k8s_podName": "embedder-0", "k8s_namespace": "batch", "service_name": "embedder"}
    one = _profile({("main", "Embedder.load", "torch.empty"): GB // 2})
    series.append(LabelledSeries(GPU, embed, [(t0 + k * MINUTE, one) for k in range(10)]))
    return Cluster(series)


EXPECTED_GPU = {"vllm-0": 54 * GB, "vllm-1": 54 * GB, "vllm-2": 74 * GB, "vllm-3": 54 * GB, "embedder-0": 5 * GB}
