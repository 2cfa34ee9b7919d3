"""Question sets: the built-in one over the packaged profiles, or a team's own as TOML or JSONL.

A question names its profile (a packaged one, ``demo``, ``cpu`` or ``diff``, or a file relative
to the set), optionally a ``baseline`` file, the ``subject`` a good answer names (a function or a
category such as "KV cache") and the ``facts`` it should state ("55.1 GB"). TOML::

    [[question]]
    id = "kv"
    profile = "profiles/vllm.pb.gz"
    question = "What uses the most GPU memory?"
    subject = "GPUModelRunner._allocate_kv_cache_tensors"
    facts = ["55.1 GB"]

JSONL: one such object per line.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explainer.errors import QuestionSetError

MAX_QUESTIONS = 500
MAX_SET_BYTES = 2_000_000
_FIELDS = {"id", "profile", "baseline", "question", "subject", "facts"}


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    profile: str  # a packaged profile's name, or a path (made absolute when the set is read)
    question: str
    subject: str | None = None
    facts: tuple[str, ...] = ()
    baseline: str | None = None


BUILT_IN = (
    Question(
        "kv-cache", "demo", "What uses the most GPU memory?", "GPUModelRunner._allocate_kv_cache_tensors", ("55.1 GB",)
    ),
    Question("weights", "demo", "How much memory do the model weights take?", "model weights", ("13.8 GB",)),
    Question(
        "cuda-graphs", "demo", "How much do CUDA graphs take, and where are they captured?", "CUDA graphs", ("4.2 GB",)
    ),
    Question(
        "zero-self",
        "demo",
        "Why is self 0 for EngineCore._initialize_kv_caches when its bar is so wide?",
        "EngineCore._initialize_kv_caches",
        ("60.9 GB",),
    ),
    Question("cpu-hot", "cpu", "Where does the CPU time go?", "psycopg.Cursor.execute", ("3.2 s",)),
    Question("cpu-json", "cpu", "How much time does JSON serialisation take?", "json.dumps", ("2.1 s",)),
    Question(
        "diff-what",
        "diff",
        "What changed since the baseline?",
        "GPUModelRunner._allocate_kv_cache_tensors",
        ("11.5 GB",),
    ),
    Question("diff-total", "diff", "How much did the total grow, and by what share?", "total", ("11.5 GB", "18.2%")),
)
"""The built-in set: the demo GPU profile, the CPU profile and the before/after pair."""


def load(path: str | Path) -> tuple[Question, ...]:
    """The questions of a TOML or JSONL file; profile paths are taken relative to it."""
    source = Path(path)
    try:
        with source.open("rb") as fh:
            data = fh.read(MAX_SET_BYTES + 1)
    except OSError as exc:
        raise QuestionSetError(f"cannot read question set {source}: {exc.strerror or exc}") from exc
    if len(data) > MAX_SET_BYTES:
        raise QuestionSetError(f"question set {source} is larger than {MAX_SET_BYTES:,} bytes")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise QuestionSetError(f"question set {source} is not UTF-8 text") from exc
    rows = _jsonl(text, source) if source.suffix.lower() in (".jsonl", ".ndjson") else _toml(text, source)
    if not rows:
        raise QuestionSetError(f"question set {source} has no questions")
    if len(rows) > MAX_QUESTIONS:
        raise QuestionSetError(f"question set {source} has {len(rows):,} questions; at most {MAX_QUESTIONS} are run")
    return tuple(_question(row, i, source.parent) for i, row in enumerate(rows, 1))


def _toml(text: str, source: Path) -> list[Any]:
    try:
        rows = tomllib.loads(text).get("question", [])
    except tomllib.TOMLDecodeError as exc:
        raise QuestionSetError(f"question set {source} is not valid TOML: {exc}") from exc
    if not isinstance(rows, list):
        raise QuestionSetError(f"question set {source}: 'question' must be an array of tables ([[question]])")
    return rows


def _jsonl(text: str, source: Path) -> list[Any]:
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except (ValueError, RecursionError) as exc:
                raise QuestionSetError(f"question set {source}, line {n}: not a JSON object") from exc
    return rows


def _question(row: Any, n: int, base: Path) -> Question:
    where = f"question {n}"
    if not isinstance(row, dict):
        raise QuestionSetError(f"{where}: expected a table with question and profile")
    unknown = set(row) - _FIELDS
    if unknown:
        raise QuestionSetError(f"{where}: unknown field(s) {', '.join(sorted(map(str, unknown)))}")
    for key in ("question", "profile"):
        if not isinstance(row.get(key), str) or not row[key].strip():
            raise QuestionSetError(f"{where}: '{key}' must be a non-empty string")
    for key in ("id", "subject", "baseline"):
        if key in row and not isinstance(row[key], str):
            raise QuestionSetError(f"{where}: '{key}' must be a string")
    facts = row.get("facts", [])
    if not isinstance(facts, list) or not all(isinstance(f, str) for f in facts):
        raise QuestionSetError(f"{where}: 'facts' must be a list of strings such as \"55.1 GB\"")
    return Question(
        row.get("id") or f"q{n}",
        _path(row["profile"], base),
        row["question"][:2_000],
        row.get("subject"),
        tuple(facts),
        _path(row["baseline"], base) if row.get("baseline") else None,
    )


def _path(name: str, base: Path) -> str:
    from explainer.evaluation.profiles import PACKAGED

    return name if name in PACKAGED else str((base / name).resolve())
