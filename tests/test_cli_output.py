"""``--output FORMAT=FILE`` on analyze and diff: what a command read is kept, from a file or a server, and
explainer reads each written file back to the same stacks and totals."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from pyroscope_server import PyroscopeServer

from conftest import REAL, profile_of
from explainer.cli.main import main
from explainer.demo import demo_profile
from explainer.model import Profile
from explainer.readers import ReadOptions, read_path
from explainer.writers import to_pprof

FORMATS = ("pprof", "folded", "json")
GPU = "process_cpu:malloc:bytes::"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def stacks(profile: Profile) -> dict[tuple[str, ...], int]:
    out: dict[tuple[str, ...], int] = {}
    for stack, value in profile.stacks():
        out[stack] = out.get(stack, 0) + value
    return out


def assert_same(read_back: Profile, original: Profile, fmt: str) -> None:
    assert read_back.total == original.total
    assert stacks(read_back) == stacks(original)
    if fmt != "folded":  # folded text carries no unit
        assert read_back.sample_type == original.sample_type


def readable_real_profiles() -> list[Path]:
    if not REAL.is_dir():
        return []
    picks = ("google-pprof_apache-2.0/gobench.cpu.pb.gz", "pyroscope-og_apache-2.0/heap.pb.gz")
    return [REAL / p for p in picks if (REAL / p).is_file()]


@pytest.mark.parametrize("fmt", FORMATS)
def test_analyze_keeps_the_demo_in_every_format(fmt: str, tmp_path: Path) -> None:
    target = tmp_path / f"kept.{fmt}"
    code, out, err = run("analyze", "--demo", "--output", f"{fmt}={target}")
    assert code == 0, err
    assert "Top by self" in out  # the analysis is still printed
    assert_same(read_path(target), demo_profile(), fmt)


@pytest.mark.parametrize("path", readable_real_profiles(), ids=lambda p: p.name)
@pytest.mark.parametrize("fmt", FORMATS)
def test_a_real_profile_round_trips(path: Path, fmt: str, tmp_path: Path) -> None:
    original = read_path(path)
    target = tmp_path / f"kept.{fmt}"
    code, _, err = run("analyze", str(path), "--output", f"{fmt}={target}")
    assert code == 0, err
    assert_same(read_path(target), original, fmt)


def test_several_outputs_at_once(tmp_path: Path) -> None:
    code, _, err = run(
        "analyze", "--demo", *(arg for fmt in FORMATS for arg in ("--output", f"{fmt}={tmp_path / fmt}"))
    )
    assert code == 0, err
    for fmt in FORMATS:
        assert read_path(tmp_path / fmt).total == demo_profile().total


@pytest.fixture
def server(demo: Profile) -> Iterator[PyroscopeServer]:
    with PyroscopeServer({GPU: demo}) as srv:
        yield srv


def test_a_server_profile_can_be_kept(server: PyroscopeServer, tmp_path: Path, demo: Profile) -> None:
    target = tmp_path / "from-server.pb.gz"
    code, _, err = run("analyze", "--server", server.url, "--profile-type", GPU, "--output", f"pprof={target}")
    assert code == 0, err
    kept = read_path(target)
    assert kept.total == demo.total
    assert stacks(kept) == stacks(demo)


def test_diff_keeps_both_sides(tmp_path: Path) -> None:
    before = profile_of({"main;a": 10, "main;b": 5}, unit="bytes", sample_type="alloc")
    after = profile_of({"main;a": 20, "main;c": 7}, unit="bytes", sample_type="alloc")
    base, new = tmp_path / "base.pb.gz", tmp_path / "new.pb.gz"
    base.write_bytes(to_pprof(before))
    new.write_bytes(to_pprof(after))
    kept_new, kept_base = tmp_path / "new.folded", tmp_path / "base.json"
    code, _, err = run(
        "diff", str(base), str(new), "--output", f"folded={kept_new}", "--baseline-output", f"json={kept_base}"
    )
    assert code == 0, err
    assert stacks(read_path(kept_new, ReadOptions(unit="bytes"))) == stacks(after)
    assert_same(read_path(kept_base), before, "json")


def test_an_output_over_an_input_is_refused_and_the_input_kept(tmp_path: Path) -> None:
    source = tmp_path / "in.pb.gz"
    source.write_bytes(to_pprof(demo_profile()))
    before = source.read_bytes()
    code, out, err = run("analyze", str(source), "--output", f"folded={source}")
    assert code == 2 and out == ""
    assert "also an input" in err
    assert source.read_bytes() == before


@pytest.mark.parametrize("spec", ["pprof", "svg=x.svg", "json=", "=x"])
def test_a_bad_output_spec_is_a_one_line_usage_error(spec: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["analyze", "--demo", "--output", spec])
    assert exited.value.code == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "FORMAT=FILE" in err[0]
