"""What a question is about, resolved against the profile before it is believed.

A subject is a function of the profile, a knowledge concept (KV cache, weights, ...), or a name
that looks like a frame but is not in the profile ("missing"). Candidates are tried from the most
explicit to the least: quoted or backticked text, frame labels (``<module>``, ``0x7f15``, ``Foo >
bar``), symbol-shaped tokens (``.``, ``::``, ``_``, ``()``), ordinals ("the second one", "#3"),
concepts named in prose, then a fuzzy match of the question's words against the profile's names
("the kv cache allocation"). A plain capitalised word becomes a subject only when it resolves, and
text that carries markup (HTML tags, Markdown images, template syntax) never does.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise
from typing import Literal

from explainer.explain.checks.names import NameIndex, normalize
from explainer.explain.question.lexicon import lexicon, words
from explainer.lazyre import lazy
from explainer.names import Resolution, Resolver, components

Kind = Literal["function", "concept", "missing"]


@dataclass(frozen=True, slots=True)
class Subject:
    kind: Kind
    name: str  # the function's raw name, the concept id, or the text as written
    how: str  # quoted, label, symbol, ordinal, concept, fuzzy, focus
    runner_up: str | None = None  # a second function the written name matched as closely (the answer names it)
    members: tuple[str, ...] = ()  # a phrase naming a group ("detokenisation in total"): every function of it
    at: int = -1  # where the question writes the name (a character offset), when it writes it

    @property
    def label(self) -> str:
        """``fn:…``, ``concept:…`` or ``missing:…``: how the corpus writes a subject."""
        return {"function": "fn", "concept": "concept", "missing": "missing"}[self.kind] + ":" + self.name


@dataclass(frozen=True, slots=True)
class Names:
    """The profile's side of resolution: its name index and which functions carry any value."""

    index: NameIndex
    present: Sequence[bool]  # by function id
    weight: Sequence[int]  # total by function id, to prefer the heavier of two candidates
    by_category: Mapping[str, str] = field(default_factory=dict)  # concept id -> its biggest function
    parts: Mapping[str, tuple[int, ...]] = field(default_factory=dict)  # see parts_index
    resolver: Resolver | None = None  # the one name resolver; built from the index when not given

    @property
    def names_resolver(self) -> Resolver:
        if self.resolver is not None:
            return self.resolver
        weights = [w if p else 0 for w, p in zip(self.weight, self.present, strict=False)]
        made = Resolver(self.index.names, weights)
        object.__setattr__(self, "resolver", made)  # built once: the field is a cache, not state
        return made

    def own_function(self, word: str) -> str | None:
        """The profile's function that a concept word is the name of ("scheduler" on a profile with
        ``Scheduler.schedule``): the word must be a whole word of its label."""
        best = self.names_resolver.describe([word]).best
        return best.name if best is not None and best.score >= 1.0 else None

    def resolution(self, text: str) -> Resolution:
        """Ranked candidates for a written name, with how sure the best one is."""
        return self.names_resolver.resolve(text)

    def resolve(self, text: str, *, strict: bool = False, member_ok: bool = False) -> str | None:
        """The present function ``text`` names best (the heavier of equals); ``strict`` takes only a
        full name, a file and line or a class (a capitalised word in prose, "Update", is not the method
        ``Detokenizer.update``)."""
        found = self.index.exact.get(normalize(text), []) if strict else self.index.resolve(text)
        ids = [i for i in found if self.present[i]]
        if ids and not strict:
            # the old index matched; the resolver still decides between a parent and its closures
            best = self.resolution(text).best
            if best is not None and best.fid in ids:
                return best.name
        if ids:
            return self.index.names[max(ids, key=lambda i: self.weight[i])]
        best = self.resolution(text).best
        if best is not None and (not strict or best.how in _STRICT or (member_ok and own_name(text, best.name))):
            return best.name
        ids = self._by_class(text)
        return self.index.names[max(ids, key=lambda i: self.weight[i])] if ids else None

    def _by_class(self, text: str) -> list[int]:
        """``LlamaMLP`` names the class of ``LlamaMLP.__init__`` and ``LlamaMLP.forward``."""
        key = text.strip("`'\" ").casefold()
        if len(key) < 3 or not key.replace("_", "").isalnum():
            return []
        names = self.index.names
        return [
            i
            for i, folded in enumerate(self.names_resolver.folded)
            if key in folded  # the cheap test first: the class is a piece of the label
            and self.present[i]
            and folded.rsplit(".", 1)[0].rsplit(".", 1)[-1] == key
            and not _CLOSURE_TAIL.search(names[i])  # Put.func1 is a closure of the method Put, not a member of a class
        ]


