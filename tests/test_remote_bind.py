"""Non-loopback means explicit (issue 26, item 6).

GIVEN ``explainer app`` or ``explainer mcp --transport http`` on a non-loopback address WHEN
``--allow-remote`` is missing THEN exit 2 with one line; WITH it THEN one warning line and the
Host allow-list stays on. GIVEN an MCP HTTP server with a bearer token WHEN a request comes
without it (or with another Host) THEN it is refused; with it the tools answer.
"""

from __future__ import annotations

import io
import json
import os
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from explainer.cli import app
from explainer.cli.main import build_parser, main
from explainer.netbind import allowed_hosts, is_loopback
from mcp_client import free_port, http_server


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), out, err), out.getvalue(), err.getvalue()


@pytest.mark.parametrize("verb", [["app"], ["mcp", "--transport", "http"]])
@pytest.mark.parametrize("host", ["0.0.0.0", "::", "10.1.2.3"])
def test_a_non_loopback_bind_needs_allow_remote(verb: list[str], host: str) -> None:
    code, out, err = _cli(*verb, "--host", host)
    assert code == 2 and out == "" and err.count("\n") == 1 and "--allow-remote" in err


def test_loopback_names() -> None:
    assert all(is_loopback(h) for h in ("127.0.0.1", "127.5.5.5", "::1", "[::1]", "localhost", "a.localhost"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "::", "10.0.0.1", "example.com", "localhost.evil.com"))


def test_the_app_keeps_a_host_allow_list_and_warns(capsys: pytest.CaptureFixture[str]) -> None:
    args = build_parser("app").parse_args(
        ["app", "--host", "0.0.0.0", "--allow-remote", "--allowed-host", "explainer.example.com"]
    )
    from explainer import notices

    notices.forget()
    notices.sink = None
    command = app.streamlit_command(args)
    pairs = [command[i + 1] for i, word in enumerate(command) if word == "--server.allowedHosts"]
    assert pairs == ["127.0.0.1", "localhost", "::1", "explainer.example.com"]
    warning = capsys.readouterr().err
    assert warning.count("\n") == 1 and "anyone who can reach this address" in warning
    local = app.streamlit_command(build_parser("app").parse_args(["app"]))
    assert [local[i + 1] for i, w in enumerate(local) if w == "--server.allowedHosts"] == [
        "127.0.0.1",
        "localhost",
        "::1",
    ]


def test_allowed_hosts_include_a_specific_bind_address() -> None:
    assert allowed_hosts("10.1.2.3", []) == ["127.0.0.1", "localhost", "::1", "10.1.2.3"]
    assert allowed_hosts("0.0.0.0", ["a.example"]) == ["127.0.0.1", "localhost", "::1", "a.example"]


def _post(url: str, headers: dict[str, str]) -> tuple[int, str]:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers},
    )
    try:
        with urllib.request.urlopen(request, timeout=20) as reply:
            return reply.status, reply.read(4096).decode(errors="replace")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(4096).decode(errors="replace")


def test_mcp_http_bearer_token_and_host_check(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("mcp-Secret-token-42\n")
    token_file.chmod(0o600)
    port = free_port()
    command = [sys.executable, "-m", "explainer", "mcp", "--transport", "http", "--port", str(port)]
    command += ["--root", str(tmp_path), "--auth-token-file", str(token_file)]
    env_before = dict(os.environ)
    with http_server(command, port, tmp_path / "mcp.log") as url:
        assert _post(url, {})[0] == 401
        assert _post(url, {"Authorization": "Bearer wrong"})[0] == 401
        good = {"Authorization": "Bearer mcp-Secret-token-42"}
        status, text = _post(url, good)
        assert status == 200 and "serverInfo" in text
        assert _post(url, {**good, "Host": "evil.example:80"})[0] in (400, 403, 421)  # DNS rebinding
        assert _post(url, {**good, "Origin": "http://evil.example"})[0] in (400, 403)
    assert dict(os.environ) == env_before
