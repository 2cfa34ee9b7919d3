"""Time per request and requests in flight, for the long-running servers (MCP, the app).

A request runs in a worker thread; the caller waits at most ``timeout`` seconds and then gets a
one-line error, while the work itself cannot be stopped midway (numpy and the C fold do not look
at a flag) and finishes in the background, still holding its slot. So the number of slots bounds
the work in flight: when every slot is taken, a new request is refused at once rather than queued
behind work nobody waits for any more.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from typing import TypeVar

from explainer.errors import ExplainerError

T = TypeVar("T")
ENV_TIMEOUT, ENV_IN_FLIGHT = "EXPLAINER_REQUEST_TIMEOUT", "EXPLAINER_MAX_IN_FLIGHT"
DEFAULT_TIMEOUT, DEFAULT_IN_FLIGHT = 60.0, 4


class BusyError(ExplainerError):
    """Every slot is taken, or a request ran past its time."""


def _number(env: Mapping[str, str], name: str, default: float, low: float, high: float) -> float:
    text = env.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not low <= value <= high:
        raise BusyError(f"${name} must be a number from {low:g} to {high:g}, not {text[:20]!r}")
    return value


class WorkGate:
    """``run(fn)``: ``fn()`` within ``timeout`` seconds, at most ``slots`` at a time."""

    def __init__(self, what: str, timeout: float = DEFAULT_TIMEOUT, slots: int = DEFAULT_IN_FLIGHT) -> None:
        self.what, self.timeout, self.slots = what, timeout, slots
        self._free = threading.BoundedSemaphore(slots)

    @classmethod
    def from_env(cls, what: str, environ: Mapping[str, str] | None = None) -> WorkGate:
        env = os.environ if environ is None else environ
        timeout = _number(env, ENV_TIMEOUT, DEFAULT_TIMEOUT, 1, 3600)
        slots = int(_number(env, ENV_IN_FLIGHT, DEFAULT_IN_FLIGHT, 1, 256))
        return cls(what, timeout, slots)

    def run(self, fn: Callable[[], T]) -> T:
        if not self._free.acquire(blocking=False):
            raise BusyError(
                f"{self.what} is already working on {self.slots} requests; try again shortly "
                f"(the operator raises the bound with {ENV_IN_FLIGHT})"
            )
        box: list[T] = []
        failure: list[BaseException] = []

        def work() -> None:
            try:
                box.append(fn())
            except BaseException as exc:  # handed to the caller below
                failure.append(exc)
            finally:
                self._free.release()

        worker = threading.Thread(target=work, name=f"explainer-{self.what}", daemon=True)
        worker.start()
        worker.join(self.timeout)
        if worker.is_alive():
            raise BusyError(
                f"the request took longer than {self.timeout:g} s and was given up "
                f"(the operator raises the bound with {ENV_TIMEOUT})"
            )
        if failure:
            raise failure[0]
        return box[0]
