"""The app's Pyroscope form never hands the deployment's token to another server (issue 26, item 1).

GIVEN ``PYROSCOPE_URL`` and ``PYROSCOPE_TOKEN`` in the app's environment WHEN a user types another
server's URL and picks the environment's credentials THEN that server receives no Authorization
header and the page shows one line; WHEN the form is locked (``EXPLAINER_APP_PYROSCOPE_LOCKED=1``,
the container's default) THEN the URL cannot be changed and every call goes to the configured server.
"""

from __future__ import annotations

import pytest
from pyroscope_server import PyroscopeServer
from streamlit.testing.v1 import AppTest

from conftest import use_packaged_streamlit_settings
from explainer.cli import app
from explainer.demo import demo_profile
from explainer.ui import sources
from explainer.ui.pyroscope_form import AUTH, ENV_LOCKED

GPU = "process_cpu:malloc:bytes::"
TOKEN = "tok-deployment-Secret-123"


def _start(monkeypatch: pytest.MonkeyPatch, url: str) -> AppTest:
    monkeypatch.setenv("PYROSCOPE_URL", url)
    monkeypatch.setenv("PYROSCOPE_TOKEN", TOKEN)
    use_packaged_streamlit_settings()
    at = AppTest.from_file(str(app.APP_SCRIPT), default_timeout=60).run()
    at.radio(key="source_kind").set_value(sources.SERVER).run()
    return at


def test_a_typed_server_never_gets_the_environments_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_LOCKED, raising=False)
    with (
        PyroscopeServer({GPU: demo_profile()}, require_auth=f"Bearer {TOKEN}") as home,
        PyroscopeServer({GPU: demo_profile()}, host="127.0.0.2") as foreign,
    ):
        at = _start(monkeypatch, home.url)
        assert at.selectbox(key="pyro_auth").value == AUTH[3]
        at.text_input(key="pyro_url").set_value(foreign.url).run()
        at.button(key="pyro_connect").click().run()
        assert foreign.seen and all("authorization" not in s.headers for s in foreign.seen)
        at.text_input(key="pyro_url").set_value(home.url).run()
        at.button(key="pyro_connect").click().run()
        assert home.seen and home.seen[-1].headers.get("authorization") == f"Bearer {TOKEN}"
        page = " ".join(str(e.value) for e in at.sidebar.error)
        assert TOKEN not in page


def test_a_locked_form_only_queries_the_configured_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_LOCKED, "1")
    with (
        PyroscopeServer({GPU: demo_profile()}, require_auth=f"Bearer {TOKEN}") as home,
        PyroscopeServer({GPU: demo_profile()}, host="127.0.0.2") as foreign,
    ):
        at = _start(monkeypatch, home.url)
        field = at.text_input(key="pyro_url")
        assert field.disabled and field.value == home.url
        at.session_state["pyro_url"] = foreign.url  # what a crafted widget message could try
        at.button(key="pyro_connect").click().run()
        assert not foreign.seen and home.seen
        assert not at.exception and not at.sidebar.error, [e.value for e in at.sidebar.error]
        assert at.selectbox(key="pyro_type").value.id == GPU
