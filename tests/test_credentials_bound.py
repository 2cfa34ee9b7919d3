"""Credentials stay with their server, and no secret survives into an error (issue 26, items 1 and 4).

GIVEN secrets from the environment (bound to ``$PYROSCOPE_URL``) WHEN a client talks to another
origin THEN no Authorization header is sent and the auth error says why. GIVEN a proxy that echoes
the Authorization header (or a cookie) in every kind of body WHEN the error is shown THEN no run of
4 or more characters of the secret appears: it is masked before the excerpt is cut.
"""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import requests

from explainer.errors import ExplainerError
from explainer.pyroscope import PyroscopeClient, credentials_from, parse_window
from explainer.pyroscope.auth import Credentials, mask, origin_of
from explainer.pyroscope.transport import TransportOptions

TOKEN = "glsa_Zx81kQ3vN0pLr7TtY2mW9cB4dF6hJ"  # 33 characters, as in the red-team's probe
PASSWORD = "pw-Secret-9981-abcdef"


class _Echo(BaseHTTPRequestHandler):
    shape = "html"
    status = 502
    seen: list[dict[str, str]] = []  # noqa: RUF012

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0") or 0))
        auth = self.headers.get("Authorization", "")
        type(self).seen.append(dict(self.headers))
        pad = "x" * 57  # puts the secret across the old 80-character cut
        bodies = {
            "html": f"<html><title>{pad} {auth}</title></html>",
            "text": f"{pad} Authorization: {auth}\nCookie: session=abcdef123456",
            "json": json.dumps({"code": "unauthenticated", "message": f"{pad} bad header {auth}"}),
            "headers-json": json.dumps({"headers": {"Authorization": [auth], "Cookie": ["sid=zzzz9999yyyy"]}}),
        }
        body = bodies[self.shape].encode()
        self.send_response(self.status)
        self.send_header("Content-Type", "text/html" if self.shape == "html" else "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def echo() -> Iterator[str]:
    _Echo.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _pieces(secret: str, n: int = 4) -> set[str]:
    return {secret[i : i + n] for i in range(len(secret) - n + 1)}


def _error(url: str, creds: Credentials, quote: bool = True) -> str:
    with requests.Session() as http:
        client = PyroscopeClient(
            url, session=http, credentials=creds, timeout=5, options=TransportOptions(quote_bodies=quote)
        )
        with pytest.raises(ExplainerError) as info:
            client.profile_types(parse_window("now-1h", "now", 1_700_000_000_000))
    return str(info.value)


@pytest.mark.parametrize("shape", ["html", "text", "json", "headers-json"])
@pytest.mark.parametrize("status", [200, 401, 500])
@pytest.mark.parametrize("kind", ["bearer", "basic"])
def test_no_secret_characters_survive_in_any_error(echo: str, shape: str, status: int, kind: str) -> None:
    _Echo.shape, _Echo.status = shape, status
    creds = Credentials(token=TOKEN) if kind == "bearer" else Credentials(user="123456", password=PASSWORD)
    message = _error(echo, creds)
    secrets = [TOKEN] if kind == "bearer" else [PASSWORD, base64.b64encode(f"123456:{PASSWORD}".encode()).decode()]
    leaked = {p for s in secrets for p in _pieces(s) if p in message}
    assert not leaked, message
    assert "zzzz9999" not in message and "abcdef123456" not in message  # cookies we never set, echoed


def test_mask_runs_before_the_cut_and_catches_encoded_forms() -> None:
    text = "Authorization: Bearer " + TOKEN + " and " + TOKEN.replace("_", "%5F")
    assert TOKEN[:6] not in mask(text, [TOKEN, TOKEN.replace("_", "%5F")])
    assert "Cookie: ***" in mask("Cookie: a=b", [])


def test_environment_secrets_go_only_to_the_environment_server(echo: str) -> None:
    _Echo.shape, _Echo.status = "json", 401
    env = {"PYROSCOPE_TOKEN": TOKEN, "PYROSCOPE_URL": "https://pyroscope.internal:4040"}
    creds = credentials_from(environ=env)
    assert creds.origin == "https://pyroscope.internal:4040"
    message = _error(echo, creds)
    assert all("Authorization" not in h and "authorization" not in h for h in _Echo.seen)
    assert "never sent to another server" in message
    same = credentials_from(environ={**env, "PYROSCOPE_URL": echo})
    _error(echo, same)
    assert _Echo.seen[-1].get("Authorization") == f"Bearer {TOKEN}"


def test_typed_credentials_are_not_bound_and_origins_normalise() -> None:
    assert credentials_from(token="abc123", environ={"PYROSCOPE_URL": "http://a"}).origin == ""
    assert origin_of("HTTPS://Host.Example/x") == origin_of("https://host.example:443/")
    assert origin_of("http://host:80") != origin_of("https://host")
    bound = Credentials(token=TOKEN, origin=origin_of("https://a"))
    assert bound.for_url("https://a/") is bound and bound.for_url("https://b").token == ""


def test_a_typed_url_gets_one_status_line_and_no_page_content(echo: str) -> None:
    _Echo.shape, _Echo.status = "html", 200
    message = _error(echo, Credentials(), quote=False)
    assert "title" not in message.lower() and "xxxx" not in message
    _Echo.shape = "headers-json"
    message = _error(echo, Credentials(), quote=False)
    assert "headers" not in message and "another service's JSON" in message
    _Echo.shape, _Echo.status = "json", 500
    message = _error(echo, Credentials(), quote=False)
    assert "bad header" not in message and "HTTP 500" in message
