"""The lexicon (``lexicon.toml``) compiled once: normalised words in, concepts and a language out.

Normalising is the same for the lexicon and the question, so a phrase written once in the data
matches however a person types it: case, accents, apostrophes and punctuation never matter.
"""

from __future__ import annotations

import json
import pkgutil
import re
import unicodedata
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

SOURCE = "lexicon.toml"  # the one source of truth
INDEX = "lexicon.index.json"  # what lexicon_build makes of it, prebuilt
FORMAT = 1  # the index's layout; an index of another layout is rebuilt from the TOML

_APOSTROPHES = re.compile(r"['’‘`´]")
_NOT_WORD = re.compile(r"[^a-z0-9#]+")
_SHARED = frozenset({"is", "over", "me", "in", "hier"})  # Dutch markers English writes the same
_SEPARABLE_REACH = 6  # words between a Dutch verb and its particle
_PREPOSITIONS = frozenset({"in", "door", "aan", "op", "uit", "over", "af", "mee", "na", "voor", "bij", "om", "toe"})
_KEEP_FILLERS = ("even",)  # fillers that also start a phrase of the lexicon: kept where that phrase stands
_CLAUSE_ENDS = frozenset({"en", "of", "maar", "want", "omdat", "als", "dan", "and", "or"})


def words(text: str) -> list[str]:
    """Lower-case ASCII words: accents folded, apostrophes dropped (``what's`` -> ``whats``), the rest split."""
    folded = text.casefold()
    if folded.isascii():  # nothing to fold: most questions, and every phrase the lexicon is built from
        ascii_only = folded
    else:
        decomposed = unicodedata.normalize("NFKD", folded)
        ascii_only = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return _NOT_WORD.sub(" ", _APOSTROPHES.sub("", ascii_only)).split()


@dataclass(frozen=True, slots=True)
class Phrase:
    words: tuple[str, ...]  # a word ending in "*" is a prefix
    concept: str

    def matches_at(self, tokens: list[str], i: int) -> bool:
        if i + len(self.words) > len(tokens):
            return False
        for want, got in zip(self.words, tokens[i : i + len(self.words)], strict=False):
            if want.endswith("*"):
                if not got.startswith(want[:-1]):
                    return False
            elif want != got:
                return False
        return True