_CLOSURE_TAIL = lazy(r"\.(?:func\d+|\d+)$")
_STRICT = frozenset({"whole", "line", "class"})


def own_name(written: str, label: str) -> bool:
    """A word written in prose names a function inside a longer label only as its own name (``writeBytes``,
    ``handle``), never as its class, module or package; case does not matter, as nowhere in a question."""
    parts = components(label)
    return bool(parts) and parts[-1].casefold() == written.casefold()


DESCRIBED = 2.0  # two whole words of a label, or more: a description names that function

_QUOTED = re.compile(r"`([^`]{1,300})`|\"([^\"]{1,300})\"|“([^”]{1,300})”|'([^'\s][^']{0,298}[^'\s])'")
_MARKER = re.compile(r"\((?:idle|program|garbage collector|root|external)\)", re.I)  # V8's markers
_ANGLE = re.compile(r"<(?:interpreter trampoline|module|lambda|locals|listcomp|genexpr|unknown|root)>", re.I)
_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{3,16}(?:\.\.\.|…)?")
_SEPARATED = re.compile(r"\b([A-Za-z_]\w*)\s+[>/]\s+([A-Za-z_<][\w<>]*)")
_TOKEN = re.compile(r"[A-Za-z_<][\w.:<>$/\[\]+-]*(?:\(\))?")
_HTML_TAG = re.compile(
    r"</?(?:a|b|i|u|p|br|hr|em|strong|code|pre|div|span|img|script|style|iframe|svg|h[1-6])\b[^>]*>", re.I
)
_POSSESSIVE = re.compile(r"\b([A-Za-z_][\w.$]*)['’]s\s+([A-Za-z_]\w*)")  # SecureRandom's nextBytes
_FILE = lazy(r"\b[\w-]+\.(?:py|rb|js|ts|go|java|cs|rs|cc|cpp|c|h|php|mjs|tsx|jsx)\b")
_FILE_LINE = lazy(
    r"((?:\.?/)?(?:[\w.\-]+/)*[\w\-]+\.(?:py|rb|js|ts|go|java|cs|rs|cc|cpp|c|h|php|mjs|tsx|jsx))"
    r"(?::|,?\s+(?:(?:on|at|op|in)\s+)?(?:line|regel|lijn|ln\.?|r\.)\s*)(\d{1,6})\b",
    re.I,
)
_BRACKETED = re.compile(r"\[[\w.+-]{2,100}\]")  # a native frame as pprof writes it: [libpthread-2.15.so]
_GO_RECEIVER = re.compile(r"(?:[\w./-]+\.)?\(\*?[A-Za-z_]\w*\)\.[A-Za-z_]\w*")
_NUMBERED_NAME = re.compile(r"[A-Za-z_]{3,}\d{1,3}")
_CAMEL = re.compile(r"[a-z][A-Z]")
_SYMBOLIC = re.compile(r"[._:$]|\(\)|[a-z][A-Z]")
_SHAPED = re.compile(r"[._:$]|\(\)")  # symbol-shaped in any case: named as a frame even when absent
_MARKUP = re.compile(r"</?[a-z][^>]*>|!\[|\]\(|%\{|\{\{|https?://|[\x00-\x1f\x7f]", re.I)
_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
    "ninth": 9, "tenth": 10, "eerste": 1, "tweede": 2, "derde": 3, "vierde": 4, "vijfde": 5, "zesde": 6,
    "zevende": 7, "achtste": 8, "negende": 9, "tiende": 10, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5,
    "2e": 2, "3e": 3, "4e": 4, "5e": 5, "2de": 2, "3de": 3,
}  # fmt: skip
_ORDINAL_NOUNS = {"one", "een", "function", "functie", "frame", "item", "row", "rij", "entry", "place", "plaats", "on"}
_NUMBERED = re.compile(r"(?:#|\bnumber\s+|\bnummer\s+|\bnr\.?\s*|\bno\.\s*)(\d{1,2})\b", re.I)


