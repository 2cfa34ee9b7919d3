"""``explainer chat SOURCE``: a conversation about a profile in the terminal, one question per line.

Questions are read from standard input, so follow-ups ("who calls it?", "and the second one?")
refer to the answers before them. At a terminal it shows a prompt and keeps line-editing history
(``readline``); from a pipe it answers each line and ends at end of input. ``--format json`` writes
one JSON object per answer, with the same fields as ``explainer ask --format json``.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, TextIO

from explainer.cli.ask import CONVENTION, MODES, answer_json, model_choice
from explainer.cli.cluster_source import cluster_desk
from explainer.cli.gpu_args import add_gpu_arguments, budget_from
from explainer.cli.sources import add_source_arguments, load_profile, read_options
from explainer.cli.terminal import json_text
from explainer.errors import ModelUnavailableError, SourceNotFoundError
from explainer.readers import read_path

if TYPE_CHECKING:
    from explainer.explain import Conversation

MAX_LINE_CHARS = 10_000  # a longer line is cut here (the reader caps questions further)
PROMPT = "explainer> "
QUIT = frozenset({"exit", "quit", ":q", "q", "stop", "stoppen"})


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "chat",
        help="a conversation about a profile: one question per line",
        description="Ask questions about a profile one per line (standard input); follow-ups refer to earlier "
        "answers. English and Dutch. Type exit or press Ctrl-D to stop. " + CONVENTION,
    )
    add_source_arguments(p)
    p.add_argument("--llm", choices=tuple(MODES), default="auto", help="as for explainer ask (default auto)")
    p.add_argument("--model", metavar="M", help="model (or Azure deployment) name; overrides EXPLAINER_MODEL")
    p.add_argument("--baseline", metavar="FILE", help="a second profile to compare with (for 'what changed?')")
    p.add_argument(
        "--format", choices=("markdown", "json"), default="markdown", help="markdown, or one JSON object per answer"
    )
    add_gpu_arguments(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace, out: TextIO, stdin: TextIO | None = None) -> int:
    from explainer.explain import Conversation

    source = stdin or sys.stdin
    settings, mode = model_choice(args)
    if args.source == "-":
        raise SourceNotFoundError(
            "chat reads its questions from standard input: give the profile as a file or --server"
        )
    budget = budget_from(args)
    profile = load_profile(args)
    baseline = read_path(args.baseline, read_options(args)) if args.baseline else None
    conv = Conversation(profile, settings=settings, mode=mode, baseline=baseline, budget=budget)
    with cluster_desk(args, profile) as desk:  # pods, namespaces, services: asked of the server
        conv.cluster = desk
        return _chat(args, conv, source, out, mode)


def _chat(args: argparse.Namespace, conv: Conversation, source: TextIO, out: TextIO, mode: str = "") -> int:
    interactive = source.isatty() and args.format == "markdown"
    if interactive:
        _line_editing()
        out.write("Ask about this profile, e.g.: " + " · ".join(conv.suggested_questions()[:3]) + "\n")
        out.write("Type exit or press Ctrl-D to stop.\n\n")
    fell_back: list[str] = []  # --llm openai promises the model's answers: a fallback fails the run, as in ask
    asked = 0
    for question in _questions(source, interactive, out):
        if question.casefold() in QUIT:
            break
        answer = conv.ask(question)
        asked += 1
        if mode == "llm" and (answer.mode != "llm" or answer.incomplete):
            fell_back.append(answer.model_error or answer.notice or "the model did not answer")
        if args.format == "json":
            out.write(json_text({"question": question, **answer_json(answer)}, indent=None) + "\n")
        else:
            out.write(answer.markdown.rstrip("\n") + "\n\n")
        out.flush()
    if fell_back:
        raise ModelUnavailableError(
            f"--llm openai: {len(fell_back)} of {asked} answers were not the model's ({fell_back[-1]})",
            hint="use --llm auto to accept the offline answer",
        )
    return 0


def _questions(source: TextIO, interactive: bool, out: TextIO) -> Iterator[str]:
    """Lines of input, each capped; blank lines are skipped when reading from a pipe."""
    while True:
        if interactive:
            try:
                line = input(PROMPT)
            except EOFError:
                out.write("\n")
                return
        else:
            line = source.readline(MAX_LINE_CHARS + 1)
            if not line:
                return
            if len(line) > MAX_LINE_CHARS and not line.endswith("\n"):
                while (rest := source.readline(MAX_LINE_CHARS)) and not rest.endswith("\n"):
                    pass  # the tail of an over-long line is dropped, never held
        text = line.strip()[:MAX_LINE_CHARS]
        if text or interactive:
            yield text


def _line_editing() -> None:
    with contextlib.suppress(ImportError):  # not on every platform
        import readline  # noqa: F401 - importing it gives input() editing and history
