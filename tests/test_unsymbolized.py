"""Where to start on a profile without symbols: the symbols, not a frame nobody can change."""

from __future__ import annotations

import pytest

from explainer.explain import Conversation
from explainer.readers import read_bytes

UNSYMBOLIZED = b"0x7f1510;0x7f1520;0x7f1530 700\n0x7f1510;0x7f1540 300\n"
MOSTLY_NAMED = b"main;serve;parse 900\nmain;0x7f1540 100\n"


@pytest.mark.parametrize(
    ("question", "words"),
    [("where should I start?", "without symbols"), ("waar moet ik beginnen?", "zonder symbolen")],
)
def test_an_unsymbolized_profile_is_told_to_resolve_symbols_first(question: str, words: str) -> None:
    text = Conversation(read_bytes(UNSYMBOLIZED)).ask(question).markdown
    assert words in text and "100.0%" in text.replace(",", ".")


def test_a_mostly_named_profile_starts_at_its_code_without_the_symbols_note() -> None:
    text = Conversation(read_bytes(MOSTLY_NAMED)).ask("where should I start?").markdown
    assert "`parse`" in text and "without symbols" not in text
