"""The claim check on a corpus of realistic model answers (tests/corpus/answers.toml).

GIVEN an answer as a capable model writes it (rounded, in GiB, in Dutch, with derived numbers,
tables, lists, follow-up sentences and misattributions) and the grounding the model saw, WHEN it
is checked, THEN exactly the labelled claims are flagged, each with the right kind: no false
alarm and no miss. Streamed in arbitrary pieces, the check gives the same verdicts.
"""

from __future__ import annotations

import random
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from explainer.evaluation.profiles import PACKAGED, packaged
from explainer.explain.checks.grounding import Grounding
from explainer.explain.checks.verify import LineVerifier
from explainer.explain.context import ProfileContext
from explainer.explain.llm.facts import build_facts
from explainer.explain.llm.tools import Toolbox

CORPUS = Path(__file__).parent / "corpus" / "answers.toml"
ANSWERS: list[dict[str, Any]] = tomllib.loads(CORPUS.read_text(encoding="utf-8"))["answer"]


@cache
def context(profile: str) -> ProfileContext:
    return ProfileContext(*packaged(profile)).prepare()


def grounding(answer: dict[str, Any]) -> Grounding:
    ctx = context(answer["profile"])
    g = Grounding(ctx.unit)
    g.merge(build_facts(ctx).grounding)
    box = Toolbox(ctx, g)
    for name, args in answer.get("tools", []):
        box.execute(name, args)
    return g


def check(answer: dict[str, Any], pieces: list[str] | None = None) -> LineVerifier:
    v = LineVerifier(grounding(answer), context(answer["profile"]).names, question=answer.get("question", ""))
    text = answer["text"].strip("\n")
    v.shown = "".join(v.feed(p) for p in (pieces or [text])) + v.finish()  # type: ignore[attr-defined]
    return v


def verdicts(v: LineVerifier) -> list[str]:
    return [f"{w.kind} {w.text}" for w in v.wrong]


def test_the_corpus_is_big_and_covers_every_kind() -> None:
    assert len(ANSWERS) >= 80
    assert {a["profile"] for a in ANSWERS} == set(PACKAGED)
    kinds: dict[str, list[bool]] = {}
    for a in ANSWERS:
        for kind in a["kinds"]:
            kinds.setdefault(kind, []).append(bool(a["wrong"]))
    for kind in ("rounded", "gib", "derived", "misattributed", "table", "list", "follow-up", "dutch", "diff"):
        assert len(kinds[kind]) >= 3, kind
    for kind in ("table", "list", "dutch", "diff", "follow-up", "gib", "ratio", "role", "part"):
        assert any(kinds[kind]) and not all(kinds[kind]), kind  # right and wrong answers of each form


@pytest.mark.parametrize("answer", ANSWERS, ids=[f"{i:02d}-{a['profile']}" for i, a in enumerate(ANSWERS)])
def test_every_answer_is_judged_exactly(answer: dict[str, Any]) -> None:
    v = check(answer)
    assert verdicts(v) == answer["wrong"], v.shown  # type: ignore[attr-defined]
    numbers = [w for w in v.wrong if w.kind != "name"]
    assert v.counts["wrong"] == len(numbers)
    assert sum(v.counts.values()) == v.checked
    if "derived" in answer:
        assert v.counts["derived"] == answer["derived"], v.derivations
        assert len(v.derivations) == answer["derived"]  # each says which values it came from


def test_misattributions_name_the_owner_and_the_right_value() -> None:
    answer = next(a for a in ANSWERS if a["text"].startswith("CUDA graphs (`CUDAGraphWrapper"))
    v = check(answer)
    (wrong,) = v.wrong
    assert wrong.as_dict() == {
        "text": "12.0 GB",
        "subject": "CUDA graphs",
        "reason": "12.0 GB is `UnquantizedLinearMethod.create_weights`'s, not CUDA graphs'",
        "expected": "4.2 GB",
    }
    shown = v.shown  # type: ignore[attr-defined]
    assert (
        "12.0 GB [wrong: 12.0 GB is `UnquantizedLinearMethod.create_weights`'s, not CUDA graphs'; CUDA graphs: 4.2 GB]"
        in shown
    )


def test_derived_numbers_record_the_values_they_came_from() -> None:
    answer = next(a for a in ANSWERS if a["text"].startswith("Apart from the 55.1 GB KV cache"))
    assert check(answer).derivations == [("19.6 GB", "74.7 GB − 55.1 GB")]


@pytest.mark.parametrize("seed", range(6))
def test_streaming_in_any_pieces_gives_the_same_verdicts(seed: int) -> None:
    rnd = random.Random(seed)
    for answer in ANSWERS:
        whole = check(answer)
        text = answer["text"].strip("\n")
        cuts = sorted(rnd.sample(range(1, len(text)), min(len(text) - 1, rnd.randint(1, 12))))
        pieces = [text[i:j] for i, j in zip([0, *cuts], [*cuts, len(text)], strict=True)]
        streamed = check(answer, pieces)
        assert streamed.shown == whole.shown  # type: ignore[attr-defined]
        assert streamed.wrong == whole.wrong and streamed.counts == whole.counts


@pytest.mark.parametrize(
    ("written", "readings"),
    [
        ("55.1", [(55.1, 0.05)]),
        ("55,1", [(55.1, 0.05)]),
        ("1.234.567", [(1234567.0, 0.5)]),
        ("1,234,567", [(1234567.0, 0.5)]),
        ("1.234,5", [(1234.5, 0.05)]),
        ("1,234.5", [(1234.5, 0.05)]),
        ("1,234", [(1234.0, 0.5), (1.234, 0.0005)]),  # English thousands or a Dutch decimal: both
        ("74", [(74.0, 0.5)]),
    ],
)
def test_numbers_are_read_the_english_and_the_dutch_way(written: str, readings: list[tuple[float, float]]) -> None:
    from explainer import units

    assert [(pytest.approx(v), pytest.approx(h)) for v, h in units.number_readings(written)] == readings


def test_dutch_answers_with_spaces_before_percent_and_thousands_dots() -> None:
    answer = {"profile": "demo", "text": "De KV-cache: 55,1 GB (73,8 %), in bytes 55.100.000.000 B; totaal 74,7 GB.\n"}
    v = check(answer)
    assert v.wrong == [] and v.counts["verified"] == 4
    wrong = check({"profile": "demo", "text": "De KV-cache: 56,1 GB (73,8 %).\n"})
    assert verdicts(wrong) == ["unknown 56,1 GB"] and wrong.wrong[0].expected == "55.1 GB"


def test_a_hostile_answer_is_checked_in_bounded_work() -> None:
    """A line naming every function with many numbers: the derivations are capped, the verdicts still exact."""
    ctx = context("demo")
    names = " ".join(f"`{n}` {i}.{i % 10} GB," for i, n in enumerate(ctx.profile.names))
    line = f"Together {names} add up to 999.9 GB.\n" * 20
    v = check({"profile": "demo", "text": line})
    assert v.checked == 20 * (len(ctx.profile.names) + 1)
    assert "999.9 GB" in v.unverified
