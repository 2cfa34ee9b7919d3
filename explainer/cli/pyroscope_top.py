"""``explainer pyroscope top --by LABEL`` and ``explainer pyroscope series``: the cluster view on the command line."""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

import requests

from explainer.cli.server_args import Progress, client_from_args, selector_from_args, window_from_args
from explainer.cli.terminal import json_text
from explainer.errors import EmptyResultError, QueryError
from explainer.symbols import clean


def add_arguments(top: argparse.ArgumentParser, series: argparse.ArgumentParser) -> None:
    for p in (top, series):
        p.add_argument(
            "--profile-type",
            default="gpu-memory",
            metavar="ID|gpu-memory|cpu",
            help="a profile type ID or gpu-memory / cpu (default gpu-memory)",
        )
        p.add_argument("--format", choices=("text", "json"), default="text", help="output format (default text)")
    top.add_argument(
        "--by",
        "--label-names",  # profilecli's name
        dest="by",
        metavar="LABEL",
        help="the label to total by (default k8s_podName for GPU memory, service_name otherwise)",
    )
    top.add_argument("--limit", type=int, default=10, metavar="N", help="show the N largest values (default 10)")
    series.add_argument(
        "--function", metavar="NAME", help="only the stacks through this function (its heaviest call site)"
    )
    series.add_argument("--step", type=float, metavar="SECONDS", help="seconds per point (default: about 60 points)")


def run(args: argparse.Namespace, out: TextIO) -> int:
    from explainer.pyroscope.cluster import default_label, top_by_label
    from explainer.pyroscope.query import Query
    from explainer.report.cluster import top_json, top_text

    window = window_from_args(args)
    selector = selector_from_args(args)
    if args.what == "top" and not 1 <= args.limit <= 1000:
        raise QueryError(f"--limit must be between 1 and 1000, got {args.limit}")
    with requests.Session() as session, Progress(sys.stderr) as progress:
        client = client_from_args(args, session, progress.note)
        profile_type = client.resolve_type(args.profile_type, window)
        query = Query(profile_type, selector, window)
        if args.what == "series":
            return _series(args, client, query, out)
        top = top_by_label(client, query, args.by or default_label(profile_type), args.limit)
    if args.format == "json":
        out.write(json_text(top_json(top)) + "\n")
    else:
        out.write(top_text(top))
    return 0


def _series(args: argparse.Namespace, client: object, query: object, out: TextIO) -> int:
    from explainer.pyroscope.client import PyroscopeClient
    from explainer.pyroscope.cluster import call_site, course, sensible_step, when
    from explainer.pyroscope.query import Query
    from explainer.report.cluster import course_json, course_lines
    from explainer.units import format_value

    assert isinstance(client, PyroscopeClient) and isinstance(query, Query)
    step = args.step if args.step else sensible_step(query.window)
    if not step > 0:
        raise QueryError("--step must be a positive number of seconds")
    site: tuple[str, ...] = ()
    if args.function:
        merged = client.flame_graph(query)  # one server-side merge, to find where the function is called
        site = call_site(list(merged.stacks()), args.function)
        if not site:
            raise EmptyResultError(f"no stack in {query.describe()} goes through {clean(args.function, 100)!r}")
    found = course(client.series(query, step, call_site=site), step)
    if found is None:
        raise EmptyResultError(f"no samples on {client.base_url} for {query.describe()}")
    unit = query.profile_type.sample_unit
    if args.format == "json":
        out.write(json_text({**course_json(found), "call_site": list(site), "unit": unit}) + "\n")
        return 0
    if site:
        out.write(f"through {' > '.join(clean(n, 80) for n in site)}\n")
    out.write(f"step {step:g} s, total {format_value(found.total, unit)}\n")
    for t, v in found.points:
        out.write(f"  {when(t)}  {format_value(v, unit):>10}\n")
    out.writelines(line + "\n" for line in course_lines(found, unit))
    return 0
