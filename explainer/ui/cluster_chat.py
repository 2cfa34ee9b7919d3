"""The chat on a server profile answers questions about pods: each such question opens its own
connection with the sidebar form's credentials (nothing is kept between reruns)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any


def with_cluster(st: Any, keyed: Any) -> Any:
    """The chat's conversation, able to answer questions about pods when the page's profile came from
    the server: each such question opens its own connection with the form's credentials."""
    conv = keyed.conv
    source = conv.ctx.profile.source
    if conv.cluster is not None or source is None or source.kind != "pyroscope":
        return keyed
    from explainer.explain.cluster import ClusterDesk

    @contextlib.contextmanager
    def opened() -> Iterator[Any]:
        import requests

        from explainer.ui.pyroscope_form import _client  # the form's credentials, read for this question only

        with requests.Session() as session:
            yield _client(st, session)

    conv.cluster = ClusterDesk.for_profile(None, conv.ctx.profile, opener=opened)
    return keyed
