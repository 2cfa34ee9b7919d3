"""The command line's edges: every README command that can run offline runs, usage errors are one
line, hints name commands (never a repository path) and are printed once, stdout stays clean on errors."""

from __future__ import annotations

import io
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from explainer.cli.main import main

REPO = Path(__file__).resolve().parent.parent
VLLM_LOG = """\
(EngineCore_0 pid=42) INFO 06-10 12:00:01 [gpu_model_runner.py:1890] Model loading took 14.99 GiB and 6.1 seconds
(EngineCore_0 pid=42) INFO 06-10 12:00:09 [gpu_worker.py:230] Available KV cache memory: 51.79 GiB
(EngineCore_0 pid=42) INFO 06-10 12:00:09 [kv_cache_utils.py:716] GPU KV cache size: 424,176 tokens
"""
DEMO = REPO / "fixtures" / "demo_vllm_gpu.pb.gz"

# Why a README command is not run here: each needs something a test on a closed machine lacks.
NOT_OFFLINE = {
    "app": "starts a server and waits",
    "mcp": "serves until stopped",
    "eval": "needs a configured model",
    "pyroscope": "needs a Pyroscope server",
}


def readme_commands() -> list[list[str]]:
    """The explainer commands in the README's ``sh`` blocks, continuation lines joined, comments dropped."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S):
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            if words and words[0] in ("explainer", ".venv/bin/explainer"):
                commands.append(words[1:])
    return commands


def offline(words: list[str]) -> bool:
    return words[0] not in NOT_OFFLINE and "--server" not in words


def test_the_readme_has_commands_to_run() -> None:
    runnable = [w for w in readme_commands() if offline(w)]
    assert len(runnable) >= 8, runnable  # analyze, ask (EN, NL), chat, diff, handoff...


@pytest.mark.parametrize("words", [w for w in readme_commands() if offline(w)], ids=lambda w: " ".join(w)[:60])
def test_every_offline_readme_command_runs_on_the_shipped_demo(words: list[str], tmp_path: Path) -> None:
    # GIVEN the README's file names standing for the shipped demo
    for name in ("profile.pb.gz", "before.pb.gz", "after.pb.gz", "yesterday.pb.gz"):
        shutil.copyfile(DEMO, tmp_path / name)
    (tmp_path / "vllm.log").write_text(VLLM_LOG)  # --vllm-log's file, as vLLM writes it at start-up
    # WHEN the command runs as a user would type it (stdin empty: chat ends at once)
    done = subprocess.run(
        [sys.executable, "-m", "explainer", *words],
        cwd=tmp_path,
        input="",
        capture_output=True,
        text=True,
        timeout=180,
    )
    # THEN it succeeds, prints its result and no error
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    written = [w for w in words if w.endswith(".md") and w not in ("-o",)]
    assert done.stdout.strip() or all((tmp_path / w).stat().st_size > 0 for w in written)


USAGE_ERRORS = [
    ["analyze", "--demo", "--top", "x"],
    ["analyze", "--no-such-option"],
    ["ask", "--demo", "--format", "yaml", "q"],
    ["frobnicate"],
    ["diff", "--noise-floor", "lots"],
]


@pytest.mark.parametrize("argv", USAGE_ERRORS, ids=" ".join)
def test_a_usage_error_is_one_line_naming_the_help(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, lines
    assert re.search(r"run `explainer( \w+)? --help`", lines[0])


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, out, err)
    return code, out.getvalue(), err.getvalue()


def test_diff_of_one_pprof_file_says_it_needs_two_profiles() -> None:
    code, out, err = _run(["diff", str(DEMO)])
    assert code == 2 and out == ""
    assert "not a diff" in err and "two profiles" in err
    assert "utf-8" not in err and "does not parse" not in err


def test_an_unreachable_server_hint_is_printed_once() -> None:
    code, out, err = _run(["analyze", "--server", "http://127.0.0.1:9", "--profile-type", "cpu", "--timeout", "5"])
    assert code == 2 and out == ""
    assert err.count("port-forward") == 1, err


def test_a_bad_config_file_prints_nothing_on_stdout_and_points_to_a_command(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("x = [\n")
    code, out, err = _run(["--config", str(bad), "contexts"])
    assert code == 2 and out == ""
    assert "docs/" not in err and "explainer contexts --help" in err
    broken_context = tmp_path / "ctx.toml"
    broken_context.write_text('[contexts.a]\nserver = "http://localhost:4040"\n[contexts.b]\ntoken = "literal"\n')
    code, out, err = _run(["--config", str(broken_context), "contexts"])
    assert code == 2 and out == "", out


def test_no_error_hint_names_a_repository_path() -> None:
    import explainer.errors as errors

    for cls in vars(errors).values():
        if isinstance(cls, type) and issubclass(cls, errors.ExplainerError):
            assert "docs/" not in cls.hint and ".md" not in cls.hint, cls


@pytest.mark.parametrize(
    "argv",
    [
        ["ask", str(DEMO), "--unit", "bytes", "what uses the most memory?"],
        ["ask", "--unit", "bytes", str(DEMO), "what uses the most memory?"],
        ["ask", str(DEMO), "what uses the most memory?", "--unit", "bytes"],
    ],
)
def test_a_verbs_positionals_may_follow_its_options(argv: list[str]) -> None:
    # The question after an option was refused as "unrecognized arguments" (argparse gives the
    # optional FILE every word before the first option); every order answers the same.
    code, out, err = _run(argv)
    assert code == 0 and err == ""
    assert "_allocate_kv_cache_tensors" in out
