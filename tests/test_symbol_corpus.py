"""Frame labels from every profiler decode to the right language, parts and reading.

GIVEN the labelled corpus tests/corpus/labels.toml (labels read from the real profiles in
../shared/profiles/real plus realistic written ones), WHEN each is decoded with its profile's
runtime, THEN language, kind and every part match the label, and no label gets a wrong language.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from explainer.readers import read_path
from explainer.symbols import LANGUAGES, decode, guess_runtime
from explainer.symbols.families import FAMILIES

REPO = Path(__file__).resolve().parent.parent
CORPUS = tomllib.loads((REPO / "tests" / "corpus" / "labels.toml").read_text(encoding="utf-8"))["label"]
PARTS = ("owner", "member", "package", "type", "file", "closure", "params")
# the seed's convention reads Foo.bar as a Python method when nothing says otherwise; in a Node
# profile (runtime "js") the same shape is a JavaScript method: the only labels the hint changes
SEED_CONVENTION = {"Readable.push", "Readable.removeListener"}


def _id(label: dict[str, Any]) -> str:
    return f"{label['name'][:60]}@{label['runtime'] or 'none'}"


def test_corpus_is_large_and_mostly_real() -> None:
    real = [lbl for lbl in CORPUS if lbl["source"] != "written"]
    assert len(CORPUS) >= 150 and len(real) >= 150
    assert len({lbl["source"] for lbl in real}) >= 20  # drawn from many profiles, not one
    assert {lbl["language"] for lbl in CORPUS} >= set(LANGUAGES)  # every language is exercised


@pytest.mark.parametrize("label", CORPUS, ids=_id)
def test_label_decodes_to_its_language_and_parts(label: dict[str, Any]) -> None:
    s = decode(label["name"], label["runtime"] or None)
    assert (s.language, s.kind, s.ambiguous) == (label["language"], label["kind"], label.get("ambiguous", False))
    assert {p: getattr(s, p) for p in PARTS} == {p: label.get(p, "") for p in PARTS}
    assert s.line == label.get("line", 0)
    assert s.meaning and s.raw == label["name"]
    if s.ambiguous:
        assert "does not say" in s.meaning  # an ambiguous label says so instead of guessing


def test_no_label_gets_a_wrong_language_without_the_runtime() -> None:
    wrong = []
    for label in CORPUS:
        s = decode(label["name"])
        if s.language not in (label["language"], "") and label["name"] not in SEED_CONVENTION:
            wrong.append((label["name"], label["language"], s.language))
    assert wrong == []


def test_runtime_guess_of_every_real_profile(real_dir: Path) -> None:
    expected = {lbl["source"]: lbl["runtime"] for lbl in CORPUS if lbl["source"] != "written"}
    guessed = {src: guess_runtime(read_path(real_dir / src).names) for src in expected}
    assert guessed == expected


@pytest.mark.parametrize(
    ("names", "runtime"),
    [
        (["java/lang/Thread.run", "com.example.function12"], "java"),
        (["work.py:3 - main", "a.b.c"], "python"),
        (["runtime.main", "main.main", "a.b.c"], "go"),
        (["(anonymous)", "node:events:emit:532", "emit"], "js"),
        (["work.py:3 - main", "java/lang/Thread.run"], ""),  # split votes: no runtime
        (["a.b.c", "emit"], ""),  # nothing decisive
    ],
)
def test_runtime_guess_settles_ambiguous_labels(names: list[str], runtime: str) -> None:
    assert guess_runtime(names) == runtime
    if runtime == "java":
        assert decode("com.example.function12", runtime).language == "java"
    if runtime == "python":
        assert decode("a.b.c", runtime).language == "python"
    assert decode("a.b.c").ambiguous and decode("com.example.function12").ambiguous


def test_guess_is_bounded_on_huge_profiles() -> None:
    names = [f"github.com/x/y.F{i}" for i in range(200_000)]
    assert guess_runtime(names) == "go"


def test_mangled_cpp_is_demangled_or_kept() -> None:
    s = decode("_ZNSt6vectorIiSaIiEE9push_backERKi")
    assert s.language == "cpp" and s.member in ("push_back", "_ZNSt6vectorIiSaIiEE9push_backERKi")
    assert decode("_Z" + "N3foo" * 5000 + "E").language == "cpp"  # too long to demangle: kept, no hang


def _functions() -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    out = []
    for path in sorted((REPO / "explainer" / "symbols").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                out.append((f"{path.name}:{node.name}", node))
    return out


def test_no_decoder_function_is_over_40_lines() -> None:
    long = {name: n.end_lineno - n.lineno + 1 for name, n in _functions() if (n.end_lineno or 0) - n.lineno >= 40}
    assert long == {}


def test_no_decoder_function_is_over_complexity_10() -> None:
    # ruff's mccabe check, configured for explainer/symbols/ in its ruff.toml
    proc = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--select", "C901", "explainer/symbols"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stdout


def test_the_family_table_names_every_decoder_module() -> None:
    modules = {f.decode.__module__.rsplit(".", 1)[-1] for f in FAMILIES}
    helpers = {"__init__", "model", "families", "decode", "runtime", "located", "paths", "demangle"}
    on_disk = {p.stem for p in (REPO / "explainer" / "symbols").glob("*.py")}
    assert on_disk - helpers == modules  # a decoder not in the table would never run


@pytest.mark.parametrize(
    "hostile",
    [
        "f.py:1 - " * 10_000,  # a located label inside a located label, many times over
        "a" * 100_000,
        "<" * 50_000 + "::x",
        "[" * 40_000 + "a.b",
        "x\u202e::y\x1b[2J" * 1000,
        "_Z" + "N3foo" * 20_000 + "E",
        "node:" + ":" * 10_000 + "1",
    ],
)
def test_hostile_labels_decode_to_clean_capped_symbols(hostile: str) -> None:
    for runtime in (None, "python", "go", "java", "js", "rust"):
        s = decode(hostile, runtime)
        assert s.language in (*LANGUAGES, "")
        assert len(s.display) <= 200 and len(s.meaning) <= 400 and len(s.owner) <= 120
        assert not any(ch in s.meaning + s.owner + s.member for ch in "\u202e\x1b\x00")


def test_the_unresolved_shortcut_agrees_with_the_full_decode(real_dir: Path) -> None:
    """`unresolved` reads only the first families: no later family may write an unresolved kind."""
    from explainer.symbols.decode import UNRESOLVED_KINDS, unresolved

    names = {str(label["name"]) for label in CORPUS}
    for path in sorted(p for p in real_dir.rglob("*") if p.is_file() and p.suffix not in (".md", ".txt")):
        try:
            names.update(read_path(path).names)
        except Exception:  # the corpus holds inputs the readers reject on purpose
            continue
    names.update(["0x7f151a2b", "[libcuda.so.1]", "libcudart.so.12+0x4a2f0", "<unknown>", "unknown", "  0xdeadbeef "])
    assert len(names) > 5_000
    disagree = [n for n in names if unresolved(n) != (decode(n).kind in UNRESOLVED_KINDS)]
    assert disagree == []
    assert sum(unresolved(n) for n in names) > 10
