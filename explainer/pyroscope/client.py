"""A Pyroscope query client: the Connect JSON API, with ``/pyroscope/render`` as the fallback.

Connect unary calls are ``POST {base}/querier.v1.QuerierService/<Method>`` with a JSON body;
answers are protojson, so int64 values arrive as strings and zero or empty fields are left
out (every lookup here has a default). Older servers and some proxies have no Connect
routes; when the first call answers 404/405/501 we switch to the legacy GET API for the
rest of this client's life, where that API has an equivalent.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import requests

from explainer.errors import BadResponseError, EmptyResultError, ExplainerError
from explainer.model import Profile, SampleType, Source
from explainer.pyroscope import protowire, wire
from explainer.pyroscope.auth import Credentials, split_url
from explainer.pyroscope.query import (
    DEFAULT_TIMEOUT,
    MAX_NODES_LIMIT,
    ProfileType,
    Query,
    TimeRange,
    resolve_profile_type,
)
from explainer.pyroscope.transport import (
    ApiUnavailableError,
    CodecUnavailableError,
    Deadline,
    Event,
    Payload,
    Transport,
    TransportOptions,
)
from explainer.symbols import clean

_SERVICE = "/querier.v1.QuerierService/"
_RENDER = "/pyroscope/render"


@dataclass(frozen=True, slots=True)
class Series:
    labels: tuple[tuple[str, str], ...]
    points: tuple[tuple[int, float], ...]  # (Unix ms, value)


class PyroscopeClient:
    """Queries one server. ``session`` is injected (tests pass a real one against a local server)."""

    def __init__(
        self,
        url: str,
        *,
        session: requests.Session,
        credentials: Credentials | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        options: TransportOptions | None = None,
        on_event: Event | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        base, user, password = split_url(url)
        creds = credentials or Credentials()
        if user and not creds.user and not creds.token:  # http://user:pass@host/ is how some people paste it
            creds = replace(creds, user=user, password=password)
        self.base_url = base  # never has credentials in it: it is shown, logged and stored
        self.timeout = timeout
        self._clock = clock
        self._event = on_event or (lambda _text: None)
        self._transport = Transport(session, base, creds, options, on_event=on_event, sleep=sleep)
        self._connect = True

    def __repr__(self) -> str:
        return f"PyroscopeClient({self.base_url!r}, {self._transport.credentials!r})"

    def deadline(self, seconds: float | None = None) -> Deadline:
        """One budget to share between calls, e.g. type discovery plus the query itself."""
        return Deadline(self.timeout if seconds is None else seconds, self._clock)

    def _rpc(self, method: str, body: dict[str, Any], deadline: Deadline | None, *keys: str) -> dict[str, Any]:
        """POST one Connect call; the answer must be an object holding one of ``keys`` or be empty."""
        self._event(method)
        reply = self._transport.request("POST", _SERVICE + method, method, deadline or self.deadline(), json=body)
        return self._expect(self._transport.json(reply, method), method, keys)

    def _expect(self, obj: Any, endpoint: str, keys: tuple[str, ...]) -> dict[str, Any]:
        # protojson leaves empty fields out (so ``{}`` is a valid, empty answer) but never
        # invents keys: an object with none of the expected ones is some other service's JSON
        if not isinstance(obj, dict) or (obj and not any(k in obj for k in keys)):
            got = ", ".join(clean(str(k), 30) for k in list(obj)[:5]) if isinstance(obj, dict) else type(obj).__name__
            if not self._transport.options.quote_bodies:  # a typed URL's JSON keys are not ours to show
                got = "another service's JSON" if isinstance(obj, dict) else got
            raise self._bad(endpoint, f"expected {' or '.join(keys)}, got {got or 'nothing'}")
        return obj

    def _get(self, path: str, params: dict[str, Any], deadline: Deadline | None) -> Any:
        self._event(path)
        reply = self._transport.request("GET", path, path, deadline or self.deadline(), params=params)
        return self._transport.json(reply, path)

    def _undecodable(self, endpoint: str, what: str, exc: Exception) -> BadResponseError:
        reason = clean(" ".join(str(exc.args[0] if exc.args else exc).split()), 200)  # without the reader's file hint
        return BadResponseError(f"{endpoint} on {self.base_url} sent a {what} that does not decode: {reason}")

    def _bad(self, endpoint: str, what: str) -> BadResponseError:
        return BadResponseError(f"{endpoint} on {self.base_url} answered in an unexpected shape: {what}")

    # -- discovery -----------------------------------------------------------------------------

    def profile_types(self, window: TimeRange, *, deadline: Deadline | None = None) -> list[ProfileType]:
        if self._connect:
            try:
                obj = self._rpc(
                    "ProfileTypes", {"start": window.start_ms, "end": window.end_ms}, deadline, "profileTypes"
                )
            except ApiUnavailableError:
                self._connect = False
            else:
                raw = obj.get("profileTypes", [])
                types = [ProfileType.from_json(t) for t in raw] if isinstance(raw, list) else [None]
                if any(t is None for t in types):
                    raise self._bad("ProfileTypes", "profileTypes is not a list of {ID, name, sampleType, ...}")
                return [t for t in types if t is not None]
        # the legacy API lists type IDs as the values of the __name__ label
        ids = self._get("/pyroscope/label-values", {"label": "__name__"}, deadline)
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise self._bad("/pyroscope/label-values", "expected a list of profile type IDs")
        out = []
        for i in ids:
            try:
                out.append(ProfileType.from_id(i))
            except ExplainerError:
                continue  # not a type ID; nothing we could query anyway
        return out

    def label_names(self, window: TimeRange, selector: str = "{}", *, deadline: Deadline | None = None) -> list[str]:
        return self._names(
            "LabelNames", {**_matchers(selector), "start": window.start_ms, "end": window.end_ms}, deadline
        )

    def label_values(
        self, name: str, window: TimeRange, selector: str = "{}", *, deadline: Deadline | None = None
    ) -> list[str]:
        body = {"name": name, **_matchers(selector), "start": window.start_ms, "end": window.end_ms}
        return self._names("LabelValues", body, deadline)

    def _names(self, method: str, body: dict[str, Any], deadline: Deadline | None) -> list[str]:
        try:
            names = self._rpc(method, body, deadline, "names").get("names", [])
        except ApiUnavailableError as exc:
            # the legacy label-values handler ignores the label name: no honest fallback exists
            raise BadResponseError(f"{exc} (this server offers no Connect API; label discovery needs it)") from exc
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise self._bad(method, "names is not a list of strings")
        return names

    def resolve_type(self, wanted: str, window: TimeRange, *, deadline: Deadline | None = None) -> ProfileType:
        """``gpu-memory``, ``cpu`` or a type ID, checked against what the server has in ``window``."""
        try:
            available: list[ProfileType] | None = self.profile_types(window, deadline=deadline)
        except ApiUnavailableError:
            available = None  # neither API lists types here; a full type ID can still be queried
        return resolve_profile_type(wanted, available, window.describe())

    # -- profiles ------------------------------------------------------------------------------

    def flame_graph(self, query: Query, *, deadline: Deadline | None = None) -> Profile:
        """The merged flame graph Grafana shows for ``query`` (``maxNodes`` applied by the server)."""
        if self._connect:
            try:
                obj = self._rpc("SelectMergeStacktraces", query.connect_body(), deadline, "flamegraph")
            except ApiUnavailableError:
                self._connect = False
            else:
                return self._to_profile(obj, "flamegraph", query, "SelectMergeStacktraces", "connect-flamegraph")
        params = {
            "query": query.profile_type.id + query.selector,
            "from": str(query.window.start_ms),  # 13 digits: the render API reads them as milliseconds
            "until": str(query.window.end_ms),
            "maxNodes": str(query.max_nodes),
            "format": "json",
        }
        return self._to_profile(self._get(_RENDER, params, deadline), "flamebearer", query, _RENDER, "flamebearer")

    def _to_profile(self, obj: Any, key: str, query: Query, endpoint: str, fmt: str) -> Profile:
        from explainer.readers.flamegraph import read_flamegraph_object

        graph = self._expect(obj, endpoint, (key,)).get(key)
        if graph is None or (isinstance(graph, dict) and _is_empty(graph)):
            raise self._empty(query)
        if not isinstance(graph, dict):
            raise self._bad(endpoint, f"{key} is not an object")
        try:
            profile = read_flamegraph_object(
                obj, unit=query.profile_type.sample_unit, location=self.base_url, max_nodes=query.max_nodes
            )
        except ExplainerError as exc:
            raise self._undecodable(endpoint, "flame graph", exc) from exc
        if profile.stack_count == 0:
            raise self._empty(query)
        return self._finish(profile, query, fmt)

    def _finish(self, profile: Profile, query: Query, fmt: str) -> Profile:
        t = query.profile_type
        sample = SampleType(t.sample_type, t.sample_unit)
        return replace(
            profile,
            sample_type=sample,
            sample_types=(sample,),
            period_type=SampleType(t.period_type, t.period_unit) if t.period_type else profile.period_type,
            source=Source(
                "pyroscope",
                self.base_url,
                fmt,
                query=query.describe(),
                profile_type=t.id,
                selector=query.selector,
            ),
            time_ns=query.window.start_ms * 1_000_000,
            duration_ns=(query.window.end_ms - query.window.start_ms) * 1_000_000,
        )

    def _empty(self, query: Query) -> EmptyResultError:
        return EmptyResultError(f"no samples on {self.base_url} for {query.describe()}")

    def profile(self, query: Query, *, deadline: Deadline | None = None) -> Profile:
        """The whole merged pprof, not truncated to ``maxNodes``: binary where the server speaks it
        (``SelectMergeProfile``, else ``SelectMergeStacktraces`` with ``format=PROFILE_FORMAT_PPROF``),
        read by the same reader as a file; protojson only from a server or proxy without the binary codec."""
        deadline = deadline or self.deadline()
        try:
            return self._binary_profile(query, deadline)
        except CodecUnavailableError:
            self._event("no binary codec here: fetching the profile as JSON")
        return self._json_profile(query, deadline)

    def _proto(self, method: str, fields: list[protowire.Field], deadline: Deadline) -> bytearray | bytes:
        self._event(method)
        cap = self._transport.options.max_profile
        payload = Payload(protowire.encode(fields), "application/proto", cap, wire.PROFILE_LIFT)
        reply = self._transport.request("POST", _SERVICE + method, method, deadline, payload=payload)
        if reply.content_type not in ("application/proto", "application/protobuf", ""):
            # a proxy's page or JSON from something that ignored the codec: not a profile
            raise self._bad(method, f"expected application/proto, got {clean(reply.content_type, 40)}")
        return reply.body

    def _binary_profile(self, query: Query, deadline: Deadline) -> Profile:
        t = query.profile_type
        head: list[protowire.Field] = [
            (1, t.id),
            (2, query.selector),
            (3, query.window.start_ms),
            (4, query.window.end_ms),
        ]
        try:  # deprecated on newer servers but still served, and it applies no node budget
            body = self._proto("SelectMergeProfile", head, deadline)
        except CodecUnavailableError:
            raise
        except ApiUnavailableError:
            return self._stacktraces_pprof(query, head, deadline)
        if not body:  # protobuf's empty message: nothing matched
            raise self._empty(query)
        return self._read_pprof(body, query, "SelectMergeProfile")

    def _stacktraces_pprof(self, query: Query, head: list[protowire.Field], deadline: Deadline) -> Profile:
        """Newer servers: the flame-graph call answers a pprof in ``pprof[5].profile[1]``. The node
        budget is the largest the server allows, so a budget it applies to pprof cuts the least."""
        method = "SelectMergeStacktraces"
        body = self._proto(method, [*head, (5, MAX_NODES_LIMIT), (6, protowire.PPROF_FORMAT)], deadline)
        try:
            outer = protowire.nested(body, (5,))
            where = protowire.nested(body, (5, 1))
        except ExplainerError as exc:
            raise self._undecodable(method, "answer", exc) from exc
        if body and outer is None:  # an older server drops the unknown format and answers a flame graph
            raise ApiUnavailableError(f"{method} on {self.base_url} answered no pprof (no PROFILE_FORMAT_PPROF here)")
        if where is None or where[0] == where[1]:
            raise self._empty(query)
        return self._read_pprof(_cut(body, *where), query, method)

    def _read_pprof(self, data: bytes | bytearray, query: Query, method: str) -> Profile:
        from explainer.readers.pprof import read_pprof

        try:
            profile = read_pprof(data, location=self.base_url)
        except ExplainerError as exc:
            raise self._undecodable(method, "profile", exc) from exc
        except (ValueError, TypeError, KeyError, IndexError, OverflowError) as exc:  # as read_bytes maps them
            raise self._undecodable(method, "profile", exc) from exc
        if profile.stack_count == 0:
            raise self._empty(query)
        return self._finish(profile, replace(query, max_nodes=0), "connect-pprof")

    def _json_profile(self, query: Query, deadline: Deadline) -> Profile:
        """``SelectMergeProfile`` as protojson: every int64 a JSON string, parsed in Python (slow on large profiles)."""
        from google.protobuf import json_format

        from explainer.readers.pprof import read_pprof_message
        from explainer.readers.pprof_schema import ProfileMessage

        body = {k: v for k, v in query.connect_body().items() if k != "maxNodes"}
        self._event("SelectMergeProfile")
        payload = Payload(json.dumps(body, separators=(",", ":")).encode(), lift=wire.PROFILE_LIFT)
        reply = self._transport.request(
            "POST", _SERVICE + "SelectMergeProfile", "SelectMergeProfile", deadline, payload=payload
        )
        obj = self._expect(
            self._transport.json(reply, "SelectMergeProfile"),
            "SelectMergeProfile",
            ("sample", "sampleType", "stringTable"),
        )
        if not obj.get("sample"):
            raise self._empty(query)
        strings = obj.get("stringTable", [])
        if not isinstance(strings, list) or not all(isinstance(s, str) for s in strings):
            raise self._bad("SelectMergeProfile", "stringTable is not a list of strings")
        # our schema keeps strings as bytes (real profiles hold invalid UTF-8); JSON bytes are base64
        obj["stringTable"] = [base64.b64encode(s.encode("utf-8", "surrogatepass")).decode() for s in strings]
        try:
            message = json_format.ParseDict(obj, ProfileMessage(), ignore_unknown_fields=True)
            profile = read_pprof_message(message, location=self.base_url)
        except (json_format.ParseError, ExplainerError, ValueError, TypeError) as exc:
            raise self._undecodable("SelectMergeProfile", "profile", exc) from exc
        if profile.stack_count == 0:
            raise self._empty(query)
        return self._finish(profile, replace(query, max_nodes=0), "connect-pprof-json")

    def series(
        self,
        query: Query,
        step_s: float,
        *,
        group_by: tuple[str, ...] = (),
        average: bool = False,
        limit: int = 0,
        call_site: tuple[str, ...] = (),
        deadline: Deadline | None = None,
    ) -> list[Series]:
        """The timeline (``SelectSeries``): one value per ``step_s`` seconds, summed (or ``average``d),
        per ``group_by`` label set; ``limit``: the server keeps only its top N series; ``call_site``:
        only stacks that begin (root first) with these frames (``stackTraceSelector``)."""
        body: dict[str, Any] = {k: v for k, v in query.connect_body().items() if k != "maxNodes"}
        body.update(step=float(step_s), groupBy=list(group_by))
        if average:
            body["aggregation"] = "TIME_SERIES_AGGREGATION_TYPE_AVERAGE"
        if limit > 0:
            body["limit"] = limit
        if call_site:
            body["stackTraceSelector"] = {"callSite": [{"name": n} for n in call_site]}
        raw = self._rpc("SelectSeries", body, deadline, "series").get("series", [])
        try:
            return [_series(s) for s in raw]
        except (TypeError, ValueError, AttributeError, KeyError) as exc:
            raise self._bad("SelectSeries", "series is not a list of {labels, points}") from exc

    def label_sets(
        self, window: TimeRange, selector: str = "{}", names: tuple[str, ...] = (), *, deadline: Deadline | None = None
    ) -> list[dict[str, str]]:
        """The distinct label sets (``Series``) matching ``selector``; ``names`` keeps only those labels."""
        body: dict[str, Any] = {**_matchers(selector), "start": window.start_ms, "end": window.end_ms}
        if names:
            body["labelNames"] = list(names)
        raw = self._rpc("Series", body, deadline, "labelsSet").get("labelsSet", [])
        try:
            return [{str(lb["name"]): str(lb.get("value", "")) for lb in s.get("labels", [])} for s in raw]
        except (TypeError, AttributeError, KeyError) as exc:
            raise self._bad("Series", "labelsSet is not a list of {labels}") from exc

    def diff(self, left: Query, right: Query, *, deadline: Deadline | None = None) -> tuple[Profile, Profile]:
        """Baseline and comparison as two profiles, aligned by the server (``Diff``)."""
        from explainer.readers.flamegraph import read_flamegraph_pair

        obj = self._rpc("Diff", {"left": left.connect_body(), "right": right.connect_body()}, deadline, "flamegraph")
        graph = obj.get("flamegraph")
        if not isinstance(graph, dict) or _is_empty(graph):
            raise self._empty(left)
        try:
            a, b = read_flamegraph_pair(obj, unit=left.profile_type.sample_unit, location=self.base_url)
        except ExplainerError as exc:
            raise self._undecodable("Diff", "flame graph", exc) from exc
        return self._finish(a, left, "connect-diff"), self._finish(b, right, "connect-diff")


def _cut(body: bytes | bytearray, start: int, end: int) -> bytearray:
    """``body[start:end]`` without a second copy of a large answer: a bytearray drops its head in place."""
    out = body if isinstance(body, bytearray) else bytearray(body)
    del out[end:]
    del out[:start]
    return out


def _matchers(selector: str) -> dict[str, list[str]]:
    """``matchers`` for label discovery; "match everything" is no matcher at all (Prometheus'
    parser rejects a selector with no matchers, and protojson omits empty lists anyway)."""
    return {"matchers": [selector]} if selector.strip() not in ("", "{}") else {}


def _is_empty(graph: dict[str, Any]) -> bool:
    """No levels, or nothing in them: what a window with no data looks like (``total`` omitted = 0)."""
    total = graph.get("total", graph.get("numTicks", 0))
    return not graph.get("levels") or str(total) in ("0", "")


def _series(obj: Any) -> Series:
    labels = tuple((str(lb["name"]), str(lb.get("value", ""))) for lb in obj.get("labels", []))
    points = tuple((int(p.get("timestamp", 0)), float(p.get("value", 0.0))) for p in obj.get("points", []))
    return Series(labels, points)
