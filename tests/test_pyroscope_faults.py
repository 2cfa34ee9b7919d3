"""docs/reliability.md, "Pyroscope server faults": every fault ends in a typed error within the
deadline + 0.5 s, retries are bounded, secrets never show, redirects never carry credentials."""

from __future__ import annotations

import email.utils
import re
import time
import traceback
import tracemalloc
from collections.abc import Iterator

import pytest
import requests
from pyroscope_server import CONNECT, Fault, PyroscopeServer, closed_port_url, gzip_bomb

from explainer.errors import (
    AuthError,
    BadResponseError,
    ExplainerError,
    QueryError,
    ServerTimeoutError,
    ServerUnreachableError,
    UnknownProfileTypeError,
)
from explainer.model import Profile
from explainer.pyroscope import Credentials, ProfileType, PyroscopeClient, Query, TransportOptions, parse_window
from explainer.pyroscope.transport import Deadline, Transport

pytestmark = pytest.mark.slow  # fault injection against a live test server, each ending at a deadline

GPU = "process_cpu:malloc:bytes::"
WINDOW = parse_window("now-1h", "now", int(time.time() * 1000))
DEADLINE = 1.0
SLACK = 0.5
CANARY = "canary-4b1d8e-do-not-print"
CAP = 1 << 20  # a small response cap so oversized answers fail fast


@pytest.fixture
def session() -> Iterator[requests.Session]:
    with requests.Session() as s:
        s.trust_env = False
        yield s


@pytest.fixture
def server(demo: Profile) -> Iterator[PyroscopeServer]:
    with PyroscopeServer({GPU: demo}) as srv:
        yield srv


def make_client(url: str, session: requests.Session, **kw: object) -> PyroscopeClient:
    options = kw.pop("options", TransportOptions(backoff_base=0.05, max_response=CAP))
    return PyroscopeClient(url, session=session, timeout=DEADLINE, options=options, **kw)  # type: ignore[arg-type]


def fetch(c: PyroscopeClient) -> Profile:
    """What ``explainer analyze --server`` does: type discovery and the query on one deadline."""
    deadline = c.deadline()
    t = c.resolve_type("gpu-memory", WINDOW, deadline=deadline)
    return c.flame_graph(Query(t, "{}", WINDOW), deadline=deadline)


FAULTS = [
    ("hang", Fault("hang"), ServerTimeoutError, "within 1s"),
    ("drip body", Fault("drip"), ServerTimeoutError, "within 1s"),
    ("drip status line", Fault("drip_all"), ServerTimeoutError, "within 1s"),
    ("death mid-body", Fault("die"), BadResponseError, "ended after|broke after"),
    ("death mid-chunk", Fault("die_chunked"), BadResponseError, "broke after"),
    ("closed unanswered", Fault("close"), ServerUnreachableError, "closed the connection without answering"),
    ("503 forever", Fault("status", 503), ServerUnreachableError, "after 3 attempts"),
    ("502 forever", Fault("status", 502), ServerUnreachableError, "unavailable"),
    ("504 forever", Fault("status", 504), ServerTimeoutError, "server side"),
    ("500 forever", Fault("status", 500), BadResponseError, "internal"),
    ("429 forever", Fault("status", 429), ServerUnreachableError, "rate-limiting"),
    ("401", Fault("status", 401), AuthError, "unauthenticated"),
    ("403", Fault("status", 403), AuthError, "permission_denied"),
    ("400", Fault("status", 400), QueryError, "rejected"),
    ("login page", Fault("html"), BadResponseError, "HTML page titled Sign in"),
    ("truncated JSON", Fault("truncated"), BadResponseError, "invalid JSON|ends early"),
    ("other JSON", Fault("not_api"), BadResponseError, "expected profileTypes, got status, data"),
    ("oversized", Fault("oversized"), BadResponseError, "larger than the 1,048,576-byte cap"),
    ("endless", Fault("endless"), BadResponseError, "larger than the 1,048,576-byte cap"),
    ("gzip bomb", Fault("gzip_bomb"), BadResponseError, "decompressed response is larger|larger than"),
    ("POST redirected to a login", Fault("redirect", 302, target="http://127.0.0.2:9"), BadResponseError, "login page"),
    ("redirect to ftp", Fault("redirect", 307, target="ftp://127.0.0.1"), BadResponseError, "non-HTTP"),
]


