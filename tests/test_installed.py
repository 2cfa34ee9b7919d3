"""The product as a user gets it: the wheel built, installed without -e into a fresh venv outside
the repository, and every command run from there.

GIVEN a wheel built from a copy of the sources (so nothing in the repository is touched) and a
fresh virtual environment in a temporary folder (no system site packages, no PYTHONPATH),
WHEN each verb runs from an unrelated working directory,
THEN the packaged prompts, demo, app script, app settings and knowledge are found: model mode
reaches the model, the app answers its health check, and the MCP server answers the SDK client.
One wheel and one venv per test session (about 40 s with a warm pip cache).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from openai_server import OpenAIServer, Reply
from pyroscope_server import PyroscopeServer

from conftest import REPO, stop
from explainer.cli.main import build_parser
from mcp_client import free_port, session

pytestmark = pytest.mark.install
SOURCES = ("pyproject.toml", "setup.py", "README.md", "LICENSE", "app.py")
DATA_DIRS = ("explainer", "prompts", "fixtures")  # the design's layout: prompts/ and fixtures/ at the root
GPU = "process_cpu:malloc:bytes::"


@dataclass(frozen=True)
class Installed:
    bin: Path
    work: Path  # an empty working directory outside the repository
    wheel: Path

    def env(self, **extra: str) -> dict[str, str]:
        keep = {k: os.environ[k] for k in ("HOME", "LANG", "TMPDIR") if k in os.environ}
        return {**keep, "PATH": f"{self.bin}:/usr/bin:/bin", "NO_PROXY": "127.0.0.1,localhost", **extra}

    def run(self, *args: str, timeout: float = 180, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.bin / "explainer"), *args],
            cwd=self.work,
            env=self.env(**env),
            capture_output=True,
            text=True,
            timeout=timeout,
        )


def _pip(python: Path | str, *args: str) -> None:
    done = subprocess.run([str(python), "-m", "pip", *args], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    base = tmp_path_factory.mktemp("installed")
    assert not base.resolve().is_relative_to(REPO)
    src = base / "src"
    for folder in DATA_DIRS:
        shutil.copytree(REPO / folder, src / folder, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    for name in SOURCES:
        shutil.copy2(REPO / name, src / name)
    _pip(sys.executable, "wheel", "--no-deps", "--quiet", "--wheel-dir", str(base / "dist"), str(src))
    wheel = next((base / "dist").glob("explainer-*.whl"))
    subprocess.run([sys.executable, "-m", "venv", str(base / "venv")], check=True, timeout=300)
    _pip(base / "venv" / "bin" / "python", "install", "--quiet", str(wheel))
    (base / "work").mkdir()
    return Installed(base / "venv" / "bin", base / "work", wheel)


def test_the_wheel_holds_the_data_and_the_licence(installed: Installed) -> None:
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    for prompt in ("system", "answer", "symbol", "handoff"):
        assert f"explainer/prompts/{prompt}.md" in names
    for data in ("fixtures/demo_vllm_gpu.pb.gz", "ui/app.py", "ui/streamlit.toml", "knowledge/frames.toml"):
        assert f"explainer/{data}" in names, data
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    where = subprocess.run(
        [str(installed.bin / "python"), "-c", "import explainer; print(explainer.__file__)"],
        cwd=installed.work,
        env=installed.env(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "site-packages" in where and not Path(where.strip()).is_relative_to(REPO)
    script = subprocess.run(
        [str(installed.bin / "python"), "-c", "from explainer.cli.app import APP_SCRIPT as s; print(s, s.is_file())"],
        cwd=installed.work,
        env=installed.env(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert script[1] == "True" and "site-packages" in script[0], script  # the root's app.py, carried in the wheel
    packaged_app = next(installed.bin.parent.glob("lib/python*/site-packages/explainer/ui/app.py"))
    assert packaged_app.read_bytes() == (REPO / "app.py").read_bytes()


def test_every_verb_runs_from_the_install(installed: Installed) -> None:
    verbs = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    for verb in verbs:
        done = installed.run(verb, "--help")
        assert done.returncode == 0 and "usage: explainer" in done.stdout, (verb, done.stderr)
    analyzed = installed.run("analyze", "--demo", "--format", "json")
    assert analyzed.returncode == 0, analyzed.stderr
    assert json.loads(analyzed.stdout)["total"] == 74_700_000_000
    fixture = next(installed.bin.parent.glob("lib/python*/site-packages/explainer/fixtures/demo_vllm_gpu.pb.gz"))
    assert "74.7 GB" in installed.run("analyze", str(fixture)).stdout
    diff = installed.run("diff", "--demo", str(fixture), "--format", "json")
    assert diff.returncode == 0 and json.loads(diff.stdout)["after"]["total"] == 74_700_000_000, diff.stderr
    report = installed.work / "handoff.md"
    assert installed.run("handoff", "--demo", "-o", str(report), "--llm", "offline").returncode == 0
    assert report.read_text().startswith("# On-call handoff")
    version = subprocess.run(
        [str(installed.bin / "python"), "-m", "explainer", "--version"],
        cwd=installed.work,
        env=installed.env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert version.stdout.startswith("explainer ")
    assert installed.run("analyze", "no-such-file.pb.gz").returncode == 2


def test_pyroscope_verbs_reach_a_server(installed: Installed) -> None:
    from explainer.demo import demo_profile

    with PyroscopeServer({GPU: demo_profile()}) as server:
        types = installed.run("pyroscope", "types", "--server", server.url, "--from", "now-1h")
        analyzed = installed.run("analyze", "--server", server.url, "--profile-type", "gpu-memory", "--format", "json")
    assert types.returncode == 0 and GPU in types.stdout, types.stderr
    assert analyzed.returncode == 0 and json.loads(analyzed.stdout)["total"] == 74_700_000_000, analyzed.stderr


def test_ask_offline_and_through_the_model(installed: Installed) -> None:
    offline = installed.run("ask", "--demo", "What uses the most GPU memory?", "--format", "json")
    assert offline.returncode == 0, offline.stderr
    assert json.loads(offline.stdout)["mode"] == "offline" and "55.1 GB" in json.loads(offline.stdout)["answer"]
    with OpenAIServer() as model:
        model.push(Reply("The KV cache uses 55.1 GB [F1].\n"))
        env = {"OPENAI_BASE_URL": model.url, "OPENAI_API_KEY": "test-key", "EXPLAINER_MODEL": "test-model"}
        answered = installed.run("ask", "--demo", "What uses the most?", "--llm", "openai", "--format", "json", **env)
        assert answered.returncode == 0, answered.stderr
        assert json.loads(answered.stdout)["mode"] == "llm"
        assert model.requests, "the model was never called"
        system = model.requests[0].body["messages"][0]["content"]
    packaged = (REPO / "prompts" / "system.md").read_text(encoding="utf-8").splitlines()[1]
    assert packaged.strip() and packaged.strip()[:60] in system  # the packaged prompt, not a fallback


def test_the_app_answers_its_health_check(installed: Installed, tmp_path: Path) -> None:
    port = free_port()
    log = (tmp_path / "app.log").open("wb")
    proc = subprocess.Popen(
        [str(installed.bin / "explainer"), "app", "--port", str(port)],
        cwd=installed.work,
        env=installed.env(),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        assert _health(f"http://127.0.0.1:{port}/_stcore/health", proc) == "ok", (tmp_path / "app.log").read_text()
    finally:
        stop(proc, 20)
        log.close()


def _health(url: str, proc: subprocess.Popen[bytes]) -> str:
    deadline = time.monotonic() + 90
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                return str(r.read().decode())
        except OSError:
            time.sleep(0.3)
    return f"no answer (exit status {proc.poll()})"


def test_the_mcp_server_answers_the_sdk_client(installed: Installed) -> None:
    got = session(
        [str(installed.bin / "explainer"), "mcp", "--root", str(installed.work)],
        [
            ("analyze", {"source": "demo", "limit": 3}),
            ("ask", {"source": "demo", "question": "What uses the most GPU memory?"}),
        ],
        cwd=str(installed.work),
    )
    assert {"analyze", "ask", "diff", "handoff"} <= set(got.tools)
    analyze, ask = got.calls
    assert analyze.data is not None and analyze.data["total"] == 74_700_000_000
    assert not ask.is_error and "55.1 GB" in ask.markdown
