"""Diffs: the function that grew comes first, noise stays noise, units must match, and the CLI's
three ways in (two files, one Pyroscope diff JSON, a server) give the same answers."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SHARED, profile_of
from explainer.analysis.diff import NoiseFloor, diff_profiles
from explainer.cli.main import main
from explainer.errors import AnalysisError
from explainer.model import Profile, ProfileBuilder, SampleType
from explainer.readers import read_path
from explainer.report.diff import to_json, to_markdown, to_text
from explainer.writers import to_folded

BASE = {
    "main;serve;handle;render": 4000,
    "main;serve;handle;query;fetch": 2500,
    "main;serve;handle;query;decode": 1500,
    "main;serve;gc": 800,
    "main;init;load_config": 200,
}


def scaled(stacks: dict[str, int], leaf: str, factor: float) -> dict[str, int]:
    return {s: int(v * factor) if s.endswith(";" + leaf) else v for s, v in stacks.items()}


def test_function_that_grew_3x_is_named_first() -> None:
    # GIVEN a baseline and a new profile where `decode` allocates three times as much
    before, after = profile_of(BASE, "bytes"), profile_of(scaled(BASE, "decode", 3), "bytes")
    # WHEN they are compared
    diff = diff_profiles(before, after)
    # THEN decode leads by self, although its callers' totals grew by exactly as much
    first = diff.ranked("self")[0]
    assert (first.name, first.self_before, first.self_after) == ("decode", 1500, 4500)
    assert first.relative() == pytest.approx(2.0)
    assert [c.name for c in diff.regressions()] == ["decode"]
    assert {c.name for c in diff.regressions("total")} == {"main", "serve", "handle", "query", "decode"}
    assert diff.chain is not None
    assert [s.name for s in diff.chain.steps] == ["main", "serve", "handle", "query", "decode"]
    assert diff.chain_side == "after"
    assert to_json(diff)["changes"][0]["name"] == "decode"
    assert to_text(diff).split("Changes by self")[1].splitlines()[2].endswith("decode")
    assert "| `decode` | 1.5 kB | 4.5 kB | +3.0 kB | +200% |" in to_markdown(diff)


def test_generated_gpu_profile_grown_3x_with_jitter_elsewhere(generator: Path, tmp_path: Path) -> None:
    # GIVEN a generated vLLM-like profile, and a copy where one mid-sized allocation site grew 3x
    # while every other stack moved by up to 0.5% (sampling jitter)
    out = tmp_path / "gen.pb.gz"
    subprocess.run(
        [sys.executable, str(generator), "--stacks", "400", "--depth", "40", "--seed", "7", "-o", str(out)],
        check=True,
        capture_output=True,
    )
    before = read_path(out)
    by_self = diff_profiles(before, before).changes  # every function, for picking a target
    leaves = sorted((c for c in by_self if c.self_before > 0), key=lambda c: -c.self_before)
    target = leaves[4].name  # not the biggest: the change, not the size, must put it first
    rng = random.Random(1)
    builder = ProfileBuilder(before.sample_type)
    for stack, value in before.stacks():
        builder.add(stack, value * 3 if stack[-1] == target else int(value * (1 + rng.uniform(-0.005, 0.005))))
    after = builder.build()
    # WHEN compared
    diff = diff_profiles(before, after)
    # THEN the target is first, and the only regression: the jitter stays under the noise floor
    assert diff.ranked()[0].name == target
    assert [c.name for c in diff.regressions()] == [target]
    assert diff.improvements() == ()
    assert diff.noise_count() > 10


def test_change_under_the_noise_floor_is_not_a_regression() -> None:
    # GIVEN `render` up 3% (under 5% relative) and `load_config` up 40% but by under 1% of the total
    stacks = dict(BASE)
    stacks["main;serve;handle;render"] = 4120
    stacks["main;init;load_config"] = 280
    diff = diff_profiles(profile_of(BASE, "bytes"), profile_of(stacks, "bytes"))
    # THEN nothing is reported as a regression, and the report says they moved within the floor
    assert diff.regressions() == () and diff.regressions("total") == ()
    assert diff.noise_count() == 2
    assert diff.biggest is None and diff.chain is None
    assert "No significant change by self (2 function(s) moved within the floor)" in to_text(diff)
    # AND a zero floor reports both
    strict = diff_profiles(profile_of(BASE, "bytes"), profile_of(stacks, "bytes"), NoiseFloor(0, 0))
    assert [c.name for c in strict.regressions()] == ["render", "load_config"]


def test_new_vanished_shares_and_symmetry() -> None:
    before = profile_of({"a;x": 600, "a;y": 400}, "bytes")
    after = profile_of({"a;x": 600, "a;z": 1400}, "bytes")
    diff = diff_profiles(before, after)
    z, y = diff.with_presence("new")[0], diff.with_presence("vanished")[0]
    assert (z.name, z.presence, z.relative()) == ("z", "new", None)
    assert (y.name, y.self_after, y.relative()) == ("y", 0, -1.0)
    x = next(c for c in diff.changes if c.name == "x")
    assert x.delta() == 0 and diff.share_delta_pp(x) == pytest.approx(100 * (600 / 2000 - 600 / 1000))
    # the chain of a function that vanished is read in the baseline
    gone = diff_profiles(after, before)
    assert gone.biggest is not None and gone.biggest.name == "z"
    assert gone.chain_side == "before" and gone.chain is not None
    # swapping sides negates every change
    back = {c.name: c for c in gone.changes}
    assert all(
        back[c.name].delta() == -c.delta() and back[c.name].delta("total") == -c.delta("total") for c in diff.changes
    )


def test_identical_profiles_have_no_change() -> None:
    p = profile_of(BASE, "bytes")
    diff = diff_profiles(p, p)
    assert diff.ranked(significant=False) == () and diff.noise_count() == 0


def test_different_units_are_refused() -> None:
    with pytest.raises(AnalysisError, match="different units"):
        diff_profiles(profile_of(BASE, "bytes"), profile_of(BASE, "nanoseconds"))


@pytest.mark.parametrize("floor", [(-0.1, 0.05), (0.01, float("nan"))])
def test_invalid_noise_floor(floor: tuple[float, float]) -> None:
    with pytest.raises(AnalysisError):
        NoiseFloor(*floor)


def test_sample_type_mismatch_in_same_unit_is_a_note() -> None:
    a = ProfileBuilder(SampleType("alloc_space", "bytes"))
    b = ProfileBuilder(SampleType("inuse_space", "bytes"))
    for builder in (a, b):
        builder.add(["main", "f"], 10)
    diff = diff_profiles(a.build(), b.build())
    assert any("sample types differ" in n for n in diff.notes)


# --- CLI -------------------------------------------------------------------------------------


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def write_folded(path: Path, profile: Profile) -> str:
    path.write_text(to_folded(profile))
    return str(path)


def test_cli_two_files_all_formats(tmp_path: Path) -> None:
    base = write_folded(tmp_path / "base.folded", profile_of(BASE))
    new = write_folded(tmp_path / "new.folded", profile_of(scaled(BASE, "decode", 3)))
    code, text, err = run_cli("diff", base, new, "--unit", "bytes")
    assert code == 0 and err == ""
    assert "+3.0 kB" in text and "decode" in text
    code, out, _ = run_cli("diff", base, new, "--unit", "bytes", "--format", "json", "--top", "1")
    doc = json.loads(out)
    assert doc["schema"] == 1 and doc["unit"] == "bytes" and len(doc["changes"]) == 1
    assert doc["changes"][0]["name"] == "decode" and doc["changes"][0]["self_delta"] == 3000
    assert doc["before"]["source"]["sha256"] and doc["noise_floor"]["min_share"] == 0.01
    code, md, _ = run_cli("diff", base, new, "--format", "markdown")
    assert code == 0 and md.startswith("# Profile diff:")


def test_cli_noise_floor_flags(tmp_path: Path) -> None:
    stacks = dict(BASE)
    stacks["main;serve;handle;render"] = 4120  # +3%
    base = write_folded(tmp_path / "a.folded", profile_of(BASE))
    new = write_folded(tmp_path / "b.folded", profile_of(stacks))
    _, out, _ = run_cli("diff", base, new, "--format", "json")
    assert json.loads(out)["changes"] == []
    _, out, _ = run_cli("diff", base, new, "--format", "json", "--noise-floor", "0.5%", "--noise-relative", "2")
    assert [c["name"] for c in json.loads(out)["changes"]] == ["render"]
    with pytest.raises(SystemExit):
        run_cli("diff", base, new, "--noise-floor", "lots")


def test_cli_refuses_mixed_units_with_one_line(tmp_path: Path) -> None:
    # folded input says nothing of units: --unit applies to both files, so mix a pprof in
    from explainer.writers import to_pprof

    base = str(tmp_path / "a.pb.gz")
    Path(base).write_bytes(to_pprof(profile_of(BASE, "nanoseconds", "cpu")))
    new = write_folded(tmp_path / "b.folded", profile_of(BASE))
    code, out, err = run_cli("diff", base, new, "--unit", "bytes")
    assert code == 2 and out == ""
    assert err.startswith("explainer: error: cannot compare profiles in different units") and err.count("\n") == 1


def diff_flamebearer() -> dict[str, object]:
    """A 'double' flame graph: total -> main -> {a, b}; left a=2 b=8, right a=6 b=8."""
    names = ["total", "main", "a", "b"]
    levels = [
        [0, 10, 0, 0, 14, 0, 0],
        [0, 10, 0, 0, 14, 0, 1],
        [0, 2, 2, 0, 6, 6, 2, 0, 8, 8, 0, 8, 8, 3],
    ]
    return {
        "version": 1,
        "flamebearer": {"names": names, "levels": levels, "numTicks": 24, "maxSelf": 8},
        "metadata": {"format": "double", "units": "bytes", "name": "alloc_space"},
        "leftTicks": 10,
        "rightTicks": 14,
    }


def test_cli_single_pyroscope_diff_json(tmp_path: Path) -> None:
    path = tmp_path / "diff.json"
    path.write_text(json.dumps(diff_flamebearer()))
    code, out, err = run_cli("diff", str(path), "--format", "json", "--noise-floor", "0")
    assert code == 0, err
    doc = json.loads(out)
    assert (doc["before"]["total"], doc["after"]["total"]) == (10, 14)
    assert doc["changes"][0]["name"] == "a" and doc["changes"][0]["self_delta"] == 4
    assert doc["before"]["source"]["location"].endswith("(baseline)")
    assert doc["before"]["source"]["sha256"] == doc["after"]["source"]["sha256"] != ""


def test_cli_single_file_that_is_not_a_diff(tmp_path: Path) -> None:
    code, _, err = run_cli("diff", write_folded(tmp_path / "a.folded", profile_of(BASE)))
    assert code == 2 and err.startswith("explainer: error:")


def test_real_pyroscope_diff_fixture() -> None:
    path = SHARED / "profiles" / "real" / "pyroscope-og_apache-2.0" / "simple-golang-app-cpu-diff.json"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    code, out, err = run_cli("diff", str(path), "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["before"]["total"] > 0 and doc["after"]["total"] > 0


def test_cli_two_server_selectors() -> None:
    from pyroscope_server import PyroscopeServer

    from explainer.demo import demo_profile

    with PyroscopeServer({"process_cpu:malloc:bytes::": demo_profile()}) as server:
        code, out, err = run_cli(
            "diff",
            "--server",
            server.url,
            "--from",
            "1787306400000",
            "--until",
            "1787310000000",
            "--selector",
            '{k8s_podName="b"}',
            "--baseline-selector",
            '{k8s_podName="a"}',
            "--format",
            "json",
        )
        assert code == 0, err
        selectors = [s.body["labelSelector"] for s in server.seen if "SelectMergeStacktraces" in s.path]
    assert selectors == ['{k8s_podName="a"}', '{k8s_podName="b"}']  # baseline first
    doc = json.loads(out)
    assert doc["before"]["source"]["kind"] == "pyroscope" and doc["changes"] == []


def test_cli_server_without_a_baseline_is_one_line_error() -> None:
    code, _, err = run_cli("diff", "--server", "http://127.0.0.1:9")
    assert code == 2 and "--baseline-from" in err