@dataclass(frozen=True, slots=True)
class Lexicon:
    by_first: Mapping[str, tuple[Phrase, ...]]  # exact first word -> phrases, longest first
    prefixed: tuple[Phrase, ...]  # phrases whose first word is a prefix
    politeness: tuple[tuple[str, ...], ...]  # longest first
    markers: dict[str, frozenset[str]]  # language -> marker words
    vocabulary: frozenset[str]  # every word the lexicon knows (never a fuzzy subject)
    stems: tuple[str, ...]  # the lexicon's prefix words, without their "*"
    products: frozenset[str]  # product names (casefolded) that are never frames
    leading: frozenset[tuple[str, ...]] = frozenset()  # fillers removed only where the question starts
    translations: dict[str, str] = field(default_factory=dict)  # Dutch description word -> the English one
    separable: dict[tuple[str, str], str] = field(default_factory=dict)  # (verb, particle) -> the joined verb
    keep: dict[str, tuple[Phrase, ...]] = field(default_factory=dict)  # filler word -> the phrases it starts

    def joined(self, tokens: list[str]) -> list[str]:
        """Dutch separable verbs read joined: "wat houdt het geheugen vast" as "wat vasthoudt het geheugen". The
        particle must follow the verb within a few words; a particle that is also a preposition ("in", "door")
        only at the clause's end ("wat houdt dat in", "welke frames geven aanroepen door en ...")."""
        out = list(tokens)
        for i, verb in enumerate(out):
            for j in range(i + 1, min(len(out), i + _SEPARABLE_REACH + 1)):
                joined = self.separable.get((verb, out[j]))
                if joined is None:
                    continue
                at_end = j + 1 == len(out) or out[j + 1] in _CLAUSE_ENDS
                if out[j] in _PREPOSITIONS and not at_end:
                    continue
                out[i] = joined
                del out[j]
                break
        return out

    def content(self, tokens: list[str]) -> list[str]:
        """The words that may describe a function: unknown to the lexicon and four letters or more, with the
        Dutch words labels are never written in read as their English ("afhandelen" -> handle)."""
        return [
            self.translations.get(t, t)
            for t in tokens
            if t in self.translations or (len(t) >= 4 and not self.knows(t) and t not in self.products)
        ]

    def spelled(self, tokens: list[str]) -> list[str]:
        """Tokens with one-letter typos mended to the lexicon's word ("meetse" -> "meeste", "waht" -> "what").

        Only words of four letters or more, and only when exactly one lexicon word is that close.
        """
        return [self._mend(t) for t in tokens]

    def _mend(self, token: str) -> str:
        if len(token) < 4 or token.isdigit() or self.knows(token):
            return token
        if len(token) == 4:  # short words: only two letters swapped
            swaps = {token[:i] + token[i + 1] + token[i] + token[i + 2 :] for i in range(3)}
            found = {w for w in swaps if w in self.vocabulary}
        else:  # a letter swapped or mistyped; a letter missing or doubled only in long words
            near = _near(self.vocabulary)
            found = set(near.get(token, ()))
            for variant in _deletes(token):
                found.update(near.get(variant, ()))
                if variant in self.vocabulary:
                    found.add(variant)
            # a swap at any length; a letter missing or doubled only in long words; a letter changed only in very
            # long ones: "weten" is not "keten", "knows" not "knobs", "while" not "whole"
            found = {
                w
                for w in found
                if _one_edit(token, w)
                and (_swapped(token, w) or (len(w) != len(token) and min(len(w), len(token)) >= 6) or len(token) >= 9)
            }
        return found.pop() if len(found) == 1 else token

    def phrase_concept(self, ws: list[str]) -> str | None:
        """The concept whose phrase is exactly these words (``torch.compile``, ``kv_cache``), if any."""
        for phrase in self.by_first.get(ws[0], ()) if ws else ():
            if len(phrase.words) == len(ws) and phrase.matches_at(ws, 0):
                return phrase.concept
        return None

    def marker(self, word: str) -> bool:
        """A word that marks a language ("the", "de"): never a name."""
        return any(word in marks for marks in self.markers.values())

    def knows(self, word: str) -> bool:
        return word in self.vocabulary or word.startswith(self.stems)

    def concepts(self, tokens: list[str]) -> dict[str, int]:
        """``{concept: position of its first match}``; at each position the longest phrase wins."""
        found: dict[str, int] = {}
        i = 0
        while i < len(tokens):
            candidates = [*self.by_first.get(tokens[i], ()), *self.prefixed]
            hits = [p for p in candidates if p.matches_at(tokens, i)]
            if not hits:
                i += 1
                continue
            longest = max(len(p.words) for p in hits)
            for p in hits:  # the longest phrase reads the words ("how much" is not "how")
                if len(p.words) == longest:
                    found.setdefault(p.concept, i)  # several concepts may share a phrase ("total")
            i += longest
        return found

    def strip_politeness(self, tokens: list[str]) -> list[str]:
        out: list[str] = []
        i = 0
        while i < len(tokens):
            for phrase in self.politeness:
                if phrase in self.leading and out:
                    continue  # "is this ok?": the "ok" is the question
                if tuple(tokens[i : i + len(phrase)]) == phrase:
                    kept = self.keep.get(tokens[i], ())
                    if any(len(p.words) > len(phrase) and p.matches_at(tokens, i) for p in kept):
                        continue  # "even in" (why is X even in a cpu profile) is a phrase, not Dutch "even"
                    i += len(phrase)
                    break
            else:
                out.append(tokens[i])
                i += 1
        return out

    def language(self, tokens: list[str], default: str = "en") -> str:
        # words both languages write ("is", "over", "me") say nothing: "wtf is 0x7f15c3a0" is English
        tokens = [t for t in tokens if t not in _SHARED]
        score = {lang: sum(t in marks for t in tokens) for lang, marks in self.markers.items()}
        best = max(score, key=lambda lang: (score[lang], lang == default))
        return best if score[best] > 0 else default


@cache
def lexicon() -> Lexicon:
    """The lexicon, from its prebuilt index when that was built from this ``lexicon.toml``.

    Building from the TOML (parse, normalise every phrase, index) is most of what a first question costs;
    the index holds the result, so loading is one ``json.loads``. An index that does not match the TOML
    (edited, not yet rebuilt with ``python tools/lexicon_index.py``) is never used: the TOML is the truth,
    read the slow way, and ``tests/test_lexicon_index.py`` fails until the index is rebuilt.
    """
    source = _data(SOURCE)
    index = json.loads(_data(INDEX))
    if index.get("format") == FORMAT and index.get("source") == fingerprint(source):
        return from_index(index)
    return build(source)


def build(source: bytes) -> Lexicon:
    """The lexicon from the TOML's bytes: what the index holds, and what an out-of-step index gives way to."""
    import tomllib  # only for an index that is out of step, and for the tool that rebuilds it

    raw = tomllib.loads(source.decode("utf-8"))
    by_first: dict[str, list[Phrase]] = {}
    prefixed: list[Phrase] = []
    vocabulary: set[str] = set()
    for concept, phrases in raw["concepts"].items():
        for text in phrases:
            ws = _phrase_words(text)
            phrase = Phrase(ws, concept)
            vocabulary.update(w.rstrip("*") for w in ws)
            (prefixed if ws[0].endswith("*") else by_first.setdefault(ws[0], [])).append(phrase)
    # longest first; the words break ties only so that every build is the same (a set's order is not)
    polite = sorted({tuple(words(p)) for p in raw["politeness"]["phrases"]}, key=lambda p: (-len(p), p))
    markers = {lang: frozenset(ws) for lang, ws in raw["language"].items()}
    for marks in markers.values():
        vocabulary.update(marks)
    stems = tuple(sorted({w[:-1] for p in prefixed for w in p.words if w.endswith("*")}))
    longest_first = {k: tuple(sorted(v, key=lambda p: -len(p.words))) for k, v in by_first.items()}
    return Lexicon(
        longest_first,
        tuple(prefixed),
        tuple(p for p in polite if p),
        markers,
        frozenset(vocabulary),
        stems,
        frozenset(n.casefold() for n in raw["products"]["names"]),
        frozenset(tuple(words(p)) for p in raw["politeness"].get("leading", [])),
        {k: str(v) for k, v in raw.get("translations", {}).items()},
        {(verb, particle): str(v) for k, v in raw.get("separable", {}).items() for verb, particle in [k.split()]},
        _keep_phrases(longest_first),
    )


