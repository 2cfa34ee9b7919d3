"""HTTP for the Pyroscope client: deadlines, retries, safe redirects and typed errors.

Hazards this module exists for (docs/reliability.md, "Pyroscope server faults"):

* ``requests``' read timeout restarts on every received chunk, so a server that drips a
  byte a second never trips it, and even the status line can be dripped. Each exchange
  therefore runs in a worker thread while the caller waits on a monotonic deadline; the
  worker checks the deadline and a cancel flag between chunks, so it stops soon after.
* Bodies are read raw and capped (:mod:`explainer.pyroscope.wire`).
* Redirects are followed here, not by ``requests``: credentials and the tenant header go
  only to the origin the user named, and a redirected API POST is never silently turned
  into a GET (what 301/302/303 mean); that is what a login proxy does, so we say so.
* Only 429 and 5xx are retried (the query POSTs are idempotent), with capped exponential
  backoff and jitter, never sleeping past the deadline.
"""

from __future__ import annotations

import json as jsonlib
import random
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urljoin, urlsplit

import requests

from explainer.errors import (
    AuthError,
    BadResponseError,
    ExplainerError,
    QueryError,
    ServerTimeoutError,
    ServerUnreachableError,
)
from explainer.pyroscope import wire
from explainer.pyroscope.auth import Credentials
from explainer.readers import jsonsafe
from explainer.symbols import clean

_ERROR_BODY_CAP = 64 * 1024  # a Connect error is a few hundred bytes; a proxy page a few KB
_MASKED_PREFIX = _ERROR_BODY_CAP  # masked whole before an excerpt (80-200 characters) is cut from it
_RETRY = frozenset({429, 500, 502, 503, 504})
_REDIRECT = frozenset({301, 302, 303, 307, 308})
_NO_CREDENTIALS = "the server wants credentials: set PYROSCOPE_USER + PYROSCOPE_PASSWORD, PYROSCOPE_TOKEN or --tenant"

Event = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class TransportOptions:
    connect_timeout: float = 5.0
    read_timeout: float | None = None  # per socket read; None: whatever is left of the deadline
    max_attempts: int = 3
    backoff_base: float = 0.25
    backoff_cap: float = 4.0
    retry_after_cap: float = 10.0
    max_response: int = 128 * 2**20  # bytes on the wire and after gzip, each
    max_profile: int = 384 * 2**20  # the same for a binary pprof: a file's cap (--max-size), not JSON's
    max_redirects: int = 3
    # False where the server is whatever a user typed (the app): errors then carry one line of
    # status and never a fetched page's title, text or keys (no server-side request forgery echo)
    quote_bodies: bool = True


