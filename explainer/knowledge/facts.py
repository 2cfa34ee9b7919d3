"""Facts about vLLM, PyTorch and the AKS GPU profiler, each with the releases it holds for and its
source (data in ``facts.toml``), and the frames a profiler records as call counts in a byte profile.

Answers about settings (``expandable_segments``, the utilisation default, ``swap_space``) and the
visibility audit state these facts; nothing about a release is written in code.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from explainer.knowledge.classify import VERSIONS, _load


@dataclass(frozen=True, slots=True)
class Fact:
    id: str
    settings: tuple[str, ...]  # the names people use for the knob
    text: str
    risk: str
    versions: str
    source: str


@dataclass(frozen=True, slots=True)
class CountFrame:
    """A frame whose samples count calls (1 per call), not bytes, in a byte profile."""

    name: str
    does: str  # what one call does, for people
    versions: str
    source: str


def _checked(kind: str, key: str, raw: dict[str, object]) -> tuple[str, str]:
    versions, source = str(raw.get("versions", "")), str(raw.get("source", ""))
    if not VERSIONS.match(versions) or not source:
        raise ValueError(f"facts.toml: {kind} {key!r} needs versions and a source")
    return versions, source


@cache
def facts() -> dict[str, Fact]:
    out: dict[str, Fact] = {}
    for raw in _load("facts.toml").get("fact", []):
        key = str(raw["id"])
        versions, source = _checked("fact", key, raw)
        settings = tuple(str(s) for s in raw.get("settings", []))
        out[key] = Fact(key, settings, str(raw["text"]), str(raw.get("risk", "")), versions, source)
    return out


@cache
def count_frames() -> dict[str, CountFrame]:
    """Every count-valued frame by name (``cuMemFreeAsync``, ``cuMemPoolCreate``)."""
    out: dict[str, CountFrame] = {}
    for raw in _load("facts.toml").get("count_frame", []):
        name = str(raw["name"])
        versions, source = _checked("count_frame", name, raw)
        out[name] = CountFrame(name, str(raw["does"]), versions, source)
    return out


def fact(key: str) -> Fact:
    return facts()[key]
