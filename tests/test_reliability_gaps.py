"""Criteria of ../shared/docs/reliability.md that no other test covered (see docs/reliability.md).

GIVEN flame-graph JSON with non-increasing offsets, a model that writes far too much, a
conversation at its question cap, and the app's server configuration, THEN each is bounded
as the criterion says.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
from openai_server import OpenAIServer, Reply

from explainer.errors import ValidationError
from explainer.explain import Conversation, LlmSettings
from explainer.explain.conversation import MAX_QUESTIONS
from explainer.explain.safety import MAX_ANSWER_CHARS
from explainer.model import Profile
from explainer.readers import read_bytes
from explainer.ui import sources

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "levels",
    [
        [[0, 4, 0, 0], [0, 2, 0, 1, -3, 2, 0, 2]],  # the second node starts before the first ends
        [[0, 4, 0, 0], [2, 2, 0, 1, 0, 2, 0, 2]],  # a node beyond the parent's end
    ],
    ids=["non-increasing offset", "offset outside the row above"],
)
def test_flamegraph_offsets_must_increase(levels: list[list[int]]) -> None:
    data = json.dumps({"flamebearer": {"names": ["total", "a", "b"], "levels": levels, "numTicks": 4}})
    with pytest.raises(ValidationError) as info:
        read_bytes(data.encode())
    assert info.value.field == "levels[1][4]"


def _settings(srv: OpenAIServer) -> LlmSettings:
    return LlmSettings(model="m", base_url=srv.url, api_key="k", timeout=10.0, max_retries=0)


def test_a_model_answer_is_capped_and_marked_incomplete(demo: Profile) -> None:
    with OpenAIServer() as server:
        server.push(Reply("The KV cache is big. " * 2_000, chunk_chars=400))  # 42,000 characters
        answer = Conversation(demo, settings=_settings(server), mode="llm").ask("What uses the most GPU memory?")
    model_part = answer.markdown.split("> The model's answer is incomplete")[0]
    assert len(model_part) <= MAX_ANSWER_CHARS + 500, f"{len(model_part):,} characters shown"
    assert answer.incomplete and "length limit" in (answer.notice or "")


def test_a_conversation_stops_asking_the_model_at_its_question_cap(demo: Profile) -> None:
    with OpenAIServer() as server:
        conv = Conversation(demo, settings=_settings(server), mode="llm")
        conv.questions = MAX_QUESTIONS  # as after 50 questions
        answer = conv.ask("What uses the most GPU memory?")
        assert server.requests == [] and answer.mode == "offline"
    assert "length limit" in (answer.notice or "")


def test_the_app_server_stays_local_with_xsrf_on_and_uploads_capped() -> None:
    config = tomllib.loads((REPO / "explainer" / "ui" / "streamlit.toml").read_text())
    server = config["server"]
    assert server["address"] == "127.0.0.1" and config["browser"]["serverAddress"] == "127.0.0.1"
    assert server["enableXsrfProtection"] is True and server["enableCORS"] is True
    assert server["maxUploadSize"] == sources.MAX_UPLOAD_MB
    assert config["client"]["showErrorDetails"] == "none"


def test_no_raw_html_reaches_the_page_from_our_code() -> None:
    """No ``unsafe_allow_html`` and no raw HTML element anywhere in the app's code."""
    files = [REPO / "app.py", *sorted((REPO / "explainer").rglob("*.py"))]
    offenders = [
        str(f.relative_to(REPO))
        for f in files
        if re.search(r"unsafe_allow_html\s*=\s*True|st\.html\(|components\.v1\.html\(", f.read_text())
    ]
    assert offenders == []


def test_the_profiles_file_path_is_never_sent_to_the_model(tmp_path: Path, demo: Profile) -> None:
    from explainer.readers import read_path
    from explainer.writers import to_pprof

    secret_dir = tmp_path / "home-alice-secret-project"
    secret_dir.mkdir()
    path = secret_dir / "prod-cluster-7.pb.gz"
    path.write_bytes(to_pprof(demo))
    settings = LlmSettings(model="m", base_url="http://127.0.0.1:9/v1", api_key="k")
    preview = Conversation(read_path(path), settings=settings, mode="llm").outgoing_preview("What uses the most?")
    assert preview and "alice" not in preview and "prod-cluster-7" not in preview
