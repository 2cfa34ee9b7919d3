"""The app's own decompressed cap (default 256 MiB, configurable), driven by Streamlit AppTest.

GIVEN the app, WHEN a gzip bomb is uploaded, THEN it is refused at the app's cap (below the
CLI's) with one friendly line, the demo stays on the page, and the uploader's help states the cap.
"""

from __future__ import annotations

import gzip

import pytest
from streamlit.testing.v1 import AppTest
from test_app import APP, KV, no_exception, top_function

from explainer.readers.limits import DEFAULT_MAX_DECOMPRESSED
from explainer.ui import sources

BOMB = gzip.compress(bytes(3 * 2**20))  # 3 MiB of zeros in about 3 KB


def _upload(at: AppTest, data: bytes) -> AppTest:
    at.radio(key="source_kind").set_value(sources.UPLOAD).run()
    at.file_uploader(key="upload_main").set_value(("bomb.pb.gz", data, "application/gzip"))
    return at.run()


def test_the_default_app_cap_is_256_mib_and_below_the_cli_cap() -> None:
    assert sources.app_max_size(None, {}) == 256 * 2**20 < DEFAULT_MAX_DECOMPRESSED


@pytest.mark.parametrize(
    ("raw", "size"),
    [("1 MiB", 2**20), ("300MB", 300 * 10**6), ("268435456", 2**28), ("lots", 256 * 2**20), ("5 s", 256 * 2**20)],
)
def test_the_cap_is_read_from_the_environment(raw: str, size: int) -> None:
    assert sources.app_max_size(None, {sources.APP_MAX_SIZE_KEY: raw}) == size


def test_the_uploaders_help_states_the_cap() -> None:
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.radio(key="source_kind").set_value(sources.UPLOAD).run()
    help_text = at.file_uploader(key="upload_main").proto.help
    assert "256.0 MiB once decompressed" in help_text and "200.0 MB as uploaded" in help_text


def test_a_bomb_stops_at_the_cap_set_in_secrets() -> None:
    at = AppTest.from_file(APP, default_timeout=60)
    at.secrets[sources.APP_MAX_SIZE_KEY] = "1 MiB"
    at = _upload(at.run(), BOMB)
    no_exception(at)
    errors = [e.value for e in at.sidebar.error]
    assert len(errors) == 1 and "larger than the 1,048,576-byte limit" in errors[0], errors
    assert top_function(at) == KV, "the start profile stays on the page"
    assert "1.0 MiB once decompressed" in at.file_uploader(key="upload_main").proto.help


def test_the_cap_set_in_the_environment_applies(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(sources.APP_MAX_SIZE_KEY, "2 MiB")
    at = _upload(AppTest.from_file(APP, default_timeout=60).run(), BOMB)
    no_exception(at)
    assert "larger than the 2,097,152-byte limit" in at.sidebar.error[0].value
    monkeypatch.setenv(sources.APP_MAX_SIZE_KEY, "4 MiB")  # under the cap: the upload is read
    at = _upload(AppTest.from_file(APP, default_timeout=60).run(), BOMB)
    no_exception(at)
    assert "larger than" not in " ".join(e.value for e in at.sidebar.error)
