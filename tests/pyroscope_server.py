"""A Pyroscope-compatible test server (127.0.0.1 or 127.0.0.2, random port) that can fail on command.

It speaks the wire format of docs/pyroscope-api.md: Connect JSON at
``POST /querier.v1.QuerierService/<Method>`` (int64 as strings, zero fields omitted, errors as
``{"code", "message"}`` with the matching HTTP status, gzip when asked), the legacy
``GET /pyroscope/render`` and ``/pyroscope/label-values``. Answers are built from our own
``Profile`` objects, so a test can compare "analysed from the server" with "analysed from a file".

Faults (``server.fault = Fault(kind, ...)``), each bounded so no handler thread outlives a test:

    hang         accept, read the request, never answer
    close        accept, read the request, close the connection without a word
    drip         headers at once, then the body one byte per ``interval``
    drip_all     the status line and headers one byte at a time too
    die          Content-Length says N, half the body is sent, then the socket closes
    die_chunked  the same with chunked transfer encoding
    status       an HTTP/Connect error (``status``), ``times`` times, then normal service;
                 401/403 messages echo the Authorization header, as careless proxies do
    html         200 with a login page;  truncated: 200 with half the JSON;  not_api: 200, other JSON
    oversized    Content-Length of 1 GiB;  endless: no length, bytes until the client leaves
    gzip_bomb    200, gzip, 64 MiB of zeros in ~64 KB
    redirect     ``status`` (307) to ``target`` + the same path (127.0.0.2 is another host)
    no_connect   Connect paths answer ``status`` (404, 405 or 501): render fallback
    empty        the query matched nothing

Binary (``application/proto``, Connect's other codec): a request in that media type is decoded
from protobuf and answered in it. ``SelectMergeProfile`` answers the serialized pprof itself;
``SelectMergeStacktraces`` with ``format`` 4 (``PROFILE_FORMAT_PPROF``) answers ``pprof[5].profile[1]``
(as protojson ``{"pprof": {"profile": ...}}`` to a JSON request). Older or narrower servers:
``proto=False`` answers 415 to the binary codec, ``merge_profile=False`` has no SelectMergeProfile
(404), ``pprof_format=False`` ignores format 4 as servers before it do (a flame graph comes back).
"""

from __future__ import annotations

import base64
import gzip
import json
import socket
import threading
import zlib
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

from google.protobuf import json_format
from pyroscope_cluster import BadSelector, Cluster

from explainer.analysis.tree import build_tree
from explainer.model import Profile, ProfileBuilder
from explainer.readers.flamegraph import encode_flamegraph
from explainer.writers import to_pprof_message

CONNECT = "/querier.v1.QuerierService/"
PROTO = "application/proto"
CODES = {400: "invalid_argument", 401: "unauthenticated", 403: "permission_denied", 404: "not_found",
         409: "aborted", 429: "resource_exhausted", 500: "internal", 501: "unimplemented", 503: "unavailable",
         504: "deadline_exceeded"}  # fmt: skip
DAY_MS = 24 * 3600 * 1000
LOGIN_PAGE = (
    b"<!DOCTYPE html><html><head><title>Sign in - Corp SSO</title></head><body><form>password</form></body></html>"
)
_BOUND = 256 * 2**20  # endless bodies stop here even if the client never leaves
_bomb: list[bytes] = []


@dataclass
class Fault:
    kind: str
    status: int = 503
    times: int = 0  # faulty answers before normal service; 0 = every time
    retry_after: str = ""
    target: str = ""
    only: str = ""  # apply only to paths containing one of these ("|"-separated)
    interval: float = 0.05
    hits: int = 0


@dataclass
class Seen:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any


@dataclass
class Reply:
    status: int
    body: bytes
    ctype: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)


