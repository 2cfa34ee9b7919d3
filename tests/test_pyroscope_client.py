"""The Pyroscope client against the local test server: wire format, query model, fallback, auth."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
import requests
from pyroscope_server import CONNECT, Fault, PyroscopeServer

from conftest import profile_of
from explainer.analysis.summary import summarize
from explainer.errors import EmptyResultError, QueryError, UnknownProfileTypeError
from explainer.model import OTHER, Profile
from explainer.pyroscope import (
    Credentials,
    ProfileType,
    PyroscopeClient,
    Query,
    build_selector,
    credentials_from,
    parse_selector,
    parse_time,
    parse_window,
    resolve_profile_type,
    split_url,
)

GPU = "process_cpu:malloc:bytes::"
CPU = "process_cpu:cpu:nanoseconds:cpu:nanoseconds"
NOW = 1_780_000_000_000  # a fixed "now" in Unix ms
WINDOW = parse_window("now-1h", "now", NOW)


def tops(profile: Profile) -> dict[str, object]:
    s = summarize(profile)
    rows = lambda lst: [(r.name, r.self, r.total) for r in lst.rows]  # noqa: E731
    return {"total": s.total, "unit": profile.unit, "self": rows(s.top_self), "total_rows": rows(s.top_total)}


@pytest.fixture
def session() -> Iterator[requests.Session]:
    with requests.Session() as s:
        s.trust_env = False  # no proxy from the environment may see loopback traffic
        yield s


@pytest.fixture
def server(demo: Profile) -> Iterator[PyroscopeServer]:
    cpu = profile_of({"main;work;spin": 70, "main;io": 30}, unit="nanoseconds", sample_type="cpu")
    with PyroscopeServer({GPU: demo, CPU: cpu}, labels={"k8s_namespace": ["inference", "default"]}) as srv:
        yield srv


def client(server: PyroscopeServer, session: requests.Session, **kw: object) -> PyroscopeClient:
    return PyroscopeClient(server.url, session=session, timeout=5, **kw)  # type: ignore[arg-type]


def gpu_query(c: PyroscopeClient, **kw: object) -> Query:
    return Query(c.resolve_type("gpu-memory", WINDOW), "{}", WINDOW, **kw)  # type: ignore[arg-type]


# -- the flame graph is the profile ---------------------------------------------------------------


def test_flame_graph_from_server_has_the_same_top_lists_as_the_profile(server, session, demo) -> None:
    c = client(server, session)
    profile = c.flame_graph(gpu_query(c))
    assert tops(profile) == tops(demo)
    assert profile.sample_type.type == "malloc" and profile.unit == "bytes"
    assert profile.source.kind == "pyroscope" and profile.source.format == "connect-flamegraph"
    assert profile.source.location == server.url
    assert profile.source.query.startswith(GPU + "{} from ")


def test_request_carries_only_pyroscope_1_15_fields_and_always_max_nodes(server, session) -> None:
    c = client(server, session)
    c.flame_graph(gpu_query(c))
    body = next(s.body for s in server.seen if s.path.endswith("SelectMergeStacktraces"))
    # SelectMergeStacktracesRequest fields 1-7 exist in v1.15; we need only 1-5
    assert set(body) == {"profileTypeID", "labelSelector", "start", "end", "maxNodes"}
    assert body == {"profileTypeID": GPU, "labelSelector": "{}", "start": WINDOW.start_ms, "end": WINDOW.end_ms,
                    "maxNodes": 8192}  # fmt: skip
    types_body = next(s.body for s in server.seen if s.path.endswith("ProfileTypes"))
    assert types_body == {"start": WINDOW.start_ms, "end": WINDOW.end_ms}


def test_max_nodes_truncation_is_reported_as_other(server, session, demo) -> None:
    c = client(server, session)
    profile = c.flame_graph(gpu_query(c, max_nodes=12))
    t = profile.truncation
    assert t.other_nodes > 0 and t.other_value > 0 and t.max_nodes == 12
    assert profile.total == demo.total  # 'other' keeps the sums exact
    assert OTHER in profile.names


def test_whole_profile_from_select_merge_profile(server, session, demo) -> None:
    c = client(server, session)
    profile = c.profile(gpu_query(c))
    assert tops(profile) == tops(demo)
    assert profile.source.format == "connect-pprof"
    assert "maxNodes" not in next(s.body for s in server.seen if s.path.endswith("SelectMergeProfile"))


def test_series_and_diff(server, session, demo) -> None:
    server.right = profile_of({"a;b": 5}, unit="bytes", sample_type="malloc")
    c = client(server, session)
    q = gpu_query(c)
    series = c.series(q, 900)
    assert series[0].labels == (("service_name", "vllm"),) and len(series[0].points) == 4
    assert series[0].points[0][0] == WINDOW.start_ms
    left, right = c.diff(q, q)
    assert tops(left) == tops(demo)
    assert dict(right.stacks()) == {("a", "b"): 5}


def test_label_discovery_sends_the_selector_as_a_matcher(server, session) -> None:
    c = client(server, session)
    assert "k8s_namespace" in c.label_names(WINDOW, '{a="b"}')
    assert c.label_values("k8s_namespace", WINDOW) == ["inference", "default"]
    assert c.label_values("nothing", WINDOW) == []  # {} on the wire: omitted empty list
    names_body = next(s.body for s in server.seen if s.path.endswith("LabelNames"))
    assert names_body["matchers"] == ['{a="b"}']
    values_body = next(s.body for s in server.seen if s.path.endswith("LabelValues"))
    assert values_body == {"name": "k8s_namespace", "start": WINDOW.start_ms, "end": WINDOW.end_ms}  # {}: no matcher


def test_empty_window_is_an_empty_result_error(server, session) -> None:
    server.fault = Fault("empty", only="SelectMergeStacktraces")
    c = client(server, session)
    with pytest.raises(EmptyResultError, match="no samples"):
        c.flame_graph(gpu_query(c))


@pytest.mark.parametrize("gz", [True, False])
def test_gzip_and_plain_answers_read_the_same(demo, session, gz) -> None:
    with PyroscopeServer({GPU: demo}, use_gzip=gz) as srv:
        c = client(srv, session)
        assert tops(c.flame_graph(gpu_query(c))) == tops(demo)
        assert all(s.headers.get("accept-encoding") == "gzip" for s in srv.seen)


# -- render fallback -------------------------------------------------------------------------------


@pytest.mark.parametrize("status", [404, 405, 501])
def test_render_fallback_when_connect_is_missing(server, session, demo, status) -> None:
    server.fault = Fault("no_connect", status=status)
    c = client(server, session)
    profile = c.flame_graph(gpu_query(c))
    assert tops(profile) == tops(demo)
    assert profile.source.format == "flamebearer"
    assert server.count(CONNECT) == 1  # after the first 404 the client stops trying Connect
    render = next(s for s in server.seen if s.path == "/pyroscope/render")
    assert render.method == "GET"
    assert render.query["query"] == [GPU + "{}"]
    assert render.query["from"] == [str(WINDOW.start_ms)] and render.query["maxNodes"] == ["8192"]


def test_label_discovery_without_connect_is_a_clear_error(server, session) -> None:
    server.fault = Fault("no_connect")
    with pytest.raises(Exception, match="no Connect API"):
        client(server, session).label_names(WINDOW)


# -- profile types ---------------------------------------------------------------------------------


def test_profile_types_tolerate_omitted_empty_parts(server, session) -> None:
    types = {t.id: t for t in client(server, session).profile_types(WINDOW)}
    assert types[GPU] == ProfileType(GPU, "process_cpu", "malloc", "bytes", "", "")
    assert types[GPU].meaning == "gpu-memory" and types[CPU].meaning == "cpu"


TYPES = [ProfileType.from_id(i) for i in (GPU, CPU, "memory:alloc_space:bytes:space:bytes")]


@pytest.mark.parametrize(
    ("wanted", "expected"),
    [("gpu-memory", GPU), ("cpu", CPU), (CPU, CPU), (TYPES[2].id, TYPES[2].id)],
)
def test_resolve_profile_type(wanted, expected) -> None:
    assert resolve_profile_type(wanted, TYPES).id == expected


def test_unknown_profile_type_lists_the_valid_ones() -> None:
    with pytest.raises(UnknownProfileTypeError) as err:
        resolve_profile_type("gpu-memory", TYPES[1:], "10:00 and 11:00")
    assert CPU in str(err.value) and "(cpu)" in str(err.value) and "malloc" in str(err.value)
    with pytest.raises(UnknownProfileTypeError, match="memory:alloc_space"):
        resolve_profile_type("wall:wall:nanoseconds:wall:nanoseconds", TYPES)
    with pytest.raises(UnknownProfileTypeError, match="no profiles at all"):
        resolve_profile_type("cpu", [])
    with pytest.raises(QueryError, match="not a profile type ID"):
        resolve_profile_type("gpu", TYPES)


def test_a_meaning_matching_several_types_asks_for_an_id() -> None:
    two = [*TYPES, ProfileType.from_id("process_cuda:malloc:bytes:process_cuda:bytes")]
    with pytest.raises(UnknownProfileTypeError, match="several"):
        resolve_profile_type("gpu-memory", two)


# -- selectors -------------------------------------------------------------------------------------

SELECTORS = [
    ("", "{}"),
    ("{}", "{}"),
    ('{service_name="checkout"}', '{service_name="checkout"}'),
    ('service_name="checkout"', '{service_name="checkout"}'),  # braces optional
    (
        '{ k8s_namespace = "inference" , k8s_podName =~ "vllm-.*" , }',
        '{k8s_namespace="inference",k8s_podName=~"vllm-.*"}',
    ),
    ("{a!='x', b!~`y\\d+`}", '{a!="x",b!~"y\\\\d+"}'),  # single quotes, raw backticks
    ('{a="say \\"hi\\""}', '{a="say \\"hi\\""}'),  # escaped quotes survive
    ('{a="C:\\\\temp"}', '{a="C:\\\\temp"}'),  # an escaped backslash stays one backslash
    ('{a=~"x\\.y"}', '{a=~"x\\\\.y"}'),  # unknown escape kept as written (regex intent)
    ('{a="tab\\there\\n"}', '{a="tab\\there\\n"}'),
    ('{a="\\u00e9"}', '{a="é"}'),
    ('{a=""}', '{a=""}'),
]


@pytest.mark.parametrize(("given", "canonical"), SELECTORS)
def test_selector_is_parsed_and_escaped_canonically(given, canonical) -> None:
    assert build_selector(given) == canonical
    assert build_selector(canonical) == canonical  # idempotent


@pytest.mark.parametrize(
    "value", ['quote"d', "back\\slash", '\\"both\\"', "new\nline", "ctl\x01", "end\\", "ünïcode", "}{,=~"]
)
def test_label_values_round_trip_through_escaping(value) -> None:
    selector = build_selector("{}", [("k", value)])
    assert parse_selector(selector)[0].value == value
    assert "\n" not in selector and "\x01" not in selector


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ('{a="x"', "end with"),
        ('{a="x}', "never closed"),
        ("{a=x}", "quoted value"),
        ('{1a="x"}', "label name"),
        ('{a=="x"}', "quoted value"),
        ('{a<"x"}', "one of"),
        ('{a="x" b="y"}', "','"),
        (GPU + '{a="x"}', "--profile-type"),
    ],
)
def test_bad_selectors_are_query_errors(bad, message) -> None:
    with pytest.raises(QueryError, match=message):
        build_selector(bad)


def test_label_names_are_checked() -> None:
    with pytest.raises(QueryError, match="not a label name"):
        build_selector("{}", [('a"b', "x")])


# -- time ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("now", NOW),
        ("now-1h", NOW - 3_600_000),
        ("now-30m", NOW - 1_800_000),
        ("now-1h30m", NOW - 5_400_000),
        ("now-2d", NOW - 172_800_000),
        ("now-90s", NOW - 90_000),
        ("2026-08-21T10:00:00Z", 1787306400000),
        ("2026-08-21T12:00:00+02:00", 1787306400000),
        ("2026-08-21T10:00:00.250Z", 1787306400250),
        ("2026-08-21 10:00:00z", 1787306400000),
        ("1787306400", 1787306400000),  # Unix seconds
        ("1787306400250", 1787306400250),  # Unix milliseconds
        (" now-5m ", NOW - 300_000),
    ],
)
def test_parse_time(text, ms) -> None:
    assert parse_time(text, NOW) == ms


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("yesterday", "cannot read"),
        ("now-1y", "cannot read"),
        ("now+1h", "cannot read"),
        ("2026-08-21T10:00:00", "time zone"),
        ("2026-08-21", "cannot read"),
        ("1787306400000000", "micro"),
        ("-5", "cannot read"),
    ],
)
def test_bad_times(text, message) -> None:
    with pytest.raises(QueryError, match=message):
        parse_time(text, NOW)


@pytest.mark.parametrize(
    ("start", "end", "message"),
    [("now-25h", "now", "24 h"), ("now", "now-1h", "before"), ("now-1h", "now-1h", "before"), ("0", "now", "1970")],
)
def test_bad_windows(start, end, message) -> None:
    with pytest.raises(QueryError, match=message):
        parse_window(start, end, NOW)


def test_a_window_of_exactly_24h_is_allowed() -> None:
    w = parse_window("now-24h", "now", NOW)
    assert w.end_ms - w.start_ms == 24 * 3_600_000


def test_server_side_range_error_is_a_query_error(server, session) -> None:
    # the client checks first; a server with a smaller limit still gets its 400 turned into QueryError
    c = client(server, session)
    wide = parse_window("now-30h", "now", NOW, max_range_ms=48 * 3_600_000)
    with pytest.raises(QueryError, match="max_query_length"):
        c.flame_graph(Query(ProfileType.from_id(GPU), "{}", wide))


# -- auth ------------------------------------------------------------------------------------------

CANARY = "canary-7f3a9d2e-secret"


def test_credentials_never_show_their_secrets() -> None:
    for creds in (Credentials(user="123", password=CANARY, tenant="t"), Credentials(token=CANARY)):
        assert CANARY not in repr(creds) and CANARY not in str(creds) and CANARY not in f"{creds}"
        assert "***" in repr(creds)
        assert creds.redact(f"echo {creds.headers()['Authorization']} and {CANARY}").count(CANARY) == 0
        basic = creds.headers()["Authorization"].split(" ", 1)[1]
        assert basic not in creds.redact(f"x {basic} y")


def test_credentials_from_environment_and_flags() -> None:
    env = {"PYROSCOPE_USER": "123", "PYROSCOPE_PASSWORD": CANARY, "PYROSCOPE_TENANT": "team-a"}
    creds = credentials_from(environ=env)
    assert creds.kind == "basic" and creds.headers()["X-Scope-OrgID"] == "team-a"
    assert credentials_from(user="", password="", token="tok", environ=env).kind == "bearer"
    assert credentials_from(tenant="other", environ=env).tenant == "other"  # a flag beats the environment
    assert credentials_from(environ={}).headers() == {}
    both = {**env, "PYROSCOPE_TOKEN": CANARY}
    assert credentials_from(token="tok", environ=both).kind == "bearer"  # a token flag beats env basic auth
    assert credentials_from(user="9", password="pw", environ=both).kind == "basic"  # and the other way round


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"PYROSCOPE_PASSWORD": CANARY}, "no user"),
        ({"PYROSCOPE_USER": "u"}, "no password"),
        ({"PYROSCOPE_USER": "u", "PYROSCOPE_PASSWORD": CANARY, "PYROSCOPE_TOKEN": CANARY}, "unset one"),
        ({"PYROSCOPE_TOKEN": CANARY + " x"}, "not allowed"),
        ({"PYROSCOPE_TENANT": "a/b"}, "tenant"),
        ({"PYROSCOPE_USER": "a:b", "PYROSCOPE_PASSWORD": CANARY}, "':'"),
    ],
)
def test_bad_credentials_are_query_errors_without_the_secret(env, message) -> None:
    with pytest.raises(QueryError, match=message) as err:
        credentials_from(environ=env)
    assert CANARY not in str(err.value)


def test_url_credentials_are_moved_out_of_the_url(demo, session) -> None:
    assert split_url("http://123:p%40ss@localhost:4040/") == ("http://localhost:4040", "123", "p@ss")
    with PyroscopeServer({GPU: demo}, require_auth="Basic MTIzOnBAc3M=") as srv:  # base64("123:p@ss")
        c = PyroscopeClient(srv.url.replace("http://", "http://123:p%40ss@"), session=session)
        assert c.base_url == srv.url and "p@ss" not in repr(c)
        assert c.resolve_type("gpu-memory", WINDOW).id == GPU


@pytest.mark.parametrize("url", ["localhost:4040", "ftp://x", "http://x/?a=b", "http://x:99999"])
def test_bad_urls(url) -> None:
    with pytest.raises(QueryError):
        split_url(url)


def test_tenant_and_token_are_sent(demo, session) -> None:
    with PyroscopeServer({GPU: demo}, require_auth="Bearer " + CANARY, require_tenant="team-a") as srv:
        c = PyroscopeClient(srv.url, session=session, credentials=Credentials(token=CANARY, tenant="team-a"))
        assert c.flame_graph(gpu_query(c)).total == demo.total


def test_the_deadline_is_shared_across_calls(server, session) -> None:
    c = client(server, session)
    d = c.deadline(0.5)
    time.sleep(0.6)
    with pytest.raises(Exception, match=r"within 0\.5s"):
        c.profile_types(WINDOW, deadline=d)


def test_the_lazy_face_exports_every_name_it_lists() -> None:
    import importlib

    import explainer.pyroscope as face

    assert sorted(face.__all__) == sorted(face._WHERE)
    for name in face.__all__:
        module = importlib.import_module(f"explainer.pyroscope.{face._WHERE[name]}")
        assert getattr(face, name) is getattr(module, name)
