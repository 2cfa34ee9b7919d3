"""The second core at start-up: import what a command needs next while its profile is read.

Why: a large profile's read is mostly C that holds no GIL (the file or pipe read, ISA-L's inflate,
the compiled fold; an HTTP wait on a server), so one core sits idle for a few tenths of a second,
and then the command imports its report, analysis and question modules (and compiles the frame
patterns, reads the question lexicon) on the same core. Here a thread does that work during the
read instead.

The rules that keep it safe:

* Two threads never import at once. A read first imports everything it needs (the reader of its
  format, the Pyroscope client), then opens the window (:meth:`Warmup.start`); when the read returns
  (or fails) the window is closed (:meth:`Warmup.close`, a join) before the main thread does anything
  else. ``tests/test_warmup.py`` pins that the main thread imports nothing while the window is open.
* A failure in the thread is swallowed there: the main thread imports the same module afterwards and
  raises as it would have without the warm-up (nothing is printed from the thread).
* Only the program arms it (:func:`explainer.cli.main.run`); in-process callers (``main.main``, the
  tests, the app) read as before. ``EXPLAINER_WARMUP=0`` turns it off.
* The cyclic collector stays off until the window closes, then everything both threads imported is
  frozen (a one-shot process never frees it) and the collector is turned back on: see ``main.run``.
"""

from __future__ import annotations

import importlib
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress

# command -> what its work imports or builds once the profile is read: "module" is imported,
# "module:function" is also called (a cached table: the frame patterns' compile, the question lexicon).
# The one place that says what a verb warms; tests check every entry exists and that each verb's module
# leaves these to the warm-up (tests/test_warmup.py, tests/test_startup.py).
WARMS: dict[str, tuple[str, ...]] = {
    "analyze": (
        "explainer.analysis.summary",
        "explainer.analysis.counts",
        "explainer.report.analyze",
        "explainer.knowledge.classify:warm",
    ),
    "handoff": (
        "explainer.analysis.summary",
        "explainer.analysis.counts",
        "explainer.report.handoff",
        "explainer.knowledge.classify:warm",
    ),
    "ask": (
        "explainer.analysis.summary",
        "explainer.analysis.counts",
        "explainer.explain.conversation",
        "explainer.explain.answers.offline",
        "explainer.explain.cluster_words",
        "explainer.knowledge.classify:warm",
        "explainer.explain.question.lexicon:lexicon",
    ),
}

# What a read imports, imported before the window opens. A file or stdin needs only the reader of its
# format (``explainer.readers.read_bytes`` imports it, having sniffed the inflated head); a server
# also needs the HTTP client and the Pyroscope modules, and may answer a flame graph (JSON) or pprof.
SERVER_READ = (
    "requests",
    "explainer.pyroscope.client",
    "explainer.pyroscope.exact",
    "explainer.pyroscope.query",
    "explainer.pyroscope.selector",
    "explainer.pyroscope.source",
    "explainer.symbols",  # the progress line's notes are cleaned as they come
)
SERVER_FORMATS = ("pprof", "json")  # what a server answers: readers.prepare_read imports their readers

ENV = "EXPLAINER_WARMUP"


def enabled() -> bool:
    return os.environ.get(ENV, "1").strip().lower() not in ("0", "off", "no", "false")


def warm(step: str) -> None:
    """One table entry: import the module, and call the function when one is named."""
    module, _, function = step.partition(":")
    loaded = importlib.import_module(module)
    if function:
        getattr(loaded, function)()


class Warmup:
    """One window per process: :meth:`start` once the read's own imports are done, :meth:`close` when
    the read is over. ``on_close`` runs once, when the window closes (or would have: see :func:`reading`)."""

    def __init__(self, steps: tuple[str, ...], on_close: Callable[[], None] | None = None) -> None:
        self.steps = steps
        self._on_close = on_close
        self._thread: threading.Thread | None = None
        self._closed = False
        self.failed: list[str] = []  # the steps that raised in the thread (the main thread redoes them)

    def _run(self) -> None:
        for step in self.steps:
            try:
                warm(step)
            except BaseException:  # swallowed: the main thread imports it again and raises there
                self.failed.append(step)

    def start(self) -> None:
        if self._thread is None and not self._closed:
            self._thread = threading.Thread(target=self._run, name="explainer-warmup", daemon=True)
            self._thread.start()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._thread is not None:
            self._thread.join()
        if self._on_close is not None:
            self._on_close()


_armed: Warmup | None = None
_program = False  # main.run armed this process for a one-shot command: the second core is ours to use


def arm(verb: str, on_close: Callable[[], None] | None = None) -> Warmup | None:
    """Prepare the window for ``verb`` (``main.run`` only); None when the verb warms nothing or it is off."""
    global _armed, _program
    steps = WARMS.get(verb)
    _program = bool(steps) and enabled()  # a one-shot command: long-running ones (app, mcp, chat) never
    _armed = Warmup(steps, on_close) if steps and _program else None
    return _armed


def disarm() -> None:
    global _armed, _program
    _armed, _program = None, False


def runs_beside() -> bool:
    """Does :func:`beside` run its work (in the program), or leave it to whoever needs the result?"""
    return _program


@contextmanager
def beside(work: Callable[[], object]) -> Iterator[None]:
    """Run ``work`` on a second thread while the block runs, joined when it ends: for two passes over a
    large profile's frames that are C without the GIL. The block must import nothing (its modules are
    imported before), so at most ``work`` imports; its result must be kept where the code after the
    block finds it (a per-profile memo); a failure is swallowed there, and whoever needs the result
    computes it again and raises. Only in the program (see :func:`arm`): elsewhere ``work`` is not run."""
    if not runs_beside():
        yield
        return
    thread = threading.Thread(target=_quietly, args=(work,), name="explainer-beside", daemon=True)
    thread.start()
    try:
        yield
    finally:
        thread.join()


def _quietly(work: Callable[[], object]) -> None:
    with suppress(BaseException):  # swallowed: the main thread computes it again where it is needed
        work()


@contextmanager
def reading(*, server: bool = False) -> Iterator[Callable[[], None] | None]:
    """Around the read of a command's profile: yields the function that opens the window (None when
    nothing is armed), to be called once the read has imported what it needs; the window is closed,
    the warm-up joined, when the block ends, whichever way. ``server``: the Pyroscope modules are
    imported first and the window opens at once (the HTTP wait is the overlap)."""
    global _armed
    warmup, _armed = _armed, None  # the first read only: a baseline or a second profile reads plainly
    if warmup is None:
        yield None
        return
    try:
        if server:
            from explainer.readers import prepare_read

            for module in SERVER_READ:
                importlib.import_module(module)
            for fmt in SERVER_FORMATS:
                prepare_read(fmt)
            warmup.start()
        yield warmup.start
    finally:
        warmup.close()
