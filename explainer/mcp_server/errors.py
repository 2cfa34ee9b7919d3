"""An error as an assistant should read it: the one-line message, and a hint that names an MCP
tool or argument, never a CLI flag or a path in our repository (the assistant has neither)."""

from __future__ import annotations

from explainer import errors
from explainer.explain.toolset import UnknownFunction
from explainer.symbols import clean

_WINDOW = "query.start and query.end"
# most specific first: the first class an error is an instance of gives the hint
_HINTS: tuple[tuple[type[errors.ExplainerError], str], ...] = (
    (UnknownFunction, "the search_functions or top_functions tool lists the names in this profile"),
    (errors.NoSuchFunctionError, "the search_functions or top_functions tool lists the names in this profile"),
    (errors.SampleTypeError, "pass one of the listed types as sample_type"),
    (errors.SizeLimitError, "the operator sets the size limit when starting the server"),
    (errors.ProfileError, "the source must be a pprof profile, Pyroscope flame-graph JSON or folded stacks"),
    (errors.UnknownProfileTypeError, "pass one of the listed IDs as query.profile_type"),
    (errors.EmptyResultError, f"widen {_WINDOW}, or loosen query.selector"),
    (errors.ServerTimeoutError, f"narrow {_WINDOW} or query.selector"),
    (errors.ServerUnreachableError, "the operator's Pyroscope server did not answer; try again later"),
    (errors.AuthError, "the operator's credentials for the Pyroscope server were refused"),
    (errors.BadResponseError, "the operator's Pyroscope server sent something unexpected; try again later"),
    (errors.QueryError, ""),
    (errors.SourceNotFoundError, "pass a path relative to an allowed root"),
)


def describe(exc: errors.ExplainerError, limit: int = 400) -> str:
    """``exc`` in one line for an assistant."""
    message = " ".join(str(exc.args[0]).split()) if exc.args else type(exc).__name__
    if isinstance(exc, UnknownFunction) and exc.similar:
        message += "; similar names: " + ", ".join(repr(clean(s, 120)) for s in exc.similar)
    hint = next((h for cls, h in _HINTS if isinstance(exc, cls)), "")
    return clean(f"{message} ({hint})" if hint else message, limit)
