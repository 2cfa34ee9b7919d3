"""Config contexts, profilecli's names, Grafana's times, completion and ``python -m explainer``.

GIVEN a config file with named contexts and a real local Pyroscope test server that insists on a
tenant and a token, WHEN commands run with the file, the environment and flags in every
combination, THEN a flag beats the environment, which beats the file; secrets come only from
references; profilecli's flag and variable names work; Grafana's rounded times resolve to whole
units; and bad configuration is one line and exit status 2.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pyroscope_server import PyroscopeServer

from explainer.cli import config
from explainer.cli.main import main
from explainer.demo import demo_profile
from explainer.pyroscope import parse_time, parse_window
from explainer.writers import to_pprof

GPU = "process_cpu:malloc:bytes::"
NOW = int(datetime(2026, 8, 21, 10, 30, 15, tzinfo=UTC).timestamp() * 1000)  # a Friday


def ms(text: str) -> int:
    return int(datetime.fromisoformat(text).timestamp() * 1000)


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), out, err), out.getvalue(), err.getvalue()


@pytest.fixture
def server() -> PyroscopeServer:
    with PyroscopeServer({GPU: demo_profile()}, require_auth="Bearer tok-ctx", require_tenant="team-a") as srv:
        yield srv  # type: ignore[misc]


def write_config(home: Path, text: str) -> Path:
    path = home / "explainer" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    for name in ("PYROSCOPE_URL", "PYROSCOPE_TENANT", "PYROSCOPE_TOKEN", "PYROSCOPE_USER", "PYROSCOPE_PASSWORD"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    return tmp_path


def aks_context(url: str, extra: str = "") -> str:
    return f"""current-context = "aks"

