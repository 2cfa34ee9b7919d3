"""Grafana Pyroscope as a live profile source.

client     PyroscopeClient: Connect JSON API (render API as the fallback) -> Profile
query      profile types by ID or meaning, label selectors, time windows
transport  deadlines, retries, safe redirects, typed errors
wire       bounded body reading and capped gzip
auth       basic auth, bearer token, tenant; secrets masked everywhere
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explainer.lazy import face

if TYPE_CHECKING:
    from explainer.pyroscope.auth import Credentials, credentials_from, split_url
    from explainer.pyroscope.client import PyroscopeClient, Series
    from explainer.pyroscope.query import (
        DEFAULT_MAX_NODES,
        DEFAULT_TIMEOUT,
        MEANINGS,
        ProfileType,
        Query,
        TimeRange,
        parse_time,
        parse_window,
        resolve_profile_type,
    )
    from explainer.pyroscope.selector import Matcher, build_selector, parse_selector
    from explainer.pyroscope.transport import Deadline, TransportOptions

# The face is lazy: client and transport import requests and urllib3 (tens of ms), and a command
# that reads a file only needs the query and auth constants for its options. Name -> submodule.
_WHERE = {
    **dict.fromkeys(("Credentials", "credentials_from", "split_url"), "auth"),
    **dict.fromkeys(("PyroscopeClient", "Series"), "client"),
    **dict.fromkeys(("DEFAULT_MAX_NODES", "DEFAULT_TIMEOUT", "MEANINGS", "ProfileType", "Query"), "query"),
    **dict.fromkeys(("TimeRange", "parse_time", "parse_window", "resolve_profile_type"), "query"),
    **dict.fromkeys(("Matcher", "build_selector", "parse_selector"), "selector"),
    **dict.fromkeys(("Deadline", "TransportOptions"), "transport"),
}

__all__ = [
    "DEFAULT_MAX_NODES",
    "DEFAULT_TIMEOUT",
    "MEANINGS",
    "Credentials",
    "Deadline",
    "Matcher",
    "ProfileType",
    "PyroscopeClient",
    "Query",
    "Series",
    "TimeRange",
    "TransportOptions",
    "build_selector",
    "credentials_from",
    "parse_selector",
    "parse_time",
    "parse_window",
    "resolve_profile_type",
    "split_url",
]


if not TYPE_CHECKING:  # for mypy the names are the imports above
    __getattr__ = face(__name__, _WHERE)
