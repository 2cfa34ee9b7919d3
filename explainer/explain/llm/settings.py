"""Which model to use, from the environment or Streamlit secrets; nothing configured means offline.

OpenAI: ``OPENAI_API_KEY`` and ``EXPLAINER_MODEL``. Any OpenAI-compatible server (Ollama, vLLM,
LM Studio): add ``OPENAI_BASE_URL`` (a key is optional there). Azure OpenAI:
``AZURE_OPENAI_ENDPOINT``, ``AZURE_OPENAI_API_KEY``, ``OPENAI_API_VERSION`` and
``AZURE_OPENAI_DEPLOYMENT``. Values from a secrets mapping win over the environment.
``PYROSCOPE_URL`` and ``GRAFANA_URL`` name the only hosts a model's answer may link to.

The key is held only here: it is left out of ``repr``, :meth:`LlmSettings.describe` and every
message we write, and :meth:`LlmSettings.secrets` lists it for redaction.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from urllib.parse import urlsplit, urlunsplit

from explainer.explain.safety import link_hosts

DEFAULT_TIMEOUT_S = 60.0  # the whole answer (tool rounds, retries, streaming); openai's default is 600 s per request
MAX_TIMEOUT_S = 120.0
DEFAULT_RETRIES = 2
DEFAULT_MAX_COMPLETION_TOKENS = 1_000
DEFAULT_API_VERSION = "2024-10-21"
KEYS = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "EXPLAINER_MODEL",
    "AZURE_OPENAI_ENDPOINT",
    "AZURE_OPENAI_API_KEY",
    "OPENAI_API_VERSION",
    "AZURE_OPENAI_DEPLOYMENT",
    "EXPLAINER_LLM_TIMEOUT",
    "EXPLAINER_REDACT_LABELS",
    "PYROSCOPE_URL",
    "GRAFANA_URL",
)


def _number(text: str, default: float, low: float, high: float) -> float:
    try:
        value = float(text)
    except ValueError:
        return default
    return min(max(value, low), high) if value == value else default  # NaN -> default


def safe_url(url: str) -> str:
    """A URL for display: no user info, query or fragment (they can carry credentials)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "(invalid URL)"
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


@dataclass(frozen=True)
class LlmSettings:
    model: str = ""
    base_url: str = ""
    api_key: str = field(default="", repr=False)
    azure_endpoint: str = ""
    azure_deployment: str = ""
    api_version: str = ""
    timeout: float = DEFAULT_TIMEOUT_S
    max_retries: int = DEFAULT_RETRIES
    max_completion_tokens: int = DEFAULT_MAX_COMPLETION_TOKENS
    redact_labels: bool = False  # keep profile labels (service, pod, namespace) away from the model
    link_hosts: tuple[str, ...] = ()  # hosts a model's answer may link to: the configured Pyroscope and Grafana

    @classmethod
    def from_env(
        cls, secrets: Mapping[str, str] | None = None, environ: Mapping[str, str] | None = None
    ) -> LlmSettings:
        env = os.environ if environ is None else environ
        values: dict[str, str] = {}
        for key in KEYS:
            raw = secrets.get(key) if secrets is not None else None
            if not isinstance(raw, str) or not raw.strip():
                raw = env.get(key, "")
            values[key] = raw.strip()
        azure = values["AZURE_OPENAI_ENDPOINT"]
        return cls(
            model=values["EXPLAINER_MODEL"],
            base_url="" if azure else values["OPENAI_BASE_URL"],
            api_key=values["AZURE_OPENAI_API_KEY"] or values["OPENAI_API_KEY"] if azure else values["OPENAI_API_KEY"],
            azure_endpoint=azure,
            azure_deployment=values["AZURE_OPENAI_DEPLOYMENT"] or (values["EXPLAINER_MODEL"] if azure else ""),
            api_version=values["OPENAI_API_VERSION"] or (DEFAULT_API_VERSION if azure else ""),
            timeout=_number(values["EXPLAINER_LLM_TIMEOUT"], DEFAULT_TIMEOUT_S, 1.0, MAX_TIMEOUT_S),
            redact_labels=values["EXPLAINER_REDACT_LABELS"].lower() in ("1", "true", "yes", "on"),
            link_hosts=link_hosts(values["PYROSCOPE_URL"], values["GRAFANA_URL"]),
        )

    @property
    def provider(self) -> str:
        """``azure``, ``openai``, ``compatible`` (a base URL), or ``""`` when not configured."""
        if self.azure_endpoint:
            return "azure" if self.azure_deployment else ""
        if not self.model:
            return ""
        return "compatible" if self.base_url else "openai"

    @property
    def configured(self) -> bool:
        return bool(self.provider)

    def with_model(self, model: str) -> LlmSettings:
        if self.azure_endpoint:
            return replace(self, azure_deployment=model, model=model)
        return replace(self, model=model)

    def describe(self) -> str:
        """Which model answers, for people: never the key, never credentials in a URL."""
        if self.provider == "azure":
            return f"Azure OpenAI deployment {self.azure_deployment} at {safe_url(self.azure_endpoint)}"
        if self.provider == "compatible":
            return f"{self.model} at {safe_url(self.base_url)}"
        if self.provider == "openai":
            return f"OpenAI {self.model}"
        return "no model configured (offline)"

    def secrets(self) -> tuple[str, ...]:
        """Strings that must never appear in output: the key (and a password in a URL)."""
        out = [self.api_key]
        for url in (self.base_url, self.azure_endpoint):
            try:
                password = urlsplit(url).password
            except ValueError:
                password = None
            if password:
                out.append(password)
        return tuple(s for s in out if s)