def hostile(text: str) -> bool:
    return bool(_MARKUP.search(text))


def quoted(question: str) -> list[str]:
    return [next(g for g in m.groups() if g).strip() for m in _QUOTED.finditer(question)]


def explicit(question: str, names: Names, *, plain: bool = True) -> Subject | None:
    """A subject the question writes out (see :func:`_explicit`); when the name matched two functions
    equally, the question's other words settle it ("msgspec encode": the ``encode`` in ``msgspec``)."""
    found = _explicit(question, names, plain=plain)
    if found is None or found.runner_up is None:
        return found
    lex = lexicon()
    content = [t for t in words(question) if len(t) >= 3 and not lex.knows(t)]
    ranked = names.names_resolver.describe(content, limit=20).candidates
    score = {c.name: c.score for c in ranked}
    for written in _FILE.findall(question):  # "carSearchHandler in index.ts": the one in that file
        for name in (found.name, found.runner_up):
            if written.casefold() in name.casefold():
                score[name] = score.get(name, 0.0) + 1.0
    mine, other = score.get(found.name, 0.0), score.get(found.runner_up, 0.0)
    if other > mine:
        return Subject("function", found.runner_up, found.how, at=found.at)
    if mine > other:
        return Subject("function", found.name, found.how, at=found.at)
    return found


