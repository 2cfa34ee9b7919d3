"""Where a compound question is cut: ", and which ...", "and what knob ...", "; ", a question mark followed by
more text, "en welke ...", chat's "n what flag ...", "does this look ok or is that ...". Only the cutting;
whether the parts each ask something is the reader's call (``reader.parts``), and ``compound.split`` gives
the parts to the conversation.
"""

from __future__ import annotations

import re

from explainer.lazyre import lazy

MAX_PARTS = 3
_JOINERS = frozenset({"and", "en", "n", "&", "or"})
_QUESTION_WORDS = (
    r"which|what|how|where|who|why|is|are|does|do|can|should|with which|in which|"
    r"welke|welk|wat|hoe|waar|wie|waarom|is|zijn|kan|moet|met welke"
)
_CUT = lazy(
    rf"\s*(?:[;?]\s+|,\s*(?:and|en|plus|also|ook)\s+|\s+(?:and|en|n|&|or)\s+(?=(?:{_QUESTION_WORDS})\b)|,\s+(?=(?:{_QUESTION_WORDS})\b))",
    re.IGNORECASE,
)


def may_cut(text: str) -> bool:
    """Whether ``_CUT`` could match ``text``, told without compiling it (most questions ask one thing): it
    needs a ";" or ",", a "?" with white space after it, or a joining word standing alone."""
    if ";" in text or "," in text:
        return True
    at = text.find("?")
    while at != -1:
        if text[at + 1 : at + 2].isspace():  # str.isspace is what the pattern's \s matches in a str
            return True
        at = text.find("?", at + 1)
    return any(word.lower() in _JOINERS for word in text.split())


def clauses(text: str) -> list[str]:
    """The question cut into the questions it asks (one part when it asks one thing)."""
    if not may_cut(text):
        return [text]
    parts = [p.strip(" ,;") for p in _CUT.split(text)]
    parts = [p for p in parts if len(p.split()) >= 2 or p.endswith("?")]
    if len(parts) < 2 or len(parts) > MAX_PARTS:
        return [text]
    return parts
