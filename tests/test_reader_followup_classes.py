"""The classes of failure the blind follow-up corpus (``questions_blind_followups.toml``) showed, as rules tested
on phrasings beyond its own lines, each asked after the turn it follows up on.

A bare ordinal ("4th?"), a pronoun whose role says callers or callees ("what is it calling"), a path to what the
last answer was about from a frame on the way ("how did we end up there from <module>"), a demonstrative before a
word of the last function's name ("that pattern thing"), skipping what was just discussed ("mag ik die
vergeten"), one question asked twice in one line, why one function costs so much, more help, a ticket summary,
the scene of a question that is not a frame ("in our node app"), the widest parts, and slowness named without a
measure ("what is slow here"). Real profiles are skipped when the shared folder is absent.
"""

from __future__ import annotations

import pytest

from conftest import named_profile
from explainer.explain import Conversation, LlmSettings

PATHS = {
    "kafka": "pyroscope_agpl-3.0/jfr-kafka-cpu-0.pb.gz",
    "kafka-alloc": "pyroscope_agpl-3.0/jfr-kafka-alloc-tlab-bytes-0.pb.gz",
    "node": "pyroscope_agpl-3.0/profile_nodejs",
    "cpp": "google-pprof_apache-2.0/cppbench.contention.pb.gz",
    "python": "pyroscope_agpl-3.0/pyspy-1.pb.gz",
    "ruby": "pyroscope-og_apache-2.0/hotrod-ruby-driver-cpu.json",
    "go": "pyroscope-og_apache-2.0/cpu-big.pprof",
}
RECORD = "fn:io/prometheus/jmx/JmxCollector$Receiver.recordBean"
TOP = "top"  # the subject is the first answer's #1 by self (its focus)

CASES = [
    # a bare ordinal after a ranking
    ("kafka", "hottest methods?", "4th?", "function", "rank:4"),
    ("node", "what uses the most cpu", "2nd?", "function", "rank:2"),
    ("go", "whats burning the cpu", "the first one?", "function", "rank:1"),  # a rank, not "what to do first"
    ("go", "whats burning the cpu", "en de eerste?", "function", "rank:1"),
    # an ordinal of something else is no rank: "for the first time"
    (
        "node",
        "what uses the most cpu",
        "give me an overview, as if i was looking at this for the first time",
        "overview",
        "",
    ),
    # callers or callees by the pronoun's role
    ("kafka", "how much cpu does recordBean cost", "what is it calling", "callees", RECORD),
    ("kafka", "how much cpu does recordBean cost", "and what's calling it", "callers", RECORD),
    # the path to what the last answer was about, from a frame on the way
    ("python", "what uses the most", "how did we end up there from <module>", "chain", TOP),
    ("go", "whats burning the cpu", "show the path to it from main", "chain", TOP),
    # a demonstrative before a word of the last function's name
    ("kafka", "hottest methods?", "what the hell is that pattern thing", "meaning", TOP),
    # skipping what was just discussed; one question asked twice
    ("cpp", "wat is [libpthread-2.15.so]", "mag ik die vergeten", "skip", "fn:[libpthread-2.15.so]"),
    ("node", "how much time goes to gc", "does that matter or can we ignore it", "skip", "concept:gc"),
    # why one function costs so much: its numbers
    ("kafka", "how much cpu does recordBean cost", "why does it take so much", "function", RECORD),
    # more help, a summary for the ticket
    ("node", "what uses the most cpu", "what else could i ask you", "help", ""),
    ("node", "what uses the most cpu", "can you turn this into a ticket summary", "handoff", ""),
    # the scene of a question is not a frame; the widest parts; slowness without a measure
    ("ruby", "wat is de totale cpu", "what's slow in our ruby app", "most", ""),
    ("kafka", "wat is de totale cpu", "waar gaat de cpu heen in deze java service", "most", ""),
    ("ruby", "wat is de totale cpu", "what are the widest parts of the graph", "responsible", ""),
    ("python", "what's the total", "what is slow here", "most", ""),
    ("node", "what's the total", "wat is hier traag", "most", ""),
    ("ruby", "what's the total", "what's taking so long", "most", ""),
    # found trying the installed product (first sight 4 of 6): waiting is the idle category, "who is allocating"
    # asks for the top allocators, not what a frame described by "byte arrays" means
    ("node", "what's the total", "is it mostly waiting?", "category", "concept:scheduler"),
    ("node", "what's the total", "zit hij vooral te wachten?", "category", "concept:scheduler"),
    ("kafka-alloc", "what's the total", "who is allocating all those byte arrays", "most", ""),
    ("kafka-alloc", "what's the total", "whos allocating the strings", "most", ""),
]


@pytest.mark.parametrize(("key", "first", "then", "intent", "subject"), CASES)
def test_each_follow_up_class_reads_beyond_the_corpus(
    key: str, first: str, then: str, intent: str, subject: str
) -> None:
    conv = Conversation(named_profile("real:" + PATHS[key]), settings=LlmSettings(), mode="offline")
    answered = conv.ask(first)
    if subject == TOP:
        subject = f"fn:{answered.focus}"
    elif subject.startswith("rank:"):
        subject = f"fn:{conv.context.ranking[int(subject.removeprefix('rank:')) - 1]}"
    q = conv.read(then)
    assert (q.intent, q.subject.label if q.subject else "") == (intent, subject)
