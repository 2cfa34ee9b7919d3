"""Reading an answer's line into claims: its quantities, the subjects it names, and its clauses.

A *claim* is a clause of a sentence, a table row or a list item. Its numbers are about the
subjects named in it: a function (a code span or a dotted name), a category the grounding knows
("KV cache", "model weights"), or the total. What is skipped, by design: numbers inside code
spans (names such as ``0x7f151``), ordered-list markers, fact ids, and bare integers up to 10
(ordinals and small counts of things on the screen). Numbers are read by :mod:`explainer.units`,
English or Dutch ("55.1 GB", "55,1 GB", "1.234.567").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from explainer.explain.checks.grounding import TOTAL, Grounding
from explainer.explain.checks.names import NameIndex, normalize
from explainer.explain.checks.quantities import CODE_SPAN, Quantity, mask, quantities
from explainer.lazyre import lazy

__all__ = ["Quantity", "mask", "quantities"]  # also read from here by the verifier and the evaluation

_DOTTED = re.compile(r"(?<![\w/.`])([A-Za-z_][\w]*(?:(?:\.|::)[A-Za-z_<][\w<>]*)+)(?:\(\))?(?![\w`])")
_CALLED = re.compile(r"(?<![\w/.`:])([A-Za-z_]\w*)\(\)(?![\w`])")
_FILE_EXT = re.compile(r"\.(py|so|md|txt|json|gz|pb|toml|yaml|yml|html|com|org|io|net|ai|dev|cfg|ini|sh|log)$", re.I)
_TOTAL_WORDS = lazy(r"(?<![\w-])(?:total|overall|in all|altogether|everything(?! else)|totaal)(?![\w-])", re.I)
_WEAK_TOTAL = lazy(r"(?:\ba|\bits|\btheir|\bown|\bhis|\bher|'s)\s+$", re.I)
# the whole of a share: "73.8% of the 74.7 GB", "van de 74,7 GB"
_WHOLE = lazy(r"(?:\bof|\bout of|\bvan|\buit)\s+(?:the\s+|de\s+|het\s+)?(?:~|about\s+|ongeveer\s+)?$", re.I)
_CLAUSE_BREAK = re.compile(
    r"(?<=[.!?])\s+(?=[^\s\d])|;\s+"
    r"|,\s+(?=(?:while|whereas|but|and|plus|followed by|then|terwijl|maar|en|plus|gevolgd door|daarna)\b)"
    r"|\s+(?=(?:while|whereas|terwijl)\b)",
    re.I,
)
_PRONOUN = re.compile(
    r"^[\s>*_#-]*(?:\d+[.)]\s+)?(?:it|its|this|that|these|those|they|their|which|of (?:that|which|these|this)"
    r"|het|dit|dat|deze|die|ze|zij|daarvan|waarvan)\b",
    re.I,
)
_ALIAS_STOP = frozenset({"other", "code", "driver", "application", "native code", "other application code"})
# other words for a category, in English and Dutch answers
_SYNONYMS = {
    "weights": ("gewichten", "modelgewichten"),
    "activations": ("activaties",),
    "torch.compile": ("compilation", "compile"),
    "unresolved native code": ("unresolved", "unresolved code"),
}


@dataclass(frozen=True, slots=True)
class Mention:
    """A subject named in a line; ``keys`` are the grounding's subjects it may mean (none: unknown)."""

    start: int
    end: int
    keys: tuple[str, ...]


# "self of 720 MB", "a total of 1.1 GB", "self: 0 B" / "720 MB of self", "1.1 GB total", "1.1 GB in total"
_ROLE_BEFORE = lazy(r"\b(self|total)(?:\s+(?:of|is|was|=|at))?\s*[:=]?\s*(?:only\s+|about\s+|~)?$", re.I)
_ROLE_AFTER = lazy(r"^\s*(?:\([^)]*\)\s*)?(?:(?:of|in)\s+)?(?:its\s+|their\s+)?(self|total)\b", re.I)


def role(line: str, q: Quantity) -> str | None:
    """ "self" or "total" when the words right next to ``q`` say which it is."""
    after = _ROLE_AFTER.match(line[q.end : q.end + 24])
    if after:
        return after.group(1).lower()
    before = _ROLE_BEFORE.search(line[max(0, q.start - 16) : q.start])
    return before.group(1).lower() if before else None


def is_whole(line: str, q: Quantity) -> bool:
    """Is ``q`` the whole of a share ("73.8% of the 74.7 GB")?"""
    return bool(_WHOLE.search(line[max(0, q.start - 24) : q.start]))


def _looks_like_symbol(text: str) -> bool:
    t = text.strip()
    if not t or len(t) > 300 or (t[0].isdigit() and not t.startswith("0x")):
        return False
    if t.startswith("0x") or (t.startswith("<") and t.endswith(">")):
        return True
    if re.fullmatch(r"[A-Z0-9_]+", t) or "=" in t or t.startswith("-") or _FILE_EXT.search(t):
        return False
    if " " in t.replace(" > ", "").replace(" / ", ""):
        return False
    return bool(re.search(r"\.|::| > | / |\(|_|[a-z][A-Z]", t))


