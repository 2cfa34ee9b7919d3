"""``explainer completion bash|zsh|fish``: the shell code for tab completion (argcomplete).

eval "$(explainer completion bash)"        # in ~/.bashrc; zsh likewise, or fish: | source
"""

from __future__ import annotations

import argparse
from typing import TextIO

SHELLS = ("bash", "zsh", "fish", "tcsh", "powershell")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "completion",
        help="print the shell code for tab completion of commands, options and files",
        description="Print shell code that completes explainer's commands and options: eval \"$(explainer "
        'completion bash)" in ~/.bashrc (zsh likewise; fish: explainer completion fish | source).',
    )
    p.add_argument("shell", choices=SHELLS, help="the shell to complete in")
    p.set_defaults(run=run)


def run(args: argparse.Namespace, out: TextIO) -> int:
    from argcomplete.shell_integration import shellcode

    out.write(shellcode(["explainer"], shell=args.shell))
    return 0


def complete_if_asked(parser: argparse.ArgumentParser) -> None:
    """Answer a completion request from the shell code (and exit); a no-op otherwise, without the import."""
    import os

    if "_ARGCOMPLETE" in os.environ:
        import argcomplete

        argcomplete.autocomplete(parser)