def closed_port_url() -> str:
    """A loopback URL where nothing listens: connection refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


class PyroscopeServer:
    def __init__(
        self, profiles: dict[str, Profile] | None = None, *, labels: dict[str, list[str]] | None = None,
        host: str = "127.0.0.1", use_gzip: bool = True, require_auth: str = "", require_tenant: str = "",
        right: Profile | None = None, cluster: Cluster | None = None, proto: bool = True, merge_profile: bool = True,
        pprof_format: bool = True,
    ) -> None:  # fmt: skip
        assert host in ("127.0.0.1", "127.0.0.2"), "the test server only listens on loopback"
        self.profiles = profiles or {}
        self.labels = labels or {}
        self.use_gzip = use_gzip
        self.require_auth, self.require_tenant = require_auth, require_tenant
        self.right = right  # Diff: the comparison side (the baseline is the profile of the type)
        self.cluster = cluster  # labelled series (pyroscope_cluster.py): when set, the Connect calls answer from it
        self.proto, self.merge_profile, self.pprof_format = proto, merge_profile, pprof_format
        # bench/server.py: answer a repeated request from memory, so a run times the client, not this server
        self.remember = False
        self.memo: dict[tuple[Any, ...], tuple[Reply, bytes, bool]] = {}
        self.fault: Fault | None = None
        self.seen: list[Seen] = []
        self.stop = threading.Event()
        self._httpd = ThreadingHTTPServer((host, 0), _Handler)
        self._httpd.app = self  # type: ignore[attr-defined]
        self.url = f"http://{host}:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> PyroscopeServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()  # releases hanging and dripping handlers
        self._httpd.shutdown()
        self._httpd.server_close()

    def count(self, part: str) -> int:
        return sum(1 for s in self.seen if part in s.path)

    def active_fault(self, path: str) -> Fault | None:
        f = self.fault
        only = [part for part in f.only.split("|") if part] if f else []
        if (
            f is None
            or (only and not any(part in path for part in only))
            or (f.kind == "no_connect" and not path.startswith(CONNECT))
        ):
            return None
        f.hits += 1
        return f if f.times == 0 or f.hits <= f.times else None

    # -- normal service ------------------------------------------------------------------------

    def answer(self, method: str, path: str, query: dict[str, list[str]], body: Any, headers: dict[str, str]) -> Reply:
        auth = headers.get("authorization", "")
        if self.require_auth and auth != self.require_auth:
            return error(401, f"invalid credentials: {auth!r}")  # the echo a careless proxy does
        if self.require_tenant and headers.get("x-scope-orgid") != self.require_tenant:
            return error(401, "no org id")
        if method == "POST" and path.startswith(CONNECT):
            binary = headers.get("content-type", "") == PROTO
            if binary and not self.proto:  # connect-go: a codec it does not have is 415, with what it takes
                return Reply(415, b"", "text/plain", {"Accept-Post": "application/json"})
            if not isinstance(body, dict):
                return error(400, "request body is not " + ("protobuf" if binary else "JSON"))
            name = path[len(CONNECT) :]
            handler = getattr(self, "_rpc_" + name, None)
            if self.cluster is not None and not binary and hasattr(self, "_cluster_" + name):
                return getattr(self, "_cluster_" + name)(body)  # type: ignore[no-any-return]
            if handler is None or (name == "SelectMergeProfile" and not self.merge_profile):
                return Reply(404, b"404 page not found\n", "text/plain")
            if name in ("SelectMergeProfile", "SelectMergeStacktraces"):  # binary too; from the cluster when set
                try:
                    return handler(body, binary)  # type: ignore[no-any-return]
                except BadSelector as exc:
                    return error(400, str(exc))
            return handler(body)  # type: ignore[no-any-return]
        if method == "GET" and path == "/pyroscope/render":
            return self._render(query)
        if method == "GET" and path == "/pyroscope/label-values":
            return ok(sorted(self.profiles) if query.get("label") == ["__name__"] else [])
        return Reply(404, b"404 page not found\n", "text/plain")

    def _rpc_ProfileTypes(self, body: dict[str, Any]) -> Reply:
        types = []
        for tid in sorted(self.profiles):
            parts = tid.split(":")
            keys = ("name", "sampleType", "sampleUnit", "periodType", "periodUnit")
            types.append({"ID": tid, **{k: v for k, v in zip(keys, parts, strict=False) if v}})
        return ok({"profileTypes": types} if types else {})

    def _rpc_LabelNames(self, body: dict[str, Any]) -> Reply:
        bad = check_range(body)
        return bad or ok({"names": ["__name__", "__profile_type__", *sorted(self.labels)]})

    def _rpc_LabelValues(self, body: dict[str, Any]) -> Reply:
        values = self.labels.get(str(body.get("name", "")), [])
        return check_range(body) or ok({"names": values} if values else {})

    def _rpc_SelectMergeStacktraces(self, body: dict[str, Any], binary: bool = False) -> Reply:
        if bad := check_range(body) or check_nodes(body):
            return bad
        profile = self._merged(body)
        pprof = self.pprof_format and body.get("format") in (4, "PROFILE_FORMAT_PPROF")
        if pprof and binary:  # SelectMergeStacktracesResponse{pprof[5]: PprofProfile{profile[1]}}
            return Reply(200, _field(5, _field(1, pprof_bytes(profile))) if profile else b"", PROTO)
        if pprof:
            return ok({"pprof": {"profile": pprof_json(profile)}} if profile else {})
        graph = encode_flamegraph(truncated(profile, _int64(body.get("maxNodes")) or 8192)) if profile else None
        if binary:
            return Reply(200, _field(1, flamegraph_bytes(graph)) if graph else b"", PROTO)
        return ok({"flamegraph": graph} if graph else {})

    def _merged(self, body: dict[str, Any]) -> Profile | None:
        """The profile a query selects: the cluster's merge when one is set, else the type's profile."""
        if self.cluster is not None:
            return self._cluster_merge(body)
        return self.profiles.get(str(body.get("profileTypeID", "")))

    def _rpc_SelectMergeProfile(self, body: dict[str, Any], binary: bool = False) -> Reply:
        if bad := check_range(body):
            return bad
        profile = self._merged(body)
        if binary:  # the raw serialized google.v1.Profile; an empty message is zero bytes
            return Reply(200, pprof_bytes(profile) if profile else b"", PROTO)
        return ok(pprof_json(profile) if profile else {})

    def _rpc_SelectSeries(self, body: dict[str, Any]) -> Reply:
        profile = self.profiles.get(str(body.get("profileTypeID", "")))
        if bad := check_range(body):
            return bad
        start, end, step = int(body["start"]), int(body["end"]), float(body.get("step", 15)) * 1000
        n = max(int((end - start) // step), 1)
        points = [{"value": profile.total / n, "timestamp": str(start + int(i * step))} for i in range(n)]
        return ok(
            {"series": [{"labels": [{"name": "service_name", "value": "vllm"}], "points": points}]} if profile else {}
        )

    def _rpc_Diff(self, body: dict[str, Any]) -> Reply:
        left, right = body.get("left", {}), body.get("right", {})
        bad = check_range(left) or check_range(right)
        base = self.profiles.get(str(left.get("profileTypeID", "")))
        if bad or base is None:
            return bad or ok({})
        return ok({"flamegraph": diff_flamegraph(base, self.right or base)})

    # -- a labelled cluster (pyroscope_cluster.Cluster) ---------------------------------------------

    def _on_cluster(self, body: dict[str, Any], answer: Any) -> Reply:
        if bad := check_range(body):
            return bad
        try:
            return ok(answer())
        except BadSelector as exc:
            return error(400, str(exc))

    def _cluster_ProfileTypes(self, body: dict[str, Any]) -> Reply:
        keys = ("name", "sampleType", "sampleUnit", "periodType", "periodUnit")
        assert self.cluster is not None
        types = [
            {"ID": t, **{k: v for k, v in zip(keys, t.split(":"), strict=False) if v}} for t in self.cluster.types()
        ]
        return ok({"profileTypes": types} if types else {})

    def _cluster_LabelNames(self, body: dict[str, Any]) -> Reply:
        assert self.cluster is not None
        c = self.cluster
        return self._on_cluster(body, lambda: {"names": c.label_names(list(body.get("matchers", [])))})

    def _cluster_LabelValues(self, body: dict[str, Any]) -> Reply:
        assert self.cluster is not None
        c, name = self.cluster, str(body.get("name", ""))
        return self._on_cluster(body, lambda: _omit({"names": c.label_values(name, list(body.get("matchers", [])))}))

    def _cluster_Series(self, body: dict[str, Any]) -> Reply:
        assert self.cluster is not None
        c = self.cluster
        names = [str(n) for n in body.get("labelNames", [])]

        def sets() -> dict[str, Any]:
            found = c.label_sets(list(body.get("matchers", [])), names)
            return _omit(
                {"labelsSet": [{"labels": [{"name": k, "value": v} for k, v in sorted(s.items())]} for s in found]}
            )

        return self._on_cluster(body, sets)

    def _cluster_merge(self, body: dict[str, Any]) -> Profile | None:
        assert self.cluster is not None
        site = [str(c.get("name", "")) for c in (body.get("stackTraceSelector") or {}).get("callSite", [])]
        return self.cluster.merged(
            str(body.get("profileTypeID", "")), str(body.get("labelSelector", "{}")),
            _int64(body.get("start")), _int64(body.get("end")), site or None,
        )  # fmt: skip

    def _cluster_SelectMergeStacktraces(self, body: dict[str, Any]) -> Reply:
        if bad := check_nodes(body):
            return bad

        def graph() -> dict[str, Any]:
            p = self._cluster_merge(body)
            return {"flamegraph": encode_flamegraph(truncated(p, int(body.get("maxNodes", 8192))))} if p else {}

        return self._on_cluster(body, graph)

    def _cluster_SelectMergeProfile(self, body: dict[str, Any]) -> Reply:
        def whole() -> dict[str, Any]:
            p = self._cluster_merge(body)
            return pprof_json(p) if p else {}

        return self._on_cluster(body, whole)

    def _cluster_SelectSeries(self, body: dict[str, Any]) -> Reply:
        assert self.cluster is not None
        c = self.cluster
        return self._on_cluster(body, lambda: _omit({"series": c.range_series(body)}))

    def _cluster_Diff(self, body: dict[str, Any]) -> Reply:
        left, right = body.get("left", {}), body.get("right", {})
        if bad := check_range(left) or check_range(right):
            return bad
        try:
            a, b = self._cluster_merge(left), self._cluster_merge(right)
        except BadSelector as exc:
            return error(400, str(exc))
        if a is None and b is None:
            return ok({})
        empty = ProfileBuilder((a or b).sample_type).build()  # type: ignore[union-attr]
        return ok({"flamegraph": diff_flamegraph(a or empty, b or empty)})

    def _render(self, query: dict[str, list[str]]) -> Reply:
        q = query.get("query", [""])[0]
        tid = q.split("{", 1)[0]
        if not tid:
            return Reply(400, b'"query" must contain a profile-type selection', "text/plain")
        profile = self.profiles.get(tid)
        fg = encode_flamegraph(truncated(profile, int(query.get("maxNodes", ["8192"])[0]))) if profile else {}
        levels = [[int(v) for v in lvl.get("values", [])] for lvl in fg.get("levels", [])]
        parts = [*tid.split(":"), "", "", ""]
        bearer = {"names": fg.get("names", []), "levels": levels, "numTicks": int(fg.get("total", 0)),
                  "maxSelf": int(fg.get("maxSelf", 0))}  # fmt: skip
        meta = {"format": "single", "spyName": "", "sampleRate": 100, "units": parts[2], "name": parts[1]}
        return ok({"version": 1, "flamebearer": bearer, "metadata": meta, "timeline": None, "groups": None})


def _omit(obj: dict[str, Any]) -> dict[str, Any]:
    """protojson leaves empty fields out."""
    return {k: v for k, v in obj.items() if v}


def ok(obj: Any) -> Reply:
    return Reply(200, json.dumps(obj, separators=(",", ":")).encode())


def error(status: int, message: str) -> Reply:
    return Reply(status, json.dumps({"code": CODES.get(status, "unknown"), "message": message}).encode())


def _int64(value: Any) -> int:
    """protojson accepts int64 as a number or a numeric string."""
    return int(value) if isinstance(value, int) or (isinstance(value, str) and value.lstrip("-").isdigit()) else 0


def check_range(body: dict[str, Any]) -> Reply | None:
    start, end = _int64(body.get("start")), _int64(body.get("end"))
    if not start or not end:
        return error(400, "missing time range in the query")
    if start > end:
        return error(400, "invalid time range: start > end")
    if end - start > DAY_MS:
        return error(
            400, f"the query time range exceeds the limit (max_query_length, actual: {end - start}ms, limit: 24h0m0s)"
        )
    return None


def check_nodes(body: dict[str, Any]) -> Reply | None:
    n = _int64(body.get("maxNodes", 0))
    if n > 1 << 20:
        return error(400, f"max flamegraph nodes limit {n} is greater than allowed {1 << 20}")
    return error(400, "max flamegraph nodes limit must be set (max allowed 1048576)") if n < 0 else None


def truncated(profile: Profile, max_nodes: int) -> Profile:
    """What the server's ``maxNodes`` does: small subtrees merged into ``other`` nodes."""
    tree = build_tree(profile, max_nodes)
    if not tree.merged_nodes:
        return profile
    builder = ProfileBuilder(profile.sample_type)
    for node in range(1, tree.size):
        if tree.self[node] > 0:
            builder.add([tree.name(n) for n in tree.path(node)], int(tree.self[node]))
    return builder.build(sample_types=profile.sample_types)


