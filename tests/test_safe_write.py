"""Writes replace regular files only (issue 26, item 2).

GIVEN a report written with ``-o``/``--json``/``--markdown`` WHEN the path is a symlink, a device,
a FIFO, a socket or a directory THEN it is refused with one line and left as it was; WHEN it is
the config file or the eval question set THEN it is refused before any work; a new file follows
the umask; a termination signal never leaves a temporary file.
"""

from __future__ import annotations

import io
import os
import signal
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from explainer.cli.main import main
from explainer.errors import OutputError
from explainer.safe_write import current_umask
from explainer.writers import to_pprof, write_atomic

ROOT = Path(__file__).resolve().parents[1]


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), out, err), out.getvalue(), err.getvalue()


def test_a_symlink_is_refused_and_neither_it_nor_its_target_changes(tmp_path: Path) -> None:
    target = tmp_path / "victim.txt"
    target.write_text("keep\n")
    link = tmp_path / "report.md"
    link.symlink_to(target)
    with pytest.raises(OutputError, match="is a symbolic link"):
        write_atomic(link, "new\n")
    assert link.is_symlink() and target.read_text() == "keep\n"
    dangling = tmp_path / "dangling.md"
    dangling.symlink_to(tmp_path / "nowhere")
    with pytest.raises(OutputError, match="symbolic link"):
        write_atomic(dangling, "new\n")
    assert dangling.is_symlink() and not (tmp_path / "nowhere").exists()


def test_a_fifo_is_refused_at_once_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(OutputError, match="FIFO"):
        write_atomic(fifo, "new\n")  # nobody reads it: a blocking open would hang here
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_socket_a_directory_and_a_device_are_refused(tmp_path: Path) -> None:
    sock_path = tmp_path / "s"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(sock_path))
        with pytest.raises(OutputError, match="socket"):
            write_atomic(sock_path, "x")
        assert stat.S_ISSOCK(os.lstat(sock_path).st_mode)
    (tmp_path / "d").mkdir()
    with pytest.raises(OutputError, match="directory"):
        write_atomic(tmp_path / "d", "x")
    with pytest.raises(OutputError, match="character device"):
        write_atomic("/dev/null", "x")
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)


def test_the_cli_refuses_a_device_with_one_line(tmp_path: Path) -> None:
    profile = tmp_path / "in.pb.gz"
    from explainer.demo import demo_profile

    profile.write_bytes(to_pprof(demo_profile()))
    code, out, err = _cli("handoff", str(profile), "-o", "/dev/null", "--llm", "offline")
    assert code == 2 and out == "" and err.count("\n") == 1 and "only a regular file is replaced" in err


@pytest.mark.parametrize(("mask", "expected"), [(0o077, 0o600), (0o022, 0o644), (0o027, 0o640)])
def test_a_new_file_follows_the_umask(tmp_path: Path, mask: int, expected: int) -> None:
    old = os.umask(mask)
    try:
        assert current_umask() == mask
        write_atomic(tmp_path / "r.md", "x\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "r.md").stat().st_mode) == expected


def test_an_existing_file_keeps_its_mode_and_is_replaced(tmp_path: Path) -> None:
    target = tmp_path / "r.md"
    target.write_text("old\n")
    target.chmod(0o640)
    write_atomic(target, "new\n")
    assert target.read_text() == "new\n" and stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.md"]


def test_the_config_file_is_never_an_output(tmp_path: Path) -> None:
    from explainer.demo import demo_profile

    profile = tmp_path / "in.pb.gz"
    profile.write_bytes(to_pprof(demo_profile()))
    config = tmp_path / "config.toml"
    config.write_text('current-context = ""\n')
    code, _out, err = _cli("handoff", str(profile), "--config", str(config), "-o", str(config), "--llm", "offline")
    assert code == 2 and "is also an input" in err and config.read_text() == 'current-context = ""\n'


@pytest.mark.parametrize("flag", ["--json", "--markdown"])
def test_eval_never_writes_over_its_question_set(tmp_path: Path, flag: str) -> None:
    qs = tmp_path / "set.toml"
    qs.write_text("# questions\n")
    code, _out, err = _cli("eval", "--set", str(qs), flag, str(qs))
    assert code == 2 and "is also an input" in err and qs.read_text() == "# questions\n"


def test_a_termination_signal_leaves_no_temporary_file(tmp_path: Path) -> None:
    script = (
        "import sys\nfrom explainer.writers import write_atomic\n"
        "print('ready', flush=True)\n"
        "while True:\n    write_atomic(sys.argv[1], 'x' * 200_000)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for delay in (0.05, 0.1, 0.2, 0.3):
        child = subprocess.Popen(
            [sys.executable, "-c", script, str(tmp_path / "r.md")], stdout=subprocess.PIPE, env=env
        )
        assert child.stdout is not None and child.stdout.readline() == b"ready\n"
        time.sleep(delay)
        child.send_signal(signal.SIGTERM)
        child.wait(timeout=30)
        assert child.returncode == -signal.SIGTERM
        assert sorted(p.name for p in tmp_path.iterdir()) == ["r.md"]
