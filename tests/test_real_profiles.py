"""Every real profile in ../shared/profiles/real against Google pprof's own answers.

The golden files under tests/golden/pprof were recorded once with `go tool pprof -top`
(tests/golden/record_pprof.py); these tests never need Go. The profiles themselves are others'
data and are read in place, never copied.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from conftest import REAL
from explainer.cli.main import main

GOLDEN = Path(__file__).resolve().parent / "golden" / "pprof"
CASES = sorted(GOLDEN.rglob("*.json"))


def _run(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("golden", CASES, ids=[str(p.relative_to(GOLDEN)) for p in CASES])
def test_top_lists_match_pprof(golden: Path) -> None:
    want = json.loads(golden.read_text())
    path = REAL / want["file"]
    if not path.exists():
        pytest.skip(f"{path} not found (set EXPLAINER_REAL_PROFILES)")
    args = ["analyze", str(path), "--format", "json", "--sample-type", str(want["sample_index"])]
    code, out, err = _run(args)
    if "error" in want:
        assert code == 2 and "id 0 is reserved" in err and out == ""
        return
    assert code == 0, err
    got = json.loads(out)
    assert got["total"] == want["total"]
    assert got["unit"] == want["unit"]
    assert got["functions"] == want["functions"]
    for key in ("top_self", "top_total"):
        expected = [(r["name"], r["self"], r["total"]) for r in want[key]]
        actual = [(r["name"], r["self"], r["total"]) for r in got[key]]
        assert actual == expected, key


def test_default_sample_type_is_pprofs(real_dir: Path) -> None:
    for golden in CASES:
        want = json.loads(golden.read_text())
        if not want.get("default") or "error" in want:
            continue
        code, out, _ = _run(["analyze", str(real_dir / want["file"]), "--format", "json"])
        assert code == 0
        assert json.loads(out)["sample_type"] == want["sample_type"], want["file"]


NON_PPROF = sorted(p for p in REAL.rglob("*") if p.suffix in (".json", ".txt")) if REAL.is_dir() else []


@pytest.mark.parametrize("path", NON_PPROF, ids=[p.name for p in NON_PPROF])
def test_every_other_real_file_reads_with_exact_sums(path: Path) -> None:
    """Flame-graph JSON and folded files: readable, sum(self) == total, coverage stated."""
    code, out, err = _run(["analyze", str(path), "--format", "json"])
    assert code == 0, err
    got = json.loads(out)
    assert got["total"] > 0 and got["top_self"]
    assert got["coverage"]["top_self"]["of"] == got["functions"]


# Hand-checked against the files' text (folded) and the worked decoding rules (flame graphs).
HAND_CHECKED = {
    "speedscope_mit/simple.txt": (14, ("b", 5, 14)),
    "speedscope_mit/simple-utf16-le.txt": (14, ("b", 5, 14)),
    "speedscope_mit/simple-crlf.txt": (14, ("b", 5, 14)),
    "speedscope_mit/recursion.txt": (10, ("b", 5, 9)),  # b recurses: its total counts each stack once
    "pyroscope-og_apache-2.0/go-pprof-string.folded.txt": (47, ("runtime.kevent", 25, 25)),
    "pyroscope_agpl-3.0/flamegraph-v2.json": (11100000000, ("runtime.kevent", 2970000000, 2970000000)),
}


@pytest.mark.parametrize("name", sorted(HAND_CHECKED))
def test_hand_checked_values(name: str, real_dir: Path) -> None:
    total, first = HAND_CHECKED[name]
    code, out, err = _run(["analyze", str(real_dir / name), "--format", "json"])
    assert code == 0, err
    got = json.loads(out)
    row = got["top_self"][0]
    assert got["total"] == total and (row["name"], row["self"], row["total"]) == first