def name_spans(line: str) -> list[tuple[str, int, int]]:
    """(name, start, end) of every function-looking name: code spans and dotted identifiers."""
    # a name with a pipe (.NET's `<<Invoke>g__AwaitRequestTask|6_0>d`) is written escaped, `\|`, to be safe in a table
    spans = [(m.group(2).replace("\\|", "|"), m.start(), m.end()) for m in CODE_SPAN.finditer(line)]
    found = [(name, start, end) for name, start, end in spans if _looks_like_symbol(name)]
    plain = mask(line)
    for m in _DOTTED.finditer(plain):
        word = m.group(1)
        parts = re.split(r"\.|::", word)
        if (
            min(len(p) for p in parts) >= 2
            and len(word) >= 6
            and not _FILE_EXT.search(word)
            and ("_" in word or re.search(r"[a-z][A-Z]|^[A-Z]", word))
        ):
            found.append((word, m.start(), m.end()))
    for m in _CALLED.finditer(plain):  # a bare name written as a call: fake_kernel_launch(), runStep()
        word = m.group(1)
        shaped = len(word) >= 4 and ("_" in word.strip("_") or re.search(r"[a-z][A-Z]", word))
        if shaped and not any(start <= m.start() < end for _, start, end in found):
            found.append((word, m.start(), m.end()))
    return sorted(found, key=lambda f: f[1])


def aliases(label: str) -> set[str]:
    """How a category label may be written: ``model weights`` -> weights, gewichten; graphs -> graph."""
    parts = {p.strip() for p in re.split(r"\s*/\s*|\s+and\s+|[()]", label) if p.strip()}
    out = {label, *parts}
    out |= {a.removeprefix("model ") for a in out}
    for word, synonyms in _SYNONYMS.items():
        if word in out:
            out.update(synonyms)
    return {a for a in out if len(a) >= 3 and a.lower() not in _ALIAS_STOP}


PART = lazy(
    r"\b(?:of which|including|includes|mostly|mainly|largely|chiefly|such as|led by|among them"
    r"|waarvan|vooral|grotendeels|onder andere|waaronder)\b",
    re.I,
)
"""Words that say a number is a part of the subject named ("torch.compile, of which 350 MB is autotuning")."""


def _alias_pattern(alias: str) -> str:
    words = [re.escape(w) for w in alias.split()]
    return r"[\s-]".join(words) + ("e?s?" if alias[-1:].isalpha() else "")


class SubjectFinder:
    """Finds the grounding's subjects in a line (rebuilt when the grounding learns new ones)."""

    def __init__(self, grounding: Grounding, names: NameIndex) -> None:
        self.grounding, self.names = grounding, names
        self._known = -1
        self._categories: list[tuple[re.Pattern[str], str]] = []

    def _compile(self) -> None:
        self._known = len(self.grounding.subjects)
        by_alias = {
            alias: key
            for key, subject in self.grounding.subjects.items()
            if subject.kind == "category"
            for alias in aliases(subject.label)
        }
        longest_first = sorted(by_alias, key=len, reverse=True)
        self._categories = [
            (re.compile(rf"(?<![\w-]){_alias_pattern(a)}(?![\w-])", re.I), by_alias[a]) for a in longest_first
        ]

    def find(self, line: str) -> list[Mention]:
        if self._known != len(self.grounding.subjects):
            self._compile()
        out = [Mention(s, e, self._function_keys(name)) for name, s, e in name_spans(line)]
        plain = mask(line)
        taken: list[tuple[int, int]] = []
        for pattern, key in self._categories:
            for m in pattern.finditer(plain):
                if not any(s < m.end() and m.start() < e for s, e in taken):
                    taken.append((m.start(), m.end()))
                    out.append(Mention(m.start(), m.end(), (key,)))
        if TOTAL.key in self.grounding.subjects:
            for m in _TOTAL_WORDS.finditer(plain):
                # "a total of 8.7 GB", "its total": some function's total, not the profile's
                weak = _WEAK_TOTAL.search(plain[max(0, m.start() - 8) : m.start()])
                out.append(Mention(m.start(), m.end(), () if weak else (TOTAL.key,)))
        return sorted(out, key=lambda m: m.start)

    def _function_keys(self, name: str) -> tuple[str, ...]:
        known = self.grounding.subjects
        bare = name.strip().removesuffix("()")
        keys = {normalize(self.names.names[i]) for i in self.names.resolve(bare)} | {normalize(bare)}
        found = tuple(k for k in keys if k in known)
        if found:
            return found
        head = normalize(bare) + "."  # a class or module: the functions in it that the grounding knows
        return tuple(k for k in known if k.startswith(head))


def clauses(line: str) -> list[tuple[int, int]]:
    """The claims of a line: a table row is one; prose splits at sentences, ";" and connectives."""
    if line.lstrip().startswith("|"):
        return [(0, len(line))]
    spans, start = [], 0
    opaque = CODE_SPAN.sub(lambda m: "x" * len(m.group(0)), line)  # a name is a word, never a break
    for m in _CLAUSE_BREAK.finditer(opaque):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(line)))
    return [s for s in spans if s[1] > s[0]]


def refers_back(clause: str) -> bool:
    """Does the claim start with a pronoun ("It is 73.8% of the total"), so its subject is the last one?"""
    return bool(_PRONOUN.match(clause))
