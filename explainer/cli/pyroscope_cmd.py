"""``explainer pyroscope types|labels|values NAME|top|series``: what a Pyroscope server has, before you query it."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TextIO

import requests

from explainer.cli.server_args import (
    Progress,
    add_connection_arguments,
    client_from_args,
    selector_from_args,
    window_from_args,
)
from explainer.cli.terminal import json_text
from explainer.symbols import clean


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "pyroscope",
        help="list a Pyroscope server's profile types, labels and label values",
        description="Discover what a Pyroscope server holds in a time window, to build --profile-type and "
        "--selector for the other commands. Server and credentials: --server or $PYROSCOPE_URL, "
        "$PYROSCOPE_USER + $PYROSCOPE_PASSWORD (basic auth), $PYROSCOPE_TOKEN (bearer), $PYROSCOPE_TENANT.",
    )
    what = p.add_subparsers(dest="what", metavar="WHAT", required=True)
    types = what.add_parser("types", help="profile types with data in the window (IDs for --profile-type)")
    labels = what.add_parser("labels", help="label names (for --selector)")
    labels.add_argument("--all", action="store_true", help="include private labels (__name__, __profile_type__, ...)")
    values = what.add_parser("values", help="the values of one label")
    values.add_argument("name", metavar="NAME", help="label name, e.g. k8s_namespace or service_name")
    for command in (types, labels, values):
        add_connection_arguments(command)
        command.add_argument("--format", choices=("text", "json"), default="text", help="output format (default text)")
        command.set_defaults(run=run)
    _register_cluster(what)


def _register_cluster(what: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from explainer.cli import pyroscope_top

    top = what.add_parser("top", help="totals per label value (pod, namespace, service), largest first")
    series = what.add_parser("series", help="the selection (or one function) over time: rise, peak, trend")
    for command in (top, series):
        add_connection_arguments(command)
    pyroscope_top.add_arguments(top, series)
    top.set_defaults(run=pyroscope_top.run)
    series.set_defaults(run=pyroscope_top.run)


def run(args: argparse.Namespace, out: TextIO) -> int:
    window = window_from_args(args)
    selector = selector_from_args(args)
    with requests.Session() as session, Progress(sys.stderr) as progress:
        client = client_from_args(args, session, progress.note)
        deadline = client.deadline()
        if args.what == "types":
            types = client.profile_types(window, deadline=deadline)
            rows = [
                {"id": t.id, "sample_type": t.sample_type, "unit": t.sample_unit, "meaning": t.meaning}
                for t in sorted(types, key=lambda t: t.id)
            ]
            if args.format == "json":
                return _json(rows, out)
            for r in rows:
                alias = f"  (--profile-type {r['meaning']})" if r["meaning"] else ""
                out.write(f"{clean(r['id'])}  {clean(r['sample_type'])}/{clean(r['unit'])}{alias}\n")
            return _none(out, rows, f"no profile types between {window.describe()}")
        if args.what == "labels":
            names = client.label_names(window, selector, deadline=deadline)
            names = sorted(n for n in names if args.all or not n.startswith("__"))
        else:
            names = sorted(client.label_values(args.name, window, selector, deadline=deadline))
    if args.format == "json":
        return _json(names, out)
    out.writelines(clean(n) + "\n" for n in names)
    return _none(out, names, f"nothing between {window.describe()}")


def _json(data: object, out: TextIO) -> int:
    out.write(json_text(data))
    out.write("\n")
    return 0


def _none(out: TextIO, rows: Sequence[object], message: str) -> int:
    if not rows:
        out.write(f"({message})\n")
    return 0
