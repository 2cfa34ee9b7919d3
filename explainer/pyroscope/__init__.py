"""Grafana Pyroscope as a live profile source.

client     PyroscopeClient: Connect JSON API (render API as the fallback) -> Profile
query      profile types by ID or meaning, label selectors, time windows
transport  deadlines, retries, safe redirects, typed errors
wire       bounded body reading and capped gzip
auth       basic auth, bearer token, tenant; secrets masked everywhere
"""

from explainer.pyroscope.auth import Credentials, credentials_from, split_url
from explainer.pyroscope.client import DEFAULT_TIMEOUT, PyroscopeClient, Series
from explainer.pyroscope.query import (
    DEFAULT_MAX_NODES,
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
