"""Where a compound question is cut: ", and which ...", "and what knob ...", "; ", a question mark followed by
more text, "en welke ...", chat's "n what flag ...", "does this look ok or is that ...". Only the cutting;
whether the parts each ask something is the reader's call (``reader.parts``), and ``compound.split`` gives
the parts to the conversation.
"""

from __future__ import annotations

import re

MAX_PARTS = 3
_QUESTION_WORDS = (
    r"which|what|how|where|who|why|is|are|does|do|can|should|with which|in which|"
    r"welke|welk|wat|hoe|waar|wie|waarom|is|zijn|kan|moet|met welke"
)
_CUT = re.compile(
    rf"\s*(?:[;?]\s+|,\s*(?:and|en|plus|also|ook)\s+|\s+(?:and|en|n|&|or)\s+(?=(?:{_QUESTION_WORDS})\b)|,\s+(?=(?:{_QUESTION_WORDS})\b))",
    re.IGNORECASE,
)


def clauses(text: str) -> list[str]:
    """The question cut into the questions it asks (one part when it asks one thing)."""
    parts = [p.strip(" ,;") for p in _CUT.split(text)]
    parts = [p for p in parts if len(p.split()) >= 2 or p.endswith("?")]
    if len(parts) < 2 or len(parts) > MAX_PARTS:
        return [text]
    return parts
