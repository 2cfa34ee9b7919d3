"""``explainer diff BASE NEW``: what changed between two profiles, above a noise floor.

Sides come from two files, from one Pyroscope diff flame graph (``explainer diff DIFF.json``),
or from a server: ``--server`` with the new window (``--from``/``--until``, ``--selector``) and
the baseline's (``--baseline-from``/``--baseline-until``, ``--baseline-selector``, each
defaulting to the new side's), so two deploys, two pods or two hours compare the same way.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
from dataclasses import replace
from typing import TYPE_CHECKING, TextIO

from explainer.analysis.noise import DEFAULT_MIN_RELATIVE, DEFAULT_MIN_SHARE, NoiseFloor
from explainer.cli.outputs import add_output_arguments, write_outputs
from explainer.cli.sources import add_source_arguments, load_profile, read_options
from explainer.cli.terminal import json_text
from explainer.errors import QueryError
from explainer.readers import read_file_bytes, read_pair_bytes, read_stdin_bytes

if TYPE_CHECKING:
    from explainer.model import Profile

# explainer.report.diff is imported by run() after the profiles are read: handoff imports this module
# for its baseline options, and its report modules load on the warm-up's thread (explainer.cli.warmup).

BASELINE_SERVER_FLAGS = {  # baseline flag -> the attribute of the new side's server flag it replaces
    "baseline_from": "start",
    "baseline_until": "end",
    "baseline_selector": "selector",
}


def percent(text: str) -> float:
    """``1``, ``1%`` or ``0.5%`` -> a fraction (0.01); argparse type for the noise-floor flags."""
    raw = text.strip().rstrip("%").strip()
    try:
        value = float(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a percentage such as 1 or 2.5%, got {text!r}") from None
    if not 0 <= value <= 10_000:  # also rejects NaN
        raise argparse.ArgumentTypeError(f"percentage out of range: {text!r}")
    return value / 100.0


def add_diff_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--noise-floor",
        type=percent,
        default=DEFAULT_MIN_SHARE,
        metavar="PCT",
        help=f"ignore changes smaller than PCT%% of the larger total (default {100 * DEFAULT_MIN_SHARE:g})",
    )
    parser.add_argument(
        "--noise-relative",
        type=percent,
        default=DEFAULT_MIN_RELATIVE,
        metavar="PCT",
        help="ignore changes smaller than PCT%% of the function's value before "
        f"(default {100 * DEFAULT_MIN_RELATIVE:g})",
    )


def floor_from(args: argparse.Namespace) -> NoiseFloor:
    return NoiseFloor(min_share=args.noise_floor, min_relative=args.noise_relative)


def add_baseline_server_arguments(parser: argparse.ArgumentParser) -> None:
    """The baseline's window or selector on the same server (only with --server)."""
    group = parser.add_argument_group("baseline on the same server (with --server)")
    group.add_argument("--baseline-from", metavar="TIME", help="start of the baseline window (default: --from)")
    group.add_argument("--baseline-until", metavar="TIME", help="end of the baseline window (default: --until)")
    group.add_argument("--baseline-selector", metavar="SEL", help="label selector of the baseline (default --selector)")


def has_server_baseline(args: argparse.Namespace) -> bool:
    return any(getattr(args, flag, None) for flag in BASELINE_SERVER_FLAGS)


def load_server_baseline(args: argparse.Namespace) -> Profile:
    """The baseline from the server: the new side's query with the baseline flags swapped in."""
    if not has_server_baseline(args):
        raise QueryError("with --server, give the baseline as --baseline-from/--baseline-until or --baseline-selector")
    base = copy.copy(args)
    for flag, attr in BASELINE_SERVER_FLAGS.items():
        value = getattr(args, flag, None)
        if value:
            setattr(base, attr, value)
    return load_profile(base)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "diff",
        help="what changed between two profiles (two files, a Pyroscope diff, or two server windows)",
        description="Compare a baseline with a new profile, function by function: self and total before and "
        "after, absolute, relative and share changes, new and vanished functions, ignoring moves under a noise "
        "floor. BASE alone must be a Pyroscope diff flame graph (JSON).",
    )
    add_source_arguments(p, name="base")
    p.add_argument("new", nargs="?", metavar="NEW", help="the profile to compare with BASE")
    p.add_argument("--top", type=int, default=10, metavar="N", help="rows per list (default 10)")
    add_diff_options(p)
    add_baseline_server_arguments(p)
    p.add_argument("--format", choices=("text", "json", "markdown"), default="text", help="output format")
    add_output_arguments(p, what="the NEW profile")
    add_output_arguments(p, flag="--baseline-output", what="the baseline (BASE) profile")
    p.set_defaults(run=run)


def _read_pair(path: str, args: argparse.Namespace) -> tuple[Profile, Profile]:
    options = read_options(args)
    data = read_stdin_bytes(options) if path == "-" else read_file_bytes(path, options)
    before, after = read_pair_bytes(data, options, location=path)
    # the reader leaves the digest to us: both sides come from the same bytes
    digest = hashlib.sha256(data).hexdigest()
    sides = []
    for side, profile in (("baseline", before), ("new", after)):
        location = f"{path} ({side})"
        sides.append(replace(profile, source=replace(profile.source, location=location, digest=digest)))
    return sides[0], sides[1]


def _demo_pair(args: argparse.Namespace) -> tuple[Profile, Profile]:
    from explainer.demo import demo_profile

    if args.new is not None or getattr(args, "server", None):
        raise QueryError("with --demo, give one NEW profile file to compare with the demo")
    return demo_profile(), load_profile(argparse.Namespace(**{**vars(args), "demo": False}), name="base")


def load_pair(args: argparse.Namespace) -> tuple[Profile, Profile]:
    """(baseline, new) from the command line; with ``--demo`` the demo is the baseline and the one file is NEW."""
    if args.demo:
        return _demo_pair(args)
    if getattr(args, "server", None):
        if args.base or args.new:
            raise QueryError("with --server, give no files: the windows come from --from/--baseline-from")
        return load_server_baseline(args), load_profile(args)
    if not args.base:
        raise QueryError("give BASE and NEW profiles, one Pyroscope diff JSON, or --server with a baseline window")
    if args.new is None:
        return _read_pair(args.base, args)
    if args.base == "-" and args.new == "-":
        raise QueryError("only one side can come from stdin")
    return load_profile(args, name="base"), load_profile(args, name="new")


def run(args: argparse.Namespace, out: TextIO) -> int:
    if args.top < 1:
        raise QueryError("--top must be at least 1")
    before, after = load_pair(args)
    write_outputs(after, args.output, args)
    write_outputs(before, args.baseline_output, args)
    from explainer.analysis.diff import diff_profiles  # numpy: imported once the profiles are read
    from explainer.report.diff import to_json, to_markdown, to_text

    diff = diff_profiles(before, after, floor_from(args))

    if args.format == "json":
        out.write(json_text(to_json(diff, args.top)))
        out.write("\n")
    elif args.format == "markdown":
        out.write(to_markdown(diff, args.top))
    else:
        out.write(to_text(diff, args.top))
    return 0
