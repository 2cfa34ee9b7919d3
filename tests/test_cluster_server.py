"""The test server's cluster: label selectors, SelectSeries and discovery behave as docs/pyroscope-api.md says."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import requests
from pyroscope_cluster import CPU, EXPECTED_GPU, GB, GPU, KV, MINUTE, ROOT, demo_cluster
from pyroscope_server import CONNECT, PyroscopeServer

T0 = 1_780_000_020_000  # a whole minute


@pytest.fixture
def server() -> Iterator[PyroscopeServer]:
    with PyroscopeServer(cluster=demo_cluster(T0)) as srv:
        yield srv


def rpc(srv: PyroscopeServer, method: str, body: dict[str, Any], status: int = 200) -> dict[str, Any]:
    r = requests.post(srv.url + CONNECT + method, json=body, timeout=5)
    assert r.status_code == status, r.text
    return r.json()  # type: ignore[no-any-return]


WINDOW = {"start": T0, "end": T0 + 10 * MINUTE}


def totals(srv: PyroscopeServer, selector: str, **extra: Any) -> dict[str, int]:
    body = {"profileTypeID": GPU, "labelSelector": selector, **WINDOW, "step": 600, "groupBy": ["k8s_podName"], **extra}
    out = {}
    for s in rpc(srv, "SelectSeries", body).get("series", []):
        out[s["labels"][0]["value"] if s["labels"] else ""] = round(sum(p["value"] for p in s["points"]))
    return out


@pytest.mark.parametrize(
    ("selector", "pods"),
    [
        ("{}", set(EXPECTED_GPU)),
        ('{k8s_namespace="inference"}', {"vllm-0", "vllm-1", "vllm-2", "vllm-3"}),
        ('{k8s_namespace!="inference"}', {"embedder-0"}),
        ('{k8s_podName=~"vllm-[01]"}', {"vllm-0", "vllm-1"}),
        ('{k8s_podName=~"vllm"}', set()),  # fully anchored
        ('{k8s_podName!~"vllm-.*"}', {"embedder-0"}),
        ('{missing_label=""}', set(EXPECTED_GPU)),  # a missing label reads as ""
        ('{service_name="vllm",k8s_podName!="vllm-2"}', {"vllm-0", "vllm-1", "vllm-3"}),
    ],
)
def test_selectors_filter_series(server, selector, pods) -> None:
    got = totals(server, selector)
    assert set(got) == pods
    assert all(got[p] == EXPECTED_GPU[p] for p in pods)


def test_select_series_limit_keeps_the_top_series(server) -> None:
    top = totals(server, "{}", limit=2)
    assert len(top) == 2 and top["vllm-2"] == 74 * GB  # the runner-up is one of three tied 54 GB replicas
    assert all(v == 54 * GB for k, v in top.items() if k != "vllm-2")


def test_select_series_steps_average_and_call_site(server) -> None:
    base = {"profileTypeID": GPU, "labelSelector": '{k8s_podName="vllm-2"}', **WINDOW, "step": 60}
    (one,) = rpc(server, "SelectSeries", base)["series"]
    assert [int(p["timestamp"]) for p in one["points"]] == [T0 + k * MINUTE for k in range(10)]
    assert [p["value"] for p in one["points"]] == [5.4 * GB] * 5 + [9.4 * GB] * 5
    site = {"callSite": [{"name": n} for n in (*ROOT, "GPUModelRunner.initialize_kv_cache", KV)]}
    (kv,) = rpc(server, "SelectSeries", {**base, "stackTraceSelector": site})["series"]
    assert [p["value"] for p in kv["points"]] == [4 * GB] * 5 + [8 * GB] * 5
    avg = {
        **base,
        "labelSelector": '{k8s_namespace="inference"}',
        "aggregation": "TIME_SERIES_AGGREGATION_TYPE_AVERAGE",
    }
    (mean,) = rpc(server, "SelectSeries", avg)["series"]
    assert mean["points"][9]["value"] == (3 * 5.4 + 9.4) * GB / 4


def test_merge_follows_the_selector_and_call_site(server) -> None:
    body = {"profileTypeID": GPU, "labelSelector": '{k8s_podName="vllm-2"}', **WINDOW}
    fg = rpc(server, "SelectMergeStacktraces", body)["flamegraph"]
    assert int(fg["total"]) == 74 * GB
    assert rpc(server, "SelectMergeStacktraces", {**body, "labelSelector": '{k8s_podName="nope"}'}) == {}
    assert rpc(server, "SelectMergeStacktraces", {**body, "labelSelector": "{k8s_podName=}"}, 400)["code"] == (
        "invalid_argument"
    )


def test_discovery(server) -> None:
    types = {t["ID"] for t in rpc(server, "ProfileTypes", WINDOW)["profileTypes"]}
    assert types == {GPU, CPU}
    names = rpc(server, "LabelNames", WINDOW)["names"]
    assert {"k8s_podName", "k8s_namespace", "service_name", "__profile_type__"} <= set(names)
    values = rpc(server, "LabelValues", {"name": "k8s_podName", "matchers": ['{k8s_namespace="batch"}'], **WINDOW})
    assert values == {"names": ["embedder-0"]}
    sets = rpc(server, "Series", {"matchers": ['{service_name="embedder"}'], "labelNames": ["k8s_podName"], **WINDOW})
    assert sets == {"labelsSet": [{"labels": [{"name": "k8s_podName", "value": "embedder-0"}]}]}
    assert rpc(server, "LabelValues", {"name": "k8s_podName"}, 400)["message"] == "missing time range in the query"