def _explicit(question: str, names: Names, *, plain: bool = True) -> Subject | None:
    """A subject the question writes out: quoted, a frame label, or a symbol-shaped token.

    HTML tags are taken out first, so ``<b>Foo.bar</b>`` is read as ``Foo.bar``; quoted text that
    still carries markup is never a subject unless the profile has exactly that name. Names are tried
    from the most name-shaped to the plainest, so "the trie lookup findNodeAt" is ``findNodeAt``, not a
    ``Lookup`` method, and a dotted name the profile lacks ("StackExchange.Redis") gives way to a later
    one it has; only when nothing written resolves is the first frame-shaped name "missing". ``plain``
    False (a ticket's context sentences) takes no plain word as a name.
    """
    for m in _QUOTED.finditer(question):
        found = _resolve_written(next(g for g in m.groups() if g).strip(), names, "quoted")
        if found is not None:
            return replace(found, at=m.start())
    prose = _HTML_TAG.sub(" ", _QUOTED.sub(" ", question))
    for m in _FILE_LINE.finditer(prose):  # "the anon fn in build/index.js line 20", "index.js regel 19"
        found = _resolve_written(f"{m.group(1)}:{m.group(2)}", names, "label", missing_ok=False, concept_ok=False)
        if found is not None:
            return replace(found, at=m.start())
    for m in _SEPARATED.finditer(prose):
        # "NCCL / communication", "unresolved / unknown": words, not a Foo / bar label
        words_known = all(lexicon().knows(part.casefold()) for part in m.groups()) or any(
            concept_in(part) is not None for part in m.groups()
        )
        found = _resolve_written(f"{m.group(1)}.{m.group(2)}", names, "symbol", missing_ok=not words_known)
        if found is not None:
            return replace(found, at=m.start())
    for rx in (_GO_RECEIVER, _POSSESSIVE):  # (*Conn).Read, net.(*Conn).Read; SecureRandom's nextBytes
        for m in rx.finditer(prose):
            written = m.group(0) if rx is _GO_RECEIVER else f"{m.group(1)}.{m.group(2)}"
            found = _resolve_written(written, names, "symbol", missing_ok=rx is _GO_RECEIVER)
            if found is not None:
                return replace(found, at=m.start())
    for m in [*_BRACKETED.finditer(prose), *_MARKER.finditer(prose)]:  # [libpthread-2.15.so], (idle)
        resolved = names.resolve(m.group(0), strict=True) or _marker(m.group(0), names)
        if resolved is not None:
            return Subject("function", resolved, "label", at=m.start())
    tokens = [(m.start(), m.group(0).rstrip(".:-/?+")) for m in _TOKEN.finditer(prose)]
    tokens = [(at, t) for at, t in tokens if t and not t.startswith("<")]  # a label such as <module>: below
    missing: Subject | None = None
    for rank in range(3):  # symbol-shaped, then camel case or capitalised, then plain long words
        for at, token in tokens:
            product = token.casefold() in lexicon().products
            symbolic = bool(_SHAPED.search(token)) and not product
            # camel case, or letters ending in a number ("open0", "func1"): a name, whatever its length
            camel = bool(_CAMEL.search(token) or _NUMBERED_NAME.fullmatch(token)) and not product
            capital = token[:1].isupper() and len(token) > 1
            plain_name = plain and len(token) >= 6 and not lexicon().knows(token.casefold())
            if product or (0 if symbolic else 1 if (camel or capital) else 2 if plain_name else 3) != rank:
                continue
            # a plain word counts when capitalised or long and unknown to the lexicon ("cudalaunchkernel"),
            # and then only as a full name or a class; a camel-case word ("writeBytes", "SpinPause") or a
            # long unknown one ("handle") may also be a function's own name inside a longer label
            found = _resolve_written(
                token,
                names,
                "symbol",
                missing_ok=False,
                concept_ok=symbolic,
                strict=not symbolic,
                member_ok=camel or plain_name or (capital and not token.isupper() and _mid_sentence(prose, at)),
            )
            if found is not None and (rank < 2 or found.kind != "function" or own_name(token, found.name)):
                return replace(found, at=at)  # a plain word names a function, never its class ("snappy")
            if symbolic and missing is None:
                # not camel case alone: "ncclAllReduce" typed in lower case would differ
                missing = _resolve_written(token, names, "symbol", concept_ok=False)
                missing = replace(missing, at=at) if missing is not None else None
    if missing is not None:
        package = _package(missing.name, names)
        return replace(package, at=missing.at) if package is not None else missing
    if plain:  # a short plain word that is a whole label of the profile ("how much does work take": py-spy's `work`)
        for at, token in tokens:
            word = token.casefold()
            lex = lexicon()
            if (
                len(word) >= 3
                and word.isalpha()
                and not lex.concepts([word])
                and not lex.marker(word)
                and word not in lex.products
            ):
                ids = [i for i in names.index.exact.get(normalize(token), []) if names.present[i]]
                if ids:
                    return Subject(
                        "function", names.index.names[max(ids, key=lambda i: names.weight[i])], "word", at=at
                    )
    for rx in (_ANGLE, _ADDRESS, _BRACKETED):
        for m in rx.finditer(prose):
            found = _resolve_written(m.group(0), names, "label")
            return replace(found, at=m.start()) if found is not None else None
    return None


def _marker(written: str, names: Names) -> str | None:
    """A runtime marker written bare ("(idle)") names the label that is only that marker (``:(idle):0``)."""
    key = written.casefold()
    ids = [
        i
        for i, name in enumerate(names.index.names)
        if names.present[i] and re.sub(r"^:|:\d+$", "", name.casefold()) == key
    ]
    return names.index.names[max(ids, key=lambda i: names.weight[i])] if ids else None


