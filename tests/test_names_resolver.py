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


def _real_labels() -> list[str]:
    import tomllib

    from conftest import REPO

    data = tomllib.loads((REPO / "tests" / "corpus" / "labels.toml").read_text("utf-8"))
    return [label["name"] for label in data["label"]]


def _written_forms(labels: list[str]) -> list[str]:
    """What people type for these labels: each label, its keys as the index holds them, its parts in other
    cases and with other separators, cut-short and made-up names."""
    out: set[str] = set()
    for fid, label in enumerate(labels):
        parts = components(label)
        out.update({label, label.upper(), f"`{label}`", *Resolver(labels)._keys(fid, label)})
        for k in range(1, len(parts) + 1):
            out.update({".".join(parts[-k:]), "::".join(parts[-k:]), " > ".join(parts[-k:]).upper()})
        out.add(label[: max(5, len(label) // 2)] + "...")
    out.update({"What", "GPU", "memory", "run", "poll", "x", "...", ":", "file.py:12", "Handler", "nio"})
    return sorted(out)


# labels whose reading joins what their middle separates: "FooBar" and "ConnWrap" are no pieces of the label
JOINED = ["Foo<T>Bar.run", "pkg.(*Conn)Wrap.Read"]


@pytest.mark.parametrize("labels", [[*LABELS, *JOINED], _real_labels()], ids=["shapes", "corpus"])
def test_looking_up_keys_one_by_one_finds_what_the_whole_index_finds(
    labels: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A question's few look-ups read only the labels that hold the key's pieces: exactly the whole index's answer."""
    import explainer.names.resolver as module

    weights = [(i * 7919) % 13 for i in range(len(labels))]  # some absent (0), ties among the rest
    whole = Resolver(labels, weights)
    whole._index  # noqa: B018 - built first: every look-up reads it
    monkeypatch.setattr(module, "MAX_KEYS_ALONE", 10**9)
    alone = Resolver(labels, weights)
    texts = _written_forms(labels)
    assert len(texts) > 3 * len(labels)
    pieceless = [t for t in texts if not any(ch.isalnum() for ch in t)]  # "...", ":": the whole index answers
    for text in [t for t in texts if t not in pieceless]:
        assert alone.resolve(text) == whole.resolve(text), text
    assert "_index" not in alone.__dict__  # it never needed the whole index
    assert alone._rewritten  # the shapes whose middle is rewritten are read for every key
    for text in pieceless:
        assert alone.resolve(text) == whole.resolve(text), text


def test_past_a_few_keys_the_whole_index_is_built_once() -> None:
    r = Resolver(LABELS, WEIGHTS)
    for i in range(40):
        r.resolve(f"name{i}")
    assert "_index" in r.__dict__
    assert r.resolve("handle").best is not None and r.resolve("handle").best.name == "main.handle"  # type: ignore[union-attr]
