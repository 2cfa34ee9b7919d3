"""``explainer pyroscope top --by LABEL`` and ``explainer pyroscope series`` over real HTTP."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator

import pytest
from pyroscope_cluster import EXPECTED_GPU, GB, GPU, KV, MINUTE, demo_cluster
from pyroscope_server import PyroscopeServer

from explainer.cli.main import main

T0 = 1_780_000_020_000
WINDOW = ("--from", str(T0), "--until", str(T0 + 10 * MINUTE - 1))


@pytest.fixture(autouse=True)
def no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("PYROSCOPE_URL", "PYROSCOPE_USER", "PYROSCOPE_PASSWORD", "PYROSCOPE_TOKEN", "PYROSCOPE_TENANT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,127.0.0.2,localhost")


@pytest.fixture
def server() -> Iterator[PyroscopeServer]:
    with PyroscopeServer(cluster=demo_cluster(T0)) as srv:
        yield srv


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def top_json(server: PyroscopeServer, *extra: str) -> dict[str, object]:
    code, out, err = run("pyroscope", "top", "--server", server.url, *WINDOW, "--format", "json", *extra)
    assert code == 0, err
    return json.loads(out)  # type: ignore[no-any-return]


def test_top_by_pod_lists_every_pod_with_exact_totals_and_shares(server) -> None:
    top = top_json(server)
    assert top["label"] == "k8s_podName" and top["profile_type"] == GPU  # the default for GPU memory
    rows = top["rows"]
    assert isinstance(rows, list)
    assert {r["value"]: r["total"] for r in rows} == EXPECTED_GPU
    assert [r["total"] for r in rows] == sorted(EXPECTED_GPU.values(), reverse=True)
    assert rows[0]["value"] == "vllm-2" and rows[0]["share"] == 74 / 241
    assert top["whole"] == 241 * GB and top["left_out"] == {"values": 0, "total": 0}
    assert all(isinstance(r["total"], int) for r in rows)


def test_top_is_pushed_down_to_the_server(server) -> None:
    top_json(server)
    paths = [s.path.rsplit("/", 1)[-1] for s in server.seen]
    assert "SelectMergeStacktraces" not in paths and "SelectMergeProfile" not in paths
    grouped = [s.body for s in server.seen if s.path.endswith("SelectSeries") and s.body.get("groupBy")]
    assert len(grouped) == 1 and grouped[0]["groupBy"] == ["k8s_podName"] and grouped[0]["limit"] == 10


def test_top_with_a_limit_says_what_it_leaves_out(server) -> None:
    top = top_json(server, "--limit", "2")
    assert len(top["rows"]) == 2  # type: ignore[arg-type]
    assert top["left_out"] == {"values": 3, "total": (54 + 54 + 5) * GB}
    code, out, _ = run("pyroscope", "top", "--server", server.url, *WINDOW, "--limit", "2")
    assert code == 0
    assert "vllm-2" in out and "74.0 GB" in out and "30.7%" in out
    assert "left out: 3 more value(s), 113.0 GB (46.9%)" in out


def test_top_by_other_labels_and_selectors(server) -> None:
    ns = top_json(server, "--by", "k8s_namespace")
    assert {r["value"]: r["total"] for r in ns["rows"]} == {"inference": 236 * GB, "batch": 5 * GB}  # type: ignore[union-attr]
    svc = top_json(server, "--profile-type", "cpu")
    assert svc["label"] == "service_name" and [r["value"] for r in svc["rows"]] == ["vllm"]  # type: ignore[union-attr]
    peers = top_json(server, "--selector", '{k8s_podName!="vllm-2", k8s_namespace="inference"}')
    assert [r["total"] for r in peers["rows"]] == [54 * GB] * 3  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("--limit", "0"), "--limit must be between 1 and 1000"),
        (("--selector", "{k8s_podName=}"), "bad selector"),
        (("--profile-type", "memory:x:bytes::"), "no profile type"),
    ],
)
def test_top_errors_are_one_line(server, argv, message) -> None:
    code, out, err = run("pyroscope", "top", "--server", server.url, *WINDOW, *argv)
    assert code == 2 and out == "" and message in err and len(err.strip().splitlines()) <= 2


def test_series_of_a_pod_names_the_step_where_it_grew(server) -> None:
    code, out, err = run(
        "pyroscope", "series", "--server", server.url, *WINDOW, "--label", "k8s_podName=vllm-2", "--format", "json"
    )
    assert code == 0, err
    c = json.loads(out)
    assert c["step_s"] == 15 and c["total"] == 74 * GB
    assert c["rise_start"] == {"timestamp_ms": T0 + 5 * MINUTE, "value": int(9.4 * GB)}
    assert c["peak"]["value"] == int(9.4 * GB) and c["trend"] == "growing"


def test_series_of_one_function_uses_a_stack_trace_selector(server) -> None:
    code, out, err = run(
        "pyroscope", "series", "--server", server.url, *WINDOW, "--label", "k8s_podName=vllm-2", "--function", KV
    )
    assert code == 0, err
    assert "rise began: the step ending 2026-05-28 20:32:00Z (8.0 GB)" in out
    body = next(s.body for s in server.seen if s.path.endswith("SelectSeries"))
    assert body["stackTraceSelector"]["callSite"][-1] == {"name": KV}
    assert "8.0 GB" in out and "trend: growing" in out


def test_handoff_from_the_server_has_a_pods_section(server) -> None:
    code, out, err = run("handoff", "--server", server.url, *WINDOW, "--llm", "offline", "--top", "3")
    assert code == 0, err
    pods = out[out.index("## Pods") :].split("\n## ", 1)[0]
    assert "| `vllm-2` | 74.0 GB | 30.7% |" in pods and "| `vllm-0` | 54.0 GB | 22.4% |" in pods
    assert "- Left out: 2 more pod(s), 59.0 GB (24.5%)." in pods
    assert (
        "- Far from its peers: `vllm-2` holds 74.0 GB, 37.0% more than the median of its 3 peer(s) (54.0 GB)." in pods
    )
    assert "the selection rose in the step ending 2026-05-28 20:32:00Z" in pods
    assert out.index("## Headline") < out.index("## Pods") < out.index("## Top consumers")
    merges = [s.body["labelSelector"] for s in server.seen if s.path.endswith("SelectMergeStacktraces")]
    assert merges == ["{}"]  # the report's own profile; the pods come from series queries


def test_handoff_from_a_file_has_no_pods_section(tmp_path) -> None:
    from pyroscope_cluster import vllm_minute

    from explainer.writers import to_pprof

    path = tmp_path / "p.pb.gz"
    path.write_bytes(to_pprof(vllm_minute(4 * GB, GB)))
    code, out, err = run("handoff", str(path), "--llm", "offline")
    assert code == 0, err
    assert "## Headline" in out and "## Pods" not in out