def _package(written: str, names: Names, limit: int = 40) -> Subject | None:
    """A dotted name no function has but some labels start with ("sun.security.ssl", "github.com/foo/bar"): the
    package, answered as the group of its functions, heaviest first."""
    key = re.sub(r"[./]+", "/", written.strip("./")).casefold()
    if key.count("/") < 1:
        return None
    ids = [
        i
        for i, name in enumerate(names.index.names)
        if names.present[i] and re.sub(r"[./]+", "/", name).casefold().startswith(key + "/")
    ]
    if not ids:
        return None
    ranked = sorted(ids, key=lambda i: -names.weight[i])[:limit]
    members = tuple(names.index.names[i] for i in ranked)
    return Subject("function", members[0], "fuzzy", members=members)


def _mid_sentence(text: str, at: int) -> bool:
    """A capitalised word inside a sentence ("who calls Put") may be a Go method's own name; the first word of a
    sentence ("Update the graph") is capitalised by grammar."""
    before = text[:at].rstrip()
    return bool(before) and before[-1] not in ".?!:;\"'(" and not before.endswith(("`", "*"))


def without_names(text: str, *, keep_quoted: bool) -> str:
    """The question with written names blanked, so ``_allocate_kv_cache_tensors`` never reads as "kv cache".

    Quoted text that named no subject stays: 'what does "self" mean' is about the word self.
    """
    out = _QUOTED.sub(lambda m: " " + next(g for g in m.groups() if g) + " " if keep_quoted else " ", text)
    return " ".join(tok for tok in out.split() if not (_SYMBOLIC.search(tok.strip("?.,!:;()")) and len(tok) > 3))


def _resolve_written(
    text: str,
    names: Names,
    how: str,
    *,
    missing_ok: bool = True,
    concept_ok: bool = True,
    strict: bool = False,
    member_ok: bool = False,
) -> Subject | None:
    resolved = names.resolve(text, strict=strict, member_ok=member_ok)
    if resolved is not None:
        found = names.resolution(text)
        other = found.runner_up if found.best is not None and found.best.name == resolved else None
        return Subject("function", resolved, how, other.name if other is not None else None)
    if hostile(text) or len(text) < 2:
        return None
    concept = (_concept_named(text) if how != "quoted" else concept_in(text)) if concept_ok else None
    if concept is not None:
        return Subject("concept", concept, how)
    if not missing_ok or not _looks_like_frame(text):
        return None
    return Subject("missing", text, how)


def _concept_named(text: str) -> str | None:
    """The concept a written name is as a whole ("torch.compile", "kv_cache"), never one inside it."""
    concept = lexicon().phrase_concept(words(text))
    return concept.removeprefix("concept:") if concept and concept.startswith("concept:") else None


def _looks_like_frame(text: str) -> bool:
    """A dotted or scoped identifier, an address or a label, not prose or a number ("e.g.", "55.1")."""
    if text.startswith("<") or text.lower().startswith("0x"):
        return True
    if _CAMEL.search(text) and re.fullmatch(r"[A-Za-z_]\w{3,}", text):
        return True  # a camel-case identifier: SpinPause, cudaStreamSynchronize
    core = text.removesuffix("()")
    if " " in core.strip() and not re.search(r"\s[>/]\s", core):
        return bool(re.search(r"\.py:\d+|\w+\.\w+\(", core))  # py-spy labels and calls keep their spaces
    parts = [p for p in re.split(r"[.:/$]+", core) if p]
    return (
        bool(parts)
        and any(len(p) >= 3 and re.match(r"^[A-Za-z_]", p) for p in parts)
        and (len(parts) > 1 or "_" in core or text.endswith("()"))
    )


