"""`explainer chat`: a conversation in the terminal, one question per line, follow-ups included.

Run as a user would: a real process, questions on its standard input (a pipe, and a terminal
through a pseudo-terminal), answers on its standard output.
"""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time

import pytest

from conftest import REPO

pytestmark = pytest.mark.slow  # real processes, one through a pseudo-terminal

DEMO = REPO / "fixtures" / "demo_vllm_gpu.pb.gz"
CLI = [sys.executable, "-c", "import sys; from explainer.cli.main import main; sys.exit(main())"]


def chat(stdin: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, "chat", str(DEMO), *args], input=stdin, capture_output=True, text=True, timeout=120, check=False
    )


def test_one_json_object_per_answer_with_the_fields_of_ask_and_follow_ups_in_context() -> None:
    questions = [
        "What uses the most GPU memory?",
        "",
        "who calls it?",
        "Wat gebruikt het meeste GPU-geheugen?",
        "en de tweede?",
    ]
    result = chat("\n".join(questions) + "\n", "--format", "json")
    assert result.returncode == 0, result.stderr
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert [a["question"] for a in answers] == [q for q in questions if q]  # blank lines are skipped
    assert {"answer", "mode", "verification", "notice", "incomplete", "focus"} <= set(answers[0])
    assert [a["focus"] for a in answers] == [
        "GPUModelRunner._allocate_kv_cache_tensors",
        "GPUModelRunner._allocate_kv_cache_tensors",
        "GPUModelRunner._allocate_kv_cache_tensors",
        "UnquantizedLinearMethod.create_weights",
    ]
    assert "55,1 GB" in answers[2]["answer"]  # the Dutch question is answered in Dutch
    assert all(a["mode"] == "offline" and a["verification"]["unverified"] == [] for a in answers)


def test_markdown_answers_end_at_exit_and_an_over_long_line_is_cut_not_held() -> None:
    long_line = "What uses the most GPU memory? " + "x" * 200_000
    result = chat(f"{long_line}\nexit\nWhat can I ignore?\n")
    assert result.returncode == 0, result.stderr
    assert "uses the most GPU memory" in result.stdout and "You can skip" not in result.stdout


def test_the_profile_cannot_come_from_stdin() -> None:
    result = subprocess.run([*CLI, "chat", "-"], input="", capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "standard input" in result.stderr


def test_at_a_terminal_it_shows_a_prompt_and_answers() -> None:
    pid, fd = pty.fork()
    if pid == 0:  # the child: explainer chat on a pseudo-terminal
        os.execv(sys.executable, [*CLI, "chat", str(DEMO)])
    try:
        seen = _read_until(fd, b"explainer> ")
        assert b"Ask about this profile" in seen
        os.write(fd, b"what uses the most memory\n")
        seen = _read_until(fd, b"explainer> ")
        assert b"GPUModelRunner._allocate_kv_cache_tensors" in seen
        os.write(fd, b"\x04")  # Ctrl-D ends the conversation
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        os.close(fd)


def _read_until(fd: int, marker: bytes, deadline_s: float = 60.0) -> bytes:
    out = b""
    end = time.monotonic() + deadline_s
    while marker not in out:
        left = end - time.monotonic()
        assert left > 0, f"no {marker!r} within {deadline_s} s: {out[-500:]!r}"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            out += chunk
    return out