def _phrase_words(text: str) -> tuple[str, ...]:
    """A lexicon phrase as words; a trailing ``*`` on a word survives normalisation."""
    out: list[str] = []
    for part in text.split():
        stem = "".join(words(part.rstrip("*")))
        out.append(stem + "*" if part.endswith("*") else stem)
    return tuple(w for w in out if w and w != "*")


def _data(name: str) -> bytes:
    # pkgutil, not importlib.resources (which would add tempfile, shutil and zipfile to ask's start-up)
    data = pkgutil.get_data(__package__, name)
    if data is None:  # pragma: no cover - a loader without get_data; the package's own loader has it
        raise FileNotFoundError(name)
    return data


def fingerprint(source: bytes) -> str:
    """Which TOML an index was built from: a staleness check, not a security one (``zlib`` is loaded anyway)."""
    return f"{len(source)}:{zlib.crc32(source):08x}"


def from_index(index: dict[str, Any]) -> Lexicon:
    """The lexicon from its prebuilt index (:func:`lexicon_build.index` writes it)."""
    by_first = PhraseIndex(index["by_first"])
    return Lexicon(
        by_first,
        tuple(Phrase(tuple(ws), concept) for concept, *ws in index["prefixed"]),
        tuple(tuple(p) for p in index["politeness"]),
        {lang: frozenset(marks) for lang, marks in index["markers"].items()},
        frozenset(index["vocabulary"]),
        tuple(index["stems"]),
        frozenset(index["products"]),
        frozenset(tuple(p) for p in index["leading"]),
        index["translations"],
        {(verb, particle): joined for verb, particle, joined in index["separable"]},
        _keep_phrases(by_first),
    )


class PhraseIndex(Mapping[str, tuple[Phrase, ...]]):
    """First word -> its phrases, made from the index's rows when a question first holds that word.

    A question holds a dozen words of the lexicon's 1,300 first words: making all ~3,200 phrases at load
    would be most of the load's cost.
    """

    __slots__ = ("_made", "_rows")

    def __init__(self, rows: dict[str, list[list[str]]]) -> None:
        self._rows = rows  # first word -> [concept, *words] per phrase, longest first
        self._made: dict[str, tuple[Phrase, ...]] = {}

    def __getitem__(self, first: str) -> tuple[Phrase, ...]:
        made = self._made.get(first)
        if made is None:
            made = self._made[first] = tuple(Phrase(tuple(row[1:]), row[0]) for row in self._rows[first])
        return made

    def get(self, first: str, default: Any = None) -> Any:  # the hot path: no KeyError for a word it lacks
        return self[first] if first in self._rows else default

    def __contains__(self, first: object) -> bool:
        return first in self._rows

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)


def _keep_phrases(by_first: Mapping[str, tuple[Phrase, ...]]) -> dict[str, tuple[Phrase, ...]]:
    return {w: by_first[w] for w in _KEEP_FILLERS if w in by_first}


@cache
def _near(vocabulary: frozenset[str]) -> dict[str, tuple[str, ...]]:
    """A word with one letter deleted -> the lexicon's words (five letters or more) it came from.

    Only a word the lexicon does not know asks for it, so it is built on the first such word, not at load.
    """
    near: dict[str, set[str]] = {}
    for word in vocabulary:
        if len(word) >= 5 and word.isalpha():
            near.setdefault(word, set()).add(word)
            for variant in _deletes(word):
                near.setdefault(variant, set()).add(word)
    return {k: tuple(sorted(v)) for k, v in near.items()}


def _deletes(word: str) -> set[str]:
    return {word[:i] + word[i + 1 :] for i in range(len(word))}


def _swapped(a: str, b: str) -> bool:
    """``b`` is ``a`` with two neighbouring letters swapped ("memroy" -> "memory")."""
    if len(a) != len(b):
        return False
    diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
    return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]


def _one_edit(a: str, b: str) -> bool:
    """Exactly one insertion, deletion, substitution or swap of neighbours turns ``a`` into ``b``."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]])
    short, long_ = sorted((a, b), key=len)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))