def concept_in(text: str) -> str | None:
    """The knowledge concept a phrase names (``concept:kv-cache`` -> ``kv-cache``), if any."""
    found = lexicon().concepts(words(text))
    ordered = sorted(found.items(), key=lambda kv: kv[1])
    ids = [c.removeprefix("concept:") for c, _ in ordered if c.startswith("concept:")]
    return ids[0] if ids else None


_NOT_RANKED = frozenset(
    {"time", "times", "keer", "maal", "run", "runs", "request", "requests", "minute", "minutes", "minuut", "minuten",
     "hour", "hours", "uur", "day", "days", "dag", "dagen", "week", "weeks", "deploy", "release", "step", "stap"}
)  # fmt: skip


def ordinal(tokens: list[str], question: str) -> int | None:
    """1 for "the first one", 2 for "#2", "the second", "de tweede"; None when there is none."""
    m = _NUMBERED.search(question)
    if m:
        return int(m.group(1))
    for a, b in zip(tokens, [*tokens[1:], ""], strict=False):
        if (a, b) in (("top", "one"), ("top", ""), ("bovenste", ""), ("bovenste", "een"), ("top", "function")):
            return 1
    for i, t in enumerate(tokens):
        n = _ORDINALS.get(t)
        if n is None:
            continue
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        before = tokens[i - 1] if i else ""
        if after in _NOT_RANKED:  # "for the first time", "de eerste keer": an ordinal of something else
            continue
        # "3rd?" alone is one too: a question of one word that is an ordinal can only count
        if (
            after in _ORDINAL_NOUNS
            or before in ("the", "de", "het", "number", "nummer", "and", "en")
            or len(tokens) == 1
        ):
            return n
    return None


def fuzzy(tokens: list[str], names: Names) -> tuple[str | None, int]:
    """The profile function whose name parts the question's content words describe best.

    Words the lexicon knows ("memory", "most", "use") never count, nor short ones; a match needs
    two words, or one long word that only a few functions share ("the tokenizer"). Costs a
    dictionary look-up per word, whatever the number of functions.
    """
    lex = lexicon()
    content = lex.content(tokens)  # Dutch description words read as English here, for whole words only
    described = names.names_resolver.describe(content).best if len(content) >= 2 else None
    if described is not None and described.score >= DESCRIBED:
        return described.name, 2  # whole words of one label ("the label values" -> (*Reader).LabelValues)
    # a product named in passing ("bij deze kafka broker") describes no function, as in lex.content
    stems = {t[:6] for t in tokens if len(t) >= 4 and not lex.knows(t) and t not in lex.products}
    holders = {stem: names.parts.get(stem, ()) for stem in stems}
    scores = Counter(fid for fids in holders.values() for fid in fids)
    if not scores:
        return None, 0
    best = max(scores.values())
    leaders = {fid for fid, s in scores.items() if s == best}
    if best < 2:
        rare = [fids for stem, fids in holders.items() if 0 < len(fids) <= 2 and len(stem) >= 6]
        leaders &= {fid for fids in rare for fid in fids}
    if not leaders:
        return None, 0
    return names.index.names[max(leaders, key=lambda i: (names.weight[i], -i))], best


def group(tokens: list[str], names: Names, limit: int = 40, *, whole: bool = False) -> tuple[str, ...]:
    """Every function the question's content words describe equally well, heaviest first: "the
    detokenisation in total" is all of ``detokenizer.py``, not its biggest function."""
    content = lexicon().content(tokens)
    found = names.names_resolver.describe(content, limit=limit).candidates
    if not found:
        return ()
    best = found[0].score
    if whole and best < 1.0:
        return ()  # a word part alone ("flu") names no group
    return tuple(c.name for c in found if c.score >= best - 1e-9)


def parts_index(names: Sequence[str], present: Sequence[bool]) -> dict[str, tuple[int, ...]]:
    """Name part (first six letters of each camel-case or snake-case word) -> the present functions with it."""
    index: dict[str, list[int]] = {}
    for fid, name in enumerate(names):
        if present[fid]:
            for part in _parts(name):
                index.setdefault(part, []).append(fid)
    return {k: tuple(v) for k, v in index.items()}


