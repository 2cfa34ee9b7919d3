"""One server-source object: the CLI's flags and the MCP operator's server open Pyroscope the same way.

GIVEN the test Pyroscope server (tenant required) holding the demo, WHEN a ServerSource is built
from CLI flags and another is narrowed by an assistant's query in the MCP server's Access, THEN
both reach the same server with the operator's tenant and credentials, the assistant can change
only the query, and no secret shows in a repr.
"""

from __future__ import annotations

import argparse

from pyroscope_server import PyroscopeServer

from explainer.cli.server_args import add_server_arguments, server_source
from explainer.demo import demo_profile
from explainer.mcp_server.sources import Access, ServerQuery
from explainer.pyroscope.auth import Credentials
from explainer.pyroscope.source import ServerSource

GPU = "process_cpu:malloc:bytes::"
SECRET = "tok-3f9a1c7e-DO-NOT-LEAK"


def from_flags(*flags: str) -> ServerSource:
    parser = argparse.ArgumentParser()
    parser.add_argument("source", nargs="?")
    parser.add_argument("--max-size", type=int, default=None)
    add_server_arguments(parser)
    args = parser.parse_args(list(flags))
    if args.max_size is None:
        del args.max_size
    return server_source(args)


def test_the_cli_flags_become_one_source(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("PYROSCOPE_TOKEN", SECRET)
    source = from_flags(
        "--server",
        "http://127.0.0.1:4040",
        "--tenant",
        "team-a",
        "--label",
        "k8s_namespace=inference",
        "--from",
        "now-2h",
    )
    assert source.url == "http://127.0.0.1:4040" and source.credentials.tenant == "team-a"
    assert source.credentials.token == SECRET and SECRET not in repr(source)
    assert source.selector == '{k8s_namespace="inference"}' and source.start == "now-2h"
    narrowed = source.query(selector='{k8s_podName="vllm-0"}', end="now-1h")
    assert narrowed.selector == '{k8s_podName="vllm-0"}' and narrowed.end == "now-1h"
    assert (narrowed.url, narrowed.credentials, narrowed.start) == (source.url, source.credentials, source.start)
    assert source.query() == source  # None keeps every value


def test_the_mcp_server_opens_the_operators_source_with_the_assistants_query(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with PyroscopeServer({GPU: demo_profile()}, require_tenant="team-a") as server:
        operator = ServerSource(server.url, Credentials(tenant="team-a"), timeout=10.0)
        access = Access.under([str(tmp_path)], server=operator)
        profile = access.load("pyroscope", None, ServerQuery(selector='{k8s_namespace="inference"}'))
        selectors = [s.body["labelSelector"] for s in server.seen if s.path.endswith("SelectMergeStacktraces")]
    assert profile.total == demo_profile().total and profile.source.kind == "pyroscope"
    assert selectors == ['{k8s_namespace="inference"}']
