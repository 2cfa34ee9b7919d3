"""The handoff's model summary through the real LangChain and openai clients, against the local
OpenAI-compatible test server: a grounded summary goes on top with its status; an ungrounded one
is left out; a failing model costs nothing but the summary."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from openai_server import Fault, OpenAIServer, Reply

from explainer.explain import LlmSettings
from explainer.model import Profile
from explainer.report.handoff import handoff_markdown


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as srv:
        yield srv


def settings(srv: OpenAIServer) -> LlmSettings:
    return LlmSettings(model="test-model", base_url=srv.url, api_key="sk-canary-handoff", timeout=5.0, max_retries=0)


def test_a_grounded_summary_goes_on_top(demo: Profile, server: OpenAIServer) -> None:
    server.push(
        Reply(
            "The KV cache dominates: `GPUModelRunner._allocate_kv_cache_tensors` allocated 55.1 GB "
            "(73.8% of 74.7 GB). Lower --gpu-memory-utilization to shrink it.\n"
        )
    )
    report = handoff_markdown(demo, llm_settings=settings(server))
    head = report.split("## Scope")[0]
    assert "**Summary** (written by a language model (test-model at http://127.0.0.1:" in head and "55.1 GB" in head
    assert "Only the summary above was written by the model; every other section is computed" in head
    assert "sk-canary-handoff" not in report
    assert report.split("## Scope")[1] == handoff_markdown(demo).split("## Scope")[1]  # the rest stays deterministic


def test_an_ungrounded_summary_is_left_out(demo: Profile, server: OpenAIServer) -> None:
    server.push(Reply("`GPUModelRunner._allocate_kv_cache_tensors` allocated 99.9 GB (12.3%).\n"))
    report = handoff_markdown(demo, llm_settings=settings(server))
    assert "99.9 GB" not in report
    assert "A model summary was written but left out" in report


def test_a_failing_model_costs_only_the_summary(demo: Profile, server: OpenAIServer) -> None:
    server.push(Fault("status", status=500), Fault("status", status=500), Fault("status", status=500))
    report = handoff_markdown(demo, llm_settings=settings(server))
    assert "No model summary" in report
    assert "## Top consumers (self)" in report