class PartsIndex(Mapping[str, tuple[int, ...]]):
    """:func:`parts_index`, built on the first look-up: most questions never need it (every word is
    one the lexicon knows), and on a profile of thousands of functions it takes tens of milliseconds."""

    def __init__(self, names: Sequence[str], present: Sequence[bool]) -> None:
        self._names, self._present = names, present
        self._index: dict[str, tuple[int, ...]] | None = None

    @property
    def _built(self) -> dict[str, tuple[int, ...]]:
        if self._index is None:
            self._index = parts_index(self._names, self._present)
        return self._index

    def __getitem__(self, key: str) -> tuple[int, ...]:
        return self._built[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._built)

    def __len__(self) -> int:
        return len(self._built)


def _parts(name: str) -> set[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", name[:300]))
    return {w[:6] for w in words(spaced.replace("_", " ")) if len(w) >= 4}


_NOT_REFERENT = {
    "profile", "profiel", "graph", "grafiek", "flamegraph", "flame", "view", "chat", "tool", "page", "pagina",
    "machine", "server", "pod", "cluster", "process", "proces", "data", "question", "vraag", "time", "tijd",
    "memory", "geheugen", "is", "means", "mean",
}  # fmt: skip
_DEMONSTRATIVES = {"it", "its", "that", "this", "dat", "die", "deze", "dit", "hem"}
_DUTCH_TAIL = {
    "aan", "negeren", "overslaan", "doet", "doen", "eigenlijk", "uit", "weg", "ook", "zo", "precies", "dan",
    "nou", "eens", "allemaal", "hier", "daar", "wel", "niet", "nog", "zijn", "is", "in", "veilig", "gewoon",
    "kleiner", "smaller", "sneller", "faster", "lager", "lower", "down", "omlaag", "minder", "less",
    "skippen", "vergeten", "wegfilteren", "verbergen", "zoveel",
}  # fmt: skip


def names_topic(tokens: list[str], topic: Subject) -> bool:
    """ "wtf is that regex??" after an answer about ``java/util/regex/Pattern$Slice.match``: a demonstrative before a
    word of the topic's own name points at the topic."""
    name = topic.name.casefold()
    return any(a in _DEMONSTRATIVES and len(b) >= 3 and b in name for a, b in pairwise(tokens))


_POINTERS = frozenset(
    {"it", "its", "that", "this", "they", "them", "those", "these", "dat", "dit", "die", "deze", "ze"}
)


def points(tokens: list[str]) -> bool:
    """Does a ticket's question point at its context ("What are they?", "Is that our code?"), not at the
    profile or the graph ("this profile")?"""
    return any(
        t in _POINTERS
        and not (_PROFILE_NOUNS & set(tokens[i + 1 : i + 4]))
        and (i + 1 == len(tokens) or tokens[i + 1] not in _NOT_REFERENT)
        for i, t in enumerate(tokens)
    )


# "this JFR profile", "this py-spy profile": a demonstrative before a short noun phrase naming the profile
_PROFILE_NOUNS = frozenset({"profile", "profiel", "graph", "grafiek", "flamegraph", "dump", "capture", "recording"})


def refers_back(tokens: list[str], found: Mapping[str, int]) -> bool:
    """Does the question point at what the conversation was about ("it", "that function", "die")?

    Demonstratives count only where they stand for a thing, not before a noun ("this profile") and
    not as Dutch articles ("het meeste geheugen").
    """
    if "anaphor" in found:
        return True
    for i, t in enumerate(tokens):
        if t not in _DEMONSTRATIVES:
            continue
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        if after == "" or (t in ("it", "hem") and after not in _NOT_REFERENT) or after in _DUTCH_TAIL or t == "its":
            return True
    return False