@pytest.mark.parametrize(("fault", "error", "message"), [f[1:] for f in FAULTS], ids=[f[0] for f in FAULTS])
def test_every_fault_is_a_typed_error_within_the_deadline(server, session, fault, error, message) -> None:
    server.fault = fault
    c = make_client(server.url, session, credentials=Credentials(token=CANARY))
    start = time.monotonic()
    with pytest.raises(ExplainerError) as err:
        fetch(c)
    elapsed = time.monotonic() - start
    assert type(err.value) is error, str(err.value)
    assert elapsed < DEADLINE + SLACK
    assert re.search(message, str(err.value)), str(err.value)
    assert server.url in str(err.value)  # names where it happened
    text = "".join(traceback.format_exception(err.value))
    assert CANARY not in text and len(str(err.value).splitlines()) == 1


@pytest.mark.parametrize("use_gzip", [False, True])
def test_truncated_json_is_never_analysed(demo, session, use_gzip) -> None:
    with PyroscopeServer({GPU: demo}, use_gzip=use_gzip) as srv:
        srv.fault = Fault("truncated", only="SelectMergeStacktraces")
        with pytest.raises(BadResponseError, match="SelectMergeStacktraces"):
            fetch(make_client(srv.url, session))


def test_connection_refused_is_unreachable_at_once(session) -> None:
    start = time.monotonic()
    with pytest.raises(ServerUnreachableError, match="connection refused"):
        fetch(make_client(closed_port_url(), session))
    assert time.monotonic() - start < SLACK


def test_gzip_bomb_is_stopped_with_bounded_memory(server, session) -> None:
    gzip_bomb()  # build the server's bomb before measuring
    server.fault = Fault("gzip_bomb")
    tracemalloc.start()
    try:
        with pytest.raises(BadResponseError, match="cap"):
            fetch(make_client(server.url, session))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * CAP  # 64 MiB inflated would be 64 * CAP


# -- retries ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("failures", [1, 2])
def test_503_then_200_succeeds_and_counts_attempts(server, session, demo, failures) -> None:
    server.fault = Fault("status", 503, times=failures, only="SelectMergeStacktraces")
    events: list[str] = []
    profile = fetch(make_client(server.url, session, on_event=events.append))
    assert profile.total == demo.total
    assert server.count("SelectMergeStacktraces") == failures + 1
    retries = [e for e in events if "retry" in e]
    assert len(retries) == failures
    assert retries[0].startswith("HTTP 503 from SelectMergeStacktraces; retry 2/3 in ")


def test_a_connection_closed_before_answering_is_tried_again(server, session, demo) -> None:
    # what a reused keep-alive connection looks like when the server or a proxy dropped it
    server.fault = Fault("close", times=1, only="SelectMergeStacktraces")
    assert fetch(make_client(server.url, session)).total == demo.total
    assert server.count("SelectMergeStacktraces") == 2
    server.fault = Fault("close", only="SelectMergeStacktraces")
    with pytest.raises(ServerUnreachableError, match="without answering"):
        fetch(make_client(server.url, session))
    assert server.count("SelectMergeStacktraces") == 2 + 3  # bounded like every retry


def test_retries_are_bounded(server, session) -> None:
    server.fault = Fault("status", 503, only="SelectMergeStacktraces")
    with pytest.raises(ServerUnreachableError, match="after 3 attempts"):
        fetch(make_client(server.url, session))
    assert server.count("SelectMergeStacktraces") == 3


@pytest.mark.parametrize("status", [400, 401, 403, 409, 422])  # 404: the render fallback
def test_other_4xx_are_not_retried(server, session, status) -> None:
    server.fault = Fault("status", status, only="SelectMergeStacktraces")
    with pytest.raises(ExplainerError):
        fetch(make_client(server.url, session))
    assert server.count("SelectMergeStacktraces") == 1


def transport(url: str, session: requests.Session, sleeps: list[float], **opts: float) -> Transport:
    return Transport(session, url, Credentials(), TransportOptions(**opts), sleep=sleeps.append, jitter=lambda: 1.0)


def post(t: Transport, seconds: float = 30) -> None:
    t.request("POST", CONNECT + "ProfileTypes", "ProfileTypes", Deadline(seconds), json={"start": 1, "end": 2})


def test_backoff_is_exponential_with_jitter(server, session) -> None:
    server.fault = Fault("status", 503)
    sleeps: list[float] = []
    with pytest.raises(ServerUnreachableError):
        post(transport(server.url, session, sleeps, max_attempts=4))
    assert sleeps == [0.25, 0.5, 1.0]  # base 0.25 doubling; jitter 1.0 is the top of each step
    low = Transport(session, server.url, Credentials(), jitter=lambda: 0.0)
    from explainer.pyroscope.transport import Reply

    assert low._delay(1, Reply(503, {}, b"", "")) == 0.125  # never zero


@pytest.mark.parametrize(
    ("retry_after", "expected"),
    [("2", 2.0), ("120", 10.0)],  # honoured, then capped at retry_after_cap
)
def test_429_retry_after_is_honoured_up_to_a_cap(server, session, retry_after, expected) -> None:
    server.fault = Fault("status", 429, times=1, retry_after=retry_after)
    sleeps: list[float] = []
    post(transport(server.url, session, sleeps))
    assert sleeps == [expected]
    assert server.count("ProfileTypes") == 2


