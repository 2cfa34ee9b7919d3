"""The one name resolver: what a person or a model types, matched against the decoded parts of every label.

Profilers write the same function in many shapes: py-spy ``vllm/v1/worker/gpu_model_runner.py:1234 -
execute_model``, perf-Java ``io/netty/channel/nio/NioEventLoop:.run_[j]``, Go
``net.(*Conn).Read`` and its closures ``main.handle.func1``, Rust ``tokio::task::Harness<T>::poll::h1a2b``,
C++ ``std::vector<int>::push_back(int const&)``, .NET ``Kestrel!Foo.Bar``. People type ``execute_model``,
``NioEventLoop.run``, ``(*Conn).Read``, ``handle``, ``gpu_model_runner.py:1234``.

Every label is read once into *components* (package path, file module, class or receiver, member; the
perf marker, template and parameter lists, Rust's hash and Go's ``(*T)`` dropped), and indexed by every
trailing run of them. A written name is read the same way and looked up; the longer the run it
matches, the surer the match. A closure (``func1``, ``{{closure}}``, ``lambda$0``) is indexed under
its parent's names too, but weaker, so ``handle`` is ``main.handle`` and not its heavier
``main.handle.func1`` unless the closure is named. Ties go to the heavier function, and the runner-up
is kept so an answer can say which one it chose.

Loose descriptions ("the decode step of the index entries") are scored on whole words and word parts
of the names (:meth:`Resolver.describe`). Costs: a question's few look-ups each read only the labels
holding every piece of the key (a substring test over the case-folded labels); past
``MAX_KEYS_ALONE`` keys the whole index is built, one pass over the names, and a look-up is then a few
dictionary reads.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

from explainer.lazyre import lazy
from explainer.symbols import decode

WHOLE = 100.0  # the full label, as written
LINE = 95.0  # file and line
CLASS = 50.0  # the class, receiver or module of a member ("Scheduler" for Scheduler.schedule)
PARENT_PENALTY = 15.0  # a closure found through its parent's name ranks below the parent itself
MAX_READ = 400  # characters of a label or a written name read: a hostile 1 MB name costs no more than this
MAX_TAIL = 8  # trailing parts indexed: nobody types more of a package path than this
SURE = 0.6  # a confidence at least this needs no "I read this as"
MAX_KEYS_ALONE = 32  # keys looked up label by label before the whole index is built (one question asks a few)
_PIECES = re.compile(r"[.:/]")
_REWRITES = ("(", ")", "<", " - ")  # a label holding one of these may be read into parts that are not its pieces

_PERF_MARK = lazy(r"_\[[a-z]+\]$")  # perf's _[k] kernel, _[j] JIT, _[i] inlined markers
_RUST_HASH = lazy(r"::h[0-9a-f]{16}$")
_PARAMS = lazy(r"\([^()]*\)$")  # a trailing parameter list: push_back(int const&), Run(System.Object)
_RECEIVER = lazy(r"\(\*?([A-Za-z_][\w]*)(?:\[[^\]]*\])?\)")  # Go's (*Conn) and (Conn[T])
_SPLIT = re.compile(r"\s+[>/]\s+|::|[./:#!$\\]+|\s+")
_CLOSURE = re.compile(
    r"^(?:func\d+|\d+|\{\{closure\}\}|\{closure#\d+\}|<lambda>|lambda\$.*|lambda|anonymous|<anonymous>|block|blockin.*)$"
)
_WORD_PART = lazy(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_TRAILING_PLACE = re.compile(r"^([^\s()]+)\s+\(?(?:[\w.\-]*:)?[\w./\\\-]+:\d+(?::\d+)?\)?$")
_NODE_PLACE = lazy(r"^(?:\./)?([^\s:]+(?::[^\s:]+)?):([^:\s]+):\d+$")
_LOCATED = re.compile(r"([\w.\-]+\.(?:py|rb|js|ts|go|java|cs|rs|cc|cpp|c|h|php)):(\d+)")
_SOURCE = r"\.(?:js|ts|mjs|cjs|jsx|tsx)"
_NODE_LINE = re.compile(rf"^(?:\./)?([^\s:]+{_SOURCE}):[^:\s]+:(\d+)$")
_PATHED = lazy(r"((?:\.?/)?(?:[\w.\-]+/)+[\w.\-]+\.(?:py|rb|js|ts|go|java|cs|rs|cc|cpp|c|h|php)):(\d+)")
_OFFSET = re.compile(r"\s*\+0x[0-9a-f]+$")  # an offset into a library: lib.so.1+0x2f1a0
_LIBRARY_SUFFIX = re.compile(r"\.(?:so|dll|dylib)(?:\.\d+)*$")  # the library's file suffix is not a part


@dataclass(frozen=True, slots=True)
class Candidate:
    fid: int
    name: str  # the label as the profile writes it
    score: float  # how closely the written text matches: WHOLE for the full label, less for a part
    how: str  # whole, line, tail, member, parent, class, words

    @property
    def label(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class Resolution:
    """Ranked candidates for one written name; empty when nothing matched."""

    text: str
    candidates: tuple[Candidate, ...]

    @property
    def best(self) -> Candidate | None:
        return self.candidates[0] if self.candidates else None

    @property
    def runner_up(self) -> Candidate | None:
        """The second candidate when it matched as closely as the first: the answer names it."""
        if len(self.candidates) > 1 and self.candidates[1].score >= self.candidates[0].score:
            return self.candidates[1]
        return None

    @property
    def confidence(self) -> float:
        """0..1: how close the best match is, halved when another matched just as closely."""
        best = self.best
        if best is None:
            return 0.0
        sure = min(best.score, WHOLE) / WHOLE
        return sure / 2 if self.runner_up is not None else sure

    @property
    def sure(self) -> bool:
        return self.confidence >= SURE


def components(label: str, *, decoded: bool = True) -> list[str]:
    """A label (or a written name) as its dotted parts, case kept: package path, module, class, member.

    ``decoded`` uses the symbol decoders for shapes only they can read (py-spy's ``file:line - func``,
    ``func (file:line)``); a question's own text is read without them."""
    # each pattern below runs only where its literal part occurs: the name index reads every label of a profile
    text = label[:MAX_READ].strip().strip("`'\"")
    if text.endswith("]"):
        text = _PERF_MARK.sub("", text)
    if decoded and (" - " in text or text.endswith(")")):
        sym = decode(text)
        if sym.file and sym.member:
            path = re.sub(r"\.\w+$", "", sym.file)
            # a package's __init__.py is the package: torch/cuda/__init__.py - synchronize is torch.cuda.synchronize
            return [p for p in re.split(r"[/\\.]+", path) if p and p != "__init__"] + [sym.member]
    node = _NODE_PLACE.match(text) if ":" in text and text[-1:].isdigit() else None
    if node and ("/" in node.group(1) or node.group(1).startswith("node:") or "." in node.group(1)):
        # Node's "./build/index.js:bikeSearchHandler:26", "node:internal/streams/readable:flow:1248":
        # the file is the module, the line is not part of the name
        path = re.sub(r"\.(?:js|ts|mjs|cjs|jsx|tsx)$", "", node.group(1).removeprefix("node:"))
        return [p for p in re.split(r"[/\\.]+", path) if p] + [node.group(2)]
    if text.endswith(" [c function]"):  # Ruby's marker for a C function: "pop [c function]"
        text = text.removesuffix(" [c function]").rstrip()
    if text.startswith("(unknown):0 - "):  # rbspy's C functions have no file: the name alone
        text = text.removeprefix("(unknown):0 - ")
    located = _TRAILING_PLACE.match(text)
    if located:  # Node's "fn file:line", JFR's "fn (File.java:12)": the place is not part of the name
        text = located.group(1)
    if "::h" in text:
        text = _RUST_HASH.sub("", text)
    if "(" in text:
        text = _RECEIVER.sub(r"\1", text)
    text = _strip_angles(text)
    while True:
        stripped = (_PARAMS.sub("", text) if text.endswith(")") else text).rstrip()
        if stripped == text or not stripped:
            break
        text = stripped
    if "+0x" in text:
        text = _OFFSET.sub("", text)
    if ".so" in text or ".dll" in text or ".dylib" in text:
        text = _LIBRARY_SUFFIX.sub("", text)
    return [p for p in _SPLIT.split(text) if p and p not in ("*", "()")]


