# PYTHON_ARGCOMPLETE_OK  (tab completion: explainer completion bash)
"""Entry point: parse, dispatch to one module per verb, and map every error to one line + exit 2."""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Sequence
from typing import IO, Any, NoReturn, TextIO, cast

from explainer import __version__
from explainer.cli.terminal import TerminalText, terminal_safe
from explainer.errors import ExplainerError

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
    "app": ("app", "start the chat app (Streamlit) in the browser, on the demo or on SOURCE"),
    "mcp": ("mcp", "serve the analyzer to coding assistants (Model Context Protocol, stdio or HTTP)"),
    "completion": ("completion", "print the shell code for tab completion of commands, options and files"),
    "contexts": ("contexts", "list the config file's named contexts (server, tenant, auth reference, model)"),
}
ALL = "*"


def _columns() -> int:
    """The terminal's width as :func:`shutil.get_terminal_size` gives it ($COLUMNS, the terminal,
    else 80), asked of :mod:`os`: argparse imports shutil only for this, and with it bz2 and lzma."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):  # no stdout, or not a terminal
        return 80


class _Help(argparse.HelpFormatter):
    """argparse's formatter, sized by :func:`_columns` (argparse makes one per ``add_argument``)."""

    def __init__(
        self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None
    ) -> None:
        super().__init__(prog, indent_increment, max_help_position, _columns() - 2 if width is None else width)


class _RawDescriptionHelp(_Help, argparse.RawDescriptionHelpFormatter):
    pass


class _Parser(argparse.ArgumentParser):
    """argparse's own messages echo what was typed ("unrecognized arguments: ..."): cleaned too."""

    def __init__(self, *, formatter_class: type[argparse.HelpFormatter] = _Help, **kwargs: Any) -> None:
        super().__init__(formatter_class=formatter_class, **kwargs)

    _intermixing = False

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        """A verb's positionals may follow its options (`ask FILE --unit bytes "question"`): plain argparse
        gives an optional positional (FILE, absent with --server) every word before the first option and
        then refuses the question as unrecognized. The top level holds the verbs (a sub-parser action),
        which intermixed parsing cannot take, so it parses as usual."""
        positionals = self._get_positional_actions()
        if self._intermixing or not positionals or any(a.nargs == argparse.PARSER for a in positionals):
            return super().parse_known_args(args, namespace)
        self._intermixing = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._intermixing = False

    def _print_message(self, message: str, file: IO[str] | None = None) -> None:  # type: ignore[override]
        super()._print_message(terminal_safe(message) if message else message, file)

    def error(self, message: str) -> NoReturn:
        """One line, like every other error: what is wrong and where the options are listed (argparse's
        own ``error`` prints the whole usage first, 11 lines for ``analyze``)."""
        self._print_message(f"{self.prog}: error: {message} (run `{self.prog} --help`)\n", sys.stderr)
        self.exit(EXIT_ERROR)


def build_parser(running: str = ALL) -> argparse.ArgumentParser:
    """The parser with every verb's full options (``ALL``), only ``running``'s (the verb in argv), or
    with none (``""``: the verbs as help lines for ``explainer --help``)."""
    parser = _Parser(
        prog="explainer",
        description="Explain flame graphs in plain language: GPU-memory and CPU profiles from "
        "Pyroscope, pprof files, flame-graph JSON or folded stacks.",
        epilog="Examples:\n  explainer analyze profile.pb.gz\n  explainer analyze --server http://localhost:4040 "
        '--profile-type gpu-memory --from now-1h\n  explainer ask profile.pb.gz "What uses the most GPU memory?"',
        formatter_class=_RawDescriptionHelp,
    )
    parser.add_argument("--version", action="version", version=f"explainer {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for verb, (module, summary) in VERBS.items():
        if running in (ALL, verb):
            importlib.import_module(f"explainer.cli.{module}").register(sub)
        elif running == "":  # `explainer` alone or --help: every verb as its help line, never run
            sub.add_parser(verb, help=summary)
    from explainer.cli import config

    config.add_arguments(parser)
    return parser


VALUED = ("--config", "--context")  # the top level's options that take a value (config.add_arguments)


def verb_in(argv: Sequence[str]) -> str:
    """The command named in ``argv`` ("" when none): the first word that is not an option or its value."""
    words = iter(argv)
    for word in words:
        if word in VALUED:
            next(words, None)
        elif not word.startswith("-"):
            return word if word in VERBS else ""
    return ""


def _one_blas_thread() -> None:
    # explainer does no linear algebra; OpenBLAS would start a thread per core when numpy loads
    # (~18 ms of every command) and spin them on a busy machine. Set before any verb imports numpy.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def main(argv: Sequence[str] | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    _one_blas_thread()
    out = cast(TextIO, TerminalText(out or sys.stdout))  # nothing a verb prints can drive the terminal
    err = cast(TextIO, TerminalText(err or sys.stderr))
    argv = sys.argv[1:] if argv is None else list(argv)
    completing = "_ARGCOMPLETE" in os.environ  # the shell asks for completions: every verb's options
    parser = build_parser(ALL if completing else verb_in(argv))
    if completing:
        from explainer.cli.completion import complete_if_asked

        complete_if_asked(parser)
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help(out)
        return EXIT_ERROR
    from explainer import notices

    notices.sink = err  # warnings go where errors go, each once per run
    notices.forget()
    try:
        from explainer.cli import config

        config.apply(args)  # the config file's context, under flags and the environment
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


def run() -> int:
    """The ``explainer`` program (console script and ``python -m explainer``): :func:`main` in a
    process of its own, with the cyclic garbage collector kept out of start-up.

    Importing a verb (numpy, protobuf, our modules) leaves tens of thousands of objects that
    live until the process ends and hold almost no garbage; the collector would walk them over
    and over while they are imported, and once more at exit (together about 20 ms of ``analyze``
    on a small file). So it is off while the verb's modules are imported, which are then frozen
    (never walked again) before it is turned back on for the work itself. A verb that reads a
    profile imports the rest of its modules on a second thread during the read (:mod:`warmup`):
    then the collector stays off until that window closes, and the freeze comes after it, so what
    the thread imported is frozen too. In-process callers (tests, the app) use :func:`main` and
    keep their collector as it is, and read without a warm-up.
    """
    _one_blas_thread()  # before the verb's modules import numpy
    argv = sys.argv[1:]
    verb = verb_in(argv)
    if verb and "_ARGCOMPLETE" not in os.environ:
        gc.disable()
        settled = False
        try:
            importlib.import_module(f"explainer.cli.{VERBS[verb][0]}")
            from explainer.cli import warmup

            settled = warmup.arm(verb, on_close=_settle) is not None  # _settle then runs when the read ends
        finally:
            if not settled:
                _settle()
    return main(argv)


def _settle() -> None:
    """The start-up's imports are over: keep them out of every later collection, and collect again."""
    gc.freeze()
    gc.enable()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run())
