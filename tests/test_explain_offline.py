"""The offline explainer: the domain guide's questions, answered with the right functions and numbers.

GIVEN the seed's vLLM profile (the demo) or a real profile from the shared corpus, WHEN a question
from "Questions users ask" is asked offline, THEN the answer names the functions and numbers the
analyzer reports, and every number in it checks out against what it formatted (a flag would be
a bug in the explainer itself).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from conftest import tree_profile
from explainer.demo import SEED_CHAIN
from explainer.errors import ExplainerError
from explainer.explain import Answer, Conversation, LlmSettings
from explainer.model import Profile, ProfileBuilder, SampleType
from explainer.readers import read_path

OFFLINE = LlmSettings()  # nothing configured: the environment of the test run cannot switch a model on

DOMAIN_QUESTIONS = {
    "What uses the most GPU memory?": "most",
    "What is responsible for it?": "responsible",
    "What does `LlamaMLP > __init__` mean?": "meaning",
    "What does <interpreter trampoline> mean?": "meaning",
    "What does 0x7f15... mean?": "meaning",
    "Why is self 0 here when the bar is so wide?": "self_vs_total",
    "What is the difference between self and total?": "self_vs_total",
    "Show me the call chain to the biggest allocation, and explain each step.": "chain",
    "What should I optimise first?": "optimise",
    "What can I ignore?": "skip",
    "What changed compared with yesterday?": "compare",
    "What changed since the previous deploy?": "compare",
    "What is different on the other pod?": "compare",
    "Write me a summary for the on-call handoff.": "handoff",
}


def ask(profile: Profile, question: str, baseline: Profile | None = None) -> Answer:
    answer = Conversation(profile, settings=OFFLINE, mode="offline", baseline=baseline).ask(question)
    assert answer.mode == "offline"
    assert answer.verification.unverified == [], answer.markdown
    return answer


def in_order(text: str, names: list[str]) -> bool:
    """Each name (as a code span) appears after the one before it."""
    at = 0
    for name in names:
        at = text.find(f"`{name}`", at)
        if at < 0:
            return False
        at += 1
    return True


def read(question: str, profile: Profile | None = None) -> Any:
    from explainer.demo import demo_profile

    return Conversation(profile or demo_profile(), settings=OFFLINE, mode="offline").read(question)


@pytest.mark.parametrize(("question", "kind"), DOMAIN_QUESTIONS.items())
def test_every_domain_question_is_recognised(question: str, kind: str) -> None:
    assert read(question).intent == kind


@pytest.mark.parametrize(
    ("question", "target"),
    [
        ("What does `LlamaMLP > __init__` mean?", "LlamaMLP.__init__"),
        ("What does LlamaMLP > __init__ mean?", "LlamaMLP.__init__"),
        ("What does <interpreter trampoline> mean?", "<interpreter trampoline>"),
        ("What does 0x7f15... mean?", "0x7f151"),
        ("Who calls GPUModelRunner.initialize_kv_cache?", "GPUModelRunner.initialize_kv_cache"),
        ("What is _compile_fx_inner?", "_compile_fx_inner"),
        ("What uses the most GPU memory?", None),
    ],
)
def test_the_frame_a_question_names(question: str, target: str | None) -> None:
    subject = read(question).subject
    assert (subject.name if subject is not None else None) == target


def test_what_uses_the_most(demo: Profile) -> None:
    a = ask(demo, "What uses the most GPU memory?")
    head = a.markdown.split("\n")[0]
    assert "`GPUModelRunner._allocate_kv_cache_tensors`" in head
    assert "55.1 GB" in head and "73.8%" in head and "74.7 GB" in head
    assert "`UnquantizedLinearMethod.create_weights`" in a.markdown and "12.0 GB" in a.markdown
    assert a.focus == "GPUModelRunner._allocate_kv_cache_tensors"
    assert a.verification.checked >= 10


def test_what_is_responsible(demo: Profile) -> None:
    a = ask(demo, "What is responsible for it?")
    head = a.markdown.split("\n")[0]
    assert "`EngineCore._initialize_kv_caches`" in head and "60.9 GB" in head and "81.5%" in head
    assert "entry points" in a.markdown  # the 100% bars at the bottom are named as such, not as causes
    assert in_order(a.markdown, ["EngineCore._initialize_kv_caches", "GPUModelRunner._allocate_kv_cache_tensors"])


def test_a_constructor_label(demo: Profile) -> None:
    a = ask(demo, "What does `LlamaMLP > __init__` mean?")
    assert "constructor of class LlamaMLP" in a.markdown
    assert "8.7 GB" in a.markdown  # its total in this profile
    assert "`MergedColumnParallelLinear.__init__`" in a.markdown  # where its total goes (self 0)
    assert a.focus == "LlamaMLP.__init__"


def test_the_trampoline_and_an_address(demo: Profile) -> None:
    a = ask(demo, "What does <interpreter trampoline> mean?")
    assert "CPython" in a.markdown and "dispatch" in a.markdown and "Ignore it" in a.markdown
    b = ask(demo, "What does 0x7f15... mean?")
    assert "`0x7f151`" in b.markdown and "raw address" in b.markdown.lower()
    assert "re-running" in b.markdown  # the domain guide: symbols resolve once the profiler has seen the workload


def test_self_versus_total_is_taught_with_this_profiles_numbers(demo: Profile) -> None:
    for question in ("Why is self 0 here when the bar is so wide?", "What is the difference between self and total?"):
        a = ask(demo, question)
        assert "`EngineCore.__init__`" in a.markdown and "74.7 GB" in a.markdown and "0 B" in a.markdown
        assert "`EngineCore._initialize_kv_caches` 60.9 GB" in a.markdown  # where the wide bar's width goes
        assert "self 55.1 GB = total 55.1 GB" in a.markdown
        assert "at least once" in a.markdown  # the counting rule


def test_the_chain_read_bottom_to_top(demo: Profile) -> None:
    a = ask(demo, "Show me the call chain to the biggest allocation, and explain each step.")
    seed_chain = list(SEED_CHAIN)
    assert in_order(a.markdown, seed_chain)
    steps = [line for line in a.markdown.splitlines() if re.match(r"\d+\. ", line)]
    assert len(steps) == len(seed_chain)  # every step explained on its own line
    assert "entry point" in steps[0] and "allocated" in steps[-1]
    assert "narrows to 60.9 GB" in a.markdown and "13.8 GB more" in a.markdown


def test_what_to_optimise_and_what_to_ignore(demo: Profile) -> None:
    a = ask(demo, "What should I optimise first?")
    assert a.markdown.startswith("**Start with `GPUModelRunner._allocate_kv_cache_tensors`: 55.1 GB")
    assert in_order(a.markdown, ["UnquantizedLinearMethod.create_weights", "CUDAGraph.capture_begin"])
    b = ask(demo, "What can I ignore?")
    assert "zero self" in b.markdown and "`<module>`: 74.7 GB (100.0%) total, self 0 B" in b.markdown
    assert "`<interpreter trampoline>` frames" in b.markdown


def test_totals_callers_callees_and_a_function(demo: Profile) -> None:
    assert (
        "**The total is 74.7 GB of GPU memory, across 14 distinct stacks and 51 functions.**"
        in ask(demo, "What is the total?").markdown
    )
    callers = ask(demo, "Who calls GPUModelRunner.initialize_kv_cache?").markdown
    assert "`Worker.initialize_from_config` | 55.1 GB | 100.0%" in callers
    callees = ask(demo, "What does EngineCore.__init__ call?").markdown
    assert "`EngineCore._initialize_kv_caches` | 60.9 GB" in callees and "`Worker.load_model` | 13.8 GB" in callees
    fx = ask(demo, "What is _compile_fx_inner?").markdown
    assert "total 1.1 GB (1.4%), self 720.0 MB (1.0%)" in fx


def test_compare_needs_a_baseline_and_uses_one(demo: Profile) -> None:
    assert "need a second profile" in ask(demo, "What changed compared with yesterday?").markdown
    builder = ProfileBuilder(demo.sample_type)
    for stack, value in demo.stacks():
        builder.add(stack, value // 2 if stack[-1] == "GPUModelRunner._allocate_kv_cache_tensors" else value)
    a = ask(demo, "What changed compared with yesterday?", baseline=builder.build())
    assert a.markdown.startswith("**The total grew: 47.1 GB in the baseline, 74.7 GB now (+27.6 GB")
    assert "`GPUModelRunner._allocate_kv_cache_tensors`: self 27.6 GB → 55.1 GB (+27.6 GB)" in a.markdown
    assert a.focus == "GPUModelRunner._allocate_kv_cache_tensors"


def test_handoff_summary(demo: Profile) -> None:
    a = ask(demo, "Write me a summary for the on-call handoff.")
    assert "74.7 GB" in a.markdown and "bytes allocated, not memory in use" in a.markdown
    assert in_order(a.markdown, ["GPUModelRunner._allocate_kv_cache_tensors", "UnquantizedLinearMethod.create_weights"])


def test_unknown_questions_and_names_get_a_helpful_reply(demo: Profile) -> None:
    a = ask(demo, "hello there")
    assert "did not recognise" in a.markdown and "What should I optimise first?" in a.markdown
    b = ask(demo, "What is `Foo.bar`?")
    assert "`Foo.bar` does not appear in this profile" in b.markdown and b.focus is None


def test_hostile_names_are_cleaned_and_capped() -> None:
    evil = "Evil\u202e.__init__\x1b[31m" + "A" * 100_000
    builder = ProfileBuilder(SampleType("alloc_space", "bytes"))
    builder.add(["<module>", "run", evil], 9 * 10**9)
    builder.add(["<module>", "run", "ok_function"], 10**9)
    profile = builder.build()
    for question in DOMAIN_QUESTIONS:
        a = ask(profile, question)
        assert "\u202e" not in a.markdown and "\x1b" not in a.markdown
        assert max(len(line) for line in a.markdown.splitlines()) < 2_000
    assert "9.0 GB" in ask(profile, "What uses the most GPU memory?").markdown


def test_an_empty_profile_is_answered_not_crashed() -> None:
    empty = ProfileBuilder(SampleType("cpu", "nanoseconds")).build()
    a = ask(empty, "What uses the most CPU?")
    assert "nothing to rank" in a.markdown
    assert Conversation(empty, settings=OFFLINE).suggested_questions()


def test_streaming_offline_gives_the_same_markdown(demo: Profile) -> None:
    conv = Conversation(demo, settings=OFFLINE)
    text = "".join(conv.ask_stream("What uses the most GPU memory?"))
    assert conv.last_answer is not None and text == conv.last_answer.markdown
    assert conv.outgoing_preview("anything") == ""  # offline: nothing would be sent


def test_suggested_questions_fit_the_profile(demo: Profile) -> None:
    questions = Conversation(demo, settings=OFFLINE).suggested_questions()
    assert questions[0] == "What uses the most GPU memory?"
    assert any("`" in q and "mean" in q for q in questions)
    assert all(read(q).intent != "unknown" for q in questions)


def test_every_question_is_answered_and_verified_on_an_8192_node_tree() -> None:
    """Loading analyses the profile once; the speed of each answer is measured in bench/questions.py."""
    profile = tree_profile()
    conv = Conversation(profile, settings=OFFLINE, mode="offline")
    for question in [*DOMAIN_QUESTIONS, "Who calls EngineWorker.method_3?", "What is the total?"]:
        answer = conv.ask(question)
        assert answer.verification.unverified == [] and answer.markdown.strip(), question


def _real_profiles(real_dir: Path) -> list[Path]:
    return sorted(p for p in real_dir.rglob("*") if p.is_file() and p.suffix != ".md")


@pytest.mark.real
@pytest.mark.slow  # seconds of generated shapes: make test runs it, make check does not
def test_real_profiles_name_the_right_functions_and_numbers(real_dir: Path) -> None:
    from explainer import units
    from explainer.symbols import clean

    answered = 0
    for path in _real_profiles(real_dir):
        try:
            profile = read_path(path)
        except ExplainerError:
            continue  # unreadable inputs are the readers' tests
        conv = Conversation(profile, settings=OFFLINE, mode="offline")
        rows = conv.ctx.summary.top_self.rows
        for question in DOMAIN_QUESTIONS:
            a = conv.ask(question)
            assert a.verification.unverified == [], (path.name, question, a.verification.unverified)
        if not rows:
            continue
        top = conv.ask("What uses the most?").markdown
        assert clean(rows[0].name, 120).replace("`", "'") in top, path.name
        assert units.format_value(rows[0].self, profile.unit) in top, path.name
        chain = conv.ask("Show me the call chain to the top function").markdown
        assert clean(rows[0].name, 120).replace("`", "'") in chain, path.name
        answered += 1
    assert answered >= 20


@pytest.mark.parametrize(
    "question",
    [
        "how much time is spent on the GIL?",
        "how much of the cpu goes to the global interpreter lock",
        "is it the GIL?",
        "is the GIL a problem here?",  # asks for a review of one thing: its share, not the whole profile's review
    ],
)
def test_the_gil_is_the_locks_category_and_a_python_profile_says_what_it_cannot_show(question: str) -> None:
    from conftest import named_profile

    profile = named_profile("real:pyroscope_agpl-3.0/pyspy-1.pb.gz")  # py-spy without --native: no GIL frames
    conversation = Conversation(profile, settings=OFFLINE, mode="offline")
    read = conversation.read(question)
    assert read.subject is not None and (read.subject.kind, read.subject.name) == ("concept", "sync")
    text = conversation.ask(question).markdown
    assert "locks, spinning, safepoints and the GIL" in text and "0 (0.0%)" in text
    assert "does not rule the GIL out" in text and "--native" in text and "[" not in text  # nothing unverified


def test_a_leading_so_like_is_a_filler() -> None:
    from conftest import named_profile

    profile = named_profile("real:pyroscope_agpl-3.0/pyspy-1.pb.gz")
    read = Conversation(profile, settings=OFFLINE, mode="offline").read("so like where is my python burning cpu")
    assert read.intent == "most" and read.subject is None


def test_the_responsible_table_lists_causes_below_the_entry_points_and_the_second_one_is_its_second_row() -> None:
    from explainer.demo import demo_profile

    conversation = Conversation(demo_profile(), settings=OFFLINE, mode="offline")
    text = conversation.ask("what is responsible for the most memory?").markdown
    table = text[text.index("Widest bars by total below the entry points:") :]
    rows = re.findall(r"^\| `([^`]+)` \|", table, re.MULTILINE)
    assert rows[0] == "EngineCore._initialize_kv_caches" and len(rows) == 6
    assert not {"<module>", "<interpreter trampoline>", "EngineCore.__init__"} & set(rows)  # named as entries above
    assert conversation.read("and the second one?").subject.name == rows[1]


def test_the_callers_answer_lists_as_many_as_asked_and_states_nothing_unverified() -> None:
    from conftest import named_profile

    profile = named_profile("real:pyroscope-og_apache-2.0/cpu-big.pprof")
    text = ask(profile, "who are the top 3 callers of mallocgc?").markdown
    rows = re.findall(r"^\| `", text, re.MULTILINE)
    assert len(rows) == 3 and "[unverified]" not in text  # its note once said "more than 100%", an unbound number


def test_a_meaning_question_that_names_nothing_never_shows_an_empty_name() -> None:
    from explainer.demo import demo_profile

    wide = ask(demo_profile(), "why is this bar so wide?").markdown  # was "**``**: A frame the profiler could not name"
    assert "``" not in wide and "A bar's width in the flame graph is its total" in wide
    vague = ask(demo_profile(), "what does that mean?").markdown  # nothing before it for "that"
    assert "``" not in vague and "I did not recognise that question" in vague


def test_the_widest_bars_are_the_responsible_question() -> None:
    from explainer.demo import demo_profile

    conversation = Conversation(demo_profile(), settings=OFFLINE, mode="offline")
    read = conversation.read("which 3 functions have the widest bars?")
    assert (read.intent, read.top_n) == ("responsible", 3)


@pytest.mark.parametrize(
    ("key", "question", "says"),
    [
        ("real:pyroscope-og_apache-2.0/nodejs-heap.pb.gz", "is this a memory leak?", "One profile cannot show a leak"),
        ("real:pyroscope-og_apache-2.0/nodejs-heap.pb.gz", "any leaks here", "compare two time ranges in Pyroscope"),
        ("gpu", "is het een geheugenlek?", "het groeit niet tijdens het serveren"),
        ("gpu", "do we have a memory leak", "vLLM reserving memory at start-up, by design"),
        ("real:pyroscope_agpl-3.0/pyspy-1.pb.gz", "memory keeps growing, is it leaking", "does not measure memory"),
    ],
)
def test_a_leak_is_growth_that_one_profile_cannot_show(key: str, question: str, says: str) -> None:
    """ "Is this a memory leak?" is answered with what one profile can and cannot say, and how to see growth;
    with a baseline loaded, with what grew."""
    from conftest import named_profile

    answer = Conversation(named_profile(key), settings=LlmSettings(), mode="offline").ask(question)
    assert says in answer.markdown and "[unverified]" not in answer.markdown


def test_a_leak_asked_with_a_baseline_is_what_grew(demo: Profile) -> None:
    conv = Conversation(demo, settings=LlmSettings(), mode="offline", baseline=demo)
    assert conv.ask("is this a memory leak?").markdown == conv.ask("what changed compared with the baseline?").markdown


def test_a_name_with_a_pipe_is_checked_as_written() -> None:
    """.NET's local functions (`<<Invoke>g__AwaitRequestTask|6_0>d`) carry a pipe, written `\\|` so that a table
    stays whole: the check reads it back, so the chain to one is not flagged as naming a frame the profile lacks."""
    from conftest import named_profile

    conv = Conversation(
        named_profile("real:pyroscope-og_apache-2.0/cart-service-dotnet-cpu.json"),
        settings=LlmSettings(),
        mode="offline",
    )
    conv.ask("hottest frames by self time")
    conv.ask("the 2nd one")
    chain = conv.ask("whats the path to it").markdown
    assert "g__AwaitRequestTask\\|6_0" in chain and "[not in this profile]" not in chain


@pytest.mark.parametrize(
    ("key", "question", "first_line_has", "first_line_lacks"),
    [
        (  # every frame with self is .NET's or a library's: said so, with the team's widest frame
            "real:pyroscope-og_apache-2.0/cart-service-dotnet-cpu.json",
            "which of our own code uses the most cpu",
            "None of the application's own code",
            "System.Console",
        ),
        (
            "real:pyroscope-og_apache-2.0/cart-service-dotnet-cpu.json",
            "welke van onze eigen code is verantwoordelijk voor de meeste cpu?",
            "`cartservice!cartservice.cartstore.RedisCartStore",
            "ThreadPoolWorkQueue",
        ),
        (  # the JDK and a native library are not the team's code
            "real:pyroscope_agpl-3.0/jfr-kafka-cpu-0.pb.gz",
            "which of our own java code burns the most cpu",
            "Of the application's own code",
            "java/util/regex",
        ),
        (  # Go's standard library is not either
            "real:pyroscope-og_apache-2.0/cpu-big.pprof",
            "which of our code is responsible for the most cpu",
            "`github.com/",
            "`runtime.",
        ),
    ],
)
def test_our_own_code_leaves_out_the_runtime_and_its_libraries(
    key: str, question: str, first_line_has: str, first_line_lacks: str
) -> None:
    from conftest import named_profile

    answer = Conversation(named_profile(key), settings=LlmSettings(), mode="offline").ask(question).markdown
    first = answer.split("\n\n", 1)[0]
    assert first_line_has in first and first_line_lacks not in first, first
