"""``explainer eval``: how good is the configured model at explaining profiles?

Runs a question set (the built-in one over the packaged profiles, or ``--set FILE`` as TOML or
JSONL) through the model configured as for ``explainer ask``, checks every answer with the
chat's own checks, and writes the report as Markdown (stdout, or ``--markdown FILE``) and JSON
(``--json FILE``). Exit status 1 when the score is below ``--min-score``, 2 on any error.
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from explainer.cli.terminal import json_text
from explainer.errors import ModelUnavailableError

EXIT_BELOW = 1


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "eval",
        help="score the configured model on a question set",
        description="Ask a set of questions about profiles with the configured model (EXPLAINER_MODEL, "
        "OPENAI_API_KEY, OPENAI_BASE_URL or the AZURE_OPENAI_* variables) and score each answer: the "
        "right subject named, expected facts stated, numbers verified, derived, unbound or wrong, "
        "latency and tokens.",
    )
    p.add_argument("--set", metavar="FILE", help="a question set (.toml or .jsonl); default: the built-in set")
    p.add_argument("--model", metavar="M", help="model (or Azure deployment) name; overrides EXPLAINER_MODEL")
    p.add_argument("--min-score", metavar="S", type=_score, default=0.0, help="exit 1 when the score is below S (0-1)")
    p.add_argument("--json", metavar="FILE", help="also write the report as JSON to FILE")
    p.add_argument("--markdown", metavar="FILE", help="write the Markdown report to FILE instead of stdout")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    p.set_defaults(run=run)


def _score(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be a number from 0 to 1, not {text[:20]!r}")
    return value


def run(args: argparse.Namespace, out: TextIO) -> int:
    from explainer.cli.config import config_path
    from explainer.evaluation import questions, report
    from explainer.evaluation import run as runner
    from explainer.explain import LlmSettings
    from explainer.writers import check_not_an_input, write_atomic

    inputs = [args.set, config_path(getattr(args, "config", None))]
    for output in (args.json, args.markdown):
        if output:  # before the (slow, paid) run: a report must never replace the question set or the config
            check_not_an_input(output, inputs)
    if args.json and args.markdown:
        check_not_an_input(args.markdown, [args.json])
    settings = LlmSettings.from_env()
    if args.model:
        settings = settings.with_model(args.model)
    if not settings.configured:
        raise ModelUnavailableError(
            "explainer eval needs a model: set EXPLAINER_MODEL (or --model) and OPENAI_API_KEY, "
            "OPENAI_BASE_URL for a compatible server, or the AZURE_OPENAI_* variables",
            hint="eval measures a model, so it has no offline mode",
        )
    qs = questions.load(args.set) if args.set else questions.BUILT_IN

    def progress(r: runner.Result) -> None:
        if not args.quiet:
            sys.stderr.write(f"explainer eval: {r.question.id}: score {r.score:.2f} ({r.latency_s:.1f} s)\n")

    result = runner.run(qs, settings, progress=progress)
    markdown = report.to_markdown(result, args.min_score)
    if args.json:
        write_atomic(args.json, json_text(report.to_json(result, args.min_score)) + "\n")
    if args.markdown:
        write_atomic(args.markdown, markdown)
    else:
        out.write(markdown)
    return EXIT_BELOW if result.score < args.min_score else 0
