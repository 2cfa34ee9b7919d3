"""Explanations: facts about a profile, the offline explainer, the model path, and verification.

    from explainer.explain import LlmSettings, Conversation, Answer, Verification

    settings = LlmSettings.from_env(secrets)          # .configured, .describe()
    conv = Conversation(profile, settings=settings, mode="auto")
    answer = conv.ask("What uses the most GPU memory?")
    for chunk in conv.ask_stream(question): ...       # then conv.last_answer
    conv.outgoing_preview(question)                   # exactly what would be sent ("" offline)
    conv.suggested_questions()

Nothing here imports LangChain or the openai client until a model is actually used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explainer.lazy import face

if TYPE_CHECKING:
    from explainer.explain.conversation import Answer, Conversation, Verification
    from explainer.explain.llm.settings import LlmSettings

__all__ = ["Answer", "Conversation", "LlmSettings", "Verification"]


if not TYPE_CHECKING:  # for mypy the names are the imports above
    # Conversation pulls in langchain-core for its message types, LlmSettings the link rules; keep
    # `import explainer.explain` cheap (the handoff report imports explainer.explain.answers offline)
    __getattr__ = face(
        __name__,
        {**dict.fromkeys(("Answer", "Conversation", "Verification"), "conversation"), "LlmSettings": "llm.settings"},
    )