def _strip_angles(text: str) -> str:
    """Template and generic arguments go (``Harness<T,S>`` -> ``Harness``); a label such as ``<module>``
    or ``mod.<lambda>`` (``<`` not right after a name) stays."""
    if "<" not in text:  # most labels: nothing to strip, and no walk over every character
        return text
    out: list[str] = []
    depth = 0
    for ch in text:
        if ch == "<" and (depth or (out and (out[-1].isalnum() or out[-1] == "_"))):
            depth += 1
            continue
        if ch == ">" and depth:
            depth -= 1
            continue
        if not depth:
            out.append(ch)
    return "".join(out) or text


def word_parts(text: str) -> list[str]:
    """Lower-case word parts of a name: camel case and snake case split (``readEntries`` -> read, entries)."""
    return [w.casefold() for w in _WORD_PART.findall(text)]


def _key(parts: Iterable[str]) -> str:
    return ".".join(parts).casefold()


class Resolver:
    """Ranked look-up of written names over one profile's labels.

    ``weights`` (a total per function) breaks ties toward the heavier function; functions whose
    weight is 0 are never candidates when weights are given (they are not in the profile's samples).
    """

    def __init__(self, names: Sequence[str], weights: Sequence[int] | None = None) -> None:
        self.names = names
        self.weights = weights

    def _weight(self, fid: int) -> int:
        return int(self.weights[fid]) if self.weights is not None else 0

    def _present(self, fid: int) -> bool:
        return self.weights is None or self.weights[fid] > 0

    @cached_property
    def _index(self) -> dict[str, dict[int, tuple[float, str]]]:
        """key -> {function id: (score, how)}; the best score per function and key."""
        index: dict[str, dict[int, tuple[float, str]]] = {}
        for fid, name in enumerate(self.names):
            if self._present(fid):
                for key, hit in self._keys(fid, name).items():
                    index.setdefault(key, {})[fid] = hit
        return index

    def _keys(self, fid: int, name: str) -> dict[str, tuple[float, str]]:
        """The keys one label is found by: key -> (score, how), the best score per key (the first of equals)."""
        keys: dict[str, tuple[float, str]] = {}

        def put(key: str, score: float, how: str) -> None:
            if score > keys.get(key, (0.0, ""))[0]:
                keys[key] = (score, how)

        put(name.strip().casefold(), WHOLE, "whole")
        parts = components(name)
        if not parts:
            return keys
        put(_key(parts), WHOLE - 1, "whole")
        located = _LOCATED.search(name[:MAX_READ])
        if located:
            put(f"{located.group(1)}:{located.group(2)}".casefold(), LINE, "line")
            if len(parts) >= 2:  # py-spy and Ruby: the file's module names the functions in it
                put(parts[-2].casefold(), CLASS - 5, "module")
        node = _NODE_LINE.match(name[:MAX_READ]) if name[-1:].isdigit() else None
        if node:  # Node's "./build/index.js:(anonymous):20" is at build/index.js line 20, and at index.js:20
            path, line = node.group(1).casefold(), node.group(2)
            put(f"{path}:{line}", LINE, "line")
            put(f"{path.rsplit('/', 1)[-1]}:{line}", LINE - 2, "line")
        n = len(parts)
        for k in range(1, min(n, MAX_TAIL + 1)):
            put(_key(parts[-k:]), 60.0 + 10.0 * k, "member" if k == 1 else "tail")
        if n >= 2 and len(parts[-2]) >= 3 and parts[-2][:1].isupper():  # a class or receiver, not a namespace
            put(parts[-2].casefold(), CLASS, "class")
        # a closure is also found by its parent's names, below the parent itself
        end = n
        while end > 1 and _CLOSURE.match(parts[end - 1]):
            end -= 1
        if end < n:
            for k in range(1, min(end, MAX_TAIL) + 1):
                put(_key(parts[end - k : end]), 60.0 + 10.0 * k - PARENT_PENALTY, "parent")
        return keys

    def _hits(self, key: str) -> dict[int, tuple[float, str]]:
        """``_index[key]`` without building the whole index while a few keys are asked (one question's).

        Every piece of a key between its ``.``, ``:`` and ``/`` is a piece of the label it came from (the
        components are cut out of the label, only its ends trimmed), so a label lacking one is never found
        by that key and its keys need not be worked out. Labels whose reading rewrites their middle
        (templates, parameter and receiver lists, py-spy's ``file:line - func``) are read whatever the key.
        """
        if "_index" in self.__dict__:
            return self._index.get(key, {})
        pieces = [piece for piece in _PIECES.split(key) if piece]
        if not pieces or len(self._asked) >= MAX_KEYS_ALONE:
            return self._index.get(key, {})
        if key not in self._asked:
            longest = max(pieces, key=len)
            folded = self.folded
            found: dict[int, tuple[float, str]] = {}
            rewritten = self._rewritten
            for fid in sorted({*(i for i, f in enumerate(folded) if longest in f), *rewritten}):
                if self._present(fid) and (fid in rewritten or all(piece in folded[fid] for piece in pieces)):
                    hit = self._keys_of(fid).get(key)
                    if hit is not None:
                        found[fid] = hit
            self._asked[key] = found
        return self._asked[key]

    @cached_property
    def folded(self) -> list[str]:
        """The labels case-folded, by function id."""
        return [name.casefold() for name in self.names]

    @cached_property
    def _rewritten(self) -> frozenset[int]:
        """Labels whose components are not all pieces of the label itself (see :meth:`_hits`)."""
        return frozenset(i for i, name in enumerate(self.names) if any(c in name for c in _REWRITES))

    @cached_property
    def _asked(self) -> dict[str, dict[int, tuple[float, str]]]:
        return {}

    def _keys_of(self, fid: int) -> dict[str, tuple[float, str]]:
        made = self._some_keys.get(fid)
        if made is None:
            made = self._some_keys[fid] = self._keys(fid, self.names[fid])
        return made

    @cached_property
    def _some_keys(self) -> dict[int, dict[str, tuple[float, str]]]:
        return {}

    def resolve(self, text: str, limit: int = 5) -> Resolution:
        """The functions ``text`` names, best first: the full label, file and line, or a trailing run of
        its parts (``NioEventLoop.run``, ``execute_model``, ``(*Conn).Read``)."""
        written = text[:MAX_READ].strip().strip("`'\"")
        if not written:
            return Resolution(text, ())
        found: dict[int, tuple[float, str]] = {}
        keys = [written.casefold()]
        located = _LOCATED.search(written)
        if located:
            keys.append(f"{located.group(1)}:{located.group(2)}".casefold())
            pathed = _PATHED.search(written)  # "build/index.js:20": the file with its folders
            if pathed:
                keys.append(f"{pathed.group(1).removeprefix('./')}:{pathed.group(2)}".casefold())
        parts = components(written, decoded=False)
        if parts:
            keys.append(_key(parts))
        for key in keys:
            for fid, hit in self._hits(key).items():
                if hit[0] > found.get(fid, (0.0, ""))[0]:
                    found[fid] = hit
        if not found and written.endswith(("...", "…")):  # a long label shown cut short
            stem = written.rstrip(".…").casefold()
            if len(stem) >= 5:
                for fid, name in enumerate(self.names):
                    if self._present(fid) and name.casefold().startswith(stem):
                        found[fid] = (WHOLE - 10, "prefix")
        return self._ranked(text, found, limit)

    def describe(self, words: Sequence[str], limit: int = 5) -> Resolution:
        """Functions a loose description names, scored on whole words (1) and word parts (0.6) of their
        labels; a word matching the member counts more than one matching the package. Words must be
        content words (the caller drops the question's own vocabulary)."""
        wanted = [w.casefold() for w in words if len(w) >= 3]
        if not wanted:
            return Resolution(" ".join(words), ())
        per_word: dict[int, dict[str, float]] = {}
        for part, holders in self._parts.items():
            for w in wanted:
                weight = _part_match(w, part)
                if not weight:
                    continue
                for fid, in_member in holders:
                    score = weight * (1.25 if in_member else 1.0)
                    mine = per_word.setdefault(fid, {})
                    mine[w] = mine.get(w, 0.0) + score  # a word in the class and the member counts twice
        totals = {fid: (sum(min(v, 2.0) for v in scores.values()), "words") for fid, scores in per_word.items()}
        return self._ranked(" ".join(words), totals, limit)

    @cached_property
    def _parts(self) -> dict[str, list[tuple[int, bool]]]:
        """word part -> [(function id, whether it is in the member's name)]."""
        out: dict[str, list[tuple[int, bool]]] = {}
        for fid, name in enumerate(self.names):
            if not self._present(fid):
                continue
            parts = components(name)
            member = set(word_parts(parts[-1])) if parts else set()
            seen: set[str] = set()
            for comp in parts:
                for w in word_parts(comp):
                    if len(w) >= 3 and w not in seen:
                        seen.add(w)
                        out.setdefault(w, []).append((fid, w in member))
        return out

    def _ranked(self, text: str, found: dict[int, tuple[float, str]], limit: int) -> Resolution:
        # equals go to the heavier; of equally heavy ones, to the later name: names are interned root
        # first, so that is the deeper frame, the one doing the work its wrappers pass on
        order = sorted(found.items(), key=lambda kv: (-kv[1][0], -self._weight(kv[0]), -kv[0]))
        return Resolution(
            text, tuple(Candidate(fid, self.names[fid], score, how) for fid, (score, how) in order[:limit])
        )


def _part_match(word: str, part: str) -> float:
    """1 for the same word (or its plural), 0.6 for a shared stem of five letters or more (decode/decoder)."""
    if word == part or word.rstrip("s") == part.rstrip("s"):
        return 1.0
    n = 0
    for a, b in zip(word, part, strict=False):
        if a != b:
            break
        n += 1
    return 0.6 if n >= 5 or (n >= 4 and n >= min(len(word), len(part)) - 1) else 0.0
