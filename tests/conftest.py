"""Shared test fixtures: where the shared corpus lives, the demo profile, small builders."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from explainer.model import Profile, ProfileBuilder, SampleType

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("EXPLAINER_SHARED", REPO.parent / "shared"))
REAL = Path(os.environ.get("EXPLAINER_REAL_PROFILES", SHARED / "profiles" / "real"))
GENERATOR = SHARED / "tools" / "gen_gpu_profile.py"


@pytest.fixture(scope="session")
def real_dir() -> Path:
    if not REAL.is_dir():
        pytest.skip(f"real profiles not found at {REAL} (set EXPLAINER_REAL_PROFILES)")
    return REAL


@pytest.fixture(scope="session")
def generator() -> Path:
    if not GENERATOR.is_file():
        pytest.skip(f"profile generator not found at {GENERATOR} (set EXPLAINER_SHARED)")
    return GENERATOR


@pytest.fixture(scope="session")
def demo() -> Profile:
    from explainer.demo import demo_profile

    return demo_profile()


def profile_of(stacks: dict[str, int], unit: str = "count", sample_type: str = "samples") -> Profile:
    """A profile from ``{"a;b;c": value}`` (root first)."""
    builder = ProfileBuilder(SampleType(sample_type, unit))
    for stack, value in stacks.items():
        builder.add(stack.split(";"), value)
    return builder.build()
