# ruff: noqa: E501  (a table of questions and real labels, one per line)
"""Issue 21's own failure examples, and the classes of ticket-style failure behind them, as regressions.

Each row is a question as a user wrote it, the profile it was asked about, and how it must be read.
The first part is the issue's "Why" section; the second the rules the reader follows for prose
(a ticket's context lends a subject but never the intent, callers against callees by where the name
stands, names as each runtime writes them). Real profiles are skipped when the shared folder is absent.
"""

from __future__ import annotations

import pytest

from conftest import named_profile
from explainer.demo import demo_profile
from explainer.explain import Conversation, LlmSettings
from explainer.explain.question.reader import split_context
from explainer.model import Profile, ProfileBuilder, SampleType

PATHS = {
    "perf-java": "flamegraph_cddl-unclear/perf-java-stacks-01-collapsed-all.txt",
    "java": "pyroscope_agpl-3.0/profile_java",
    "kafka": "pyroscope_agpl-3.0/jfr-kafka-cpu-0.pb.gz",
    "loki": "pyroscope_agpl-3.0/heap_go_truncated_3.pb.gz",
    "go-cpu": "pyroscope-og_apache-2.0/cpu-big.pprof",
    "go-heap": "pyroscope-og_apache-2.0/heap.pb.gz",
    "node": "pyroscope_agpl-3.0/profile_nodejs",
    "dotnet": "pyroscope-og_apache-2.0/cart-service-dotnet-cpu.json",
    "ruby": "pyroscope-og_apache-2.0/hotrod-ruby-driver-cpu.json",
    "cpp": "google-pprof_apache-2.0/cppbench.contention.pb.gz",
}


def _go() -> Profile:
    """A Go server whose closure is heavier than its parent, and a method with a receiver."""
    builder = ProfileBuilder(SampleType("cpu", "nanoseconds"))
    builder.add(["runtime.main", "main.main", "main.handle"], 10)
    builder.add(["runtime.main", "main.main", "main.handle", "main.handle.func1"], 100)
    builder.add(["runtime.main", "main.main", "main.handle", "net.(*Conn).Read"], 50)
    return builder.build()


def _profile(key: str) -> Profile:
    return _go() if key == "go" else named_profile(key if key in ("gpu", "cpu", "pyspy") else "real:" + PATHS[key])


def _read(key: str, text: str) -> tuple[str, str, str]:
    q = Conversation(_profile(key), settings=LlmSettings(), mode="offline").read(text)
    return q.intent, q.subject.label if q.subject is not None else "", q.lang


CPU_JAVA = "fn:io/netty/channel/nio/NioEventLoop:.run_[j]"
BAZ = "fn:com/example/Something.funcBaz"

# (profile, question, intent, subject label or "" for none)
ISSUE = [
    # short names inside long labels, and Go's parents, closures and receivers
    (
        "pyspy",
        "how much cpu does execute_model take",
        "function",
        "fn:vllm/v1/worker/gpu_model_runner.py:1234 - execute_model",
    ),
    ("perf-java", "how much time is in NioEventLoop.run", "function", CPU_JAVA),
    ("go", "how much cpu does handle take", "function", "fn:main.handle"),
    ("go", "what does handle.func1 call", "callees", "fn:main.handle.func1"),
    ("go", "who calls (*Conn).Read", "callers", "fn:net.(*Conn).Read"),
    # everyday and vague wording: an answer, never the menu
    ("perf-java", "where is the time going", "most", ""),
    ("perf-java", "split it up per category pls", "category", ""),
    ("perf-java", "wat is er allemaal unresolved?", "category", "concept:unresolved"),
    ("pyspy", "does this look ok?", "assess", ""),
    ("gpu", "is dit normaal?", "assess", ""),
    ("perf-java", "is this ok or not", "assess", ""),
    ("go-heap", "is dit heap gebruik oké?", "assess", ""),
    # concepts checked against the profile
    ("cpu", "what share of the CPU is the scheduler?", "function", "fn:Scheduler.schedule"),
    ("perf-java", "what share is the kernel?", "category", "concept:kernel"),
    ("pyspy", "how much is unresolved / unknown?", "category", "concept:unresolved"),
    ("node", "hoeveel tijd is garbage collection in deze node app", "category", "concept:gc"),
    # compound questions read as their first part (the conversation answers every part)
    ("gpu", "what should I optimise first, and with which vLLM setting?", "optimise", ""),
    ("gpu", "how much does the KV cache reserve and what knob shrinks it", "category", "concept:kv-cache"),
    ("gpu", "hoeveel reserveert de KV cache en met welke knop maak ik dat kleiner?", "category", "concept:kv-cache"),
    (
        "go-heap",
        "how much does newArena reserve and who calls it",
        "function",
        "fn:github.com/dgraph-io/badger/v2/skl.newArena",
    ),
    # incidental words never take a question over
    ("loki", "where do all these allocations come from? it shows like this in grafana", "responsible", ""),
    ("go-cpu", "we lopen achter op schema; welke functie gebruikt de meeste cpu?", "most", ""),
    ("gpu", "what should I change to free memory?", "optimise", ""),
    ("go-cpu", "wtf is eating all the cpu on this pyroscope box", "most", ""),
]

