"""MCP discovery on a labelled Pyroscope server, driven by the official SDK client over stdio.

GIVEN the test server's known cluster and `explainer mcp --server URL`,
WHEN an assistant discovers types, labels and values and asks which pod uses the most,
THEN every number is the server's, the top list was pushed down, and a call without a source is an error.
"""

from __future__ import annotations

import sys
from pathlib import Path

from pyroscope_cluster import EXPECTED_GPU, GB, GPU, KV, MINUTE, demo_cluster
from pyroscope_server import PyroscopeServer

from mcp_client import session

REPO = Path(__file__).resolve().parent.parent
T0 = 1_780_000_020_000
DISCOVERY = {"profile_types", "label_names", "label_values", "top_by_label", "series"}


def test_an_assistant_discovers_the_cluster_and_finds_the_biggest_pod(tmp_path: Path) -> None:
    window = {"start": str(T0), "end": str(T0 + 10 * MINUTE - 1)}
    calls = [
        ("profile_types", {"source": "pyroscope", "query": window}),
        ("label_names", {"source": "pyroscope", "query": window}),
        ("label_values", {"source": "pyroscope", "name": "k8s_podName", "query": window}),
        ("top_by_label", {"source": "pyroscope", "query": window}),
        ("ask", {"source": "pyroscope", "question": "which pod uses the most GPU memory?", "query": window}),
        ("series", {"source": "pyroscope", "function": KV, "query": {**window, "selector": '{k8s_podName="vllm-2"}'}}),
        ("top_by_label", {"query": window}),  # no source
        ("label_names", {"source": "demo"}),
        ("top_by_label", {"source": "pyroscope", "query": {**window, "profile_type": "memory:x:bytes::"}}),
        ("handoff", {"source": "pyroscope", "limit": 3, "query": window}),
    ]
    with PyroscopeServer(cluster=demo_cluster(T0)) as server:
        command = [sys.executable, "-m", "explainer", "mcp", "--root", str(tmp_path), "--server", server.url]
        got = session(command, calls, cwd=str(REPO))  # cwd: this checkout's explainer, not an installed one
        merges = [s.body["labelSelector"] for s in server.seen if s.path.endswith("SelectMergeStacktraces")]
    types, names, values, top, asked, series, no_source, demo, bad_type, handoff = got.calls
    assert set(got.tools) >= DISCOVERY
    assert "required: 'pyroscope'" in got.tools["top_by_label"].input_schema["properties"]["source"]["description"]
    assert [t["id"] for t in types.data["profile_types"]] == ["process_cpu:cpu:nanoseconds:cpu:nanoseconds", GPU]
    assert {"k8s_podName", "k8s_namespace", "service_name"} <= set(names.data["names"])
    assert values.data["values"] == sorted(EXPECTED_GPU)
    assert not top.is_error, top.markdown
    assert {r["value"]: r["total"] for r in top.data["rows"]} == EXPECTED_GPU
    assert top.data["label"] == "k8s_podName" and top.data["whole"] == 241 * GB
    assert "`vllm-2` uses the most GPU memory: 74.0 GB" in asked.markdown and KV in asked.markdown
    # ask's profile, its top pod, the series' call site, the handoff's profile
    assert merges == ["{}", '{k8s_podName="vllm-2"}', '{k8s_podName="vllm-2"}', "{}"]
    assert series.data["rise_start"] == {"timestamp_ms": T0 + 5 * MINUTE, "value": 8 * GB}
    assert no_source.is_error and "source is required: pass source='pyroscope'" in no_source.markdown
    assert demo.is_error and "source='pyroscope'" in demo.markdown
    assert (
        bad_type.is_error and "as query.profile_type" in bad_type.markdown and "--profile-type" not in bad_type.markdown
    )
    assert "| `vllm-2` | 74.0 GB | 30.7% |" in handoff.markdown and "Far from its peers: `vllm-2`" in handoff.markdown
