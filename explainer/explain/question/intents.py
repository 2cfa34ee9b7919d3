"""What a question asks, from its words: one of the questions of the domain guide, plus a target.

Rules are tried in order, most specific first ("difference between self and total" is about self
vs total, not a comparison of profiles). The target is the frame the question names: text in
backticks or quotes, an address, an ``<...>`` label, or a function written after "what is",
"who calls" and the like; :class:`~explainer.explain.checks.names.NameIndex` later matches it to the
profile, or finds a profile name written in plain prose.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

KINDS = (
    "help",
    "self_vs_total",
    "compare",
    "handoff",
    "callers",
    "callees",
    "chain",
    "symbol",
    "optimise",
    "skip",
    "responsible",
    "most",
    "total",
    "overview",
    "function",
    "unknown",
)

_RULES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(rx, re.I))
    for kind, rx in (
        ("help", r"^\s*(help|\?)\s*$|what can (you|i) (ask|do|answer)|what (questions|do you know)"),
        (
            "self_vs_total",
            r"\bself\b.*\b(total|0|zero|wide|width|nothing)\b|\b(total|wide|width)\b.*\bself\b"
            r"|\bflat\b.*\bcum|\bcum\w*\b.*\bflat\b|\binclusive\b|\bexclusive\b",
        ),
        (
            "compare",
            r"\bchang\w*|\bcompar\w*|\bdiff(erence)?s?\b|\bregress\w*|\byesterday\b|\bprevious\b|\bbaseline\b"
            r"|\blast (deploy\w*|week|run|release|time)\b|\bversus\b|\bvs\.?\s|\bother pod\b|\bgr[eo]w\w*|\bincreas\w*"
            r"|\bdecreas\w*|\bbefore\b",
        ),
        ("handoff", r"hand-?off|on-?call|\bincident\b|\bwrite (me )?(a |an )?(short )?(summary|report)|status report"),
        (
            "chain",
            r"\bchain\b|\bcall ?stack\b|\bstack trace\b|\bcall path\b|\bpath to\b|bottom to top|\beach step\b"
            r"|how (did|do) we get|why (was|is|does) .+ (called|run|invoked)|\btrace\b",
        ),
        ("callers", r"\bwho (calls|called|invokes)\b|\bcallers?\b|\bcalled (by|from)\b|\bwhere is .+ called\b"),
        (
            "callees",
            r"\bcallees\b|\bwhat does .+ call\b|\bwhat (functions )?(does|did) .+ call\b|\bchildren of\b"
            r"|\bwhat is (called|under|above) ",
        ),
        ("symbol", r"\bmean(s|ing)?\b|\bstand for\b|\bwhat (is|are) (a |an |the )?(frame|label|symbol|bar)s?\b"),
        (
            "optimise",
            r"optimi[sz]|\breduc\w*|\bimprov\w*|\bfix\b|\bsave\b|\bshrink|\blower\b|\bfirst\b|\btargets?\b"
            r"|cut (down|back)|where (should|do) i start|\bworth\b|\bspeed ?up\b",
        ),
        ("skip", r"\bignor\w*|\bskip\w*|\bnoise\b|\birrelevant\b|don'?t (need|have) to|not important|\bsafe to\b"),
        (
            "responsible",
            r"responsib|\bcaus\w*|\bblame\b|\bwho (allocat|uses|is using|asked)\w*|\bwhy\b|come from"
            r"|\bowns?\b|\bdriv(es|ing)\b|\bsource of\b",
        ),
        (
            "most",
            r"\bmost\b|\bbiggest\b|\blargest\b|\btop\b|\bheaviest\b|\bhot\w*|\bhog\w*|\bconsum\w*|\bwidest\b"
            r"|\bmain\b|where (is|does) .+ (go|spent|used)|\bwhat uses\b",
        ),
        ("total", r"\btotal\b|how much|how many|\boverall\b|altogether|\bin all\b|\bsum\b"),
        (
            "overview",
            r"summar|overview|explain (this|the)|what am i looking at|tell me about|describe|"
            r"what('s| is) (in|going on)|\bexplain\b",
        ),
    )
)

_QUOTED = re.compile(r"`([^`]{1,300})`|\"([^\"]{1,300})\"|“([^”]{1,300})”|'([^'\s][^']{0,298}[^'\s])'")
_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{3,16}(?:\.\.\.|…)?")
_ANGLE = re.compile(r"<[a-z][a-z ]{1,40}>")
_AFTER = re.compile(
    r"(?:what (?:is|does|are)|what's|who calls|callers of|callees of|called by|chain to|path to|mean by|about|"
    r"explain|does|is)\s+(?:the\s+)?(?:function\s+|frame\s+|bar\s+|method\s+)?"
    r"(?P<t>[A-Za-z_<][\w.<>:$/\[\]-]*(?:\s+[>/]\s+[\w<>.]+)?(?:\(\))?)",
    re.I,
)
_STOP = frozenset(
    {
        "it",
        "this",
        "that",
        "the",
        "a",
        "an",
        "self",
        "total",
        "here",
        "there",
        "these",
        "those",
        "they",
        "them",
        "what",
        "which",
        "difference",
        "chain",
        "profile",
        "flame",
        "graph",
        "memory",
        "gpu",
        "cpu",
        "time",
        "most",
        "biggest",
        "responsible",
        "wrong",
        "going",
        "happening",
        "up",
    }
)


@dataclass(frozen=True, slots=True)
class Intent:
    kind: str
    target: str | None  # the frame the question names, as written (None when it names none)


def target_of(question: str) -> str | None:
    """The frame a question names, as written; None when it names none explicitly."""
    for m in _QUOTED.finditer(question):
        text = next(g for g in m.groups() if g)
        if text.strip():
            return text.strip()
    for rx in (_ADDRESS, _ANGLE):
        found = rx.search(question)
        if found:
            return found.group(0)
    for m in _AFTER.finditer(question):
        t = m.group("t").rstrip("?.,!:;")
        distinctive = re.search(r"[._<>:/()]|[a-z][A-Z]|^[A-Z]", t)
        if t and t.lower() not in _STOP and (len(t) > 2 or t.startswith("<")) and distinctive:
            return t
    return None


def classify(question: str) -> Intent:
    q = " ".join(question.split())
    target = target_of(q)
    for kind, rx in _RULES:
        if rx.search(q):
            if kind == "symbol" and target is None and not re.search(r"<|0x", q):
                continue
            return Intent(kind, target)
    if target is not None:
        lowered = q.lower()
        if re.search(r"\bwhat('s| is| are| does)\b", lowered):
            return Intent("symbol", target)
        return Intent("function", target)
    return Intent("unknown", None)