def pprof_bytes(profile: Profile) -> bytes:
    """SelectMergeProfile's binary answer: the serialized profile, not gzipped (HTTP gzip may wrap it)."""
    return bytes(to_pprof_message(profile).SerializeToString())


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def _field(number: int, data: bytes) -> bytes:
    """One length-delimited field (wire type 2)."""
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def flamegraph_bytes(graph: dict[str, Any]) -> bytes:
    """FlameGraph{names[1], levels[2] Level{values[1] packed int64}, total[3], max_self[4]} from its JSON form."""
    out = b"".join(_field(1, str(n).encode()) for n in graph.get("names", []))
    for level in graph.get("levels", []):
        out += _field(2, _field(1, b"".join(_varint(int(v)) for v in level.get("values", []))))
    for number, key in ((3, "total"), (4, "maxSelf")):
        if int(graph.get(key, 0)):
            out += _varint(number << 3) + _varint(int(graph[key]))
    return out


# request fields by number, for both SelectMergeProfileRequest and SelectMergeStacktracesRequest
_REQUEST_FIELDS = {
    "SelectMergeProfile": {1: "profileTypeID", 2: "labelSelector", 3: "start", 4: "end", 5: "maxNodes"},
    "SelectMergeStacktraces": {1: "profileTypeID", 2: "labelSelector", 3: "start", 4: "end", 5: "maxNodes",
                               6: "format"},
}  # fmt: skip


