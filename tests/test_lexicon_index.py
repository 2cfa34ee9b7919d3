"""The question lexicon's prebuilt index: built from the TOML, in step with it, shipped with it.

GIVEN ``lexicon.toml`` (the one source of truth) THEN the committed ``lexicon.index.json`` is exactly what
``tools/lexicon_index.py`` makes of it today, the lexicon loaded from it equals the one built from the TOML,
an index that no longer matches the TOML is ignored (the TOML is read instead), and the package ships both.
"""

from __future__ import annotations

import json
import tomllib
from fnmatch import fnmatch

import pytest

from conftest import REPO
from explainer.explain.question import lexicon as lex_module
from explainer.explain.question.lexicon import INDEX, SOURCE, PhraseIndex, build, lexicon
from explainer.explain.question.lexicon_build import index

HERE = REPO / "explainer" / "explain" / "question"


def test_the_index_is_what_the_tool_makes_of_the_toml_today() -> None:
    committed = (HERE / INDEX).read_text(encoding="ascii")
    assert committed == index((HERE / SOURCE).read_bytes()), "stale lexicon index: run `make lexicon`"


def test_the_lexicon_from_the_index_equals_the_one_built_from_the_toml() -> None:
    built = build((HERE / SOURCE).read_bytes())
    loaded = lex_module.from_index(json.loads((HERE / INDEX).read_bytes()))
    assert loaded == built
    assert lexicon() == built  # what the program uses
    assert isinstance(lexicon().by_first, PhraseIndex)  # and it came from the index, not from the TOML
    assert len(built.by_first) > 500 and built.prefixed and built.separable and built.keep  # every part is there


def test_building_twice_gives_the_same_bytes() -> None:
    source = (HERE / SOURCE).read_bytes()
    assert index(source) == index(source)


def test_an_index_that_does_not_match_the_toml_is_never_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """An edited TOML whose index was not rebuilt: its new phrase is read at once, from the TOML."""
    edited = (HERE / SOURCE).read_bytes().replace(b'gpu = ["gpu", ', b'gpu = ["gpu", "grafikkarte", ', 1)
    assert edited != (HERE / SOURCE).read_bytes()
    real = lex_module._data
    monkeypatch.setattr(lex_module, "_data", lambda name: edited if name == SOURCE else real(name))
    fresh = lexicon.__wrapped__()
    assert fresh.concepts(["grafikkarte"]) == {"gpu": 0}
    assert lexicon().concepts(["grafikkarte"]) == {}  # the cached, real lexicon never knew it
    # an index of another layout is not read either
    monkeypatch.setattr(lex_module, "FORMAT", lex_module.FORMAT + 1)
    monkeypatch.setattr(lex_module, "_data", real)
    assert lexicon.__wrapped__() == lexicon()


def test_typos_are_still_mended_with_the_near_words_built_on_first_need() -> None:
    lex = lexicon()
    assert lex.spelled(["memroy", "meetse", "waht", "gpu"]) == ["memory", "meeste", "what", "gpu"]
    assert lex.spelled(["kernel_launch"]) == ["kernel_launch"]  # not a lexicon word: left alone


def test_the_package_ships_the_toml_and_its_index() -> None:
    globs = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    patterns = globs["package-data"]["explainer"]
    for name in (SOURCE, INDEX):
        assert any(fnmatch(f"explain/question/{name}", p) for p in patterns), name