def test_retry_after_as_an_http_date(server, session) -> None:
    when = email.utils.formatdate(time.time() + 3, usegmt=True)
    server.fault = Fault("status", 429, times=1, retry_after=when)
    sleeps: list[float] = []
    post(transport(server.url, session, sleeps))
    assert len(sleeps) == 1 and 1.0 <= sleeps[0] <= 3.5


def test_retry_after_beyond_the_deadline_fails_now(server, session) -> None:
    server.fault = Fault("status", 429, retry_after="5")
    sleeps: list[float] = []
    start = time.monotonic()
    with pytest.raises(ServerUnreachableError, match="rate-limiting"):
        post(transport(server.url, session, sleeps), seconds=2)
    assert sleeps == [] and time.monotonic() - start < SLACK


# -- secrets ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("status", [401, 403])
@pytest.mark.parametrize("creds", [Credentials(token=CANARY), Credentials(user="123456", password=CANARY, tenant="t")])
def test_auth_errors_never_show_the_secret(server, session, status, creds) -> None:
    server.fault = Fault("status", status)  # the server echoes our Authorization header back
    with pytest.raises(AuthError) as err:
        fetch(make_client(server.url, session, credentials=creds))
    basic = creds.headers()["Authorization"].split(" ", 1)[1]
    assert server.seen[0].headers["authorization"].endswith(basic)  # it was sent...
    for text in (str(err.value), repr(err.value), "".join(traceback.format_exception(err.value))):
        assert CANARY not in text and basic not in text  # ...and never shown
    assert "***" in str(err.value)
    assert server.count(CONNECT) == 1


def test_missing_credentials_get_a_hint(demo, session) -> None:
    with (
        PyroscopeServer({GPU: demo}, require_tenant="team-a") as srv,
        pytest.raises(AuthError, match=r"no org id.*PYROSCOPE_TOKEN or --tenant"),
    ):
        fetch(make_client(srv.url, session))


# -- redirects -------------------------------------------------------------------------------------


@pytest.fixture
def other_host(demo: Profile) -> Iterator[PyroscopeServer]:
    with PyroscopeServer({GPU: demo}, host="127.0.0.2") as srv:
        yield srv


def test_redirect_to_another_host_never_carries_credentials(server, other_host, session, demo) -> None:
    server.fault = Fault("redirect", 307, target=other_host.url)
    session.headers["Authorization"] = "Bearer " + CANARY + "-session"  # even one set on the session
    events: list[str] = []
    c = make_client(server.url, session, credentials=Credentials(token=CANARY, tenant="team-a"), on_event=events.append)
    assert fetch(c).total == demo.total
    assert server.seen and all(s.headers.get("authorization") == "Bearer " + CANARY for s in server.seen)
    assert other_host.seen
    for s in other_host.seen:
        assert "authorization" not in s.headers and "x-scope-orgid" not in s.headers
    assert any("not sent" in e for e in events)


def test_redirect_within_the_same_host_keeps_credentials(server, session, demo) -> None:
    server.fault = Fault("redirect", 308, target=server.url, times=1)
    c = make_client(server.url, session, credentials=Credentials(token=CANARY))
    assert fetch(c).total == demo.total
    assert all(s.headers.get("authorization") == "Bearer " + CANARY for s in server.seen)
    assert len(server.seen) == 3  # redirected once, followed, then the query


def test_redirect_loops_are_bounded(server, session) -> None:
    server.fault = Fault("redirect", 307, target=server.url)
    with pytest.raises(BadResponseError, match="more than 3 times"):
        fetch(make_client(server.url, session))
    assert len(server.seen) == 4


def test_a_stuck_worker_does_not_delay_the_next_query(server, session, demo) -> None:
    server.fault = Fault("hang", times=1, only="SelectMergeStacktraces")
    c = make_client(server.url, session)
    with pytest.raises(ServerTimeoutError):
        fetch(c)
    assert fetch(c).total == demo.total  # the pool still works; the abandoned exchange is not reused


def test_a_type_id_needs_no_discovery_when_the_server_cannot_list_types(server, session, demo) -> None:
    server.fault = Fault("status", 404, only="ProfileTypes|label-values")
    c = make_client(server.url, session)
    with pytest.raises(UnknownProfileTypeError, match="cannot list"):
        c.resolve_type("gpu-memory", WINDOW)
    t = c.resolve_type(GPU, WINDOW)
    assert t == ProfileType.from_id(GPU)
    assert c.flame_graph(Query(t, "{}", WINDOW)).total == demo.total  # through the render API
