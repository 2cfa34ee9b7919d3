"""One total deadline for a model answer: connect, every retry and backoff, and every streamed byte.

A read timeout restarts on every chunk, so a server that sends its headers and then one byte
every 0.2 s never trips it; the openai client's retries and backoff add to that. Here:

- :class:`DeadlineTransport` (the HTTP transport of our model client) clamps each request's
  connect/read/write timeouts to what is left of the answer's :class:`Budget` and checks the
  budget on every raw body chunk, so a dripping stream stops soon after the deadline;
- :func:`bounded` runs the stream in a worker thread and waits on it with the budget's
  remaining time, so the caller gets its answer (or :class:`DeadlineExceeded`) on time whatever
  the network does (dripping headers, a stuck DNS lookup), and the worker is told to stop.

The budget travels to the transport in a context variable set in the worker thread, so the
chat model, built once per answer by LangChain, needs no plumbing.
"""

from __future__ import annotations

import contextvars
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx

from explainer.errors import ModelUnavailableError

T = TypeVar("T")
_BUDGET: contextvars.ContextVar[Budget | None] = contextvars.ContextVar("explainer_model_budget", default=None)


class DeadlineExceeded(ModelUnavailableError):
    pass


@dataclass(frozen=True)
class Budget:
    """The end of an answer's time, on ``clock``."""

    seconds: float
    end: float
    clock: Callable[[], float] = time.monotonic

    @classmethod
    def start(cls, seconds: float, clock: Callable[[], float] = time.monotonic, begin: float | None = None) -> Budget:
        """``seconds`` from ``begin`` (default: now)."""
        return cls(seconds, (clock() if begin is None else begin) + seconds, clock)

    def remaining(self) -> float:
        return max(self.end - self.clock(), 0.0)

    @property
    def expired(self) -> bool:
        return self.clock() >= self.end

    def error(self) -> DeadlineExceeded:
        return DeadlineExceeded(f"the model did not answer within {self.seconds:g} s")


class _DeadlineStream(httpx.SyncByteStream):
    def __init__(self, inner: httpx.SyncByteStream, budget: Budget, request: httpx.Request) -> None:
        self.inner, self.budget, self.request = inner, budget, request

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.inner:
            if self.budget.expired:
                raise httpx.ReadTimeout("the answer's deadline passed", request=self.request)
            yield chunk

    def close(self) -> None:
        self.inner.close()


class DeadlineTransport(httpx.BaseTransport):
    """An HTTP transport whose every wait ends by the current answer's deadline."""

    def __init__(self, inner: httpx.BaseTransport | None = None) -> None:
        self.inner = inner or httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        budget = _BUDGET.get()
        if budget is None:
            return self.inner.handle_request(request)
        left = budget.remaining()
        if left <= 0:
            raise httpx.ConnectTimeout("the answer's deadline passed", request=request)
        timeouts = request.extensions.get("timeout", {})
        request.extensions["timeout"] = {
            key: left if timeouts.get(key) is None else min(float(timeouts[key]), left)
            for key in ("connect", "read", "write", "pool")
        }
        response = self.inner.handle_request(request)
        assert isinstance(response.stream, httpx.SyncByteStream)
        return httpx.Response(
            status_code=response.status_code,
            headers=response.headers,
            stream=_DeadlineStream(response.stream, budget, request),
            extensions=response.extensions,
        )

    def close(self) -> None:
        self.inner.close()


def http_client(seconds: float) -> httpx.Client:
    """The model client's HTTP client: our transport, and ``seconds`` as the outer timeout.

    httpx reads ``HTTPS_PROXY``/``HTTP_PROXY``/``ALL_PROXY``/``NO_PROXY`` only when it builds its own
    transport; ours replaces that one, so the proxies are mounted here, each behind the deadline too
    (a company proxy is often the only way out)."""
    return httpx.Client(transport=DeadlineTransport(), mounts=proxy_mounts(), timeout=httpx.Timeout(seconds))


def proxy_mounts(proxies: dict[str, str] | None = None) -> dict[str, httpx.BaseTransport | None]:
    """httpx mounts for the environment's proxies (``urllib.request.getproxies``); a ``NO_PROXY``
    host maps to None, which is the direct transport."""
    import urllib.request

    found = urllib.request.getproxies() if proxies is None else proxies
    mounts: dict[str, httpx.BaseTransport | None] = {}
    for scheme in ("http", "https", "all"):
        url = found.get(scheme, "").strip()
        if url:
            url = url if "://" in url else f"http://{url}"
            mounts[f"{scheme}://"] = DeadlineTransport(httpx.HTTPTransport(proxy=url))
    if not mounts:
        return mounts
    for host in (h.strip() for h in found.get("no", "").split(",")):
        if host == "*":
            return {}
        if host:
            mounts[host if "://" in host else f"all://*{host}" if not host[0].isdigit() else f"all://{host}"] = None
    return mounts


_END = object()


def bounded(make: Callable[[], Iterable[T]], budget: Budget) -> Iterator[T]:
    """The items of ``make()``, produced in a worker thread; :class:`DeadlineExceeded` at the deadline.

    Closing this iterator early (or the deadline) tells the worker to stop at its next item.
    """
    items: queue.Queue[Any] = queue.Queue()
    stop = threading.Event()

    def work() -> None:
        _BUDGET.set(budget)
        try:
            source = iter(make())
            try:
                for item in source:
                    items.put(item)
                    if stop.is_set():
                        break
            finally:
                close = getattr(source, "close", None)
                if close is not None:
                    close()  # ends the HTTP stream now
            items.put(_END)
        except BaseException as exc:  # handed to the caller's thread and raised there
            items.put(_Failure(exc))

    threading.Thread(target=work, name="explainer-model", daemon=True).start()
    try:
        while True:
            left = budget.remaining()
            if left <= 0:
                raise budget.error()
            try:
                item = items.get(timeout=left)
            except queue.Empty:
                raise budget.error() from None
            if item is _END:
                return
            if isinstance(item, _Failure):
                raise item.exc
            yield item
    finally:
        stop.set()


@dataclass(frozen=True)
class _Failure:
    exc: BaseException
