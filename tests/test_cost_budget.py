"""The cost budget and the work gate (issue 26, item 5).

GIVEN a small file that asks for a great deal of work (a million sample types, a million names,
sample types x samples past the bound, frames past the bound) THEN it is refused with one line
naming the bound and the variable that raises it, and raising the variable lets it through.
GIVEN the MCP server's or the app's work gate WHEN a call runs past its time or every slot is
taken THEN the caller gets one line at once. The defaults let the real corpus and the demo through.
"""

from __future__ import annotations

import io
import sys
import threading
import time
from pathlib import Path

import pytest

from explainer.cli.main import main
from explainer.demo import demo_profile
from explainer.errors import ExplainerError
from explainer.readers import ReadOptions, read_bytes
from explainer.readers.cost import BOUNDS, CostBudget, CostLimitError
from explainer.work_gate import BusyError, WorkGate
from explainer.writers import to_pprof

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from amplify import folded_names, pprof


def _read(data: bytes, **bounds: int) -> object:
    return read_bytes(data, ReadOptions(cost=CostBudget(**bounds)))


@pytest.mark.parametrize(
    ("data", "bound", "env"),
    [
        (lambda: pprof(1_000, 1), {"max_sample_types": 256}, "EXPLAINER_MAX_SAMPLE_TYPES"),
        (lambda: pprof(100, 1_000), {"max_values": 50_000}, "EXPLAINER_MAX_VALUES"),
        (lambda: pprof(1, 1, functions=2_000), {"max_names": 1_000}, "EXPLAINER_MAX_NAMES"),
        (lambda: folded_names(20_000), {"max_names": 5_000}, "EXPLAINER_MAX_NAMES"),
        (lambda: pprof(1, 100, depth=200), {"max_frames": 10_000}, "EXPLAINER_MAX_FRAMES"),
        (lambda: b"a;b;c;d 1\n" * 3 + b"x;y 2\n", {"max_frames": 5}, "EXPLAINER_MAX_FRAMES"),
    ],
)
def test_each_bound_refuses_with_one_line_naming_its_variable(data, bound, env) -> None:  # type: ignore[no-untyped-def]
    raw = data()
    with pytest.raises(CostLimitError) as info:
        _read(raw, **bound)
    message = str(info.value)
    assert "\n" not in message and env in message and "over the bound of" in message
    (attr,) = bound
    _read(raw, **{attr: 10**9})  # raised: it reads


def test_the_cli_says_how_to_raise_a_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "types.pb.gz"
    path.write_bytes(pprof(1_000, 1))
    out, err = io.StringIO(), io.StringIO()
    assert main(["analyze", str(path)], out, err) == 2
    assert err.getvalue().count("\n") == 1 and "EXPLAINER_MAX_SAMPLE_TYPES=" in err.getvalue()
    monkeypatch.setenv("EXPLAINER_MAX_SAMPLE_TYPES", "2000")
    assert main(["analyze", str(path)], io.StringIO(), io.StringIO()) == 0
    monkeypatch.setenv("EXPLAINER_MAX_SAMPLE_TYPES", "0")
    err = io.StringIO()
    assert main(["analyze", str(path)], io.StringIO(), err) == 2 and "at least 1" in err.getvalue()


def test_a_million_sample_types_is_refused_before_it_is_built() -> None:
    raw = pprof(1_000_000, 1)
    assert len(raw) < 200_000  # a small file
    with pytest.raises(CostLimitError, match="1,000,000 sample types"):
        read_bytes(raw)


def test_the_defaults_let_the_demo_and_the_real_corpus_through() -> None:
    budget = CostBudget()
    assert [getattr(budget, b.attr) for b in BOUNDS] == [b.default for b in BOUNDS]
    read_bytes(to_pprof(demo_profile()))
    real = Path(__file__).resolve().parents[2] / "shared" / "profiles" / "real"
    files = [p for p in real.rglob("*") if p.is_file() and p.name != "MANIFEST.md"] if real.is_dir() else []
    for path in files:
        try:
            read_bytes(path.read_bytes())
        except CostLimitError as exc:  # other errors are the corpus's own (tests/test_real_profiles.py)
            pytest.fail(f"{path.name}: {exc}")
        except ExplainerError:
            pass


def test_the_gate_answers_in_time_and_bounds_the_work_in_flight() -> None:
    gate = WorkGate("the MCP server", timeout=1, slots=2)
    assert gate.run(lambda: 42) == 42
    release = threading.Event()
    start = time.monotonic()
    with pytest.raises(BusyError, match=r"longer than 1 s.*EXPLAINER_REQUEST_TIMEOUT"):
        gate.run(lambda: release.wait(30))
    assert time.monotonic() - start < 1 + 1  # deadline + 1 s
    with pytest.raises(BusyError):
        gate.run(lambda: release.wait(30))  # the second slot, also given up
    with pytest.raises(BusyError, match=r"already working on 2 requests.*EXPLAINER_MAX_IN_FLIGHT"):
        gate.run(lambda: 1)  # both slots still busy: refused at once
    release.set()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            assert gate.run(lambda: 7) == 7
            break
        except BusyError:
            time.sleep(0.05)
    else:
        pytest.fail("the slots were never released")
    with pytest.raises(ValueError, match="boom"):
        gate.run(lambda: (_ for _ in ()).throw(ValueError("boom")))


def test_the_gate_reads_its_bounds_from_the_environment() -> None:
    gate = WorkGate.from_env("x", {"EXPLAINER_REQUEST_TIMEOUT": "5", "EXPLAINER_MAX_IN_FLIGHT": "3"})
    assert (gate.timeout, gate.slots) == (5.0, 3)
    with pytest.raises(BusyError, match="EXPLAINER_MAX_IN_FLIGHT"):
        WorkGate.from_env("x", {"EXPLAINER_MAX_IN_FLIGHT": "0"})