TICKETS = [
    # a ticket's context lends the subject its question points back at; its words never decide the intent
    (
        "dotnet",
        "StackExchange.Redis PhysicalConnection.get_BridgeCouldBeNull shows 10% self. Which code calls it?",
        "callers",
        "fn:StackExchange.Redis!StackExchange.Redis.PhysicalConnection.get_BridgeCouldBeNull()",
    ),
    (
        "go-cpu",
        "The trie lookup findNodeAt appears at the top of every graph we take. Could you give its self and total figures?",
        "function",
        "fn:github.com/pyroscope-io/pyroscope/pkg/structs/transporttrie.(*trieNode).findNodeAt",
    ),
    (
        "cpu",
        "Latency regressed after we enabled streaming. How much CPU time does the scheduler take in this profile?",
        "function",
        "fn:Scheduler.schedule",
    ),
    (
        "kafka",
        "For capacity planning of the produce path: how much CPU does ReplicaManager.appendRecords take in total?",
        "function",
        "fn:kafka/server/ReplicaManager.appendRecords",
    ),
    (
        "java",
        "Our Java service shows a frame called no_Java_frame at 5% self. What does that frame represent?",
        "meaning",
        "fn:no_Java_frame",
    ),
    (
        "java",
        "During the incident the threads were mostly in Thread.sleep. Can this frame be disregarded when looking for CPU hot spots?",
        "skip",
        "fn:java/lang/Thread.sleep",
    ),
    (
        "java",
        "We have one sprint to reduce the CPU cost of this job. Which change would give the largest win?",
        "optimise",
        "",
    ),
    (
        "perf-java",
        "The Vert.x service was profiled with perf on the host. How much of the CPU is spent in the kernel rather than in Java code?",
        "category",
        "concept:kernel",
    ),
    (
        "go-heap",
        "Before we raise the memory limit, please confirm the total in-use heap captured in this profile.",
        "total",
        "",
    ),
    (
        "dotnet",
        "For the handoff I need to know which functions RedisCartStore.GetCartAsync calls.",
        "callees",
        "fn:cartservice!cartservice.cartstore.RedisCartStore.GetCartAsync(class System.String)",
    ),
    (
        "java",
        "The flame graph is dominated by com.example.Something. Which functions are called by funcBaz?",
        "callees",
        BAZ,
    ),
    (
        "kafka",
        "Compression is suspected on the fetch path. How much CPU does reading the snappy input stream cost?",
        "function",
        "fn:org/xerial/snappy/SnappyInputStream.read",
    ),
    (
        "java",
        "Regex matching is slow. Please show the full call chain that leads to java.io.File.createTempFile.",
        "chain",
        "fn:java/io/File.createTempFile",
    ),
    # callers against callees by where the name stands, in both languages and with a pronoun
    ("java", "Which functions call funcBaz?", "callers", BAZ),
    ("java", "who invokes funcBaz", "callers", BAZ),
    ("java", "what does funcBaz call", "callees", BAZ),
    ("java", "list the functions invoked by funcBaz", "callees", BAZ),
    ("java", "Where is funcBaz called from?", "callers", BAZ),
    ("java", "wie roept funcBaz aan", "callers", BAZ),
    ("java", "welke functies roept funcBaz aan", "callees", BAZ),
    ("java", "welke functies worden door funcBaz aangeroepen", "callees", BAZ),
    ("java", "funcBaz is a hot method in our service. Which functions does it invoke?", "callees", BAZ),
    (
        "dotnet",
        "The on-call engineer noticed ConsolePal.Write near the top of the flame graph in Grafana. Which code paths call into it?",
        "callers",
        "fn:System.Console!System.ConsolePal.Write(class Microsoft.Win32.SafeHandles.SafeFileHandle,unsigned int8*,int32,bool)",
    ),
    # what follows a question, who wants to know, and when something happened set the scene
    ("kafka", "Which function uses the most CPU? We need this for the handoff.", "most", ""),
    ("kafka", "The scheduler team wants to know which function is the hottest.", "most", ""),
    ("kafka", "Which code path is hottest after the regression?", "most", ""),
    ("go-heap", "is this a memory leak?", "assess", ""),
    # a word naming several functions is the group ("naar redis")
    (
        "dotnet",
        "hoeveel % gaat naar redis",
        "function",
        "fn:cartservice!cartservice.cartstore.RedisCartStore+<GetCartAsync>d__13.MoveNext()",
    ),
    ("kafka", "How much CPU goes to kafka.log?", "function", "fn:kafka/log/UnifiedLog.append"),  # a package
    # names as each runtime writes them
    ("node", "who calls bikeSearchHandler", "callers", "fn:./build/index.js:bikeSearchHandler:26"),
    ("node", "wie roept carSearchHandler in index.ts aan", "callers", "fn:./index.ts:carSearchHandler:31"),
    ("node", "is (idle) something i should care about or can i skip it", "skip", "fn::(idle):0"),
    (
        "ruby",
        "The Ruby driver service is slow on request parsing. Where is parse_uri called from?",
        "callers",
        "fn:webrick/httprequest.rb:500 - parse_uri",
    ),
    ("cpp", "wat is [libpthread-2.15.so] hier", "meaning", "fn:[libpthread-2.15.so]"),
    ("go-heap", "who calls Put", "callers", "fn:github.com/pyroscope-io/pyroscope/pkg/storage.(*Storage).Put"),
    ("java", "what's calling open0", "callers", "fn:java/io/FileOutputStream.open0"),
    ("java", "Which functions call SecureRandom's nextBytes?", "callers", "fn:java/security/SecureRandom.nextBytes"),
    (
        "kafka",
        "hoeveel tijd kost het afhandelen van produce requests?",
        "function",
        "fn:kafka/server/KafkaApis.handleProduceRequest",
    ),
]


