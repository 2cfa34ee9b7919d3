"""What a person reads when something went wrong on the page: one line, never a traceback."""

from __future__ import annotations

import logging

from explainer.errors import ExplainerError
from explainer.symbols import clean

log = logging.getLogger(__name__)


def friendly(exc: BaseException) -> str:
    """One line a person can act on; never a traceback, never more than a few hundred chars."""
    if isinstance(exc, ExplainerError):
        return clean(str(exc), 400)
    log.exception("unexpected error while reading a profile")
    return f"Could not read this profile (unexpected {type(exc).__name__}); the error was logged on the server."
