"""Running a question set through the configured model, scored with the chat's own checks.

Each question is a fresh conversation (no history). Its score is the mean of what it can be
scored on: the subject named (1 or 0), the share of expected facts stated, and the share of
claims that passed (1 - wrong / checked, names counted as claims). A question the model did not
answer (an error, a fallback to the offline explainer, a cut-off stream) scores 0.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

from explainer.evaluation.profiles import PACKAGED, packaged
from explainer.evaluation.questions import Question
from explainer.explain import Conversation, LlmSettings, Verification
from explainer.explain.checks.claims import aliases, quantities
from explainer.explain.checks.verify import names_in_line
from explainer.explain.context import ProfileContext
from explainer.explain.llm.facts import count_tokens
from explainer.model import Profile
from explainer.readers import read_path
from explainer.reading import Reading

_MARK = re.compile(r" \[(?:wrong|unverified)[^\]\n]*\]| \[not in this profile\]")
_FOOTER = "\n\n> **Not verified:**"


@dataclass(frozen=True, slots=True)
class Result:
    question: Question
    answered: bool  # by the model, complete
    subject_named: bool | None
    facts_found: int
    checked: int
    verified: int
    derived: int
    unbound: int
    wrong: int  # numbers misattributed or not in the facts
    wrong_names: int  # functions named that are not in the profile
    latency_s: float
    tokens_in: int
    tokens_out: int
    wrong_claims: tuple[dict[str, str | None], ...] = ()
    note: str = ""

    @property
    def score(self) -> float:
        if not self.answered:
            return 0.0
        parts = [1.0 - (self.wrong + self.wrong_names) / max(self.checked + self.wrong_names, 1)]
        if self.subject_named is not None:
            parts.append(float(self.subject_named))
        if self.question.facts:
            parts.append(self.facts_found / len(self.question.facts))
        return sum(parts) / len(parts)


@dataclass
class Run:
    model: str
    results: list[Result] = field(default_factory=list)

    @property
    def score(self) -> float:
        return sum(r.score for r in self.results) / len(self.results) if self.results else 0.0


@cache
def _load(profile: str, baseline: str | None) -> tuple[Profile, Profile | None]:
    if profile in PACKAGED and baseline is None:
        return packaged(profile)
    base = read_path(baseline) if baseline else None
    main = packaged(profile)[0] if profile in PACKAGED else read_path(profile)
    return main, base


def run(
    questions: tuple[Question, ...],
    settings: LlmSettings,
    clock: Callable[[], float] = time.monotonic,
    progress: Callable[[Result], None] | None = None,
) -> Run:
    out = Run(settings.describe())
    for q in questions:
        result = ask(q, settings, clock)
        out.results.append(result)
        if progress is not None:
            progress(result)
    return out


def ask(q: Question, settings: LlmSettings, clock: Callable[[], float] = time.monotonic) -> Result:
    profile, baseline = _load(q.profile, q.baseline)
    conv = Conversation(profile, settings=settings, mode="llm", baseline=baseline)
    tokens_in = count_tokens(conv.outgoing_preview(q.question))
    start = clock()
    answer = conv.ask(q.question)
    latency = clock() - start
    answered = answer.mode == "llm" and not answer.incomplete
    v = answer.verification if answered else Verification()  # nothing the offline fallback wrote counts
    # an unanswered question is scored on nothing the offline fallback wrote
    text = _MARK.sub("", answer.markdown.split(_FOOTER, 1)[0]) if answered else ""
    return Result(
        q,
        answered,
        (answered and names_subject(text, q.subject, conv.ctx)) if q.subject else None,
        sum(states_fact(text, fact) for fact in q.facts),
        v.checked,
        v.verified,
        v.derived,
        v.unbound,
        v.wrong,
        sum(w.kind == "name" for w in v.wrong_claims),
        latency,
        tokens_in,
        count_tokens(answer.markdown),
        tuple(w.as_dict() for w in v.wrong_claims[:20]),
        "" if answered else (answer.notice or "the model did not answer"),
    )


def names_subject(text: str, subject: str, ctx: ProfileContext) -> bool:
    """Does the answer name ``subject``: the function (however it is written) or the category?"""
    ids = set(ctx.resolve(subject))
    named = [name for line in text.splitlines() for name, _ in names_in_line(line)]
    if ids:
        return any(ids & set(ctx.resolve(name)) for name in named)
    # a category is named by its label, or by a function of it ("`_allocate_kv_cache_tensors`" for "KV cache")
    if any((Reading.category_label(name) or "").casefold() == subject.casefold() for name in named):
        return True
    patterns = (r"[\s-]".join(map(re.escape, a.split())) for a in aliases(subject))
    return any(re.search(rf"(?<![\w-]){p}(?![\w-])", text, re.I) for p in patterns)


def states_fact(text: str, fact: str) -> bool:
    """Does a number in the answer match ``fact`` ("55.1 GB" also as "51.3 GiB" or "55,1 GB")?"""
    wanted = quantities(fact)
    if not wanted:
        return fact.casefold() in text.casefold()
    (w,) = wanted[:1]
    for line in text.splitlines():
        for q in quantities(line):
            if q.kind == w.kind and any(abs(a - b) <= ha + hb for a, ha in q.readings for b, hb in w.readings):
                return True
    return False
