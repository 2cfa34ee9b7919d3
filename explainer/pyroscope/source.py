"""One Pyroscope source, opened the same way by the CLI, the app and the MCP server.

A :class:`ServerSource` is the server (URL, credentials, tenant, timeout, response cap) plus
what to ask it (profile type, selector, window, node budget). Each surface builds one from its
own inputs (flags and environment, the app's form, the MCP operator's flags plus what an
assistant may choose) and then asks it for a client or a profile: nothing here knows about
argparse, Streamlit or MCP. Secrets live in :class:`~explainer.pyroscope.auth.Credentials`,
whose ``repr`` masks them.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from explainer.pyroscope.auth import Credentials
from explainer.pyroscope.defaults import DEFAULT_MAX_NODES, DEFAULT_TIMEOUT
from explainer.readers.limits import DEFAULT_MAX_DECOMPRESSED

if TYPE_CHECKING:  # requests and the client load only when a server is queried
    import requests

    from explainer.model import Profile
    from explainer.pyroscope.client import PyroscopeClient
    from explainer.pyroscope.query import TimeRange
    from explainer.pyroscope.transport import Event


@dataclass(frozen=True)
class ServerSource:
    url: str
    credentials: Credentials = dataclasses.field(default_factory=Credentials)
    timeout: float = DEFAULT_TIMEOUT
    max_response: int | None = None  # bytes of one answer; None: the transport's default
    profile_type: str = "gpu-memory"  # a type ID, or gpu-memory / cpu
    selector: str = "{}"
    start: str = "now-1h"
    end: str = "now"
    max_nodes: int = DEFAULT_MAX_NODES
    full_profile: bool = False  # the whole merged pprof (SelectMergeProfile) instead of the flame graph
    keep_other: bool = False  # keep a flame graph whose 'other' holds over 1% (default: fetch the full profile)
    max_profile: int = DEFAULT_MAX_DECOMPRESSED  # bytes of a binary pprof: a file's cap (--max-size)
    quote_bodies: bool = True  # False where the URL is whatever a user typed (the app): one status line only

    def query(
        self,
        profile_type: str | None = None,
        selector: str | None = None,
        start: str | None = None,
        end: str | None = None,
    ) -> ServerSource:
        """The same server with another query; ``None`` keeps this one's value."""
        return dataclasses.replace(
            self,
            profile_type=self.profile_type if profile_type is None else profile_type,
            selector=self.selector if selector is None else selector,
            start=self.start if start is None else start,
            end=self.end if end is None else end,
        )

    def client(self, session: requests.Session, on_event: Event | None = None) -> PyroscopeClient:
        from explainer.pyroscope.client import PyroscopeClient
        from explainer.pyroscope.transport import TransportOptions

        options = TransportOptions(max_profile=self.max_profile, quote_bodies=self.quote_bodies)
        if self.max_response is not None:
            options = dataclasses.replace(options, max_response=self.max_response)
        return PyroscopeClient(
            self.url,
            session=session,
            credentials=self.credentials,
            timeout=self.timeout,
            options=options,
            on_event=on_event,
        )

    def window(self, now_ms: int | None = None) -> TimeRange:
        from explainer.pyroscope.query import parse_window

        return parse_window(self.start, self.end, int(time.time() * 1000) if now_ms is None else now_ms)

    def open(self, on_event: Event | None = None) -> Profile:
        """The profile: resolve the type in the window, then one query, all within one deadline."""
        import requests

        from explainer.pyroscope.exact import exact_profile
        from explainer.pyroscope.query import Query, check_max_nodes
        from explainer.pyroscope.selector import build_selector

        window = self.window()
        selector = build_selector(self.selector, [])
        max_nodes = check_max_nodes(self.max_nodes)
        with requests.Session() as session:
            client = self.client(session, on_event)
            deadline = client.deadline()  # one budget for discovery and the query together
            profile_type = client.resolve_type(self.profile_type, window, deadline=deadline)
            query = Query(profile_type, selector, window, max_nodes)
            if self.full_profile:
                return client.profile(query, deadline=deadline)
            if self.keep_other:
                return client.flame_graph(query, deadline=deadline)
            # exact by default: a flame graph mostly merged into 'other' is replaced by the full profile
            return exact_profile(client, query, deadline=deadline, on_event=on_event)
