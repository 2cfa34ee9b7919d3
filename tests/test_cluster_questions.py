"""Questions about the cluster (ask and chat, English and Dutch) against the test server's known pods."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator

import pytest
from pyroscope_cluster import KV, MINUTE, demo_cluster
from pyroscope_server import PyroscopeServer

from explainer.cli.main import main
from explainer.explain.cluster_words import file_answer
from explainer.model import Profile
from explainer.pyroscope.cluster import when
from explainer.writers import to_pprof

T0 = 1_780_000_020_000
WINDOW = ("--from", str(T0), "--until", str(T0 + 10 * MINUTE - 1))
RISE = when(T0 + 5 * MINUTE)


@pytest.fixture(autouse=True)
def no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("PYROSCOPE_URL", "PYROSCOPE_USER", "PYROSCOPE_PASSWORD", "PYROSCOPE_TOKEN", "PYROSCOPE_TENANT"):
        monkeypatch.delenv(name, raising=False)
    for name in ("EXPLAINER_MODEL", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,127.0.0.2,localhost")


@pytest.fixture
def server() -> Iterator[PyroscopeServer]:
    with PyroscopeServer(cluster=demo_cluster(T0)) as srv:
        yield srv


def ask(server: PyroscopeServer, question: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    code = main(["ask", "--server", server.url, *WINDOW, "--llm", "offline", question], out, err)
    assert code == 0, err.getvalue()
    return out.getvalue()


def chat(server: PyroscopeServer, *questions: str) -> list[str]:
    from explainer.cli import chat as chat_cmd
    from explainer.cli.main import build_parser

    args = build_parser().parse_args(["chat", "--server", server.url, *WINDOW, "--llm", "offline", "--format", "json"])
    out = io.StringIO()
    assert chat_cmd.run(args, out, io.StringIO("\n".join(questions) + "\n")) == 0
    return [json.loads(line)["answer"] for line in out.getvalue().splitlines()]


def pod_merges(server: PyroscopeServer) -> list[str]:
    return [
        s.body["labelSelector"]
        for s in server.seen
        if s.path.endswith("SelectMergeStacktraces") and "k8s_podName" in s.body["labelSelector"]
    ]


def test_which_pod_uses_the_most_names_the_pod_its_number_and_its_biggest_function(server) -> None:
    answer = ask(server, "Which pod uses the most GPU memory?")
    assert "`vllm-2` uses the most GPU memory: 74.0 GB of 241.0 GB (30.7%)" in answer
    assert f"`{KV}`: 60.0 GB self" in answer
    # pushdown: one grouped series query, and only the winning pod's profile merged (for its biggest function)
    assert pod_merges(server) == ['{k8s_podName="vllm-2"}']
    assert any(s.body.get("groupBy") == ["k8s_podName"] for s in server.seen if s.path.endswith("SelectSeries"))


def test_dutch(server) -> None:
    answer = ask(server, "Welke pod gebruikt het meeste GPU-geheugen?")
    assert "`vllm-2` gebruikt het meeste GPU-geheugen: 74,0 GB van 241,0 GB (30,7%)" in answer
    assert f"Binnen `vllm-2` is `{KV}` het grootst: 60,0 GB" in answer


def test_which_namespace_and_service(server) -> None:
    assert "`inference` uses the most GPU memory: 236.0 GB" in ask(server, "which namespace uses the most?")
    assert "`vllm` uses the most GPU memory: 236.0 GB" in ask(server, "which service allocates the most?")


def test_follow_ups_in_a_chat(server) -> None:
    top, other, compare, growing, still, peak = chat(
        server,
        "which pod uses the most GPU memory?",
        "and in vllm-1?",
        "compare vllm-2 with vllm-0",
        "when did it start growing?",
        "is it still growing?",
        "when was the peak?",
    )
    assert "`vllm-2`" in top
    assert "`vllm-1` (k8s_podName): 54.0 GB" in other and f"`{KV}`: 40.0 GB self" in other
    assert "`vllm-2` 74.0 GB against `vllm-0` 54.0 GB (+20.0 GB)" in compare
    assert f"`{KV}`: 40.0 GB → 60.0 GB self (+20.0 GB)" in compare
    assert "LlamaModel.load_weights" not in compare  # unchanged: under the noise floor
    assert f"started growing in the step ending {RISE} (9.4 GB per step, up from 5.4 GB)" in growing
    assert "Is it growing? Yes" in still
    assert f"peak 9.4 GB in the step ending {RISE}" in peak


def test_a_pod_against_its_peers(server) -> None:
    answer = ask(server, "how does vllm-2 compare with its peers?")
    assert "`vllm-2` holds 74.0 GB, 37.0% more than the median of its 3 peers (54.0 GB;" in answer
    assert f"`{KV}`: 40.0 GB → 60.0 GB self (+20.0 GB)" in answer
    assert "embedder-0" not in answer  # another service is no peer
    far = ask(server, "is any replica far above its peers?")
    assert "`vllm-2` holds 74.0 GB" in far


def test_time_of_one_function_and_of_a_flat_pod(server) -> None:
    kv = ask(server, "when did the KV cache grow in vllm-2?")
    assert f"through `{KV}`" in kv and f"started growing in the step ending {RISE} (8.0 GB per step" in kv
    call_sites = [s.body.get("stackTraceSelector") for s in server.seen if s.path.endswith("SelectSeries")]
    assert call_sites[-1]["callSite"][-1] == {"name": KV}
    flat = chat(server, "wanneer begon vllm-3 te groeien?")[0]
    assert "geen stijging binnen het venster" in flat and "Nee, het is vlak" in flat


def test_plain_questions_still_go_to_the_profile(server) -> None:
    answer = ask(server, "what uses the most GPU memory?")
    assert KV in answer and "180.0 GB" in answer  # the whole selection's merged flame graph
    assert pod_merges(server) == []


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("which pod uses the most GPU memory?", "A profile file has no pods"),
        ("welke pod gebruikt het meeste geheugen?", "Een profielbestand heeft geen pods"),
    ],
)
def test_a_file_has_no_pods(demo: Profile, tmp_path, question, said) -> None:
    path = tmp_path / "demo.pb.gz"
    path.write_bytes(to_pprof(demo))
    out, err = io.StringIO(), io.StringIO()
    assert main(["ask", str(path), question, "--llm", "offline"], out, err) == 0
    assert said in out.getvalue() and "explainer pyroscope top --server URL --by k8s_podName" in out.getvalue()


def test_a_server_without_pod_labels_says_so(demo: Profile) -> None:
    with PyroscopeServer({"process_cpu:malloc:bytes::": demo}) as server:  # one series, labelled service_name only
        out, err = io.StringIO(), io.StringIO()
        code = main(
            ["ask", "--server", server.url, "--llm", "offline", "which pod uses the most GPU memory?"], out, err
        )
    assert code == 0, err.getvalue()
    assert out.getvalue().strip() == "No k8s_podName has data for GPU memory in this window."


def test_questions_that_only_sound_like_time_or_namespaces_are_not_rerouted(server, demo, tmp_path) -> None:
    assert "started growing" not in ask(server, "which functions are growing?")
    path = tmp_path / "demo.pb.gz"
    path.write_bytes(to_pprof(demo))
    out, err = io.StringIO(), io.StringIO()
    assert main(["ask", str(path), "what does the namespace torch do?", "--llm", "offline"], out, err) == 0
    assert "no pods" not in out.getvalue()


def test_hostile_pod_names_stay_code() -> None:
    from pyroscope_cluster import GPU, Cluster, LabelledSeries, vllm_minute

    evil = "![x](http://evil.invalid/x.png)"
    labels = {"k8s_podName": evil, "k8s_namespace": "inference", "service_name": "vllm"}
    cluster = Cluster([LabelledSeries(GPU, labels, [(T0, vllm_minute(4 * 10**9, 10**9))])])
    with PyroscopeServer(cluster=cluster) as srv:
        answer = ask(srv, "which pod uses the most GPU memory?")
    assert f"`{evil}` uses the most GPU memory" in answer
    assert answer.count(evil) == answer.count(f"`{evil}`")  # every mention is a code span


def test_a_profile_of_one_pod_can_be_compared_with_another(server) -> None:
    out, err = io.StringIO(), io.StringIO()
    argv = ["ask", "--server", server.url, *WINDOW, "--label", "k8s_podName=vllm-2", "--llm", "offline"]
    assert main([*argv, "compare it with vllm-0"], out, err) == 0, err.getvalue()
    assert "`vllm-2` 74.0 GB against `vllm-0` 54.0 GB (+20.0 GB)" in out.getvalue()


@pytest.mark.parametrize(
    ("question", "about_pods"),
    [
        ("which pod uses the most GPU memory?", True),
        ("welke pod gebruikt het meeste geheugen?", True),
        ("per-pod breakdown pls", True),
        ("compare the pods", True),
        ("what uses the most memory across all pods", True),
        ("gimme the top 3 memory hogs on our vllm pod", False),  # the pod is the scene
        ("Our vLLM pod gets OOM-killed during startup. List the 4 largest consumers.", False),
        ("on k8s, what uses the most?", False),
    ],
)
def test_a_file_answers_a_pod_named_as_the_scene(question: str, about_pods: bool) -> None:
    assert (file_answer(question) is not None) == about_pods


def test_a_pod_named_as_the_scene_asks_about_its_functions_and_a_count_is_honoured(server) -> None:
    answer = ask(server, "gimme the top 3 memory hogs on our vllm pod")
    assert "uses the most GPU memory" not in answer  # not the pods' ranking
    assert "Inside `vllm` the 2 biggest by self (236.0 GB in all):" in answer  # only two functions have self
    assert f"- `{KV}`: 180.0 GB self (76.3%)" in answer
    server.seen.clear()
    dutch = ask(server, "wat zijn de 2 grootste functies in vllm-2?")
    assert "Binnen `vllm-2` de 2 grootste op self (74,0 GB in totaal):" in dutch
    assert pod_merges(server) == ['{k8s_podName="vllm-2"}']  # the pod's merge is fetched once, not per line
    ranked = ask(server, "top 3 pods by memory")
    assert "`vllm-2` uses the most GPU memory: 74.0 GB of 241.0 GB (30.7%)" in ranked
