"""``explainer ask SOURCE "QUESTION"``: one question about a profile, answered offline or by a model.

JSON contract: ``answer`` (Markdown), ``mode`` (``offline`` or ``llm``), ``verification`` with
``checked`` (how many numbers were checked) and ``unverified`` (the claims that failed), the
numbers ``verified`` (values of the subject their claim names), ``derived`` (worked out from
grounded values), ``unbound`` (in claims naming no known subject) and ``wrong``, and
``wrong_claims``: ``{text, subject, reason, expected}`` for every failed claim, and
``derived_claims``: ``{text, from}`` (the grounded values each derived number came from); also ``notice``
(why the answer is a fallback or cut short, else null), ``incomplete`` and ``focus``.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, TextIO

from explainer.cli.cluster_source import cluster_desk
from explainer.cli.gpu_args import add_gpu_arguments, budget_from
from explainer.cli.sources import add_source_arguments, load_profile, read_options
from explainer.cli.terminal import json_text
from explainer.errors import ModelUnavailableError
from explainer.readers import read_path

CONVENTION = (
    "Where an answer places a bar (above, below, top, bottom), it reads a classic flame graph: the root at "
    "the bottom and each function's callees above it, as flamegraph.pl draws it (the app's answers follow "
    "the orientation its graph is drawn in)."
)

if TYPE_CHECKING:
    from explainer.explain import Answer, LlmSettings, Verification

MODES = {"auto": "auto", "offline": "offline", "openai": "llm"}


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "ask",
        help="ask a question about a profile in plain language",
        description="Answer a question about a profile: offline by default, or with the model configured by "
        "EXPLAINER_MODEL and OPENAI_API_KEY (OPENAI_BASE_URL for compatible servers, or the AZURE_OPENAI_* "
        "variables). Every number in a model's answer is checked against the profile. " + CONVENTION,
    )
    add_source_arguments(p)
    p.add_argument("question", metavar="QUESTION", help='e.g. "What uses the most GPU memory?"')
    p.add_argument(
        "--llm",
        choices=tuple(MODES),
        default="auto",
        help="auto: the model when one is configured, else (or when it fails within EXPLAINER_LLM_TIMEOUT) "
        "the offline answer with a notice (default); offline: never send anything; openai: require the "
        "configured model's full answer, else exit 2",
    )
    p.add_argument("--model", metavar="M", help="model (or Azure deployment) name; overrides EXPLAINER_MODEL")
    p.add_argument("--baseline", metavar="FILE", help="a second profile to compare with (for 'what changed?')")
    p.add_argument(
        "--format", choices=("markdown", "json"), default="markdown", help="output format (default markdown)"
    )
    add_gpu_arguments(p)
    p.set_defaults(run=run)


def verification_json(v: Verification) -> dict[str, Any]:
    return {
        "checked": v.checked,
        "unverified": v.unverified,
        "verified": v.verified,
        "derived": v.derived,
        "unbound": v.unbound,
        "wrong": v.wrong,
        "wrong_claims": [w.as_dict() for w in v.wrong_claims],
        "derived_claims": [{"text": text, "from": how} for text, how in v.derived_claims],
    }


def model_choice(args: argparse.Namespace) -> tuple[LlmSettings, str]:
    """The model settings (``--model`` over the environment) and the conversation mode ``--llm`` asks for;
    ``--llm openai`` without a configured model is an error before anything is read."""
    from explainer.explain import LlmSettings

    settings = LlmSettings.from_env()
    if args.model:
        settings = settings.with_model(args.model)
    mode = MODES[args.llm]
    if mode == "llm" and not settings.configured:
        raise ModelUnavailableError(
            "--llm openai needs a model: set EXPLAINER_MODEL (or --model) and OPENAI_API_KEY, "
            "OPENAI_BASE_URL for a compatible server, or the AZURE_OPENAI_* variables",
            hint="or use --llm offline",
        )
    return settings, mode


def run(args: argparse.Namespace, out: TextIO) -> int:
    settings, mode = model_choice(args)
    budget = budget_from(args)
    profile = load_profile(args)
    from explainer.analysis.summary import Options
    from explainer.cli.passes import summarize_beside_attribution
    from explainer.explain import Conversation  # after the read: the warm-up imports it meanwhile
    from explainer.explain.context import SUMMARY_TOP

    baseline = read_path(args.baseline, read_options(args)) if args.baseline else None
    # the conversation's summary, its chain and the reading's attribution, two passes at a time
    summary = summarize_beside_attribution(profile, Options(top=SUMMARY_TOP), chain=True)
    conv = Conversation(profile, settings=settings, mode=mode, baseline=baseline, budget=budget, summary=summary)
    with cluster_desk(args, profile) as desk:  # pods, namespaces, services: asked of the server
        conv.cluster = desk
        answer = conv.ask(args.question)
    if mode == "llm" and (answer.mode != "llm" or answer.incomplete):
        # --llm openai promises the model's answer: a fallback must not look like success to a script
        why = answer.model_error or answer.notice or "the model did not answer"
        raise ModelUnavailableError(
            f"--llm openai: {why}"
            if answer.mode != "llm"
            else f"--llm openai: the model's answer was cut short ({why})",
            hint="use --llm auto to accept the offline answer",
        )
    if args.format == "json":
        out.write(json_text(answer_json(answer)))
        out.write("\n")
    else:
        out.write(answer.markdown.rstrip("\n") + "\n")
    return 0


def answer_json(answer: Answer) -> dict[str, Any]:
    """The JSON contract of one answer, shared by ``ask`` and ``chat``."""
    return {
        "answer": answer.markdown,
        "mode": answer.mode,
        "verification": verification_json(answer.verification),
        "notice": answer.notice,
        "incomplete": answer.incomplete,
        "focus": answer.focus,
    }
