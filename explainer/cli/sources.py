"""Where a command's profile comes from: a file (or ``-`` for stdin), the bundled demo
(``--demo``) or a Pyroscope server.

Every command that takes a SOURCE calls :func:`add_source_arguments` and :func:`load_profile`,
so file and server options behave the same everywhere.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from explainer.cli import warmup
from explainer.cli.argtypes import byte_count
from explainer.cli.server_args import add_server_arguments, load_from_server
from explainer.errors import QueryError
from explainer.readers import ReadOptions, read_bytes, read_path, read_stdin_bytes
from explainer.readers.limits import DEFAULT_MAX_DECOMPRESSED, DEFAULT_MAX_INPUT

if TYPE_CHECKING:
    from explainer.model import Profile


def add_read_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--sample-type", metavar="T", help="pprof sample type to read (default: the profile's default)")
    parser.add_argument(
        "--unit", metavar="U", help="unit of folded or Connect JSON counts, e.g. bytes or nanoseconds (default: count)"
    )
    parser.add_argument(
        "--max-size",
        metavar="BYTES",
        type=byte_count,
        default=DEFAULT_MAX_DECOMPRESSED,
        help="largest profile to accept, in bytes, both as read and after decompression "
        f"(default {DEFAULT_MAX_DECOMPRESSED:,}, with raw input read up to {DEFAULT_MAX_INPUT:,}; "
        "a larger value raises both caps)",
    )


def add_source_arguments(parser: argparse.ArgumentParser, *, name: str = "source") -> None:
    """SOURCE plus the read options; the Pyroscope options are added by :mod:`explainer.cli.server_args`."""
    parser.add_argument(
        name,
        nargs="?",  # --server can stand in for it; load_profile says when neither is given
        metavar=name.upper(),
        help="profile file (pprof, gzipped or raw; Pyroscope flame-graph JSON; folded stacks) or - for stdin",
    )
    parser.add_argument(
        "--demo", action="store_true", help=f"use the bundled vLLM GPU-memory demo profile as {name.upper()}"
    )
    add_read_arguments(parser)
    add_server_arguments(parser)


def read_options(args: argparse.Namespace) -> ReadOptions:
    return ReadOptions.sized(args.max_size, sample_type=args.sample_type, unit=args.unit)


def load_profile(args: argparse.Namespace, *, name: str = "source") -> Profile:
    """The profile named by ``args``: a server query when ``--server`` is given, the demo for
    ``--demo``, else the file."""
    path = getattr(args, name, None)  # diff's baseline query copies args without a SOURCE
    if getattr(args, "demo", False):
        if path or getattr(args, "server", None):
            raise QueryError(f"give {name.upper()}, --server or --demo, not more than one")
        from explainer.demo import demo_profile

        with warmup.reading():  # built in Python, holding the GIL: no window, but it ends as a read does
            return demo_profile()
    if getattr(args, "server", None):
        with warmup.reading(server=True):  # the HTTP wait is the window
            return load_from_server(args)
    if not path:
        raise QueryError("give a profile file, --demo, or --server URL to query Pyroscope")
    options = read_options(args)
    with warmup.reading() as overlap:  # the inflate and the fold: the command's next imports meanwhile
        if path == "-":
            return read_bytes(read_stdin_bytes(options), options, location="<stdin>", overlap=overlap)
        return read_path(path, options, overlap=overlap)
