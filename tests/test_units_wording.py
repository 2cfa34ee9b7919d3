"""Counts read as a person writes them: "1 sample", "7,686 samples", "the samples are counted"."""

from __future__ import annotations

import pytest

from explainer import units
from explainer.explain import Conversation, LlmSettings
from explainer.model import ProfileBuilder, SampleType


@pytest.mark.parametrize(
    ("value", "unit", "text"),
    [
        (1, "samples", "1 sample"),
        (0, "samples", "0 samples"),
        (7686, "samples", "7,686 samples"),
        (1, "objects", "1 object"),
        (2, "goroutines", "2 goroutines"),
        (1, "count", "1"),
        (1234, "", "1,234"),
        (1.5, "samples", "1.5 samples"),
        (1, "bytes", "1 B"),
    ],
)
def test_format_value_agrees_in_number(value: float, unit: str, text: str) -> None:
    assert units.format_value(value, unit) == text


def test_counted_keeps_nouns_that_are_not_plurals() -> None:
    assert units.counted(1, "class") == "1 class" and units.counted(3, "class") == "3 class"


def test_answers_on_sample_counts_read_in_the_right_number() -> None:
    builder = ProfileBuilder(SampleType("samples", "samples"))
    builder.add(["main", "busy"], 7686)
    builder.add(["main", "idle"], 1)
    conv = Conversation(builder.build(), settings=LlmSettings(), mode="offline")
    most = conv.ask("What uses the most samples?")
    assert "7,686 samples of self" in most.markdown and most.verification.unverified == []
    assert "the samples are counted" in most.markdown and "samples is" not in most.markdown
    idle = conv.ask("What is `idle`?").markdown
    assert "self 1 sample " in idle or "self 1 sample (" in idle, idle
    assert "1 samples" not in idle
