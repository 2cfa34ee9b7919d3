"""``--output FORMAT=FILE``: keep the profile a command read, as profilecli's ``query merge --output``
does, whether it came from a file or a server. Each file is written atomically and never over one of
the command's inputs."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterable
from typing import NamedTuple

from explainer.model import Profile
from explainer.writers import check_not_an_input, to_flamebearer, to_folded, to_pprof, write_atomic

FORMATS: dict[str, Callable[[Profile], str | bytes]] = {
    "pprof": to_pprof,  # gzipped protobuf, what `go tool pprof` and Pyroscope read
    "folded": to_folded,
    "json": lambda profile: json.dumps(to_flamebearer(profile), separators=(",", ":")) + "\n",
}


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


def write_outputs(profile: Profile, outputs: Iterable[Output], inputs: Iterable[str | None]) -> None:
    """Every requested copy of ``profile``; an output that is an input is refused before anything is written."""
    wanted = list(outputs)
    given = list(inputs)
    for output in wanted:
        check_not_an_input(output.path, given)
    for output in wanted:
        write_atomic(output.path, FORMATS[output.format](profile))
