"""The smaller items of issue 26 (items 7 and 9), one test each.

Folded lines end at ``\\n`` only; a token file that is not UTF-8, ``--max-size 0`` and a FIFO as
the config are one-line errors (the FIFO at once); format characters are escaped in JSON;
``chat --llm openai`` exits 2 when it fell back; the model client honours the proxy variables;
``user:password@`` on the command line is refused; plain-HTTP credentials, a world-readable
secret file and a world-writable config each get one warning.
"""

from __future__ import annotations

import io
import json
import os
import threading
import time
import unicodedata
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from explainer.cli.main import main
from explainer.cli.terminal import json_text
from explainer.demo import demo_profile
from explainer.readers import read_bytes
from explainer.writers import to_pprof


def _cli(*argv: str, stdin: str | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    if stdin is None:
        return main(list(argv), out, err), out.getvalue(), err.getvalue()
    import sys

    old, sys.stdin = sys.stdin, io.StringIO(stdin)
    try:
        return main(list(argv), out, err), out.getvalue(), err.getvalue()
    finally:
        sys.stdin = old


@pytest.fixture
def demo_file(tmp_path: Path) -> str:
    path = tmp_path / "demo.pb.gz"
    path.write_bytes(to_pprof(demo_profile()))
    return str(path)


@pytest.mark.parametrize("sep", ["\u2028", "\u2029", "\x85", "\v", "\f", "\x1c", "\x1d", "\x1e", "\r"])
def test_folded_names_keep_every_separator_but_newline(sep: str) -> None:
    profile = read_bytes(f"main;evil{sep}forged;top 1\nmain;real 5\n".encode())
    assert f"evil{sep}forged" in profile.names and "forged" not in profile.names
    assert dict(profile.stacks())[("main", "real")] == 5


def test_crlf_line_endings_lose_one_cr_only() -> None:
    profile = read_bytes(b"a;b 3\r\na;c\r 4\r\n\r\n")
    assert dict(profile.stacks()) == {("a", "b"): 3, ("a", "c\r"): 4}


def test_a_token_file_that_is_not_utf8_is_one_line(demo_file: str, tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_bytes(b"\xff\xfe\xfasecret\n")
    token.chmod(0o600)
    code, out, err = _cli("analyze", "--server", "http://127.0.0.1:9", "--token-file", str(token))
    assert code == 2 and out == "" and err.count("\n") == 1 and "is not UTF-8 text" in err
    assert "secret" not in err and "Traceback" not in err


def test_json_escapes_every_control_and_format_character() -> None:
    hostile = "".join(
        chr(c)
        for c in range(0x110000)
        if unicodedata.category(chr(c)) in ("Cc", "Cf", "Zl", "Zp") and chr(c) not in "\n\t"
    )
    text = json_text({"name": hostile + "\u061c"})
    assert all(ord(ch) < 0x80 or unicodedata.category(ch) not in ("Cc", "Cf", "Zl", "Zp") for ch in text)
    assert json.loads(text)["name"] == hostile + "\u061c"  # exact data: astral ones as surrogate pairs


@pytest.mark.parametrize("value", ["0", "-5", "abc"])
def test_max_size_must_be_at_least_one_byte(demo_file: str, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["analyze", demo_file, "--max-size", value], io.StringIO(), io.StringIO())
    assert info.value.code == 2 and "at least 1" in capsys.readouterr().err


def test_a_fifo_as_the_config_is_refused_at_once(demo_file: str, tmp_path: Path) -> None:
    fifo = tmp_path / "config.toml"
    os.mkfifo(fifo)
    start = time.monotonic()
    code, _out, err = _cli("analyze", demo_file, "--config", str(fifo))
    assert code == 2 and "not a regular file" in err and time.monotonic() - start < 5


@pytest.mark.slow  # seconds of generated shapes: make test runs it, make check does not
def test_chat_llm_openai_exits_2_when_it_fell_back(demo_file: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXPLAINER_MODEL", "test-model")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # refused at once: the offline answer
    monkeypatch.setenv("EXPLAINER_LLM_TIMEOUT", "3")
    code, out, err = _cli("chat", demo_file, "--llm", "openai", stdin="what uses the most memory?\n")
    assert code == 2 and err.count("\n") == 1 and "--llm openai: 1 of 1 answers were not the model's" in err
    assert out.strip()  # the answer was still shown
    code, _out, err = _cli("chat", demo_file, "--llm", "auto", stdin="what uses the most memory?\n")
    assert code == 0, err


class _Proxy(BaseHTTPRequestHandler):
    seen: list[str] = []  # noqa: RUF012

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        type(self).seen.append(self.path)
        body = b"via proxy"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def proxy() -> Iterator[str]:
    _Proxy.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Proxy)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_the_model_client_honours_the_proxy_variables(proxy: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from explainer.explain.llm.deadline import http_client

    for name in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", proxy)
    with http_client(5) as client:
        assert client.get("http://model.invalid/v1/models").text == "via proxy"
    assert _Proxy.seen == ["http://model.invalid/v1/models"]
    monkeypatch.setenv("NO_PROXY", "model.invalid")
    with http_client(5) as client, pytest.raises(httpx.ConnectError):
        client.get("http://model.invalid/v1/models")  # direct: the name does not resolve
    assert len(_Proxy.seen) == 1


def test_a_password_in_a_command_line_url_is_refused(demo_file: str) -> None:
    code, _out, err = _cli("analyze", "--server", "http://123:hunter2pass@127.0.0.1:9")
    assert code == 2 and "carries a password" in err and "hunter2pass" not in err


def test_warnings_plain_http_readable_secret_writable_config(tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text("tok-abcdef\n")
    token.chmod(0o644)
    config = tmp_path / "config.toml"
    config.write_text("")
    config.chmod(0o666)
    code, _out, err = _cli(
        "analyze", "--server", "http://10.255.255.1:9", "--token-file", str(token), "--config", str(config),
        "--timeout", "0.5",
    )  # fmt: skip
    assert code == 2
    warnings = [line for line in err.splitlines() if line.startswith("explainer: warning:")]
    assert len(warnings) == 3, err
    assert "writable by every user" in warnings[0]
    assert any("can be read by every user" in w for w in warnings)
    assert any("plain http://" in w for w in warnings)
    token.chmod(0o600)
    config.chmod(0o600)
    code, _out, err = _cli("analyze", "--server", "http://127.0.0.1:9", "--token-file", str(token))
    assert "warning" not in err  # loopback, private file: nothing to say