def decode_request(method: str, raw: bytes) -> dict[str, Any] | None:
    """A binary request as the dict its JSON form would give (int64 as ints); None if it does not decode."""
    names = _REQUEST_FIELDS.get(method, {})
    out: dict[str, Any] = {}
    pos = 0

    def varint() -> int:
        nonlocal pos
        value = shift = 0
        while True:
            byte = raw[pos]
            pos += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return value

    try:
        while pos < len(raw):
            key = varint()
            number, wire_type = key >> 3, key & 7
            if wire_type == 0:
                value: Any = varint()
                value = value - (1 << 64) if value >= 1 << 63 else value
            elif wire_type == 2:
                size = varint()
                value = raw[pos : pos + size].decode("utf-8")
                pos += size
            else:
                return None
            if number in names:  # unknown fields are dropped, as the server does
                out[names[number]] = value
    except (IndexError, UnicodeDecodeError):
        return None
    return out


def pprof_json(profile: Profile) -> dict[str, Any]:
    """SelectMergeProfile's JSON: protojson of google.v1.Profile (strings as text, int64 as strings)."""
    obj = json_format.MessageToDict(to_pprof_message(profile))  # type: ignore[arg-type]
    obj["stringTable"] = [base64.b64decode(s).decode("utf-8", "replace") for s in obj.get("stringTable", [])]
    return obj


