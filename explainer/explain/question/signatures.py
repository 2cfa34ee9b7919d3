"""Each intent as signatures over concepts (never over words: those live in ``lexicon.toml``).

A signature matches when every one of its groups has at least one of its concepts in the
question (and its subject condition holds); its weight is then the intent's score, plus a small
bonus for each further concept of the intent's ``hints``. The reader takes the best-scoring intent
and compares it with the runner-up, so precedence is a number here, not the order of a list.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

WEAK = 1.2  # a reading below this is answered with "I read this as ..."
SubjectNeed = Literal["any", "function", "frame", "concept", "named", "written", "none"]
RESOURCE = frozenset({"memory", "gpu", "cpu", "time", "samples", "allocation"})
USE = frozenset({"use", "allocation"})
# settings whose answer is a warning or a retirement: they win over "what changes it?"
SETTINGS = frozenset(
    {"setting_expandable", "setting_swap", "setting_kvmem", "setting_prefix", "setting_sleep", "setting_cudagraph"}
)
# settings that are also ordinary knobs: "which option shrinks the weights, quantization?" stays a knob
# question; their facts answer when nothing asks for a knob, or when the default is asked
KNOB_SETTINGS = frozenset({"setting_utilization", "setting_quantization"})


@dataclass(frozen=True, slots=True)
class Signature:
    intent: str
    groups: tuple[frozenset[str], ...]
    weight: float
    subject: SubjectNeed = "any"


def _s(intent: str, weight: float, *groups: str | frozenset[str], subject: SubjectNeed = "any") -> Signature:
    return Signature(intent, tuple(frozenset({g}) if isinstance(g, str) else g for g in groups), weight, subject)


def _any(*concepts: str) -> frozenset[str]:
    return frozenset(concepts)


SIGNATURES: tuple[Signature, ...] = (
    # what uses the most
    _s("most", 3.0, USE, "most"),
    _s("most", 2.6, "most", RESOURCE),
    _s("most", 3.0, "most", "self"),
    _s("most", 2.6, "where", USE | {"memory", "time"}),
    _s("most", 2.2, "most", _any("label", "function_word", "code_path")),
    _s("most", 2.5, _any("what", "whatis", "where"), USE, RESOURCE),  # "what is holding the memory"
    _s("most", 1.6, USE, RESOURCE),
    _s("most", 2.4, _any("what", "whatis"), "most", subject="none"),
    _s("most", 1.2, "most", subject="none"),
    _s("most", 2.4, _any("what", "whatis", "where"), "slow", subject="none"),  # "what is slow here"
    # "wie gebruikt het meeste geheugen": "wie gebruikt X" asks for X's callers, but with no X it asks who uses most
    _s("most", 3.8, "callers", "most", RESOURCE, subject="none"),
    # what is responsible
    _s("responsible", 3.5, "responsible"),
    _s("responsible", 2.4, "why", USE | {"most", "memory", "time"}, subject="none"),
    _s("responsible", 2.7, "who", USE),
    # self vs total
    _s("self_vs_total", 4.6, "self", "difference"),
    _s("self_vs_total", 4.0, "self", _any("total", "zero", "wide", "why")),
    # "self 1 sample but total 47%?? how": both numbers and a bare how or why ask how they differ
    _s("self_vs_total", 4.5, "self", "total", _any("why", "how"), subject="any"),
    _s("self_vs_total", 3.6, "self", "meaning"),
    _s("self_vs_total", 2.9, "self", "whatis"),
    _s("self_vs_total", 3.5, "wide", "zero"),
    _s("self_vs_total", 3.0, "total", "meaning"),
    _s("self_vs_total", 1.8, "self"),
    _s("self_vs_total", 2.6, "why", "wide", subject="function"),  # "why is Thread.run so wide": total holds its callees
    # one function's neighbourhood
    _s("chain", 3.5, "chain"),
    _s("chain", 3.4, "code_path", subject="function"),  # "the code path to X"
    _s("chain", 3.7, "leads", subject="function"),  # "which code path leads into X"
    _s("responsible", 3.5, "leads", subject="none"),  # "what leads to this memory use"
    _s("chain", 3.8, "why", "called"),
    _s("chain", 2.3, "why", "function_word", subject="function"),
    _s("chain", 1.5, "why"),
    _s("callers", 3.6, "callers"),
    _s("callers", 3.8, "callers", "responsible"),  # "which callers are responsible for its samples"
    _s("callers", 3.9, "callers", "leads"),  # "which callers lead into X": the callers, not the whole chain
    _s("callers", 3.1, "where", "where_from", subject="function"),  # "where is the arena created from"
    _s("callees", 3.4, "callees"),
    _s("callees", 3.0, "above_word", subject="function"),  # "what sits above X"
    _s("callees", 3.3, "what", "calls_verb", subject="function"),
    # what a label or a concept is
    _s("meaning", 3.2, "meaning", subject="named"),
    _s("meaning", 3.0, "whatis", subject="named"),
    _s("meaning", 2.6, _any("meaning", "whatis"), "label"),
    _s("meaning", 2.0, "meaning"),
    # "why are there no function names, just [binary]", "y is Thread.sleep even in a cpu profile": why a label
    # looks as it does, or why a frame is there at all, is what it is
    _s("meaning", 3.3, "why", "label"),
    _s("meaning", 3.4, "why", "presence", subject="named"),  # below an explicit "show the chain"
    _s("meaning", 3.2, "overview", subject="function"),  # "explain KafkaApis.handle to me": that function
    # numbers for one function or one category
    _s("function", 3.3, _any("self", "total"), _any("what", "whatis", "howmuch"), subject="frame"),
    _s("function", 4.3, "self", "total", subject="frame"),
    _s("function", 3.2, "howmuch", subject="frame"),
    _s("function", 3.0, _any("use", "self", "total", "allocation"), subject="frame"),
    _s("function", 2.0, "about", subject="frame"),
    _s("function", 1.4, _any("what", "whatis", "how"), subject="frame"),
    _s("function", 1.2, subject="frame"),
    _s("function", 3.3, "why", _any("most", "use"), subject="function"),  # "waarom kost die zoveel?": its numbers
    _s("category", 3.3, _any("howmuch", "use", "overall", "most"), subject="concept"),
    _s("category", 1.3, subject="concept"),
    _s("category", 2.6, "why", _any("wide", "most", "use"), subject="concept"),  # "waarom is de kv cache zo groot?"
    _s("category", 3.4, "breakdown", subject="none"),  # "split it up per category"
    # advice
    _s("knob", 4.7, "knob", subject="concept"),
    _s("knob", 3.9, "knob"),
    # "how do I make that badger newArena smaller", "hoe krijg ik dat kleiner?" (after the weights): how to shrink
    # one named thing is a question about its settings; "how do I make the server faster" (a loose description,
    # not a name) stays optimise
    _s("knob", 3.3, "how", "optimise", subject="written"),
    _s("optimise", 3.0, "optimise"),
    _s("optimise", 2.5, "first", _any("what", "where", "which", "how", "should")),
    _s("optimise", 1.5, "first"),
    _s("skip", 4.5, "ignore"),
    _s("skip", 3.4, "passthrough", _any("what", "label", "function_word")),  # "which frames only pass calls on"
    # the whole profile
    _s("total", 2.8, "overall", subject="none"),
    _s("total", 3.2, "measure", _any("profile_word", "what", "whatis"), subject="none"),  # "what does it measure"
    _s("total", 2.4, "howmuch", RESOURCE | {"count_of"}, subject="none"),
    _s("total", 2.0, "count_of", _any("what", "howmuch"), subject="none"),
    _s("total", 3.6, "inuse_word", "difference", subject="none"),  # "in-use vs allocated": what the values are
    _s("total", 2.8, "inuse_word", subject="none"),  # "the live heap": the total, unless something else is asked
    _s("overview", 3.0, "overview"),
    _s("assess", 3.6, "assess"),  # "does this look ok?", "is dit normaal?", "should I worry?"
    _s("function", 3.7, "assess", subject="function"),  # "ConsolePal.Write how bad": that function's numbers
    _s("overview", 2.0, _any("what", "whatis"), "profile_word", subject="none"),
    _s("compare", 3.3, "compare"),
    _s("handoff", 3.7, "handoff", subject="none"),
    # "anything the on-call should be concerned about?": an assessment; the handoff is only the occasion
    _s("assess", 3.85, "assess", "handoff", subject="none"),
    _s("handoff", 3.9, "handoff", "write"),
    _s("handoff", 2.0, "handoff"),  # "for the handoff: which functions does X call?" asks about X
    _s("handoff", 2.9, "write", "overview"),
    _s("handoff", 3.7, "incident", _any("write", "overview")),  # "write the incident report"
    _s("handoff", 1.0, "incident"),  # the word alone: only when nothing else is asked
    # the product and the graph
    _s("howto", 3.9, "graph", _any("howto", "read_verb")),
    _s("howto", 3.6, "graph", _any("how", "why")),
    _s("howto", 3.0, "graph", "meaning"),
    _s(
        "howto", 3.4, "graph", "label", _any("meaning", "whatis"), subject="none"
    ),  # "what does a bar in the graph mean"
    _s("howto", 2.9, "howto"),
    _s("howto", 3.9, "ui_click"),  # "where do I click to compare two time ranges": the UI, not a comparison
    _s("howto", 3.7, "grafana_word", _any("how", "why")),
    _s("howto", 2.9, "graph", "grafana_word"),  # "the flame graph in Grafana": about the panel, not the profile
    _s("howto", 1.1, "grafana_word", subject="none"),  # Grafana named in passing decides only when nothing else does
    _s("help", 3.1, "help"),
    # GPU-memory settings with versions, and what the profile cannot see (answers/gpu.py)
    _s("setting", 5.0, SETTINGS),
    _s("setting", 5.0, KNOB_SETTINGS, "default_value"),
    _s("setting", 3.4, KNOB_SETTINGS),
    _s("visibility", 4.9, "nvidia_smi"),
    _s("visibility", 4.4, "rest_memory"),
    # last resorts: a question that names only a resource or the profile still gets an answer, marked as a reading
    _s("overview", WEAK - 0.1, "profile_word", subject="none"),
)

CARRIES_OVER = frozenset({"compare", "chain", "callers", "callees", "knob", "category", "meaning", "skip"})
"""Intents a short follow-up that only names a new subject keeps ("and the KV cache?" after a comparison)."""
FOLLOW_UP_SCORE = 2.0  # a reading weaker than this, with a subject and little else, is a follow-up

NEEDS_SUBJECT = frozenset({"chain", "callers", "callees", "function", "meaning", "knob"})
"""Intents that are about one thing: with no subject written they take the conversation's focus."""

# A further concept of an intent's own vocabulary adds this much, so "what uses the most GPU
# memory" (use, most, memory) beats a bare "most"; it never lifts an intent over a real signature.
HINTS: dict[str, frozenset[str]] = {
    "most": _any("use", "most", "memory", "gpu", "cpu", "time", "self", "where"),
    "responsible": _any("responsible", "why", "who", "use"),
    "self_vs_total": _any("self", "total", "zero", "wide", "why", "difference"),
    "optimise": _any("optimise", "first", "memory", "cpu", "time"),
    "compare": _any("compare", "difference"),
    "knob": _any("knob", "optimise"),
    "howto": _any("graph", "grafana_word"),
}
HINT_BONUS = 0.1
