"""What keeps ``ask``'s start-up light stays correct: patterns compiled on first use, the compound cut's
pre-check, and every lazy pattern valid before any question needs it.

Start-up time itself is measured in ``bench/paired.py`` (never here); ``tests/test_startup.py`` pins what
``ask`` imports.
"""

from __future__ import annotations

import importlib
import re
import tomllib
from collections.abc import Iterator

import pytest

from conftest import REPO
from explainer.explain.question import clauses as clauses_module
from explainer.explain.question.clauses import clauses, may_cut
from explainer.lazyre import LazyPattern, lazy


def _modules_with_lazy_patterns() -> Iterator[str]:
    for path in sorted((REPO / "explainer").rglob("*.py")):
        if "lazy(" in path.read_text("utf-8") and path.name != "lazyre.py":
            yield ".".join(path.relative_to(REPO).with_suffix("").parts)


def test_every_lazy_pattern_in_the_package_compiles() -> None:
    """A lazy pattern's mistake must not wait for the rare question that first uses it."""
    found = 0
    for name in _modules_with_lazy_patterns():
        module = importlib.import_module(name)
        for value in vars(module).values():
            if isinstance(value, LazyPattern):
                assert isinstance(value.compiled, re.Pattern), (name, value.pattern)
                found += 1
    assert found >= 30  # the reader's, the checks', safety's and the name resolver's


def test_a_lazy_pattern_answers_as_the_compiled_one() -> None:
    text = "Foo.bar() calls baz, and BAZ calls qux"
    for pattern, flags in ((r"\b(ba[rz])\b", re.I), (r"(\w+)\(\)", 0), (r",\s*", 0)):
        eager, late = re.compile(pattern, flags), lazy(pattern, flags)
        assert late.pattern == pattern and late.flags == flags
        assert repr(late.search(text)) == repr(eager.search(text))
        assert repr(late.match(text)) == repr(eager.match(text))
        assert repr(late.fullmatch("bar")) == repr(eager.fullmatch("bar"))
        assert [m.span() for m in late.finditer(text)] == [m.span() for m in eager.finditer(text)]
        assert late.findall(text) == eager.findall(text)
        assert late.split(text) == eager.split(text)
        assert late.sub("-", text) == eager.sub("-", text) and late.subn("-", text) == eager.subn("-", text)
        window, eager_window = late.search(text, 5, 20), eager.search(text, 5, 20)
        assert (window and window.span()) == (eager_window and eager_window.span())


def _corpus_texts() -> Iterator[str]:
    for path in sorted((REPO / "tests" / "corpus").glob("questions*.toml")):
        data = tomllib.loads(path.read_text("utf-8"))
        for q in data.get("question", []):
            yield q["text"]
        for conv in data.get("conversation", []):
            if "turn" in conv:
                yield from (turn["text"] for turn in conv["turn"])
            else:  # questions_more.toml: a first question and what follows it
                yield from (conv["first"], conv["then"])


EDGES = (
    "what uses the most memory? and why",
    "what uses the most memory?\u2003and why",  # a wide space after the question mark
    "what?\u00a0which",
    "What uses it AND what calls it",
    "hoeveel geheugen N wat kost het",
    "which function & what knob",
    "is it slow; what calls it",
    "a, b",
    "what uses the most memory?",
    "what uses the most memory ?",
    "Android or iOS",
    "and",
    "?\n",
    "",
)


@pytest.mark.parametrize("source", ["corpora", "edges"])
def test_the_pre_check_never_skips_a_cut_the_pattern_would_make(source: str) -> None:
    texts = list(_corpus_texts()) if source == "corpora" else list(EDGES)
    assert len(texts) > (1000 if source == "corpora" else 10)
    cut = clauses_module._CUT.compiled
    missed = [t for t in texts if not may_cut(t) and cut.search(t)]
    assert missed == []
    for text in texts:  # and the parts are the same as cutting without the pre-check
        parts = [p.strip(" ,;") for p in cut.split(text)]
        parts = [p for p in parts if len(p.split()) >= 2 or p.endswith("?")]
        assert clauses(text) == (parts if 2 <= len(parts) <= clauses_module.MAX_PARTS else [text])


def test_most_questions_need_no_cut_at_all() -> None:
    """The point of the pre-check: a one-part question never compiles the cut."""
    assert not may_cut("What uses the most GPU memory?")
    assert not may_cut("waarom is dit zo traag")
    assert may_cut("what should I optimise first, and with which vLLM setting?")
