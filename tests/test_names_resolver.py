"""The one name resolver: names as people type them, matched against the decoded parts of every label."""

from __future__ import annotations

import pytest

from explainer.names import Resolver, components

LABELS = [
    "vllm/v1/worker/gpu_model_runner.py:1234 - execute_model",
    "vllm/v1/worker/gpu_worker.py:312 - execute_model",
    "torch/cuda/__init__.py:985 - synchronize",
    "io/netty/channel/nio/NioEventLoop:.run_[j]",
    "io/netty/channel/nio/AbstractNioByteChannel$NioByteUnsafe:.read_[j]",
    "net.(*Conn).Read",
    "main.handle",
    "main.handle.func1",
    "github.com/grafana/loki/pkg/x.(*Handler).serve.func2",
    "System.Threading.Tasks.Task.Execute()",
    "Microsoft.AspNetCore.Server.Kestrel!Foo.Bar",
    "/usr/lib/ruby/2.7/net/http.rb:933 - connect",
    "tokio::runtime::task::harness::Harness<T,S>::poll::h1234abcd1234abcd",
    "std::vector<int>::push_back(int const&)",
    "processTicksAndRejections node:internal/process/task_queues:95",
    "org.apache.kafka.clients.NetworkClient.poll(NetworkClient.java:585)",
    "Scheduler.schedule",
    "libcuda.so.1+0x2f1a0",
    "<module>",
    "0x7f15c3a0",
]
WEIGHTS = [10] * len(LABELS)
WEIGHTS[LABELS.index("main.handle.func1")] = 90  # the closure is heavier than its parent


@pytest.fixture(scope="module")
def resolver() -> Resolver:
    return Resolver(LABELS, WEIGHTS)


@pytest.mark.parametrize(
    ("written", "label"),
    [
        ("execute_model", "vllm/v1/worker/gpu_worker.py:312 - execute_model"),  # equal weight: the later (deeper)
        ("gpu_model_runner.execute_model", "vllm/v1/worker/gpu_model_runner.py:1234 - execute_model"),
        ("gpu_model_runner.py:1234", "vllm/v1/worker/gpu_model_runner.py:1234 - execute_model"),
        ("torch.cuda.synchronize", "torch/cuda/__init__.py:985 - synchronize"),
        ("NioEventLoop.run", "io/netty/channel/nio/NioEventLoop:.run_[j]"),
        ("NioByteUnsafe.read", "io/netty/channel/nio/AbstractNioByteChannel$NioByteUnsafe:.read_[j]"),
        ("(*Conn).Read", "net.(*Conn).Read"),
        ("Conn.Read", "net.(*Conn).Read"),
        ("handle", "main.handle"),  # a parent beats its heavier closure
        ("handle.func1", "main.handle.func1"),  # unless the closure is named
        ("serve", "github.com/grafana/loki/pkg/x.(*Handler).serve.func2"),  # a closure whose parent is absent
        ("Task.Execute", "System.Threading.Tasks.Task.Execute()"),
        ("Foo.Bar", "Microsoft.AspNetCore.Server.Kestrel!Foo.Bar"),
        ("http.rb:933", "/usr/lib/ruby/2.7/net/http.rb:933 - connect"),
        ("Harness::poll", "tokio::runtime::task::harness::Harness<T,S>::poll::h1234abcd1234abcd"),
        ("vector::push_back", "std::vector<int>::push_back(int const&)"),
        ("processTicksAndRejections", "processTicksAndRejections node:internal/process/task_queues:95"),
        ("NetworkClient.poll", "org.apache.kafka.clients.NetworkClient.poll(NetworkClient.java:585)"),
        ("Scheduler", "Scheduler.schedule"),  # a class names its method
        ("<module>", "<module>"),
        ("0x7f15...", "0x7f15c3a0"),
    ],
)
def test_names_as_people_write_them(resolver: Resolver, written: str, label: str) -> None:
    best = resolver.resolve(written).best
    assert best is not None and best.name == label


def test_equal_matches_name_the_runner_up_and_are_less_sure(resolver: Resolver) -> None:
    found = resolver.resolve("execute_model")
    assert found.runner_up is not None and found.runner_up.name.endswith("execute_model")
    assert not found.sure
    whole = resolver.resolve("Scheduler.schedule")
    assert whole.runner_up is None and whole.sure


def test_a_library_suffix_or_a_namespace_is_not_a_class(resolver: Resolver) -> None:
    assert resolver.resolve("so").best is None  # libcuda.so.1+0x2f1a0
    cuda = resolver.resolve("cuda").best  # torch/cuda/__init__.py is a module, not a class
    assert cuda is not None and cuda.how == "module"


def test_absent_functions_are_never_candidates() -> None:
    r = Resolver(["a.Foo.run", "b.Bar.run"], [0, 5])
    best = r.resolve("run").best
    assert best is not None and best.name == "b.Bar.run"
    assert r.resolve("Foo.run").best is None


def test_loose_descriptions_score_whole_words_above_word_parts() -> None:
    labels = ["index.(*Decoder).readEntries", "index.(*Reader).LabelValues", "encoding/json.(*Decoder).Decode"]
    r = Resolver(labels, [1, 100, 1000])
    best = r.describe(["decoder", "entries"]).best
    assert best is not None and best.name == "index.(*Decoder).readEntries"
    best = r.describe(["label", "values"]).best
    assert best is not None and best.name == "index.(*Reader).LabelValues"


def test_components_drop_markers_templates_hashes_and_places() -> None:
    assert components("io/netty/channel/nio/NioEventLoop:.run_[j]")[-2:] == ["NioEventLoop", "run"]
    assert components("tokio::task::Harness<T,S>::poll::h1234abcd1234abcd")[-2:] == ["Harness", "poll"]
    assert components("mod.<lambda>") == ["mod", "<lambda>"]
    assert components("x" * 100_000 + ".y")  # a hostile label is read only in part


def test_a_hostile_label_costs_no_more_than_a_short_one() -> None:
    r = Resolver(["a." * 50_000 + "b", "Evil\u202e.__init__" + "A" * 100_000], [1, 1])
    assert r.resolve("nothing_here").best is None
