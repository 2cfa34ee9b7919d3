"""The model path: LangChain's ChatOpenAI (or AzureChatOpenAI) with our tools, streamed.

Reliability choices, each against a documented hazard:

- One total deadline per answer (``EXPLAINER_LLM_TIMEOUT``, 60 s by default, not the openai
  client's 600 s per request): connect, retries, backoff and every streamed byte are inside it
  (:mod:`explainer.explain.llm.deadline`). Retries are ours, bounded, and never sleep past it.
- At most :data:`MAX_TOOL_ROUNDS` rounds of tool calls and :data:`MAX_CALLS_PER_ROUND` calls per
  round; the last round offers no tools, so the model has to answer.
- Upstream errors become :class:`~explainer.errors.ModelError` with our own one-line message;
  upstream text is never passed on (it can echo request headers).
- A stream that ends without a finish reason (cut mid-way) or stops at the length limit is
  reported as incomplete.
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolMessage
from langchain_core.messages.tool import invalid_tool_call
from langchain_core.runnables import Runnable

from explainer.errors import ModelError, ModelResponseError, ModelUnavailableError
from explainer.explain.llm.deadline import Budget, DeadlineExceeded, bounded, http_client
from explainer.explain.llm.settings import LlmSettings
from explainer.explain.llm.tools import Toolbox

log = logging.getLogger(__name__)
MAX_TOOL_ROUNDS = 4
MAX_CALLS_PER_ROUND = 6
MAX_BACKOFF_S = 8.0
_RETRY_STATUSES = (408, 409, 429, 500, 502, 503, 504)

__all__ = ["DeadlineExceeded", "ModelSession", "Outcome", "chat_model", "translate"]


def _finish_reason(reply: AIMessageChunk) -> str | None:
    """Why the stream ended. A provider that reports metadata but no reason was cut short; a model
    that reports no metadata at all (a LangChain fake in tests) is taken to have finished."""
    meta = reply.response_metadata
    reason = meta.get("finish_reason")
    if reason is None and not meta:
        return "stop"
    return reason if isinstance(reason, str) else None


def _strict_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text or "{}"), dict)
    except (ValueError, RecursionError):
        return False


def chat_model(settings: LlmSettings) -> BaseChatModel:
    """The LangChain chat model for ``settings`` (imports langchain-openai only when a model is used)."""
    from pydantic import SecretStr

    common: dict[str, Any] = {
        "timeout": settings.timeout,
        "max_retries": 0,  # ours (ModelSession), inside the answer's deadline
        "http_client": http_client(settings.timeout),
        "streaming": True,
        "max_completion_tokens": settings.max_completion_tokens,
    }
    if settings.provider == "azure":
        from langchain_openai import AzureChatOpenAI

        return AzureChatOpenAI(
            azure_endpoint=settings.azure_endpoint,
            azure_deployment=settings.azure_deployment,
            api_version=settings.api_version,
            api_key=SecretStr(settings.api_key) if settings.api_key else None,
            **common,
        )
    if settings.provider in ("openai", "compatible"):
        from langchain_openai import ChatOpenAI

        # local servers (Ollama, vLLM) take any key; the client insists on one
        key = SecretStr(settings.api_key or "not-needed")
        return ChatOpenAI(model=settings.model, base_url=settings.base_url or None, api_key=key, **common)
    raise ModelUnavailableError("no model is configured (set EXPLAINER_MODEL and OPENAI_API_KEY)")


def translate(exc: BaseException, settings: LlmSettings, budget: Budget | None = None) -> ModelError:
    """Our error for an upstream one: a fixed sentence by class and status, no upstream text."""
    import httpx
    import openai

    if isinstance(exc, ModelError):
        return exc
    if budget is not None and budget.expired:
        return budget.error()
    if isinstance(exc, openai.APITimeoutError):
        return ModelUnavailableError(f"the model did not answer within {settings.timeout:g} s")
    if isinstance(exc, openai.RateLimitError):
        return ModelUnavailableError("the model endpoint is rate-limiting requests (HTTP 429)")
    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
        return ModelUnavailableError(
            "the model endpoint rejected the credentials (HTTP 401/403)",
            hint="check OPENAI_API_KEY or AZURE_OPENAI_API_KEY",
        )
    if isinstance(exc, openai.APIStatusError):
        return ModelUnavailableError(f"the model endpoint answered HTTP {exc.status_code}")
    if isinstance(exc, openai.APIConnectionError | httpx.TransportError):
        return ModelUnavailableError("the connection to the model endpoint failed or broke off")
    return ModelResponseError(f"the model call failed ({type(exc).__name__})")


def _backoff(exc: BaseException, attempt: int) -> float | None:
    """Seconds to wait before retrying ``exc``, or None when it is not worth a retry (401, 400...)."""
    import openai

    if isinstance(exc, openai.APIStatusError):
        if exc.status_code not in _RETRY_STATUSES:
            return None
        headers = exc.response.headers
        for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
            try:
                asked = float(headers.get(name, "")) * scale
            except ValueError:
                continue
            if 0 <= asked < math.inf:  # NaN fails too
                return float(min(asked, MAX_BACKOFF_S))
    elif not isinstance(exc, openai.APIConnectionError):
        return None
    return min(0.5 * 2.0**attempt, MAX_BACKOFF_S)


@dataclass
class Outcome:
    """What one streamed answer ended as; filled in while the text streams."""

    finish_reason: str | None = None
    tool_calls: int = 0
    rounds: int = 0
    error: ModelError | None = None
    messages: list[BaseMessage] = field(default_factory=list)

    @property
    def incomplete(self) -> bool:
        return self.error is not None or self.finish_reason not in ("stop", "tool_calls", "function_call")


class ModelSession:
    """Runs one question through the model: stream, execute tool calls, repeat, until an answer."""

    def __init__(
        self,
        model: BaseChatModel,
        toolbox: Toolbox,
        settings: LlmSettings,
        clock: Callable[[], float] = time.monotonic,
        started: float | None = None,  # on ``clock``: when the answer began (default: when it streams)
    ) -> None:
        self.model, self.toolbox, self.settings, self.clock = model, toolbox, settings, clock
        self.started = started

    def stream(self, messages: list[BaseMessage], outcome: Outcome) -> Iterator[str]:
        """Yields answer text; raises :class:`ModelError` (translated) on failure or at the deadline."""
        budget = Budget.start(self.settings.timeout, self.clock, self.started)
        specs = self.toolbox.specs()
        for round_ in range(MAX_TOOL_ROUNDS + 1):
            outcome.rounds = round_ + 1
            bound = self._bind(specs, "none" if round_ == MAX_TOOL_ROUNDS else "auto")
            reply: AIMessageChunk | None = None
            try:
                for chunk in bounded(partial(self._attempts, bound, messages, budget), budget):
                    if not isinstance(chunk, AIMessageChunk):
                        continue
                    reply = chunk if reply is None else reply + chunk
                    if isinstance(chunk.content, str) and chunk.content:
                        yield chunk.content
            except Exception as exc:
                raise translate(exc, self.settings, budget) from exc
            if reply is None:
                raise ModelResponseError("the model sent an empty response")
            outcome.finish_reason = _finish_reason(reply)
            message = self._message(reply)
            messages.append(message)
            if not message.tool_calls and not message.invalid_tool_calls:
                outcome.messages = messages
                return
            if message.content:
                yield "\n\n"
            messages.extend(self._run_tools(message, outcome))
        outcome.messages = messages

    def _attempts(self, bound: Runnable[Any, Any], messages: list[BaseMessage], budget: Budget) -> Iterator[Any]:
        """One round's stream, retried while nothing has streamed yet, the fault is transient and
        the backoff ends before the deadline (runs in the worker thread of :func:`bounded`)."""
        for attempt in range(self.settings.max_retries + 1):
            started = False
            try:
                for chunk in bound.stream(messages):
                    started = True
                    yield chunk
                return
            except Exception as exc:
                delay = _backoff(exc, attempt)
                if started or delay is None or attempt == self.settings.max_retries or delay >= budget.remaining():
                    raise
                log.info("model call failed (%s); retry %d in %.1f s", type(exc).__name__, attempt + 1, delay)
                time.sleep(delay)

    def _bind(self, specs: list[dict[str, Any]], choice: str) -> Runnable[Any, Any]:
        """The model with our tools; a model that cannot call tools (a test fake) answers from the facts."""
        try:
            return self.model.bind_tools(specs, tool_choice=choice)
        except NotImplementedError:
            return self.model

    @staticmethod
    def _message(reply: AIMessageChunk) -> AIMessage:
        """The reply as a history message, with tool calls sorted into valid and malformed.

        LangChain parses streamed arguments leniently (``{n: three`` becomes ``{}``), which would
        run a call the model never made; the raw text is parsed strictly here instead. Calls
        without an id cannot be answered, so they are dropped.
        """
        raw = {c.get("id"): c.get("args") or "" for c in reply.tool_call_chunks}
        valid, invalid = [], [c for c in reply.invalid_tool_calls if c.get("id")]
        for call in reply.tool_calls:
            if not call.get("id"):
                continue
            if _strict_object(raw.get(call["id"], "{}")):
                valid.append(call)
            else:
                invalid.append(
                    invalid_tool_call(
                        name=call["name"], args=str(raw.get(call["id"]))[:200], id=call["id"], error="malformed JSON"
                    )
                )
        content = reply.content if isinstance(reply.content, str) else ""
        return AIMessage(content=content, tool_calls=valid, invalid_tool_calls=invalid)

    def _run_tools(self, message: AIMessage, outcome: Outcome) -> list[ToolMessage]:
        results = []
        for i, call in enumerate(message.tool_calls):
            if i >= MAX_CALLS_PER_ROUND:
                content = self.toolbox.result(call["name"][:60], {"error": "too many tool calls in one turn"})
            else:
                outcome.tool_calls += 1
                results.append(self.toolbox.call(call["name"], call.get("args"), str(call["id"])))
                continue
            results.append(ToolMessage(content=content, tool_call_id=str(call["id"])))
        for bad in message.invalid_tool_calls:
            results.append(ToolMessage(content=self.toolbox.malformed(bad.get("name")), tool_call_id=str(bad["id"])))
        return results
