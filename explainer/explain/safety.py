"""What keeps untrusted profile text from steering the model, and the key from leaking.

Profile text (function names, labels, file names) is attacker-controlled: anyone who can run a
process under the profiler chooses its function names. It reaches the model only inside a data
block: JSON with every non-ASCII character escaped and ``<``, ``>``, backtick and ``&``
escaped too, between fixed markers made of ``<<<`` and ``>>>``. Because the content can never
contain ``<`` or ``>`` literally, no name can close the block early or open a fake one, so the
markers need no randomness (and the system prompt stays byte-identical between runs).

Model output is untrusted as well. What it may put on the page is decided here, and only here:
:func:`sanitize_markdown` shows links as plain text (the URL in a code span) unless their host
is one the user configured (Pyroscope, Grafana), defangs images (a remote image sends data out
by merely being rendered), neutralises raw HTML and caps the length; :func:`defang_images`
does the image rule on a stream, for the UI.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Iterator
from typing import Any
from urllib.parse import urlsplit

from explainer import markdown
from explainer.lazyre import lazy

DATA_OPEN = "<<<PROFILE_DATA"
DATA_CLOSE = "PROFILE_DATA>>>"
MAX_ANSWER_CHARS = 12_000
REDACTED = "[redacted]"

_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "`": "\\u0060", "&": "\\u0026"}
_BLOCK = lazy(re.escape(DATA_OPEN) + r"[^\n]*\n(.*?)\n" + re.escape(DATA_CLOSE), re.S)
_HTML_TAG = lazy(
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


_LINKISH = lazy(
    r"(?P<code>(?P<fence>`+)[^\n]*?(?P=fence))"  # a code span: nothing inside renders as a link
    r"|(?P<link>(?P<bang>!?)\[(?P<label>[^\]\n]*)\]\(\s*<?(?P<url>[^)\s>]*)>?(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\))"
    r"|<(?P<auto>[a-z][a-z0-9+.-]{1,31}:[^<>\s]+)>"  # <https://...> autolinks
    r"|(?P<bare>(?<![\w/@])(?:(?:https?|ftp)://|www\.)[^\s<>`]+)",  # GFM linkifies bare URLs
    re.I,
)
_REFERENCE = lazy(r"^( {0,3})\[([^\]\n]+)\]:", re.M)  # [id]: url, the target of [text][id]
_TRAILING = ".,;:!?'\")*_"


def _code(text: str) -> str:
    """A link's target shown as text: one exact code span (the one escaping module's)."""
    return markdown.exact_code(text, len(text) + 1)


def _host_allowed(url: str, hosts: frozenset[str]) -> bool:
    try:
        parts = urlsplit(url if "://" in url else f"http://{url}")
        return parts.scheme in ("http", "https") and (parts.hostname or "").lower() in hosts
    except ValueError:
        return False


def _link(match: re.Match[str], hosts: frozenset[str]) -> str:
    if match.group("code"):
        return match.group(0)
    if match.group("link"):
        url, label = match.group("url"), match.group("label")
        if not match.group("bang") and _host_allowed(url, hosts):
            return match.group(0)
        kind = "image" if match.group("bang") else "link"
        return f"{label or kind} ({_code(url)})" if url else label
    if match.group("auto"):
        url = match.group("auto")
        return match.group(0) if _host_allowed(url, hosts) else _code(url)
    url = match.group("bare")
    kept = url.rstrip(_TRAILING)
    return url if _host_allowed(kept, hosts) else _code(kept) + url[len(kept) :]


def unlink(text: str, hosts: Iterable[str] = ()) -> str:
    """``text`` with every link, autolink and bare URL shown as plain text unless its host is in ``hosts``."""
    allowed = frozenset(h.lower() for h in hosts if h)
    text = _REFERENCE.sub(r"\1\\[\2]:", text)  # a definition a reference link could use becomes text
    for _ in range(4):  # an image inside a link: the inner one goes first, then the outer
        changed = _LINKISH.sub(lambda m: _link(m, allowed), text)
        if changed == text:
            break
        text = changed
    return text


def link_hosts(*urls: str | None) -> tuple[str, ...]:
    """The hosts of ``urls`` (the configured Pyroscope and Grafana), for :func:`unlink`."""
    hosts = []
    for url in (u.strip() for u in urls if u and u.strip()):
        try:
            host = urlsplit(url if "://" in url else f"http://{url}").hostname
        except ValueError:
            continue
        if host:
            hosts.append(host.lower())
    return tuple(dict.fromkeys(hosts))


def defang_images(chunks: Iterable[str]) -> Iterator[str]:
    """Stream chunks with Markdown images disabled outside code spans.

    An image makes the browser fetch a URL chosen by whoever named a symbol or steered the
    model. Backticks are tracked across chunks, and a trailing ``!`` is held back one chunk,
    so ``![`` split between chunks is caught too; names inside code spans stay verbatim.
    """
    in_code, held = False, ""
    for chunk in chunks:
        text, held, out = held + chunk, "", []
        for i, ch in enumerate(text):
            if ch == "`":
                in_code = not in_code
            elif ch == "!" and not in_code:
                if i + 1 == len(text):
                    held = "!"
                    break
                if text[i + 1] == "[":
                    ch = "!\\"
            out.append(ch)
        if out:
            yield "".join(out)
    if held:
        yield held


def sanitize_markdown(text: str, limit: int = MAX_ANSWER_CHARS, hosts: Iterable[str] = ()) -> tuple[str, bool]:
    """(safe Markdown, was it cut): links as plain text unless their host is in ``hosts``, no
    images, no raw HTML tags, no bidi tricks, bounded length."""
    text = clean_text(text, len(text) + 1)
    text = "".join(defang_images([unlink(text, hosts)]))
    text = _HTML_TAG.sub(lambda m: f"&lt;{m.group(1)}{m.group(2)}", text)
    cut = len(text) > limit
    if cut:
        text = text[:limit].rsplit("\n", 1)[0] if "\n" in text[:limit] else text[:limit]
    return text, cut