def diff_flamegraph(left: Profile, right: Profile) -> dict[str, Any]:
    """FlameGraphDiff: both trees aligned, 7-int tuples, each side's x delta-encoded on its own."""
    root: dict[str, Any] = {"name": "total", "t": [0, 0], "s": [0, 0], "kids": {}}
    for side, profile in enumerate((left, right)):
        for stack, value in profile.stacks():
            node = root
            node["t"][side] += value
            for name in stack:
                node = node["kids"].setdefault(name, {"name": name, "t": [0, 0], "s": [0, 0], "kids": {}})
                node["t"][side] += value
            node["s"][side] += value
    names: list[str] = []
    ids: dict[str, int] = {}
    levels: list[list[int]] = []
    ends: list[list[int]] = []
    todo = [(root, 0, 0, 0)]
    while todo:
        node, depth, xl, xr = todo.pop()
        nid = ids.setdefault(node["name"], len(names))
        if nid == len(names):
            names.append(node["name"])
        if depth == len(levels):
            levels.append([])
            ends.append([0, 0])
        (tl, tr), (sl, sr) = node["t"], node["s"]
        levels[depth] += [xl - ends[depth][0], tl, sl, xr - ends[depth][1], tr, sr, nid]
        ends[depth] = [xl + tl, xr + tr]
        placed, cl, cr = [], xl + sl, xr + sr
        for kid in sorted(node["kids"].values(), key=lambda k: k["name"]):
            placed.append((kid, depth + 1, cl, cr))
            cl, cr = cl + kid["t"][0], cr + kid["t"][1]
        todo.extend(reversed(placed))
    tl, tr = root["t"]
    max_self = max(max(lvl[i + 2], lvl[i + 5]) for lvl in levels for i in range(0, len(lvl), 7))
    return {"names": names, "levels": [{"values": [str(v) for v in lvl]} for lvl in levels],
            "total": str(tl + tr), "maxSelf": str(max_self), "leftTicks": str(tl), "rightTicks": str(tr)}  # fmt: skip