class Deadline:
    """A point on the monotonic clock that a whole operation (retries included) must meet."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self._clock = clock
        self._end = clock() + seconds

    def remaining(self) -> float:
        return max(self._end - self._clock(), 0.0)

    @property
    def expired(self) -> bool:
        return self.remaining() <= 0.0


class _ClosedUnanswered(ServerUnreachableError):
    """The connection closed before any answer: safe to send an idempotent query again."""


class ApiUnavailableError(BadResponseError):
    """The endpoint does not exist here (HTTP 404/405/501 or Connect ``unimplemented``)."""


class CodecUnavailableError(ApiUnavailableError):
    """The endpoint exists but not in this encoding (HTTP 415: e.g. a proxy or server without ``application/proto``)."""


@dataclass(frozen=True, slots=True)
class Payload:
    """A request body already encoded, with its media type; ``cap`` bounds the answer (0: the JSON
    cap) and ``lift`` names the option that raises that cap in the too-big message."""

    data: bytes
    content_type: str = "application/json"
    cap: int = 0
    lift: str = ""


@dataclass(frozen=True, slots=True)
class Reply:
    status: int
    headers: Mapping[str, str]  # case-insensitive
    body: bytes | bytearray
    url: str
    attempts: int = 1

    @property
    def content_type(self) -> str:
        return self.headers.get("Content-Type", "").split(";")[0].strip().lower()


@dataclass(frozen=True, slots=True)
class _Call:
    method: str
    url: str
    data: bytes | None
    params: Any
    endpoint: str
    deadline: Deadline
    trusted: bool = True  # False once redirected to another origin: no credentials, no tenant
    content_type: str = "application/json"
    cap: int = 0  # 0: options.max_response
    lift: str = ""  # the option that raises ``cap``, for the too-big message


class Transport:
    """Sends requests to one server; every failure leaves as an ``explainer.errors`` leaf."""

    def __init__(
        self,
        session: requests.Session,
        base_url: str,
        credentials: Credentials,
        options: TransportOptions | None = None,
        *,
        on_event: Event | None = None,
        sleep: Callable[[float], None] = time.sleep,
        jitter: Callable[[], float] = random.random,
    ) -> None:
        self.session = session
        self.base_url = base_url
        self.credentials = credentials.for_url(base_url)  # bound secrets never leave their origin
        if self.credentials.kind != "none" and not wire.private_transport(base_url):
            from explainer.notices import warn_once

            host = clean(wire.origin(base_url)[1], 80)
            warn_once(
                f"plain-http:{host}", f"credentials go to {host} over plain http:// (readable on the way); use https://"
            )
        self.options = options or TransportOptions()
        self._event = on_event or (lambda _text: None)
        self._sleep = sleep
        self._jitter = jitter

    def request(
        self,
        method: str,
        path: str,
        endpoint: str,
        deadline: Deadline,
        *,
        json: Any = None,
        params: Any = None,
        payload: Payload | None = None,
    ) -> Reply:
        """A 2xx reply, after redirects and retries; anything else raises a typed error.
        ``payload`` is a body already encoded (binary protobuf), answered in the same media type."""
        data = None if json is None else jsonlib.dumps(json, separators=(",", ":")).encode()
        call = _Call(method, self.base_url + path, data, params, endpoint, deadline)
        if payload is not None:
            call = replace(
                call, data=payload.data, content_type=payload.content_type, cap=payload.cap, lift=payload.lift
            )
        reply = self._with_retries(call)
        if 200 <= reply.status < 300:
            return reply
        raise self._status_error(reply, endpoint)

    def json(self, reply: Reply, endpoint: str) -> Any:
        """The reply's JSON; an HTML page or broken JSON becomes a :class:`BadResponseError`."""
        where = f"{endpoint} on {self.base_url}"
        if reply.content_type == "text/html" or wire.starts_with(reply.body, b"<"):
            raise self._bad(f"{where} answered with HTML, not the API{self._quote(reply.body)}")
        try:
            return jsonsafe.loads(reply.body, what=f"{endpoint} response")
        except ExplainerError as exc:
            reason = str(exc.args[0]).split(": ", 1)[-1]  # the decoder's words, not its file-reading hint
            quoted = self._quote(reply.body, "; it starts ")
            raise self._bad(f"{where} answered with invalid JSON ({clean(reason, 80)}){quoted}") from exc

    def _masked(self, body: bytes | bytearray) -> bytes:
        """The start of a body with every secret masked: done before any excerpt is cut from it."""
        text = bytes(body[:_MASKED_PREFIX]).decode("utf-8", errors="replace")
        return self.credentials.redact(text).encode("utf-8")

    def _quote(self, body: bytes | bytearray, lead: str = ": ") -> str:
        """A short masked excerpt of a body, or nothing when this server's pages must not be echoed."""
        if not self.options.quote_bodies:
            return ""
        return f"{lead}{wire.excerpt(self._masked(body))!r}"

    def _bad(self, message: str, cls: type[ExplainerError] = BadResponseError, hint: str = "") -> ExplainerError:
        """Every message that may quote the server passes the redactor: proxies echo headers back."""
        return cls(self.credentials.redact(message), hint=hint)

    def _with_retries(self, call: _Call) -> Reply:
        opts = self.options
        for attempt in range(1, opts.max_attempts + 1):
            try:
                reply = replace(self._follow(call), attempts=attempt)
            except _ClosedUnanswered as exc:
                # a kept-alive connection the server (or a proxy) had already closed: the
                # request never got an answer and the query is idempotent, so send it again
                if attempt == opts.max_attempts:
                    raise ServerUnreachableError(f"{exc.args[0]}, {attempt} times") from exc
                continue
            if reply.status not in _RETRY or attempt == opts.max_attempts:
                return reply
            delay = self._delay(attempt, reply)
            if delay >= call.deadline.remaining():
                return reply  # report this reply now rather than fail later at the deadline
            self._event(
                f"HTTP {reply.status} from {call.endpoint}; retry {attempt + 1}/{opts.max_attempts} in {delay:.1f}s"
            )
            self._sleep(delay)
        raise AssertionError("unreachable")  # pragma: no cover

    def _delay(self, attempt: int, reply: Reply) -> float:
        opts = self.options
        asked = wire.retry_after(reply.headers.get("Retry-After", ""))
        if asked is not None:
            return min(asked, opts.retry_after_cap)
        step = min(opts.backoff_cap, opts.backoff_base * 2.0 ** (attempt - 1))
        return step / 2 + self._jitter() * step / 2  # "equal jitter": never zero, never in lockstep

    def _follow(self, call: _Call) -> Reply:
        where = f"{call.endpoint} on {self.base_url}"
        for _hop in range(self.options.max_redirects + 1):
            reply = self._exchange(call)
            location = reply.headers.get("Location", "")
            if reply.status not in _REDIRECT or not location:
                return reply
            target = urljoin(call.url, location)
            host = clean(wire.origin(target)[1], 80)
            if urlsplit(target).scheme not in ("http", "https"):
                raise self._bad(f"{where} redirected to a non-HTTP URL")
            if call.method != "GET" and reply.status not in (307, 308):
                raise self._bad(
                    f"{where} redirected the API call to {host} (HTTP {reply.status}); a login page or proxy? "
                    "Give the URL of the Pyroscope API itself"
                )
            trusted = call.trusted and wire.origin(target) == wire.origin(self.base_url)
            if call.trusted and not trusted:
                self._event(f"redirected to {host}: credentials and tenant are not sent there")
            call = replace(call, url=target, params=None, trusted=trusted)  # Location carries its own query
        raise self._bad(f"{where} redirected more than {self.options.max_redirects} times")

    def _exchange(self, call: _Call) -> Reply:
        if call.deadline.expired:
            raise self._timeout(call)
        box: list[Reply | BaseException] = []
        done, cancel = threading.Event(), threading.Event()

        def work() -> None:
            try:
                box.append(self._exchange_now(call, cancel))
            except BaseException as exc:  # handed to the caller's thread and raised there
                box.append(exc)
            finally:
                done.set()

        # daemon: a worker stuck in a recv must not keep the process alive once we gave up on it
        threading.Thread(target=work, name=f"pyroscope-{call.endpoint}", daemon=True).start()
        if not done.wait(call.deadline.remaining()):
            cancel.set()
            raise self._timeout(call)
        outcome = box[0]
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    def _timeout(self, call: _Call) -> ExplainerError:
        return ServerTimeoutError(
            f"{call.endpoint} on {self.base_url} did not complete within {call.deadline.seconds:g}s"
        )

    def _exchange_now(self, call: _Call, cancel: threading.Event) -> Reply:
        # Connect answers a unary call in the request's codec; Accept says so to proxies too
        headers: dict[str, str | None] = {"Accept-Encoding": "gzip", "Accept": call.content_type}
        if call.data is not None:
            headers["Content-Type"] = call.content_type
        extra = self.credentials.headers()
        for name in ("Authorization", "X-Scope-OrgID"):
            headers[name] = extra.get(name) if call.trusted else None  # None also drops a session header
        remaining = max(call.deadline.remaining(), 0.001)
        read = self.options.read_timeout
        timeout = (min(self.options.connect_timeout, remaining), min(read, remaining) if read else remaining)
        try:
            response = self.session.request(
                call.method, call.url, data=call.data, params=call.params, headers=headers, timeout=timeout,
                stream=True, allow_redirects=False, auth=wire.NoAuth(),
            )  # fmt: skip
        except requests.exceptions.ConnectTimeout as exc:
            message = f"cannot reach {self.base_url} ({call.endpoint}): no connection within {timeout[0]:g}s"
            raise self._bad(message, ServerUnreachableError) from exc
        except requests.exceptions.Timeout as exc:
            message = f"{call.endpoint} on {self.base_url} sent nothing for {timeout[1]:.3g}s"
            raise (self._timeout(call) if call.deadline.expired else ServerTimeoutError(message)) from exc
        except requests.exceptions.RequestException as exc:
            reason = wire.connection_reason(exc)
            cls = _ClosedUnanswered if reason == wire.CLOSED else ServerUnreachableError
            raise self._bad(f"cannot reach {self.base_url} ({call.endpoint}): {reason}", cls) from exc

        def stop() -> ExplainerError | None:
            return self._timeout(call) if cancel.is_set() or call.deadline.expired else None

        with response:
            status = response.status_code
            ok = 200 <= status < 300
            cap = (call.cap or self.options.max_response) if ok else _ERROR_BODY_CAP
            where = f"{call.endpoint} on {self.base_url}"
            body = b"" if status in _REDIRECT else wire.read_body(response, where, cap, ok, stop, call.lift)
            return Reply(status, response.headers, body, call.url)

    def _status_error(self, reply: Reply, endpoint: str) -> ExplainerError:
        code, message = wire.connect_error(self._masked(reply.body))
        if not self.options.quote_bodies:
            message = ""  # one line of status only: a fetched page's title or text is not ours to show
        status = reply.status
        detail = f" (HTTP {status}{' ' + code if code else ''})" + (f": {message}" if message else "")
        where = f"{endpoint} on {self.base_url}"
        tries = f" after {reply.attempts} attempts" if reply.attempts > 1 else ""
        if status in (401, 403) or code in ("unauthenticated", "permission_denied"):
            hint = "" if self.credentials.kind != "none" else _NO_CREDENTIALS
            if self.credentials.withheld:
                hint = (
                    f"the configured credentials belong to {self.credentials.withheld} and are never sent to "
                    "another server; give this server its own credentials"
                )
            return self._bad(f"{where} refused the request{detail}", AuthError, hint)
        if status == 415:
            return self._bad(f"{where} does not take this encoding{detail}", CodecUnavailableError)
        if status in (404, 405, 501) or code == "unimplemented":
            return self._bad(f"{where} is not available{detail}", ApiUnavailableError)
        if status == 429:
            return self._bad(f"{where} is rate-limiting us{tries}{detail}", ServerUnreachableError, "wait and retry")
        if status in (502, 503):
            return self._bad(f"{where} is unavailable{tries}{detail}", ServerUnreachableError)
        if status == 504 or code == "deadline_exceeded":
            return self._bad(f"{where} timed out on the server side{tries}{detail}", ServerTimeoutError)
        if 400 <= status < 500 and code in ("", "invalid_argument", "failed_precondition", "out_of_range"):
            return self._bad(f"{where} rejected the query{detail}", QueryError)
        return self._bad(f"{where} failed{tries}{detail}", hint="retry later, or check the server's logs")
