"""Bytes on the wire: a bounded body reader, capped gzip, and short safe excerpts.

``requests`` would inflate gzip for us, but with no limit: 100 MiB of zeros is ~100 KB
gzipped. Here the raw body is read in ``read1`` chunks (what has arrived, not a full
buffer, so a dripping server cannot hold us between deadline checks) and inflated as a stream
by the same inflater files go through, so memory stays near the cap whatever the ratio.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

import requests
import urllib3

from explainer.errors import BadResponseError, DecodeError, ExplainerError, ServerTimeoutError
from explainer.readers import jsonsafe, limits
from explainer.symbols import clean

CHUNK = 64 * 1024
_NOT_SPACE = re.compile(rb"[^ \t\r\n\f\v]")
CLOSED = "the server closed the connection without answering"
_CUT = "the response was cut short (a server restart or a proxy timeout?) and was not used; retry"


class Inflater:
    """Collects a body, inflating gzip as a stream (:class:`explainer.readers.limits.GzipStream`,
    the same inflater files go through); never holds much more than ``cap`` bytes."""

    def __init__(self, encoding: str, cap: int, where: str) -> None:
        encoding = encoding.strip().lower()
        if encoding not in ("", "identity", "gzip", "x-gzip"):
            raise BadResponseError(f"{where}: unsupported Content-Encoding {clean(encoding, 30)!r}")
        self._gzip = limits.GzipStream() if encoding in ("gzip", "x-gzip") else None
        self._out = bytearray()
        self._cap = cap
        self._where = where

    @property
    def over(self) -> bool:
        return len(self._out) > self._cap

    def feed(self, chunk: bytes) -> None:
        if self._gzip is None:
            self._out += chunk
            return
        try:
            for piece in self._gzip.feed(chunk):
                self._out += piece
                if self.over:
                    return  # stop inflating: the caller reports the cap
        except DecodeError as exc:
            reason = str(exc.args[0]).split(": ", 1)[-1]
            raise BadResponseError(f"{self._where}: the gzip body does not decompress ({reason})") from exc

    def partial(self) -> bytes:
        return bytes(self._out[: self._cap])

    def finish(self) -> bytearray:
        if self._gzip is not None and not self._gzip.complete:
            raise BadResponseError(f"{self._where}: the gzip body ends early", hint=_CUT)
        return self._out  # no copy: a body can be the whole 128 MiB cap


def starts_with(body: bytes | bytearray, prefix: bytes) -> bool:
    """Whether ``body``, after leading whitespace, starts with ``prefix`` (without copying ``body``)."""
    match = _NOT_SPACE.search(body)
    return match is not None and body[match.start() : match.start() + len(prefix)] == prefix


class NoAuth(requests.auth.AuthBase):
    """Stops ``requests`` adding session or ``.netrc`` credentials behind our back."""

    def __call__(self, r: requests.PreparedRequest) -> requests.PreparedRequest:
        return r


def origin(url: str) -> tuple[str, str, int]:
    """Scheme, host and port: what must match for credentials to follow a redirect."""
    parts = urlsplit(url)
    return parts.scheme, (parts.hostname or "").lower(), parts.port or (443 if parts.scheme == "https" else 80)


def private_transport(url: str) -> bool:
    """True for https://, and for http:// to this machine (loopback), where nobody sits in between."""
    import ipaddress

    scheme, host, _port = origin(url)
    if scheme == "https" or host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


FLAME_GRAPH_LIFT = "narrow the selector or time range, lower --max-nodes, or raise --max-size if you trust this server"
PROFILE_LIFT = "raise --max-size (bytes) if you trust this server, or narrow the selector or time range"


def too_big(where: str, cap: int, lift: str = "") -> BadResponseError:
    """``lift`` names what raises the cap for this kind of answer (a full profile has no node budget)."""
    return BadResponseError(f"{where}: the response is larger than the {cap:,}-byte cap", hint=lift or FLAME_GRAPH_LIFT)


