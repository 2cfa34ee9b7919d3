"""The frame patterns are compiled only where a name can match (explainer/knowledge/patterns.py),
and every name is classified exactly as the one alternation of all of them classified it.

GIVEN every name of the real profiles, the fixtures, the demos and the bench generator's profile
WHEN each of its normalised forms is matched THEN the first pattern found is the one the single
alternation (the previous implementation, rebuilt here) finds; a small profile compiles few groups.
"""

from __future__ import annotations

import importlib
import os
import re
from functools import cache
from pathlib import Path

import pytest

from conftest import REAL, REPO, generated_profile
from explainer.errors import ExplainerError
from explainer.knowledge.patterns import PatternIndex, literal_affixes, pieces
from explainer.readers import read_path

kb = importlib.import_module("explainer.knowledge.classify")  # the package exports a function of that name
BODIES = [e.pattern[1:] for e in kb._table().regexes]


def one_alternation(bodies: list[str]) -> re.Pattern[str]:
    """How the patterns were matched before: one alternation, group ``_K`` for pattern K."""
    return re.compile("^(?:" + "|".join(f"(?P<_{k}>{b})" for k, b in enumerate(bodies)) + ")")


def first_of(pattern: re.Pattern[str], form: str) -> int | None:
    m = pattern.match(form)
    return int(m.lastgroup[1:]) if m is not None and m.lastgroup else None


@cache
def corpus() -> dict[str, tuple[str, ...]]:
    """Every name of every profile at hand, by where it comes from."""
    from explainer.demo import demo_cpu_profile, demo_profile

    out = {"demo": demo_profile().names, "demo-cpu": demo_cpu_profile().names}
    paths = [*sorted(REAL.rglob("*")), *sorted((REPO / "fixtures").glob("*.pb.gz"))]
    big = os.environ.get("EXPLAINER_BIG_PROFILE") or REPO / ".pytest_cache" / "gen" / "gpu-500000-seed1.pb.gz"
    paths += [Path(big), generated_profile(3_000, seed=2)]  # the generator's names (the 500k one when made)
    for path in paths:
        if not path.is_file() or path.suffix == ".md":
            continue
        try:
            out[str(path)] = read_path(path).names
        except ExplainerError:  # the corpus holds deliberately broken inputs too
            continue
    return out


def probes() -> list[str]:
    """Names shaped like each pattern, and near misses: a character more or less at either end,
    another case, a final newline (``$`` matches before it)."""
    out = ["", "_", "$", "\n", "a\n", "GPUModelRunner.load_model", "nccl_allreduce", "c10d::ProcessGroupNCCL::x"]
    for body in BODIES:
        for piece in pieces(body):
            probe = re.sub(r"\\[wd][*+]?", "X", piece).replace("\\", "").strip("$")
            probe = re.sub(r"\[[^]]*\]|[()|?*+]", "", probe)
            out += [probe, probe + "\n", "x" + probe, probe + "x", probe[1:], probe[:-1], probe.swapcase()]
    return out


def test_every_name_finds_the_pattern_the_one_alternation_found() -> None:
    reference = one_alternation(BODIES)
    names = [name for names in corpus().values() for name in names]
    forms = [f for name in names for f in kb.candidates(name) if len(f) <= kb.FORM_LIMIT] + probes()
    index = PatternIndex(BODIES)
    differ = [(f, first_of(reference, f), index.first(f)) for f in forms if first_of(reference, f) != index.first(f)]
    assert differ == []
    assert sum(first_of(reference, f) is not None for f in forms) > 300  # names the patterns know are among them


def test_the_real_profiles_are_in_the_corpus(real_dir: Path) -> None:
    assert sum(1 for label in corpus() if label.startswith(str(real_dir))) >= 20


def test_a_small_profile_compiles_only_the_groups_its_names_can_be_in() -> None:
    from explainer.demo import demo_profile

    index = PatternIndex(BODIES)
    for name in demo_profile().names:
        for form in kb.candidates(name):
            index.first(form)
    compiled = sum(len(p.pattern) for p in index._compiled.values())
    assert 0 < compiled < len(one_alternation(BODIES).pattern) / 2
    index.compile_all()  # every curated pattern is a valid one
    assert sum(len(p.pattern) for p in index._compiled.values()) > compiled


@pytest.mark.parametrize(
    "pattern",
    [
        r"(take_gil|drop_gil|PyEval_\w+)$",
        r"(?:a|b)(c|d)\.(e|f)$",
        r"(a|b)+c$",  # a repeated group stays whole
        r"x(a|b)?$",
        r"(?i:ab)c$",  # flags: the literals match other cases, nothing is read
        r"(?P<n>a)b\w*$",
        r"\x41bc$",
        r"[]a]x$",
        r"[^]a]bc$",
        r"ab{2}c$",
        r"a{b}c$",
        r"\.\[k\]$",
        r"\w+_\[k\]$",
        r"ab*cd|e$",
        r"(?=ab)abc$",
        r"(|a)bc$",
        r"a\$",
        r"a\\$",
        r"G1 (Conc|Main Marker)\S*$",
    ],
)
def test_pieces_match_what_their_pattern_matches(pattern: str) -> None:
    index = PatternIndex([pattern])
    index.compile_all()
    whole = re.compile(f"^(?:{pattern})")
    strings = ["", "a", "b", "c", "ab", "abc", "ABC", "aab", "bc", "ac", "aac", "abbc", "a{b}c", "ax", "]x", "bx"]
    strings += ["take_gil", "PyEval_X", "drop_gil\n", "ace", "bdf", "a.e", "bd.f", "x", "xa", "xb", "aa", "abcd"]
    strings += ["e", "ab*cd", "abbbcd", "_[k]", "foo_[k]", ".[k]", "a$", "a\\", "Abc", "G1 Conc", "G1 Main Markerx"]
    for s in strings:
        assert (index.first(s) == 0) == bool(whole.match(s)), (pattern, s)


def test_affixes_are_read_only_where_the_syntax_fixes_them() -> None:
    assert literal_affixes("take_gil$") == ("take_gil", "take_gil")
    assert literal_affixes(r"\w*Worker\w*\.load_model$") == ("", ".load_model")
    assert literal_affixes(r"GPUModelRunner\.(a|b)$") == ("GPUModelRunner.", "")
    assert literal_affixes("ab?c$") == ("a", "c")  # the optional b ends the prefix
    assert literal_affixes("(?i:ab)c$") == ("", "")
    assert literal_affixes("a|b$") == ("", "")
    assert literal_affixes(r"\.\[k\]$") == (".[k]", ".[k]")
