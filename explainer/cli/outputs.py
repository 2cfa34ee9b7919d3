"""``--output FORMAT=FILE``: keep the profile a command read, as profilecli's ``query merge --output``
does, whether it came from a file or a server. Each file is written atomically and never over one of
the command's inputs."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from explainer.model import Profile

# pprof: gzipped protobuf, what `go tool pprof` and Pyroscope read; json: Pyroscope's flame graph.
# The writers are imported only when a file is written: `analyze FILE` pays nothing for the option.
FORMATS = ("pprof", "folded", "json")


class Output(NamedTuple):
    format: str
    path: str


def output_spec(text: str) -> Output:
    """``pprof=FILE`` -> Output; argparse type, so a bad spec is a one-line usage error."""
    fmt, sep, path = text.partition("=")
    if not sep or fmt not in FORMATS or not path:
        raise argparse.ArgumentTypeError(f"expected FORMAT=FILE with FORMAT one of {', '.join(FORMATS)}, got {text!r}")
    return Output(fmt, path)


def add_output_arguments(parser: argparse.ArgumentParser, *, flag: str = "--output", what: str = "the profile") -> None:
    parser.add_argument(
        flag,
        type=output_spec,
        action="append",
        default=[],
        metavar="FORMAT=FILE",
        help=f"also write {what} to FILE as pprof, folded or json (Pyroscope flame-graph JSON); repeatable",
    )


def input_files(args: argparse.Namespace) -> list[str | None]:
    """Every file a command reads, none of which it may write over: the profiles, the secret files, the
    vLLM log and the config file (``--config``, ``$EXPLAINER_CONFIG`` or the default one)."""
    from explainer.cli.config import config_path

    names = ("source", "base", "new", "baseline", "password_file", "token_file", "vllm_log")
    return [*(getattr(args, name, None) for name in names), config_path(getattr(args, "config", None))]


def write_outputs(profile: Profile, outputs: Iterable[Output], args: argparse.Namespace) -> None:
    """Every requested copy of ``profile``; an output that is one of the command's input files
    (:func:`input_files`) is refused before anything is written."""
    wanted = list(outputs)
    if not wanted:
        return
    import json

    from explainer.writers import check_not_an_input, to_flamebearer, to_folded, to_pprof, write_atomic

    given = input_files(args)
    for output in wanted:
        check_not_an_input(output.path, given)
    for output in wanted:
        if output.format == "pprof":
            data: str | bytes = to_pprof(profile)
        elif output.format == "folded":
            data = to_folded(profile)
        else:
            data = json.dumps(to_flamebearer(profile), separators=(",", ":")) + "\n"
        write_atomic(output.path, data)
