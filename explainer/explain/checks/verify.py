"""Checking every number (and function name) in an answer against what the analyzer said.

Each number is judged inside its claim (:mod:`~explainer.explain.checks.claims`):

- **verified**: it is one of the values of a subject the claim names (a function's self or total
  or their shares, a category's value or share, the total, a before/after/change, a chain width);
- **derived**: it is worked out from such values (:mod:`~explainer.explain.checks.derive`);
- **unbound**: the claim names no subject the grounding knows, and the number is some grounded
  value of its kind (units convert: 55.1 GB and 51.3 GiB both match 55,100,000,000 bytes), or it
  is one that belongs to no subject;
- **wrong**: it belongs to another subject than the one named (misattributed), it is the subject's
  total written as its self or the other way ("1.1 GB of self"), or it belongs to nothing.

A number passes when the interval its written precision allows (``55.1 GB`` is 55.05 to 55.15
GB) contains the value. Checking is line by line with the state of one answer, so a streamed
answer is flagged as it arrives (:class:`LineVerifier`) exactly as the whole answer would be.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

from explainer import units
from explainer.explain.checks.claims import (
    PART,
    Mention,
    Quantity,
    SubjectFinder,
    clauses,
    is_whole,
    name_spans,
    quantities,
    refers_back,
    role,
)
from explainer.explain.checks.derive import Operands, Pool
from explainer.explain.checks.grounding import KINDS, TOTAL, Grounding, Subject, function
from explainer.explain.checks.names import NameIndex
from explainer.symbols import clean

if TYPE_CHECKING:  # the advice patterns judge a model's lines only: compiled when one is checked
    from explainer.explain.checks.advice import AdviceFinder

__all__ = [
    "FLAG",
    "KINDS",
    "Grounding",
    "LineVerifier",
    "Verification",
    "WrongClaim",
    "footer",
    "names_in_line",
    "own",
    "verify",
]

FLAG = " [unverified]"
NAME_FLAG = " [not in this profile]"
GENERIC_NAMES = frozenset({"<module>", "<interpreter trampoline>", "other", "total", "(self)", "(entry point)"})
# how a bare number in a table under a "GB" or "ms" header may scale a grounded value
_SCALES = {
    "bytes": (1, 10**3, 10**6, 10**9, 10**12, 2**10, 2**20, 2**30, 2**40),
    "time": (1, 10**3, 10**6, 10**9, 60 * 10**9, 3600 * 10**9),
}
Verdict = Literal["verified", "derived", "unbound", "wrong"]


@dataclass(frozen=True, slots=True)
class WrongClaim:
    """A claim that failed: what was written, about what, why, and the right value when known."""

    text: str
    subject: str | None
    reason: str
    expected: str | None
    kind: Literal["misattributed", "role", "unknown", "name"] = "unknown"

    def as_dict(self) -> dict[str, str | None]:
        return {"text": self.text, "subject": self.subject, "reason": self.reason, "expected": self.expected}


def names_in_line(line: str) -> list[tuple[str, int]]:
    """(name, end offset) of every function-looking name: code spans and dotted identifiers."""
    return [(name, end) for name, _, end in name_spans(line)]


def _label(subject: Subject) -> str:
    if subject.kind == "function":
        return f"`{clean(subject.label[:121], 120).replace('`', chr(39))}`"
    return subject.label


def _possessive(label: str) -> str:
    return label + ("'" if label.endswith("s") else "'s")


def _show(kind: str, value: float, binary: bool = False) -> str:
    if kind == "percent":
        return f"{value:.1f}%"
    return (
        units.format_bytes(value, "binary" if binary else "decimal")
        if kind == "bytes"
        else units.format_duration_ns(value)
    )


@dataclass
class LineVerifier:
    """Judges numbers and names line by line; feed streamed text, then :meth:`finish`."""

    grounding: Grounding
    names: NameIndex
    transform: Callable[[str], str] | None = None  # applied to each line first (e.g. sanitising)
    question: str = ""  # what was asked: "It uses 8.7 GB" at the start of the answer is about its subject
    # the hosts a model's answer may point at; None (our own offline answers): no advice check
    advice_hosts: tuple[str, ...] | None = None
    advice: list[str] = field(default_factory=list)  # commands, outside links, installs: unverified advice
    checked: int = 0
    unverified: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(("verified", "derived", "unbound", "wrong"), 0)
    )
    wrong: list[WrongClaim] = field(default_factory=list)
    derivations: list[tuple[str, str]] = field(default_factory=list)  # (claim, the grounded values it came from)
    _pending: str = ""
    _previous: list[Mention] = field(default_factory=list)
    _pool: Pool = field(default_factory=Pool)
    _finder: SubjectFinder | None = None
    _claim: dict[str, Operands] = field(default_factory=dict)  # numbers accepted in the current claim
    _advisor: AdviceFinder | None = None

    def feed(self, text: str) -> str:
        self._pending += text
        if "\n" not in self._pending:
            return ""
        done, self._pending = self._pending.rsplit("\n", 1)
        return "\n".join(self._line(line) for line in done.split("\n")) + "\n"

    def finish(self) -> str:
        rest, self._pending = self._pending, ""
        return self._line(rest) if rest else ""

    def _line(self, line: str) -> str:
        if self.transform is not None:
            line = self.transform(line)
        if self._finder is None:
            self._finder = SubjectFinder(self.grounding, self.names)
            self._previous = [m for m in self._finder.find(self.question) if m.keys]
            for kind in ("bytes", "time", "percent"):
                values = self.grounding.values_of(TOTAL.key, kind)
                if values:
                    self._pool.total[kind] = max(values)
        mentions = self._finder.find(line)
        found = quantities(line)
        inserts: list[tuple[int, str]] = []
        for start, end in clauses(line):
            here = [m for m in mentions if start <= m.start < end]
            if refers_back(line[start:end]):
                here = [*self._previous, *here]
            self._claim = {}
            for q in (q for q in found if start <= q.start < end):
                mark = self._judge(line, q, here, line[start:end])
                if mark:
                    inserts.append((q.end, mark))
            if here:
                self._previous = here
        for name, end in names_in_line(line):
            if not self._name_ok(name):
                self.unverified.append(f"{name} (not a function in this profile)")
                reason = f"{_label(function(name))} is not a function in this profile"
                self.wrong.append(WrongClaim(name, None, reason, None, "name"))
                inserts.append((end, NAME_FLAG))
        for at, mark in sorted(inserts, reverse=True):
            line = line[:at] + mark + line[at:]
        return self._advice(line)

    def _advice(self, line: str) -> str:
        if self.advice_hosts is None:
            return line
        from explainer.explain.checks.advice import ADVICE_FLAG, AdviceFinder

        if self._advisor is None:
            self._advisor = AdviceFinder(self.advice_hosts)
        why = self._advisor.line(line)
        if not why:
            return line
        self.advice += why
        self.unverified += [f"{w} (unverified advice)" for w in why]
        return line.rstrip() + ADVICE_FLAG

    # one number
    def _judge(self, line: str, q: Quantity, mentions: list[Mention], clause: str) -> str:
        self.checked += 1
        keys = list(dict.fromkeys(k for m in mentions for k in m.keys))
        if keys and is_whole(line, q) and TOTAL.key in self.grounding.subjects:
            keys.append(TOTAL.key)
        verdict, mark = self._verdict(line, q, keys, self._nearest(q, mentions), clause)
        self.counts[verdict] += 1
        return mark

    def _verdict(
        self, line: str, q: Quantity, keys: list[str], subject: Subject | None, clause: str
    ) -> tuple[Verdict, str]:
        g = self.grounding
        if q.kind == "bare" or q.below:
            return self._unbound(q, clause)
        hits = [(k, v) for k in keys for v in g.values_of(k, q.kind) if any(abs(v - r) <= h for r, h in q.readings)]
        if hits:
            self._wrote(q.kind, hits[0][1])
            return self._role_check(line, q, hits)
        derived = self._derive(q, keys, clause)
        if derived:
            return "derived", ""
        if subject is not None:
            others = [o for o in self._owners(q) if o.key not in keys]
            if others and PART.search(clause) and any(g.wholes.get(o.key, set()) & set(keys) for o in others):
                self._wrote(q.kind, q.readings[0][0], q.readings[0][1])
                return "verified", ""  # a part's value, said to be a part: "of which 350 MB is autotuning"
            expected = self._expected(q, subject)
            if others:
                reason = f"{q.text} is {_possessive(_label(others[0]))}, not {_possessive(_label(subject))}"
                self._fail(q, subject, reason, expected, "misattributed")
                return "wrong", f" [wrong: {reason}" + (f"; {_label(subject)}: {expected}]" if expected else "]")
            if any(g.overlaps(q.kind, r, h) for r, h in q.readings):
                self._wrote(q.kind, q.readings[0][0], q.readings[0][1])
                return "unbound", ""  # a grounded value that belongs to no subject (a coverage, a caveat)
            reason = f"{q.text} is not a value of {_label(subject)}"
            if q.kind == "ratio":
                reason = f"{q.text} is no ratio of the values this claim names"
            self._fail(q, subject, reason, expected, "unknown")
            return "wrong", f" [unverified; {_label(subject)}: {expected}]" if expected else FLAG
        return self._unbound(q, clause)

    def _unbound(self, q: Quantity, clause: str) -> tuple[Verdict, str]:
        if self._supports(q):
            self._wrote(q.kind, q.readings[0][0], q.readings[0][1])
            return "unbound", ""
        if q.kind != "bare" and self._derive(q, [], clause):
            return "derived", ""
        self._fail(q, None, f"{q.text} is not in this profile's facts", None, "unknown")
        return "wrong", FLAG

    def _derive(self, q: Quantity, keys: list[str], clause: str) -> bool:
        # the total is an operand only when the claim names it: "X grew by 11.5 GB" is not the total's change
        local: dict[str, Operands] = {kind: dict(ops) for kind, ops in self._claim.items()}
        for key in keys:
            for kind in ("bytes", "time", "percent"):
                for v in self.grounding.values_of(key, kind):
                    local.setdefault(kind, {})[v] = units.display_half(v, kind)
        found = self._pool.derive(q.kind, q.readings, local, clause)
        if found is None:
            return False
        value, how = found
        self.derivations.append((q.text, how))
        self._wrote(q.kind, value)
        return True

    def _wrote(self, kind: str, value: float, half: float | None = None) -> None:
        """An accepted number: an operand for the rest of this claim and for "the rest" later."""
        self._pool.wrote(kind, value)
        if kind in ("bytes", "time", "percent"):
            self._claim.setdefault(kind, {})[value] = units.display_half(value, kind) if half is None else half

    def _role_check(self, line: str, q: Quantity, hits: list[tuple[str, float]]) -> tuple[Verdict, str]:
        """A value of the subject, but written as its self when it is its total (or the other way)."""
        said = role(line, q)
        known = [(k, self.grounding.roles.get((k, q.kind, v))) for k, v in hits]
        if said is None or any(roles is None or said in roles for _, roles in known):
            return "verified", ""
        key = known[0][0]
        subject = self.grounding.subjects[key]
        other = "total" if said == "self" else "self"
        right = sorted(
            v for (k, kind, v), r in self.grounding.roles.items() if k == key and kind == q.kind and said in r
        )
        expected = " or ".join(_show(q.kind, v, "ib" in q.text.lower()) for v in right[:2]) or None
        reason = f"{q.text} is {_possessive(_label(subject))} {other}, not its {said}"
        self._fail(q, subject, reason, expected, "role")
        return "wrong", f" [wrong: {reason}" + (f"; its {said}: {expected}]" if expected else "]")

    def _owners(self, q: Quantity) -> list[Subject]:
        return [s for r, h in q.readings for s in self.grounding.owners(q.kind, r, h)]

    def _supports(self, q: Quantity) -> bool:
        g = self.grounding
        for value, half in q.readings:
            if q.kind == "bare":
                scaled = (g.overlaps(k, value * f, half * f) for k, fs in _SCALES.items() for f in fs)
                if g.overlaps("bare", value, half) or any(scaled):
                    return True
            elif q.below:
                if g.below(q.kind, value):
                    return True
            elif g.overlaps(q.kind, value, half):
                return True
        return False

    def _nearest(self, q: Quantity, mentions: list[Mention]) -> Subject | None:
        """The subject a wrong number is reported against: the closest known one before it, else after."""
        known = [m for m in mentions if m.keys]
        before = [m for m in known if m.start < q.start]
        pick = before[-1] if before else (known[0] if known else None)
        return self.grounding.subjects[pick.keys[0]] if pick else None

    def _expected(self, q: Quantity, subject: Subject) -> str | None:
        """The subject's values of the claim's kind, in the units it is written in (GiB stays GiB)."""
        values = sorted(self.grounding.values_of(subject.key, q.kind), reverse=True)
        return " or ".join(_show(q.kind, v, "ib" in q.text.lower()) for v in values[:3]) or None

    def _fail(self, q: Quantity, subject: Subject | None, reason: str, expected: str | None, kind: str) -> None:
        self.unverified.append(q.text)
        label = _label(subject) if subject else None
        self.wrong.append(WrongClaim(q.text, label, reason, expected, kind))  # type: ignore[arg-type]

    def _name_ok(self, name: str) -> bool:
        bare = name.strip().removesuffix("()")
        return bare in GENERIC_NAMES or self.names.known(bare) or self.grounding.mentions(bare)


@dataclass(frozen=True, slots=True)
class Verification:
    checked: int = 0  # numbers checked against the facts and tool results
    unverified: list[str] = field(default_factory=list)  # claims that could not be traced
    verified: int = 0  # numbers that are values of the subject their claim names
    derived: int = 0  # numbers worked out from grounded values (differences, sums, ratios, shares)
    unbound: int = 0  # numbers in claims naming no known subject, found among the facts
    wrong: int = 0  # numbers misattributed or not in the facts
    wrong_claims: list[WrongClaim] = field(default_factory=list)  # every failed claim, names included
    derived_claims: list[tuple[str, str]] = field(default_factory=list)  # (number, the values it came from)

    @classmethod
    def of(cls, v: LineVerifier) -> Verification:
        return cls(v.checked, v.unverified, **v.counts, wrong_claims=v.wrong, derived_claims=v.derivations)


def own(v: Verification) -> Verification:
    """The offline explainer's numbers are the analyzer's values, written through its grounding: each one
    that checks out is verified, whether or not the claim binder found its subject in the sentence."""
    return v if v.wrong else replace(v, verified=v.verified + v.unbound, unbound=0)


def verify(text: str, grounding: Grounding, names: NameIndex) -> tuple[str, int, list[str]]:
    """(text with flags, numbers checked, unverified claims) for a complete answer."""
    v = LineVerifier(grounding, names)
    flagged = v.feed(text) + v.finish()
    return flagged, v.checked, v.unverified


def footer(unverified: list[str]) -> str:
    """The note under an answer whose claims did not all check out."""
    if not unverified:
        return ""
    shown = "; ".join(u[:120] for u in unverified[:8])
    more = f" and {len(unverified) - 8} more" if len(unverified) > 8 else ""
    return (
        f"\n\n> **Not verified:** {len(unverified)} claim(s) above could not be traced to this profile's facts "
        f"or tool results, so treat them as unverified: {shown}{more}."
    )