def gzip_bomb() -> bytes:
    if not _bomb:
        z = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        block = bytes(2**20)
        _bomb.append(b"".join([*(z.compress(block) for _ in range(64)), z.flush()]))
    return _bomb[0]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def _handle(self, method: str) -> None:
        app: PyroscopeServer = self.server.app  # type: ignore[attr-defined]
        path, _, qs = self.path.partition("?")
        size = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(min(size, 2**20)) if size else b""
        headers = {k.lower(): v for k, v in self.headers.items()}
        try:
            if headers.get("content-type", "") == PROTO:
                body = decode_request(path[len(CONNECT) :], raw)
            else:
                body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        query = parse_qs(qs)
        app.seen.append(Seen(method, path, query, headers, body))
        fault = app.active_fault(path)
        kind = fault.kind if fault else ""
        if fault and kind not in ("drip", "drip_all", "die", "die_chunked", "truncated"):  # those mangle a real answer
            self.close_connection = True
            return self._fault(app, fault, headers.get("authorization", ""))
        gzip_ok = app.use_gzip and "gzip" in headers.get("accept-encoding", "")
        # the window moves with the clock (--from now-1h): a remembered answer ignores it
        asked = {k: v for k, v in body.items() if k not in ("start", "end")} if isinstance(body, dict) else raw
        key = (method, self.path, repr(asked), headers.get("content-type", ""), gzip_ok)
        memo = app.memo.get(key) if app.remember else None
        if memo is None:
            reply = app.answer(method, path, query, body, headers)
            payload = reply.body
            encoded = gzip_ok and len(payload) > 256
            if encoded:
                payload = gzip.compress(payload, compresslevel=6, mtime=0)
            if app.remember and reply.status == 200:
                app.memo[key] = (reply, payload, encoded)
        else:
            reply, payload, encoded = memo
        head = [
            f"HTTP/1.1 {reply.status} X",
            f"Content-Type: {reply.ctype}",
            *(f"{k}: {v}" for k, v in reply.headers.items()),
        ]
        head += ["Content-Encoding: gzip"] if encoded else []
        if kind == "die_chunked":
            head.append("Transfer-Encoding: chunked")
            payload = f"{len(payload):x}\r\n".encode() + payload[: len(payload) // 2]
        else:
            head.append(f"Content-Length: {len(payload) // 2 if kind == 'truncated' else len(payload)}")
        data = ("\r\n".join(head) + "\r\n\r\n").encode()
        if kind in ("die", "truncated"):
            payload = payload[: len(payload) // 2]
        if kind in ("drip", "drip_all", "die", "die_chunked"):
            self.close_connection = True
            data = data.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n", 1)
        self._write(app, data, payload, fault)

    def _write(self, app: PyroscopeServer, head: bytes, payload: bytes, fault: Fault | None) -> None:
        try:
            if fault is None or fault.kind not in ("drip", "drip_all"):
                self.wfile.write(head + payload)
                return
            if fault.kind == "drip":
                self.wfile.write(head)
                head = b""
            for i in range(len(head + payload)):
                if app.stop.wait(fault.interval):
                    return
                self.wfile.write((head + payload)[i : i + 1])
        except OSError:
            return  # the client gave up: what a fault test expects

    def _fault(self, app: PyroscopeServer, fault: Fault, auth: str) -> None:
        kind = fault.kind
        try:
            if kind == "hang":
                app.stop.wait(30)
            elif kind == "close":
                return  # the handler ends and the socket closes: no status line at all
            elif kind in ("status", "no_connect"):
                self._status(fault, auth)
            elif kind == "html":
                self._send(Reply(200, LOGIN_PAGE, "text/html; charset=utf-8"))
            elif kind == "not_api":
                self._send(ok({"status": "success", "data": {"resultType": "matrix", "result": []}}))
            elif kind == "empty":
                self._send(ok({} if self.path.startswith(CONNECT) else {"flamebearer": {"names": [], "levels": [],
                                                                                          "numTicks": 0}}))  # fmt: skip
            elif kind == "gzip_bomb":
                self._send(Reply(200, gzip_bomb(), headers={"Content-Encoding": "gzip"}))
            elif kind == "redirect":
                self._send(Reply(fault.status, b"", headers={"Location": fault.target + self.path}))
            else:  # oversized, endless: stream until the client leaves, the server stops, or the bound
                length = f"Content-Length: {2**30}\r\n" if kind == "oversized" else "Connection: close\r\n"
                self.wfile.write(f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n{length}\r\n".encode())
                chunk = b"[" + b"0," * 32767
                for _ in range(_BOUND // len(chunk)):
                    if app.stop.is_set():
                        return
                    self.wfile.write(chunk)
        except OSError:
            return

    def _status(self, fault: Fault, auth: str) -> None:
        status = fault.status if fault.kind == "status" or fault.status in (405, 501) else 404
        if fault.kind == "no_connect" and status == 404:
            return self._send(Reply(404, b"404 page not found\n", "text/plain"))
        if status == 405:
            return self._send(Reply(405, b"Method Not Allowed", "text/plain"))
        message = f"invalid credentials: {auth!r}" if status in (401, 403) else "try again later"
        reply = error(status, message)
        if fault.retry_after:
            reply.headers["Retry-After"] = fault.retry_after
        return self._send(reply)

    def _send(self, reply: Reply) -> None:
        head = [f"HTTP/1.1 {reply.status} X", f"Content-Type: {reply.ctype}", f"Content-Length: {len(reply.body)}"]
        head += ["Connection: close"]  # fault answers close the connection; say so, as real servers do
        head += [f"{k}: {v}" for k, v in reply.headers.items()]
        self.wfile.write(("\r\n".join(head) + "\r\n\r\n").encode() + reply.body)
