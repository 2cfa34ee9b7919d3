"""``python -m explainer.ui.serve run APP [options] [-- FILE]``: Streamlit's own command line, plus a
warm-up of the start profile's analysis while the server starts.

Streamlit runs the app script only when a page opens, so without this the first visitor waits for
the app's imports and, for ``explainer app FILE``, for FILE to be read, summarised and turned into
a call tree. ``explainer app`` starts Streamlit through this module instead: once Streamlit has
loaded its settings (so ``st.secrets`` reads the right files), a background thread makes what a
first page shows, in the order it shows it, into the shared cache (:mod:`explainer.ui.cache`).
A page that opens meanwhile waits for the piece it needs (the cache makes each entry once) under a
spinner, instead of doing the work again. The warm-up is the same code a page runs, so it builds
the same keys; when it fails, it only logs: the page then reads the file itself and reports the
error in its own words.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)


def _started(name: str, work: Callable[[], object]) -> threading.Thread:
    def run() -> None:
        try:
            work()
        except Exception:  # the page does the work again and reports a bad file itself; failures are not cached
            log.warning("warm-up: %s failed; the first page does it", name, exc_info=True)

    thread = threading.Thread(target=run, name=f"explainer-warm-{name}", daemon=True)
    thread.start()
    return thread


def _import_page() -> None:
    """The modules ``app.py`` imports beyond :mod:`explainer.ui.sources` (pandas among them), those its
    first run imports late (the handoff's, for the download button), and Streamlit's emoji table: the
    first ``icon=`` emoji a page shows imports it and compiles one large regular expression, 0.45 s of
    the first page's script run (issue 27)."""
    from streamlit import string_util

    from explainer.report import handoff  # noqa: F401
    from explainer.ui import (  # noqa: F401
        budget,
        cache,
        chat,
        cluster_chat,
        diffview,
        expanders,
        exports,
        flamegraph,
        gate,
        pyroscope_form,
        sandwich,
        views,
    )

    string_util.validate_icon_or_emoji("⚠️")
    _skip_direct_run_check()


def _skip_direct_run_check() -> None:
    """Streamlit's first element of the process checks, once, whether it runs outside ``streamlit
    run`` (to log advice): ``inspect.stack()`` on the script thread, which reads the source of every
    frame, 0.25-0.8 s of the first page's script run. This process is ``streamlit run``, so the
    answer is known: mark the check done (a Streamlit without the flag is left alone)."""
    from streamlit import delta_generator

    if hasattr(delta_generator, "_use_warning_has_been_displayed"):
        delta_generator._use_warning_has_been_displayed = True


def warm(script_args: list[str]) -> None:
    """Make the start profile's shared analysis: what ``app.py`` asks the cache for, in page order.

    Two threads where the work leaves the GIL: the page's other imports beside the file's reading
    (inflation runs outside the GIL), and the call tree (numpy sorts) beside the summary and the
    chat's context (Python). 0.25-0.4 s less than one thread on a 500k-stack profile, on 2 cores.
    """
    import streamlit as st

    from explainer.ui import sources

    started = time.perf_counter()
    imports = _started("imports", _import_page)
    profile = sources.start_file(script_args, st.secrets)
    log.info("warm-up: %s read at %.2f s", profile.source.location or "the demo", time.perf_counter() - started)
    imports.join()
    from explainer.analysis.counts import split_counts
    from explainer.ui import cache, flamegraph, views

    # the page draws the summary's profile: the same object, unless frames that count calls were left out
    tree = _started("call tree", lambda: flamegraph.shared(split_counts(profile)[0]))
    summary = cache.summary(profile)
    cache.context(profile)
    tree.join()
    views.shared_table(summary)
    log.info("warm-up: done at %.2f s", time.perf_counter() - started)


def freeze() -> None:
    """Move everything alive now (the warmed analysis, the imported modules) out of the cyclic
    collector's reach. Streamlit runs ``gc.collect(2)`` after every script run; each of those walked
    the warmed 500k-stack state again (114-141 ms of a later page's 1.1 s, issue 27). Frozen objects
    are still freed by reference counting (numpy arrays, the profile's tuples); only a cycle among
    them would now outlive an eviction from the cache, and the cache holds them for the process's
    life in the common case anyway."""
    gc.collect()  # garbage made by the warm-up goes first: frozen, it would never be collected
    gc.freeze()


def warming_run(run: Callable[..., Any]) -> Callable[..., Any]:
    """Streamlit's ``bootstrap.run``, starting :func:`warm` first (settings are loaded by then), and
    :func:`freeze` after it."""

    def warm_and_freeze(args: list[str]) -> None:
        warm(args)
        freeze()

    def run_warm(main_script_path: str, is_hello: bool, args: list[str], flag_options: Any, **kw: Any) -> Any:
        _started("analysis", lambda: warm_and_freeze(list(args)))  # Streamlit's names: it may pass them by keyword
        return run(main_script_path, is_hello, args, flag_options, **kw)

    return run_warm


def main() -> None:
    from streamlit.web import bootstrap, cli

    if callable(getattr(bootstrap, "run", None)):  # another Streamlit without it: the app starts cold
        bootstrap.run = warming_run(bootstrap.run)
    cli.main(prog_name="streamlit")  # as `python -m streamlit` does


if __name__ == "__main__":
    main()
