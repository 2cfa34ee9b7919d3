"""Entry point: parse, dispatch to one module per verb, and map every error to one line + exit 2."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, TextIO, cast

from explainer import __version__
from explainer.errors import ExplainerError
from explainer.symbols import clean, terminal_safe

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

EXIT_OK, EXIT_ERROR, EXIT_INTERRUPTED = 0, 2, 130

# verb modules, imported lazily so `analyze` never pays for the UI or model libraries
VERBS = ("analyze", "pyroscope_cmd", "ask", "diff", "handoff", "demo")


class _Parser(argparse.ArgumentParser):
    """argparse's own messages echo what was typed ("invalid choice: ..."): cleaned the same way."""

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        super()._print_message(terminal_safe(message) if message else message, file)


def build_parser() -> argparse.ArgumentParser:
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
    for verb in VERBS:
        try:
            module = importlib.import_module(f"explainer.cli.{verb}")
        except ModuleNotFoundError as exc:
            if exc.name == f"explainer.cli.{verb}":
                continue  # not built yet
            raise
        module.register(sub)
    return parser


class TerminalText:
    """A text stream that passes every write through :func:`~explainer.symbols.terminal_safe`:
    whatever a verb prints as text (names, file names, a model's answer) cannot drive the
    terminal. JSON output is left alone: ``json`` escapes control characters, and scripts need
    the raw names."""

    def __init__(self, inner: TextIO) -> None:
        self.inner = inner

    def write(self, text: str) -> int:
        return self.inner.write(terminal_safe(text))

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:  # flush, fileno, isatty, encoding...
        return getattr(self.inner, name)


def main(argv: Sequence[str] | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out or sys.stdout
    err = cast(TextIO, TerminalText(err or sys.stderr))
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "format", "") != "json":  # JSON escapes controls itself and must keep raw names
        out = cast(TextIO, TerminalText(out))
    if not getattr(args, "run", None):
        parser.print_help(out)
        return EXIT_ERROR
    try:
        return int(args.run(args, out))
    except ExplainerError as exc:
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
