"""The design's layout in a clone: app.py, prompts/ and fixtures/ at the root, each once, and the code
finds them there (the wheel's side is tests/test_installed.py)."""

from __future__ import annotations

import subprocess
import sys

from conftest import REPO
from explainer.cli import app
from explainer.explain.llm import prompts


def test_the_top_level_entries_of_the_design() -> None:
    for entry in ("pyproject.toml", "explainer", "prompts", "app.py", "tests", "fixtures"):
        assert (REPO / entry).exists(), entry
    for moved in ("explainer/prompts", "explainer/fixtures", "explainer/ui/app.py"):
        assert not (REPO / moved).exists(), f"{moved}: one copy only, at the root"


def test_the_code_reads_the_roots_prompts_and_runs_the_roots_app() -> None:
    assert prompts.prompts_dir().resolve() == (REPO / "prompts").resolve()
    assert prompts.load("system").render()
    assert app.APP_SCRIPT.resolve() == (REPO / "app.py").resolve()


def test_streamlit_run_app_py_from_the_clone_serves_the_app() -> None:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=90).run()
    assert not at.exception
    assert at.title[0].value.endswith("explainer")


def test_the_demo_fixture_is_the_demo() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "explainer",
            "analyze",
            str(REPO / "fixtures" / "demo_vllm_gpu.pb.gz"),
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert '"total": 74700000000' in done.stdout
