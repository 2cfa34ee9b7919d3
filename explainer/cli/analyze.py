"""``explainer analyze SOURCE``: the top tables and the heaviest chain."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, TextIO

from explainer.cli.gpu_args import add_gpu_arguments, budget_from
from explainer.cli.outputs import add_output_arguments, write_outputs
from explainer.cli.passes import summarize_beside_attribution
from explainer.cli.sources import add_source_arguments, load_profile
from explainer.cli.terminal import json_text

if TYPE_CHECKING:
    from explainer.analysis.summary import Options

# The analysis and the report are imported by run() after the profile is read: during the read the
# program's warm-up imports them on the second core (explainer.cli.warmup.WARMS).


def add_analysis_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--top", type=int, default=10, metavar="N", help="rows per table (default 10)")
    parser.add_argument("--focus", metavar="RE", help="keep only stacks through a function matching RE")
    parser.add_argument("--ignore", metavar="RE", help="drop stacks through a function matching RE")
    parser.add_argument("--hide-trampolines", action="store_true", help="remove <interpreter trampoline> frames")


def options_from(args: argparse.Namespace) -> Options:
    from explainer.analysis.summary import Options

    return Options(top=args.top, focus=args.focus, ignore=args.ignore, hide_trampolines=args.hide_trampolines)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "analyze",
        help="top functions by self and total, and the heaviest call chain",
        description="Analyse a profile: what uses the most (self), the most responsible frame (where the stacks "
        "branch), where to start, what can be ignored, the widest bars (total) and the heaviest call chain read "
        "from the entry point up.",
    )
    add_source_arguments(p)
    add_analysis_options(p)
    add_gpu_arguments(p)
    p.add_argument(
        "--format", choices=("text", "json", "markdown"), default="text", help="output format (default text)"
    )
    add_output_arguments(p, what="the profile as read (before --focus/--ignore)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace, out: TextIO) -> int:
    budget = budget_from(args)  # before the profile: a bad size or log file fails fast
    profile = load_profile(args)
    from explainer.report.analyze import to_json, to_markdown, to_text

    write_outputs(profile, args.output, args)
    summary = summarize_beside_attribution(profile, options_from(args), chain=True)
    if args.format == "json":
        out.write(json_text(to_json(summary, budget)))
        out.write("\n")
    elif args.format == "markdown":
        out.write(to_markdown(summary, budget))
    else:
        out.write(to_text(summary, budget))
    return 0