[contexts.aks]
server = "{url}"
tenant = "team-a"
token-env = "AKS_TOKEN"
grafana-url = "https://grafana.example.internal"
grafana-datasource = "pyro-uid"
{extra}
[contexts.other]
server = "http://127.0.0.1:9"
"""


def test_the_current_context_gives_server_tenant_and_token(server, xdg, monkeypatch) -> None:
    write_config(xdg, aks_context(server.url))
    monkeypatch.setenv("AKS_TOKEN", "tok-ctx")
    code, out, err = run("pyroscope", "types", "--from", "now-1h")
    assert code == 0, err
    assert GPU in out
    seen = server.seen[-1].headers
    assert seen["authorization"] == "Bearer tok-ctx" and seen["x-scope-orgid"] == "team-a"


def test_environment_beats_the_file_and_flags_beat_both(server, xdg, monkeypatch) -> None:
    write_config(xdg, aks_context("http://127.0.0.1:9"))  # the file's server is wrong
    monkeypatch.setenv("AKS_TOKEN", "tok-ctx")
    monkeypatch.setenv("PYROSCOPE_URL", server.url)  # the environment's is right
    monkeypatch.setenv("PYROSCOPE_TENANT", "team-b")
    assert run("pyroscope", "types")[0] == 2  # the env's tenant won over the file's: refused
    assert server.seen[-1].headers["x-scope-orgid"] == "team-b"
    code, _, err = run("pyroscope", "types", "--tenant", "team-a")  # the flag wins over both
    assert server.seen[-1].headers["x-scope-orgid"] == "team-a"
    # issue 26: the context's token belongs to the context's server (127.0.0.1:9), so it is never
    # sent to the environment's: the server refuses and the one line says why
    assert code == 2 and "never sent to another server" in err, err
    assert "authorization" not in {k.lower() for k in server.seen[-1].headers}
    write_config(xdg, aks_context(server.url))  # the context's own server: its token goes there
    code, _, err = run("pyroscope", "types", "--tenant", "team-a")
    assert code == 0, err
    assert server.seen[-1].headers["x-scope-orgid"] == "team-a"


def test_a_file_is_read_over_a_context_server(server, xdg, monkeypatch, tmp_path) -> None:
    write_config(xdg, aks_context(server.url))
    monkeypatch.setenv("AKS_TOKEN", "tok-ctx")
    path = tmp_path / "demo.pb.gz"
    path.write_bytes(to_pprof(demo_profile()))
    before = len(server.seen)
    code, out, _ = run("analyze", str(path))
    assert code == 0 and "74.7 GB" in out and len(server.seen) == before
    code, out, err = run("analyze", "--server", "--format", "json")  # --server without a URL: the context's
    assert code == 0 and '"kind": "pyroscope"' in out, err


def test_handoff_takes_grafana_settings_from_the_context(server, xdg, monkeypatch) -> None:
    write_config(xdg, aks_context(server.url))
    monkeypatch.setenv("AKS_TOKEN", "tok-ctx")
    code, out, err = run("handoff", "--server", "--llm", "offline")
    assert code == 0, err
    assert "https://grafana.example.internal" in out and "pyro-uid" in out


def test_choosing_a_context_and_a_file(server, xdg, monkeypatch, tmp_path) -> None:
    other = tmp_path / "elsewhere.toml"
    other.write_text(aks_context(server.url).replace('current-context = "aks"', ""), encoding="utf-8")
    monkeypatch.setenv("AKS_TOKEN", "tok-ctx")
    assert run("pyroscope", "types", "--config", str(other), "--context", "aks")[0] == 0
    assert run("--config", str(other), "--context", "aks", "pyroscope", "types")[0] == 0  # kubectl's order too
    monkeypatch.setenv("EXPLAINER_CONFIG", str(other))
    monkeypatch.setenv("EXPLAINER_CONTEXT", "aks")
    assert run("pyroscope", "types")[0] == 0
    code, _, err = run("pyroscope", "types", "--context", "nope")
    assert code == 2 and "no context 'nope'" in err and "aks, other" in err


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[contexts.a]\ntoken = "literal-secret"\n', "literal token; use token-file or token-env"),
        ('[contexts.a]\nservr = "x"\n', "unknown key 'servr'"),
        ("[contexts.a]\nserver = 4040\n", "must be a string"),
        ("[contexts.a\n", "cannot read"),
        ('[contexts.a]\ntoken-env = "UNSET_VARIABLE_X"\n', "UNSET_VARIABLE_X, which is not set"),
    ],
)
def test_bad_configuration_is_one_line_and_exit_2(xdg, text, message) -> None:
    write_config(xdg, text)
    code, _, err = run("pyroscope", "types", "--context", "a")
    assert code == 2 and message in err and err.count("\n") == 1
    assert "literal-secret" not in err


def test_a_missing_config_file_named_on_the_command_line_is_an_error(xdg) -> None:
    code, _, err = run("analyze", "--demo", "--config", str(xdg / "missing.toml"))
    assert code == 2 and "does not exist" in err
    assert run("analyze", "--demo")[0] == 0  # no default file: nothing to read, no error


def test_the_default_path_honours_xdg(tmp_path) -> None:
    assert Path(config.default_path({"XDG_CONFIG_HOME": str(tmp_path)})) == tmp_path / "explainer" / "config.toml"
    assert Path(config.default_path({})) == Path.home() / ".config" / "explainer" / "config.toml"


def test_profilecli_flags_and_variables(server, xdg, monkeypatch, capsys) -> None:
    monkeypatch.setenv("PROFILECLI_TOKEN", "tok-ctx")
    code, out, err = run(
        "analyze", "--url", server.url, "--tenant-id", "team-a", "--query", "{}", "--from", "now-2h", "--to", "now-1h",
        "--format", "json",
    )  # fmt: skip
    assert code == 0 and '"total": 74700000000' in out, err
    monkeypatch.setenv("PROFILECLI_URL", server.url)
    monkeypatch.setenv("PROFILECLI_TENANT_ID", "team-a")
    assert run("pyroscope", "types")[0] == 0
    with pytest.raises(SystemExit) as refused:  # a usage error, like any bad flag
        run("analyze", "--url", server.url, "--token", "tok-ctx")
    err = capsys.readouterr().err
    assert refused.value.code == 2 and "secret on the command line" in err and "tok-ctx" not in err


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("now/h", "2026-08-21T10:00:00+00:00", "2026-08-21T10:59:59.999+00:00"),
        ("now-1d/d", "2026-08-20T00:00:00+00:00", "2026-08-20T23:59:59.999+00:00"),
        ("now/w", "2026-08-17T00:00:00+00:00", "2026-08-23T23:59:59.999+00:00"),  # ISO weeks start on Monday
        ("now-2h/h", "2026-08-21T08:00:00+00:00", "2026-08-21T08:59:59.999+00:00"),
        ("now+1h", "2026-08-21T11:30:15+00:00", "2026-08-21T11:30:15+00:00"),
        ("now-1d-2h/h", "2026-08-20T08:00:00+00:00", "2026-08-20T08:59:59.999+00:00"),
    ],
)
def test_grafana_relative_times_round_down_to_start_and_up_for_the_end(text, start, end) -> None:
    assert parse_time(text, NOW) == ms(start)
    assert parse_time(text, NOW, round_up=True) == ms(end)


def test_yesterday_is_one_whole_day() -> None:
    w = parse_window("now-1d/d", "now-1d/d", NOW)
    assert (w.start_ms, w.end_ms) == (ms("2026-08-20T00:00:00+00:00"), ms("2026-08-20T23:59:59.999+00:00"))


def test_python_dash_m_and_shell_completion(tmp_path) -> None:
    env = {**os.environ, "PYTHONPATH": ""}
    version = subprocess.run([sys.executable, "-m", "explainer", "--version"], capture_output=True, text=True, env=env)
    assert version.returncode == 0 and version.stdout.startswith("explainer ")
    code, out, _ = run("completion", "bash")
    assert code == 0 and "explainer" in out and "complete" in out
    answer = tmp_path / "completions"
    env |= {"_ARGCOMPLETE": "1", "COMP_LINE": "explainer ana", "COMP_POINT": "13",
            "_ARGCOMPLETE_STDOUT_FILENAME": str(answer)}  # fmt: skip
    subprocess.run([sys.executable, "-m", "explainer"], env=env, capture_output=True, timeout=60)
    assert answer.read_text().split() == ["analyze"]


def test_contexts_lists_them_with_the_current_one_and_no_secret(xdg, monkeypatch) -> None:
    write_config(xdg, aks_context("http://127.0.0.1:4040"))
    monkeypatch.setenv("AKS_TOKEN", "tok-secret-value")
    code, out, err = run("contexts")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].endswith("config.toml")
    assert lines[1].startswith("* aks  server=http://127.0.0.1:4040  tenant=team-a  auth=token-env=AKS_TOKEN")
    assert lines[2].startswith("  other  server=http://127.0.0.1:9")
    assert "tok-secret-value" not in out
    assert run("contexts", "--context", "other")[1].splitlines()[2].startswith("* other")
