"""Questions that ask for a number of functions ("gimme the top 3", "de drie grootste functies") get that many.

The corpus, ``tests/corpus/questions_counts.toml``, was written blind (its header says how) on the demos and
on real profiles of several runtimes, with negative cases whose numbers are data ("we run on 8 gpus"). Each
question is asked offline, as ``explainer ask`` asks it, and scored right when it is read as its intent and
its answer lists the functions it should, counted in the answer's Markdown as a user reads it:

- most: the headline's function and the rows of the "next by self" table; min(N, functions with self), or
  the default 6 when no count is asked;
- responsible: the rows of the "widest bars by total below the entry points" table; min(N, functions with a
  total below the whole that are no entry point and do more than pass calls on);
- optimise: the start and the candidates after it; the candidates are functions of at least 1% self, so
  min(N, 1 + those), never the start or the biggest consumer twice.

The score is printed per intent and language (``pytest -s``); its floor starts at the first-sight score.
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conftest import named_profile
from explainer.explain import Conversation, LlmSettings
from explainer.explain.question.counts import MAX_ROWS
from explainer.queries.answering import SMALL_SHARE

CORPUS = Path(__file__).parent / "corpus" / "questions_counts.toml"
DEFAULTS = {"most": 6, "responsible": 6, "optimise": 6}
# First sight, 2026-12-02: main before the change (d992a73) 8/50: "top N" was read but no answer used it, so
# only questions whose count happened to be the default passed. The change's first run on the corpus (count
# words and "N biggest" read, the answers listing N): 36/50. Then, tuned by class (each tested below beyond its
# corpus line): a pod named as the scene ("our vLLM pod gets OOM-killed ... list the 4 largest") no longer
# gets "a file has no pods"; a word between the count and its noun ("4 code paths", "3 memory hogs"); a
# part that only states the count ("... first? give me 3 options") counts the part before it; rows past 10
# numbered through the grounding (they were marked unverified): 48/50; "widest bars" read as what is
# responsible (a bar's width is its total): 49/50. Left: "why is python 3.11 so slow" reads as what is
# responsible (labelled most): a reading of the intent, not of the count.
FLOOR = 0.98
OFFLINE = LlmSettings()

_RANKED_ROW = re.compile(r"^\| \d+ \| ", re.MULTILINE)  # most: "| 2 | `name` | 12.0 GB | ..."
_NAMED_ROW = re.compile(r"^\| `", re.MULTILINE)  # responsible: "| `name` | 74.7 GB | 100.0% | 0 B |"
# optimise: "- `name`: 4.2 GB (5.6%) self. ..." (its knobs' lines have no share, its sites' no "self.")
_CANDIDATE = re.compile(r"^- `.+`: .+\(\d[\d.,]*\s?%\) self\. ", re.MULTILINE)


def _questions() -> list[dict[str, Any]]:
    return tomllib.loads(CORPUS.read_text(encoding="utf-8"))["question"]


def listed(intent: str, markdown: str) -> int:
    """How many functions the answer lists, as a reader counts them."""
    if intent == "most":
        return 1 + len(_RANKED_ROW.findall(markdown))
    if intent == "responsible":
        return len(_NAMED_ROW.findall(markdown))
    return 1 + len(_CANDIDATE.findall(markdown))


def expected(intent: str, asked: int, reading: Any, start: str | None) -> int:
    stats = reading.summary.stats
    profile = stats.profile
    n = min(asked or DEFAULTS[intent], MAX_ROWS)
    if intent == "most":
        return min(n, int(np.count_nonzero(stats.self_values > 0)))
    if intent == "responsible":
        whole = reading.summary.total
        below = np.flatnonzero((stats.total_values > 0) & (stats.total_values < whole)).tolist()
        return min(n, sum(reading.role(profile.names[i]) not in ("noise", "entry") for i in below))
    total = int(stats.self_values.sum())
    biggest = profile.names[int(np.argmax(stats.self_values))]
    candidates = sum(
        1
        for i in np.flatnonzero(stats.self_values >= SMALL_SHARE * total).tolist()
        if profile.names[i] not in {start, biggest}
    )
    return min(n, 1 + candidates)


def score(question: dict[str, Any]) -> tuple[bool, str]:
    profile = named_profile(question["profile"])
    conversation = Conversation(profile, settings=OFFLINE, mode="offline")
    read = conversation.read(question["text"])
    if read.intent != question["intent"]:
        return False, f"read as {read.intent}"
    answer = conversation.ask(question["text"])
    got = listed(question["intent"], answer.markdown)
    want = expected(question["intent"], question["count"], conversation.ctx.reading, answer.focus)
    return got == want, f"listed {got}, want {want}"


def test_corpus_is_blind_sized_and_mixed() -> None:
    questions = _questions()
    assert len(questions) >= 40
    assert {q["intent"] for q in questions} == set(DEFAULTS)
    assert sum(q["lang"] == "nl" for q in questions) >= 8
    assert sum(q["count"] == 0 for q in questions) >= 6  # numbers that are data, not counts
    assert any(q["count"] > 10 for q in questions)


@pytest.mark.slow
def test_counts_are_honoured(capsys: pytest.CaptureFixture[str]) -> None:
    right, by = 0, Counter[str]()
    misses = []
    questions = _questions()
    for q in questions:
        ok, why = score(q)
        right += ok
        by[f"{q['intent']}/{q['lang']}/{'ok' if ok else 'miss'}"] += 1
        if not ok:
            misses.append(f"{q['text']!r} ({q['profile']}): {why}")
    with capsys.disabled():
        print(f"\ncount corpus: {right}/{len(questions)}", dict(sorted(by.items())), *misses, sep="\n  ")
    assert right / len(questions) >= FLOOR, misses


@pytest.mark.parametrize(
    ("question", "count"),
    [
        ("gimme the top 3", 3),
        ("top-5 pls", 5),
        ("top10 functions", 10),
        ("what are the three biggest functions", 3),  # the spelling pass reads "three" as "there"
        ("de drie grootste functies", 3),
        ("first 4 hotspots", 4),
        ("which 2 code paths are responsible", 2),  # a word between the count and its noun
        ("the 5 memory hogs", 5),
        ("list the 100 hottest functions", 100),  # answered with MAX_ROWS, and said
        ("which 4 allocations eat the most heap?", 4),  # tried as a user would after the corpus: 6 were listed
        ("which one uses the most", None),  # an ordinal, not a count
        ("the top one", None),
        ("why is python 3.11 so slow", None),
        ("we run on 8 gpus, what uses the most memory?", None),
        ("what happened in the last 30 minutes", None),
        ("gpu 0 is full, whats using it", None),
        ("is 80GB enough", None),
        ("what uses the most memory in the first 5 minutes", None),  # a measure after the number
        ("what is in the top 10% of samples", None),
        ("de eerste 10 minuten na de start", None),
    ],
)
def test_the_count_a_question_asks(question: str, count: int | None) -> None:
    from explainer.explain.question.counts import count_in

    assert count_in(question) == count


@pytest.mark.parametrize(
    ("question", "count"),
    [
        ("what should i optimise first? give me 3 options", 3),  # "options" are not settings here
        ("what uses the most memory? top 5 pls", 5),
        ("wat gebruikt het meeste geheugen? alleen de top 3", 3),
    ],
)
def test_a_part_that_only_counts_counts_the_part_before(question: str, count: int) -> None:
    read = Conversation(named_profile("cpu"), settings=OFFLINE, mode="offline").read(question)
    assert read.intent in ("optimise", "most") and read.top_n == count


def test_more_rows_than_an_answer_lists_is_said() -> None:
    profile = named_profile("real:pyroscope_agpl-3.0/jfr-kafka-alloc-tlab-bytes-0.pb.gz")
    markdown = Conversation(profile, settings=OFFLINE, mode="offline").ask("list the 100 hottest functions").markdown
    assert listed("most", markdown) == MAX_ROWS
    assert f"You asked for 100; an answer lists at most {MAX_ROWS}" in markdown and "[unverified]" not in markdown


MORE = Path(__file__).parent / "corpus" / "questions_more.toml"
_RANK = re.compile(r"^\| (\d+) \| ", re.MULTILINE)
# First sight, 2026-12-02 (the corpus written blind while "show me more" was being built, scored on its first
# run): 23/30, the five negatives right. Tuned by class (each tested below beyond its corpus line): "moar", "keep
# going", "what else", Dutch "ook laten zien" and a ticket's longer "could you list the next five as well, so I
# can add them to the ticket?" read as going on; "in their own code" is self, not the application's own code;
# a ticket's count outside its question sentence ("...? Just the top 3 for now.") counts: 30/30.
MORE_FLOOR = 1.0


def score_more(turns: dict[str, Any]) -> tuple[bool, str]:
    """The first answer lists ``first_listed``; the second goes on at ``from_rank`` for ``count`` ranks, or (a
    negative) is read as a question of its own."""
    conversation = Conversation(named_profile(turns["profile"]), settings=OFFLINE, mode="offline")
    first = conversation.ask(turns["first"]).markdown
    if listed("most", first) != turns["first_listed"]:
        return False, f"first listed {listed('most', first)}"
    then = conversation.read(turns["then"])
    if not turns["continues"]:
        return then.offset == 0, f"read as going on after {then.offset}"
    ranks = [int(r) for r in _RANK.findall(conversation.ask(turns["then"]).markdown)]
    want = list(range(turns["from_rank"], turns["from_rank"] + turns["count"]))
    return ranks == want, f"ranks {ranks[:3]}..{ranks[-1:]} ({len(ranks)}), want {want[0]}..{want[-1]}"


@pytest.mark.slow
def test_show_me_more_goes_on_with_the_list(capsys: pytest.CaptureFixture[str]) -> None:
    conversations = tomllib.loads(MORE.read_text(encoding="utf-8"))["conversation"]
    assert len(conversations) >= 25 and sum(not c["continues"] for c in conversations) >= 4
    right, misses = 0, []
    for c in conversations:
        ok, why = score_more(c)
        right += ok
        if not ok:
            misses.append(f"{c['first']!r} -> {c['then']!r} ({c['profile']}): {why}")
    with capsys.disabled():
        print(f"\nmore corpus: {right}/{len(conversations)}", *misses, sep="\n  ")
    assert right / len(conversations) >= MORE_FLOOR, misses


@pytest.mark.parametrize(
    ("question", "goes_on"),
    [
        ("show me 3 more", True),
        ("next 5", True),
        ("and the rest?", True),
        ("moar pls", True),
        ("keep going", True),
        ("en de volgende 5?", True),
        ("toon er nog 3", True),
        ("which one uses more, the first or the second?", False),  # a comparison
        ("tell me more about the first one", False),  # one function
        ("what should I look at next?", False),  # a plan
        ("waarom gebruikt die zoveel meer?", False),
        ("what uses more memory than the kv cache", False),
    ],
)
def test_what_goes_on_with_the_list(question: str, goes_on: bool) -> None:
    from explainer.explain.question.counts import continues
    from explainer.explain.question.lexicon import words

    assert continues(words(question)) == goes_on


def test_more_after_the_last_rank_says_that_was_all_and_the_rest_lists_all_that_is_left() -> None:
    conversation = Conversation(named_profile("gpu"), settings=OFFLINE, mode="offline")  # 10 functions with self
    conversation.ask("what uses the most gpu memory? top 3")
    rest = conversation.ask("and the rest?").markdown
    assert [int(r) for r in _RANK.findall(rest)] == list(range(4, 11))
    assert "That was all" in conversation.ask("more pls").markdown
    dutch = Conversation(named_profile("gpu"), settings=OFFLINE, mode="offline")
    dutch.ask("wat is verantwoordelijk voor het meeste geheugen?")
    assert "**Op total onder de ingangspunten, plaatsen 7 tot en met 9:**" in dutch.ask("en de volgende 3?").markdown


def test_more_goes_on_past_the_rows_one_answer_lists() -> None:
    conversation = Conversation(
        named_profile("real:pyroscope_agpl-3.0/jfr-kafka-alloc-tlab-bytes-0.pb.gz"), settings=OFFLINE, mode="offline"
    )  # 355 functions with self
    assert listed("most", conversation.ask("list the 60 hottest functions").markdown) == MAX_ROWS
    more = conversation.ask("next 5").markdown
    assert [int(r) for r in _RANK.findall(more)] == [51, 52, 53, 54, 55] and "That was all" not in more


def test_more_goes_on_with_a_functions_callers_and_callees() -> None:
    """A caller list cut at its rows goes on ("show me 5 more"); the table's own rows are what "the second one"
    counts, and "Show me 5 more" is offered only while rows are left."""
    from explainer.explain.answers.followups import MORE, follow_ups

    conversation = Conversation(
        named_profile("real:pyroscope-og_apache-2.0/cpu-big.pprof"), settings=OFFLINE, mode="offline"
    )  # runtime.mallocgc has 14 callers
    first = conversation.ask("who calls runtime.mallocgc").markdown
    callers = re.findall(r"^\| `([^`]+)` \| ", first, re.MULTILINE)
    assert len(callers) == 10 and follow_ups(conversation.context)[0] == MORE
    assert conversation.read("and the second one?").subject.name == callers[1]
    more = conversation.ask("show me 5 more").markdown
    assert "**Callers of `runtime.mallocgc`**, ranks 11 to 14:" in more
    assert not set(re.findall(r"^\| `([^`]+)` \| ", more, re.MULTILINE)) & set(callers)
    assert MORE not in follow_ups(conversation.context)  # all 14 shown
    assert "That was all" in conversation.ask("next 5").markdown
    few = conversation.ask("what does sort.Search call").markdown  # four rows: nothing left to go on with
    assert "**What is called by `sort.Search`**" in few and MORE not in follow_ups(conversation.context)


def test_more_is_not_offered_after_a_list_of_every_function() -> None:
    from explainer.explain.answers.followups import MORE, follow_ups

    conversation = Conversation(named_profile("gpu"), settings=OFFLINE, mode="offline")  # 10 functions with self
    conversation.ask("what uses the most gpu memory? top 20")
    assert MORE not in follow_ups(conversation.context)
    conversation.ask("what uses the most gpu memory? top 3")
    assert follow_ups(conversation.context)[0] == MORE
