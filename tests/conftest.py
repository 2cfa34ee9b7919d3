"""Shared test fixtures: where the shared corpus lives, the demo profile, small builders."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from explainer.model import Profile, ProfileBuilder, SampleType

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("EXPLAINER_SHARED", REPO.parent / "shared"))
REAL = Path(os.environ.get("EXPLAINER_REAL_PROFILES", SHARED / "profiles" / "real"))
GENERATOR = REPO / "tools" / "gen_gpu_profile.py"  # our own generator, in the repository


@pytest.fixture(autouse=True)
def _no_user_config(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """A developer's ~/.config/explainer or PROFILECLI_* variables never reach a test."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.getbasetemp() / "xdg-config-empty"))
    for name in ("EXPLAINER_CONFIG", "EXPLAINER_CONTEXT", "PROFILECLI_URL", "PROFILECLI_TENANT_ID",
                 "PROFILECLI_USERNAME", "PROFILECLI_PASSWORD", "PROFILECLI_TOKEN"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def real_dir() -> Path:
    if not REAL.is_dir():
        pytest.skip(f"real profiles not found at {REAL} (set EXPLAINER_REAL_PROFILES)")
    return REAL


@pytest.fixture(scope="session")
def generator() -> Path:
    assert GENERATOR.is_file(), f"profile generator missing at {GENERATOR}"
    return GENERATOR


@pytest.fixture(scope="session")
def demo() -> Profile:
    from explainer.demo import demo_profile

    return demo_profile()


@cache
def named_profile(key: str) -> Profile:
    """The profile an example table or corpus names, read once per test session: ``gpu`` and ``cpu`` are
    the bundled demos, ``pyspy`` the py-spy vLLM profile of tests/pyspy_vllm.py, ``real:PATH`` a file under
    the shared real profiles (the test is skipped when that folder is absent)."""
    from explainer.demo import demo_cpu_profile, demo_profile
    from explainer.readers import read_path

    if key == "gpu":
        return demo_profile()
    if key == "cpu":
        return demo_cpu_profile()
    if key == "pyspy":
        from pyspy_vllm import pyspy_vllm_profile

        return pyspy_vllm_profile()
    if not key.startswith("real:"):
        raise ValueError(f"unknown profile {key!r}")
    path = REAL / key.removeprefix("real:")
    if not path.is_file():
        pytest.skip(f"{path} not found (set EXPLAINER_REAL_PROFILES)")
    return read_path(path)


def profile_of(stacks: dict[str, int], unit: str = "count", sample_type: str = "samples") -> Profile:
    """A profile from ``{"a;b;c": value}`` (root first)."""
    builder = ProfileBuilder(SampleType(sample_type, unit))
    for stack, value in stacks.items():
        builder.add(stack.split(";"), value)
    return builder.build()


def generated_profile(stacks: int, seed: int = 1) -> Path:
    """A vLLM GPU profile from the shared generator, made once and kept in .pytest_cache/gen."""
    out = REPO / ".pytest_cache" / "gen" / f"gpu-{stacks}-seed{seed}.pb.gz"
    if not out.is_file():
        assert GENERATOR.is_file(), f"profile generator missing at {GENERATOR}"
        out.parent.mkdir(parents=True, exist_ok=True)
        partial = out.with_suffix(".partial")
        subprocess.run(
            [sys.executable, str(GENERATOR), "--stacks", str(stacks), "--seed", str(seed), "-o", str(partial)],
            check=True,
            capture_output=True,
            timeout=900,
        )
        partial.rename(out)  # a crash mid-way never leaves a half file under the real name
    return out


@pytest.fixture(scope="session")
def big_profile_path() -> Path:
    """The 500k-stack profile the issues' targets speak of (about 80 s to generate the first time)."""
    given = os.environ.get("EXPLAINER_BIG_PROFILE")
    return Path(given) if given else generated_profile(500_000)


def use_packaged_streamlit_settings() -> None:
    """AppTest reads ``.streamlit/config.toml`` from the working directory; the app's settings are
    package data now (``explainer app`` passes them as flags), so tests set the same ones here.
    Server and browser options do not apply in-process."""
    from streamlit import config

    from explainer.cli import app

    for name, value in app.options(app.settings("127.0.0.1", app.DEFAULT_PORT)):
        if not name.startswith(("server.", "browser.")):
            config.set_option(name, value)


def tree_profile(nodes: int = 8_192, seed: int = 7) -> Profile:
    """A profile whose call tree has ``nodes`` nodes, like a Pyroscope query at maxNodes 8,192."""
    rng = random.Random(seed)
    words = ["Engine", "Worker", "Runner", "Layer", "Attention", "MLP", "Cache", "Sampler", "Model", "Loader"]
    paths: list[list[str]] = [[]]
    for i in range(1, nodes):
        parent = paths[rng.randrange(max(1, len(paths) - 200), len(paths))] if i > 1 else []
        cls = rng.choice(words) + rng.choice(words)
        paths.append([*parent, f"{cls}.method_{i % 97}" if i % 5 else "<interpreter trampoline>"])
    builder = ProfileBuilder(SampleType("alloc_space", "bytes"))
    for path in paths[1:]:
        builder.add(path, rng.randrange(1, 10**9))
    return builder.build()


def stop(proc: subprocess.Popen[bytes], wait_s: float = 10.0) -> None:
    """End a server a test started: terminate, wait, and kill it if it does not go."""
    proc.terminate()
    try:
        proc.wait(timeout=wait_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