def read_body(
    response: requests.Response,
    where: str,
    cap: int,
    strict: bool,
    stop: Callable[[], ExplainerError | None],
    lift: str = "",
) -> bytes | bytearray:
    """The whole body, inflated, or an error; ``stop()`` returns an error once time is up.

    ``strict`` is for success bodies: over the cap, cut short or broken is an error, because
    a partial profile must never be analysed. Error bodies are only read for their message,
    so there the first ``cap`` bytes are enough and a broken stream is not worth a second error.
    """
    declared = response.headers.get("Content-Length", "")
    length = int(declared) if declared.isdigit() else None
    if strict and length is not None and length > cap:
        raise too_big(where, cap, lift)
    inflater = Inflater(response.headers.get("Content-Encoding", ""), cap, where)
    raw: Any = response.raw
    read = getattr(raw, "read1", None) or raw.read
    wire = 0
    try:
        while True:
            error = stop()
            if error is not None:
                raise error
            chunk = read(CHUNK, decode_content=False)
            if not chunk:
                break
            wire += len(chunk)
            inflater.feed(chunk)
            if wire > cap or inflater.over:
                if strict:
                    raise too_big(where, cap, lift)
                return inflater.partial()
    except ExplainerError:
        raise
    except Exception as exc:  # requests, urllib3 (ProtocolError, IncompleteRead) and socket errors alike
        if not strict:
            return inflater.partial()
        if isinstance(exc, TimeoutError | urllib3.exceptions.TimeoutError | requests.exceptions.Timeout):
            raise ServerTimeoutError(f"{where}: the server stopped sending after {wire:,} bytes") from exc
        raise BadResponseError(f"{where}: the connection broke after {wire:,} bytes", hint=_CUT) from exc
    if not strict:
        return inflater.partial()
    if length is not None and wire != length:
        raise BadResponseError(f"{where}: the response ended after {wire:,} of {length:,} bytes", hint=_CUT)
    return inflater.finish()


def connect_error(body: bytes | bytearray) -> tuple[str, str]:
    """Connect's ``{"code", "message"}`` from an error body, or ``("", excerpt)`` for anything else."""
    try:
        obj = jsonsafe.loads(body) if starts_with(body, b"{") else None
    except ExplainerError:
        obj = None
    if isinstance(obj, dict) and isinstance(obj.get("code"), str):
        return clean(obj["code"], 40), clean(" ".join(str(obj.get("message") or "").split()), 200)
    return "", excerpt(body) if _NOT_SPACE.search(body) else ""


def excerpt(body: bytes | bytearray, limit: int = 80) -> str:
    """A short, printable piece of a body for an error message (an HTML page's title if it has one)."""
    text = body[:4096].decode("utf-8", errors="replace")
    lower = text.lower()
    start, end = lower.find("<title>"), lower.find("</title>")
    if 0 <= start < end:
        text = "HTML page titled " + text[start + 7 : end]
    return clean(" ".join(text.split()), limit)


def retry_after(value: str, now: Callable[[], float] = time.time) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or an HTTP date); None if absent or bad."""
    value = value.strip()
    if not value:
        return None
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(float(when.timestamp()) - now(), 0.0)


def connection_reason(exc: BaseException) -> str:
    """A short cause for a connection failure, found anywhere in the exception chain."""
    seen: object = exc
    for _ in range(12):  # chains are short; a cycle must not hang us
        if not isinstance(seen, BaseException):
            break
        name = type(seen).__name__
        if isinstance(seen, ConnectionRefusedError):
            return "connection refused"  # the error's hint says what to check
        if isinstance(seen, requests.exceptions.SSLError):
            return "TLS handshake failed"
        if "NameResolution" in name or "gaierror" in name:
            return "the host name does not resolve"
        if "RemoteDisconnected" in name or isinstance(seen, ConnectionResetError):
            return CLOSED
        # urllib3 keeps the cause in .reason (MaxRetryError) or args[0] (ProtocolError)
        seen = getattr(seen, "reason", None) or seen.__cause__ or seen.__context__ or (seen.args[:1] or [None])[0]
    return type(exc).__name__
