"""The cluster behind ``--server``: a :class:`~explainer.explain.cluster.ClusterDesk` for ``ask`` and ``chat``."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from explainer.explain.cluster import ClusterDesk
    from explainer.model import Profile


@contextmanager
def cluster_desk(args: argparse.Namespace, profile: Profile) -> Iterator[ClusterDesk | None]:
    """With ``--server``, a desk on the same server, type, selector and window as ``profile``; else None."""
    if not getattr(args, "server", None):
        yield None
        return
    import requests

    from explainer.cli.server_args import client_from_args
    from explainer.explain.cluster import ClusterDesk

    with requests.Session() as session:
        yield ClusterDesk.for_profile(client_from_args(args, session), profile)
