"""Entry point: parse, dispatch to one module per verb, and map every error to one line + exit 2."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO, cast

from explainer import __version__
from explainer.cli.terminal import TerminalText, terminal_safe
from explainer.errors import ExplainerError

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

EXIT_OK, EXIT_ERROR, EXIT_INTERRUPTED = 0, 2, 130

# command -> (its module in explainer.cli, its line in `explainer --help`). This table is the one
# place that decides what a command imports: only the module of the verb being run, so `--help`
# costs no numpy and `analyze` no HTTP, UI or model libraries. A test keeps the lines equal to the
# modules' own `help=`.
VERBS = {
    "analyze": ("analyze", "top functions by self and total, and the heaviest call chain"),
    "pyroscope": ("pyroscope_cmd", "list a Pyroscope server's profile types, labels and label values"),
    "ask": ("ask", "ask a question about a profile in plain language"),
    "diff": ("diff", "what changed between two profiles (two files, a Pyroscope diff, or two server windows)"),
    "handoff": ("handoff", "an on-call handoff report (Markdown): what is big, what changed, what to do next"),
    "chat": ("chat", "a conversation about a profile: one question per line"),
    "eval": ("eval", "score the configured model on a question set"),
}
ALL = "*"


class _Parser(argparse.ArgumentParser):
    """argparse's own messages echo what was typed ("unrecognized arguments: ..."): cleaned too."""

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        super()._print_message(terminal_safe(message) if message else message, file)


def build_parser(running: str = ALL) -> argparse.ArgumentParser:
    """The parser with every verb's full options, or with only ``running``'s (the rest as help lines)."""
    parser = _Parser(
        prog="explainer",
        description="Explain flame graphs in plain language: GPU-memory and CPU profiles from "
        "Pyroscope, pprof files, flame-graph JSON or folded stacks.",
        epilog="Examples:\n  explainer analyze profile.pb.gz\n  explainer analyze --server http://localhost:4040 "
        '--profile-type gpu-memory --from now-1h\n  explainer ask profile.pb.gz "What uses the most GPU memory?"',
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"explainer {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for verb, (module, summary) in VERBS.items():
        if running in (ALL, verb):
            importlib.import_module(f"explainer.cli.{module}").register(sub)
        else:
            sub.add_parser(verb, help=summary)  # never run: parse_args picks the verb in argv
    return parser


def verb_in(argv: Sequence[str]) -> str:
    """The command named in ``argv`` ("" when none): the first word, as the top level has no valued options."""
    first = next((a for a in argv if not a.startswith("-")), "")
    return first if first in VERBS else ""


def main(argv: Sequence[str] | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = cast(TextIO, TerminalText(out or sys.stdout))  # nothing a verb prints can drive the terminal
    err = cast(TextIO, TerminalText(err or sys.stderr))
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(verb_in(argv))
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help(out)
        return EXIT_ERROR
    try:
        return int(args.run(args, out))
    except ExplainerError as exc:
        from explainer.symbols import clean  # imports the model (numpy): only on this path

        err.write(f"explainer: error: {clean(str(exc), 400)}\n")
        return EXIT_ERROR
    except KeyboardInterrupt:
        err.write("explainer: interrupted\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # the reader went away (e.g. `| head`): not an error of ours
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except MemoryError:
        err.write("explainer: error: out of memory reading this profile (try --max-size or a smaller window)\n")
        return EXIT_ERROR


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
