"""Time per request and requests in flight, for the long-running servers (MCP, the app).

A request runs in a worker thread; the caller waits at most ``timeout`` seconds and then gets a
one-line error, while the work itself cannot be stopped midway (numpy and the C fold do not look
at a flag) and finishes in the background, still holding its slot. So the number of slots bounds
the work in flight: when every slot is taken, a new request is refused at once rather than queued
behind work nobody waits for any more. The app's gate (``queue=True``) instead waits for a slot,
within the same time bound: a page whose analysis waits its turn is better than one refused.
"""

from __future__ import annotations

import os
import threading
import time
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

    def __init__(
        self,
        what: str,
        timeout: float = DEFAULT_TIMEOUT,
        slots: int = DEFAULT_IN_FLIGHT,
        variables: tuple[str, str] = (ENV_TIMEOUT, ENV_IN_FLIGHT),
        queue: bool = False,
    ) -> None:
        self.what, self.timeout, self.slots = what, timeout, slots
        # queue: wait (within the time bound) for a slot, as a page does; else refuse at once, as MCP does
        self.queue = queue
        self.timeout_env, self.slots_env = variables  # what the messages tell the operator to set
        self._free = threading.BoundedSemaphore(slots)

    @classmethod
    def from_env(
        cls,
        what: str,
        environ: Mapping[str, str] | None = None,
        variables: tuple[str, str] = (ENV_TIMEOUT, ENV_IN_FLIGHT),
        defaults: tuple[float, int] = (DEFAULT_TIMEOUT, DEFAULT_IN_FLIGHT),
        queue: bool = False,
    ) -> WorkGate:
        """The gate with its bounds read from ``variables`` (time, slots), else ``defaults``."""
        env = os.environ if environ is None else environ
        timeout = _number(env, variables[0], defaults[0], 1, 3600)
        slots = int(_number(env, variables[1], defaults[1], 1, 256))
        return cls(what, timeout, slots, variables, queue)

    def run(self, fn: Callable[[], T]) -> T:
        start = time.monotonic()
        free = self._free.acquire(timeout=self.timeout) if self.queue else self._free.acquire(blocking=False)
        if not free:
            raise BusyError(
                f"{self.what} is already working on {self.slots} requests; try again shortly "
                f"(the operator raises the bound with {self.slots_env})"
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
        worker.join(max(self.timeout - (time.monotonic() - start), 0.0))  # a wait for a slot counts too
        if worker.is_alive():
            raise BusyError(
                f"the request took longer than {self.timeout:g} s and was given up "
                f"(the operator raises the bound with {self.timeout_env})"
            )
        if failure:
            raise failure[0]
        return box[0]
