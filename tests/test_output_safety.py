"""Files written safely: ``-o`` never replaces an input of the same command, and the write is atomic.

GIVEN ``explainer handoff IN -o OUT`` WHEN OUT is IN (or the baseline, or a secret file) by path,
symlink or hard link, THEN exit 2 with one line and IN unchanged; WHEN the write fails half-way,
THEN the previous file is unchanged and no temporary file is left behind.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from explainer.cli.main import main
from explainer.demo import demo_profile
from explainer.errors import OutputError
from explainer.writers import to_pprof, write_atomic


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), out, err), out.getvalue(), err.getvalue()


@pytest.fixture
def profile_file(tmp_path: Path) -> Path:
    path = tmp_path / "in.pb.gz"
    path.write_bytes(to_pprof(demo_profile()))
    return path


def _alias(kind: str, target: Path) -> str:
    """Another name for ``target``."""
    if kind == "same path":
        return str(target)
    if kind == "dotted path":
        (target.parent / "sub").mkdir(exist_ok=True)
        return str(target.parent / "sub" / ".." / target.name)
    link = target.parent / f"{kind.replace(' ', '_')}.md"
    if kind == "symlink":
        link.symlink_to(target)
    else:
        os.link(target, link)
    return str(link)


@pytest.mark.parametrize("kind", ["same path", "dotted path", "symlink", "hard link"])
@pytest.mark.parametrize("role", ["source", "baseline"])
def test_output_over_an_input_is_refused(kind: str, role: str, profile_file: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.pb.gz"
    other.write_bytes(profile_file.read_bytes())
    victim = profile_file if role == "source" else other
    before = victim.read_bytes()
    code, out, err = _cli(
        "handoff", str(profile_file), "--baseline", str(other), "-o", _alias(kind, victim), "--llm", "offline"
    )
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "is also an input of this command" in err
    assert victim.read_bytes() == before


def test_output_over_a_secret_file_is_refused(profile_file: Path, tmp_path: Path) -> None:
    secret = tmp_path / "token"
    secret.write_text("s3cret-token-value\n")
    code, _out, err = _cli(
        "handoff", "--server", "http://127.0.0.1:9", "--token-file", str(secret), "-o", str(secret), "--llm", "offline"
    )
    assert code == 2 and "is also an input" in err and "s3cret" not in err
    assert secret.read_text() == "s3cret-token-value\n"


def test_a_new_output_file_is_written(profile_file: Path, tmp_path: Path) -> None:
    target = tmp_path / "report.md"
    code, _out, err = _cli("handoff", str(profile_file), "-o", str(target), "--llm", "offline")
    assert code == 0 and err == "" and target.read_text().startswith("# On-call handoff")


def test_a_failed_write_leaves_the_previous_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "report.md"
    target.write_text("previous report\n")
    target.chmod(0o600)

    def disk_full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OutputError, match="No space left on device"):
        write_atomic(target, "new report " * 1000)
    assert target.read_text() == "previous report\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.md"]
    monkeypatch.undo()
    write_atomic(target, "new report\n")
    assert target.read_text() == "new report\n" and (target.stat().st_mode & 0o777) == 0o600