@pytest.mark.parametrize(("key", "text", "intent", "subject"), ISSUE + TICKETS)
def test_each_example_is_read_as_asked(key: str, text: str, intent: str, subject: str) -> None:
    assert _read(key, text)[:2] == (intent, subject)


def test_a_short_english_question_is_english_and_a_dutch_one_dutch() -> None:
    assert _read("pyspy", "wtf is 0x7f15c3a0")[2] == "en"
    assert _read("gpu", "is dit normaal?")[2] == "nl"


def test_a_ticket_is_split_into_its_context_and_its_question() -> None:
    assert split_context("Since the upgrade the nodes are slow. Which function uses the most CPU?") == (
        "Since the upgrade the nodes are slow.",
        "Which function uses the most CPU?",
    )
    assert split_context("Before we raise the limit, please confirm the total in-use heap.") == (
        "Before we raise the limit,",
        "please confirm the total in-use heap.",
    )
    assert split_context("who calls NioEventLoop.run?") == ("", "who calls NioEventLoop.run?")
    assert split_context("how much is 74.7 GB of 80 GB?") == ("", "how much is 74.7 GB of 80 GB?")


def test_follow_ups_keep_their_referent_in_the_demo_chat() -> None:
    conv = Conversation(demo_profile(), settings=LlmSettings(), mode="offline")
    answer = conv.ask("what is responsible for the memory?").markdown
    assert "entry points" in answer
    second = conv.read("and the second one?")
    assert second.subject is not None and second.subject.name not in ("<interpreter trampoline>", "<module>")
    conv.ask("hoeveel nemen de gewichten in?")
    follow = conv.read("hoe krijg ik dat kleiner?")
    assert follow.subject is not None and follow.subject.label == "concept:weights"


def test_a_compound_ticket_is_answered_part_by_part() -> None:
    conv = Conversation(demo_profile(), settings=LlmSettings(), mode="offline")
    text = "Before the capacity review, tell us what we should optimise first and which vLLM setting controls it."
    parts = conv.ask(text).markdown.split("\n---\n")
    assert len(parts) == 2 and "Start with" in parts[0]
