"""What keeps untrusted profile text from steering the model, and the key from leaking.

Profile text (function names, labels, file names) is attacker-controlled: anyone who can run a
process under the profiler chooses its function names. It reaches the model only inside a data
block: JSON with every non-ASCII character escaped and ``<``, ``>``, backtick and ``&``
escaped too, between fixed markers made of ``<<<`` and ``>>>``. Because the content can never
contain ``<`` or ``>`` literally, no name can close the block early or open a fake one, so the
markers need no randomness (and the system prompt stays byte-identical between runs).

Model output is untrusted as well: :func:`sanitize_markdown` drops images (a remote image is a
way to send data out when the answer is rendered), neutralises raw HTML and caps the length.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable
from typing import Any

DATA_OPEN = "<<<PROFILE_DATA"
DATA_CLOSE = "PROFILE_DATA>>>"
MAX_ANSWER_CHARS = 12_000
REDACTED = "[redacted]"

_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "`": "\\u0060", "&": "\\u0026"}
_BLOCK = re.compile(re.escape(DATA_OPEN) + r"[^\n]*\n(.*?)\n" + re.escape(DATA_CLOSE), re.S)
_HTML_TAG = re.compile(
    r"<(/?)(script|style|iframe|img|svg|object|embed|link|meta|form|input|button|video|audio|source|a|div|span|"
    r"p|br|table|body|html|head|base|frame|frameset|math|details|summary|textarea|select|option)\b",
    re.I,
)


def clean_text(text: str, limit: int, *, keep_newlines: bool = True) -> str:
    """Text without control, bidi or private-use characters, capped at ``limit`` characters.

    Unlike :func:`explainer.symbols.clean` this keeps line breaks (questions and answers have
    paragraphs) and drops the bad characters instead of showing a replacement mark.
    """
    out = []
    for ch in text.replace("\r\n", "\n").replace("\r", "\n"):
        if ch == "\n":
            out.append("\n" if keep_newlines else " ")
        elif ch == "\t":
            out.append(" ")
        elif unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co", "Cn") and ch not in "\u2028\u2029":
            out.append(ch)
    cleaned = "".join(out)
    return cleaned if len(cleaned) <= limit else cleaned[: limit - 1] + "…"


def encode_data(obj: Any) -> str:
    """JSON that cannot contain the block markers, a backtick fence or a raw non-ASCII character."""
    text = json.dumps(obj, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    for raw, escaped in _JSON_ESCAPES.items():
        text = text.replace(raw, escaped)  # only ever inside strings: JSON syntax has none of these
    return text


def data_block(kind: str, obj: Any) -> str:
    """The one delimited, encoded block untrusted profile text travels in. ``kind`` is ours."""
    if not re.fullmatch(r"[a-z_:]{1,40}", kind):
        raise ValueError(f"data block kind must be a short identifier, got {kind!r}")
    return f"{DATA_OPEN} {kind}\n{encode_data(obj)}\n{DATA_CLOSE}"


def split_data_blocks(text: str) -> tuple[str, list[str]]:
    """(text outside every data block, the JSON inside each block): for tests and audits."""
    inside = _BLOCK.findall(text)
    return _BLOCK.sub("", text), inside


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret replaced; short strings are not treated as secrets."""
    for secret in secrets:
        if secret and len(secret) >= 6:
            text = text.replace(secret, REDACTED)
    return text


def sanitize_markdown(text: str, limit: int = MAX_ANSWER_CHARS) -> tuple[str, bool]:
    """(safe Markdown, was it cut): no images, no raw HTML tags, no bidi tricks, bounded length."""
    text = clean_text(text, len(text) + 1)
    text = text.replace("![", "[")  # an image loads by itself when rendered; a link needs a click
    text = _HTML_TAG.sub(lambda m: f"&lt;{m.group(1)}{m.group(2)}", text)
    cut = len(text) > limit
    if cut:
        text = text[:limit].rsplit("\n", 1)[0] if "\n" in text[:limit] else text[:limit]
    return text, cut
