"""Exact answers from a server, over real HTTP to the local test server (issue 27): the full profile
fetched as binary pprof (and each fallback), the automatic full fetch when ``other`` holds more than
1% of the total, ``other`` never ranked as a function, and cap messages that name the option."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests
from pyroscope_server import PROTO, PyroscopeServer, decode_request
from test_pyroscope_cli import analyze_json, run

from conftest import profile_of
from explainer.analysis.summary import summarize
from explainer.errors import BadResponseError, DecodeError
from explainer.model import OTHER, Profile
from explainer.pyroscope import PyroscopeClient, Query, TimeRange, TransportOptions, protowire
from explainer.pyroscope.exact import exact_profile
from explainer.writers import to_pprof

GPU = "process_cpu:malloc:bytes::"
WINDOW = TimeRange(1787306400000, 1787310000000)


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("PYROSCOPE_URL", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,127.0.0.2,localhost")


def wide() -> Profile:
    """Many small allocation sites beside a few large ones: what a node budget merges into ``other``."""
    stacks = {f"main;serve;route{i % 9};handler{i}": 10 + i % 7 for i in range(600)}
    stacks.update({"main;serve;load_weights;alloc": 900, "main;serve;kv_cache;empty": 700, "main;warmup": 300})
    return profile_of(stacks, unit="bytes", sample_type="malloc")


@pytest.fixture
def session() -> Iterator[requests.Session]:
    with requests.Session() as s:
        s.trust_env = False
        yield s


def tops(profile: Profile) -> list[tuple[str, int, int]]:
    return [(r.name, r.self, r.total) for r in summarize(profile).top_self.rows]


def query(max_nodes: int = 8192) -> Query:
    from explainer.pyroscope.query import ProfileType

    return Query(ProfileType.from_id(GPU), "{}", WINDOW, max_nodes)


# -- the full profile as binary pprof -------------------------------------------------------------


def test_full_profile_is_fetched_as_binary_pprof(session) -> None:
    profile = wide()
    with PyroscopeServer({GPU: profile}) as server:
        got = PyroscopeClient(server.url, session=session, timeout=10).profile(query())
    assert tops(got) == tops(profile) and got.total == profile.total
    assert got.source.format == "connect-pprof"
    seen = next(s for s in server.seen if s.path.endswith("SelectMergeProfile"))
    assert seen.headers["content-type"] == PROTO and seen.headers["accept"] == PROTO
    # fields 1-4 only: no node budget on the full profile
    assert seen.body == {"profileTypeID": GPU, "labelSelector": "{}", "start": WINDOW.start_ms, "end": WINDOW.end_ms}
    assert server.count("SelectMergeStacktraces") == 0


def test_without_select_merge_profile_the_pprof_format_of_select_merge_stacktraces_is_used(session) -> None:
    profile = wide()
    with PyroscopeServer({GPU: profile}, merge_profile=False) as server:
        got = PyroscopeClient(server.url, session=session, timeout=10).profile(query())
    assert tops(got) == tops(profile)
    seen = next(s for s in server.seen if s.path.endswith("SelectMergeStacktraces"))
    assert seen.headers["content-type"] == PROTO
    assert seen.body["format"] == protowire.PPROF_FORMAT and seen.body["maxNodes"] == 1 << 20


def test_without_the_binary_codec_the_profile_comes_as_json(session) -> None:
    profile = wide()
    with PyroscopeServer({GPU: profile}, proto=False) as server:
        got = PyroscopeClient(server.url, session=session, timeout=10).profile(query())
    assert tops(got) == tops(profile) and got.source.format == "connect-pprof-json"
    assert [s.headers["content-type"] for s in server.seen] == [PROTO, "application/json"]


def test_empty_binary_answers_are_empty_results(session) -> None:
    from explainer.errors import EmptyResultError

    with PyroscopeServer({}) as server:
        c = PyroscopeClient(server.url, session=session, timeout=10)
        with pytest.raises(EmptyResultError):
            c.profile(query())
    with PyroscopeServer({}, merge_profile=False) as server:
        c = PyroscopeClient(server.url, session=session, timeout=10)
        with pytest.raises(EmptyResultError):
            c.profile(query())


def test_a_binary_profile_over_the_cap_names_max_size_not_max_nodes(session) -> None:
    with PyroscopeServer({GPU: wide()}, use_gzip=False) as server:
        c = PyroscopeClient(server.url, session=session, timeout=10, options=TransportOptions(max_profile=2000))
        with pytest.raises(BadResponseError) as caught:
            c.profile(query())
    assert "2,000-byte cap" in str(caught.value) and "--max-size" in str(caught.value)
    assert "--max-nodes" not in str(caught.value)


def test_cli_cap_messages_name_the_option_that_lifts_them() -> None:
    with PyroscopeServer({GPU: wide()}) as server:
        code, _, err = run("analyze", "--server", server.url, "--profile-type", GPU, "--full-profile",
                           "--max-size", "3000")  # fmt: skip
        assert code == 2 and len(err.strip().splitlines()) == 1
        assert "--max-size" in err and "--max-nodes" not in err
        code, _, err = run("analyze", "--server", server.url, "--profile-type", GPU, "--keep-other",
                           "--max-size", "3000")  # fmt: skip
        assert code == 2 and "--max-nodes" in err


# -- exact by default -----------------------------------------------------------------------------


def test_a_large_other_share_fetches_the_full_profile_and_says_so(tmp_path) -> None:
    profile = wide()
    path = tmp_path / "wide.pb.gz"
    path.write_bytes(to_pprof(profile))
    from_file = analyze_json(str(path))
    with PyroscopeServer({GPU: profile}) as server:
        report = analyze_json("--server", server.url, "--profile-type", GPU, "--max-nodes", "64")
    assert report["top_self"] == from_file["top_self"] and report["total"] == from_file["total"]
    assert report["source"]["format"] == "connect-pprof"  # type: ignore[index]
    notes = report["truncation"]["notes"]  # type: ignore[index]
    assert any("'other'" in n and "full profile was fetched" in n for n in notes), notes
    assert server.count("SelectMergeStacktraces") == 1 and server.count("SelectMergeProfile") == 1


def test_a_small_other_share_keeps_the_flame_graph(session) -> None:
    profile = wide()
    with PyroscopeServer({GPU: profile}) as server:
        c = PyroscopeClient(server.url, session=session, timeout=10)
        got = exact_profile(c, query(8192))
        assert got.truncation.other_nodes == 0 and got.source.note == ""
        assert server.count("SelectMergeProfile") == 0
        # a budget that merges under 1% (the small tail), is kept as it is
        graph = c.flame_graph(query(612))
        assert 0 < graph.truncation.other_value <= 0.01 * graph.total
        assert exact_profile(c, query(612)).source.format == "connect-flamegraph"


def test_without_a_full_profile_the_node_budget_is_raised(session) -> None:
    profile = wide()
    with PyroscopeServer({GPU: profile}, merge_profile=False, pprof_format=False) as server:
        c = PyroscopeClient(server.url, session=session, timeout=10)
        got = exact_profile(c, query(64))
    assert got.source.format == "connect-flamegraph" and got.truncation.other_nodes == 0
    assert tops(got) == tops(profile)
    assert "node budget was raised to 1,024" in got.source.note and "nothing is left in 'other'" in got.source.note
    budgets = [s.body["maxNodes"] for s in server.seen if s.path.endswith("SelectMergeStacktraces")]
    assert budgets == [64, 1 << 20, 1024]  # flame graph, the pprof attempt (answered as a flame graph), wider


def test_other_is_never_ranked_as_a_function(session) -> None:
    profile = wide()
    with PyroscopeServer({GPU: profile}) as server:
        graph = PyroscopeClient(server.url, session=session, timeout=10).flame_graph(query(64))
    assert OTHER in graph.names and graph.truncation.other_value > graph.total / 2  # the largest "leaf"
    summary = summarize(graph)
    for rows in (summary.top_self.rows, summary.top_total.rows):
        assert OTHER not in [r.name for r in rows]
    assert summary.total == profile.total  # its value still counts


def test_keep_other_reports_the_merge_but_never_names_other() -> None:
    with PyroscopeServer({GPU: wide()}) as server:
        code, out, err = run("analyze", "--server", server.url, "--profile-type", GPU, "--max-nodes", "64",
                             "--keep-other")  # fmt: skip
    assert code == 0, err
    table = out.split("'other'")[0]  # the notes may speak of 'other'; the tables before them must not
    assert "\nother " not in table and " other\n" not in table


# -- the wire format --------------------------------------------------------------------------------


def test_protowire_requests_decode_as_the_server_reads_them() -> None:
    fields: list[protowire.Field] = [(1, GPU), (2, '{a="ü"}'), (3, WINDOW.start_ms), (4, -5), (5, 0), (6, 4)]
    assert decode_request("SelectMergeStacktraces", protowire.encode(fields)) == {
        "profileTypeID": GPU, "labelSelector": '{a="ü"}', "start": WINDOW.start_ms, "end": -5, "format": 4,
    }  # fmt: skip


def test_protowire_finds_nested_fields_and_refuses_broken_ones() -> None:
    inner = b"\x0a\x03abc"  # field 1, "abc"
    outer = b"\x08\x96\x01" + b"\x2a" + bytes([len(inner)]) + inner  # a varint field 1, then field 5
    start, end = protowire.nested(outer, (5, 1))  # type: ignore[misc]
    assert outer[start:end] == b"abc"
    assert protowire.nested(outer, (7,)) is None
    for bad in (outer[:-1], b"\x2a\x05ab", b"\x08", b"\x0b", outer + outer):
        with pytest.raises(DecodeError):
            protowire.nested(bad, (5, 1))
