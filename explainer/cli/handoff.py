"""``explainer handoff SOURCE``: the on-call handoff report, as Markdown, to stdout or ``-o FILE``.

``-o`` writes a temporary file beside the target and renames it over the target only once the
whole report is written and flushed, so a failure (a bad query, a full disk, Ctrl-C) never
leaves a half-written report or destroys the previous one. It never writes over one of the
command's own inputs (the profile, the baseline, a secret file): compared by resolved path and by
device and inode, that is one line and exit status 2 before anything is read.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TextIO

from explainer.cli.diff import add_baseline_server_arguments, add_diff_options, floor_from, has_server_baseline
from explainer.cli.diff import load_server_baseline as _server_baseline
from explainer.cli.gpu_args import add_gpu_arguments, budget_from
from explainer.cli.outputs import input_files
from explainer.cli.sources import add_source_arguments, load_profile, read_options
from explainer.errors import ModelUnavailableError, QueryError
from explainer.readers import read_path

# The summary and the report are imported by run() after the profile is read: during the read the
# program's warm-up imports them on the second core (explainer.cli.warmup.WARMS).

if TYPE_CHECKING:  # the peak is looked for on a server only (--at-peak)
    from explainer.analysis.peak import Window
    from explainer.model import Profile


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "handoff",
        help="an on-call handoff report (Markdown): what is big, what changed, what to do next",
        description="Write a one-page Markdown report for an on-call handoff: scope, headline numbers, top "
        "consumers and their chains, changes against a baseline, what to ignore, next steps, coverage and "
        "a reproducibility line. Offline the report is deterministic.",
    )
    add_source_arguments(p)
    p.add_argument("--baseline", metavar="SOURCE", help="a baseline profile file to compare against")
    add_baseline_server_arguments(p)
    p.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE (atomically) instead of stdout")
    p.add_argument("--top", type=int, default=5, metavar="N", help="rows per table (default 5)")
    add_diff_options(p)
    p.add_argument("--at-peak", action="store_true", help="with --server: analyse the step where the series peaks")
    p.add_argument("--peak-around", type=int, default=0, metavar="STEPS", help="widen the peak window by STEPS")
    p.add_argument("--grafana-url", metavar="URL", help="Grafana base URL, for a link that opens the same query")
    p.add_argument(
        "--grafana-datasource",
        metavar="UID",
        help="uid of Grafana's Pyroscope data source (default local-pyroscope, as the AKS GPU-profiling guide sets up)",
    )
    p.add_argument(
        "--llm",
        choices=("auto", "offline", "openai"),
        default="auto",
        help="auto: a verified model summary on top when a model is configured, left out with a notice when "
        "the model fails (default); offline: never send anything; openai: require the configured model's "
        "summary, else exit 2. The report says which part the model wrote.",
    )
    add_gpu_arguments(p)
    p.set_defaults(run=run)


def llm_settings(mode: str) -> Any:
    """The configured model's settings, or None (offline, or nothing configured with ``auto``)."""
    if mode == "offline":
        return None
    from explainer.explain import LlmSettings

    settings = LlmSettings.from_env()
    if mode == "openai" and not settings.configured:
        raise ModelUnavailableError(
            "--llm openai needs a model: set EXPLAINER_MODEL and OPENAI_API_KEY, OPENAI_BASE_URL for a "
            "compatible server, or the AZURE_OPENAI_* variables",
            hint="or use --llm offline",
        )
    return settings if settings.configured else None


def peak_window(args: argparse.Namespace) -> Window:
    """Find the peak of the query's series (SelectSeries) and narrow ``args``' window to it."""
    import requests

    from explainer.analysis.peak import find_peak
    from explainer.cli.server_args import client_from_args, selector_from_args, window_from_args
    from explainer.pyroscope import Query

    window = window_from_args(args)
    with requests.Session() as session:
        client = client_from_args(args, session)
        profile_type = client.resolve_type(args.profile_type, window)
        query = Query(profile_type, selector_from_args(args), window)
        peak = find_peak(client, query, window.start_ms, window.end_ms, around=args.peak_around)
    args.start, args.end = str(peak.start_ms), str(peak.end_ms)  # Unix ms, read back by --from/--until
    return peak


def load_source(args: argparse.Namespace) -> tuple[Profile, Window | None]:
    if not args.at_peak:
        return load_profile(args), None
    if not getattr(args, "server", None):
        raise QueryError("--at-peak needs --server: the peak is found in the server's time series")
    peak = peak_window(args)
    return load_profile(args), peak


def load_baseline(args: argparse.Namespace) -> Profile | None:
    if args.baseline:
        return read_path(args.baseline, read_options(args))
    if getattr(args, "server", None) and has_server_baseline(args):
        return _server_baseline(args)
    return None


def server_pods(args: argparse.Namespace, profile: Profile, top: int) -> list[str] | None:
    """With ``--server``: the pods section, asked of the same server, type, selector and window as ``profile``."""
    if not getattr(args, "server", None):  # a file: no pods, and none of the Pyroscope modules imported
        return None
    from explainer.cli.cluster_source import cluster_desk
    from explainer.report.cluster import pods_section

    with cluster_desk(args, profile) as desk:
        return pods_section(desk.client, desk.query, top) if desk is not None else None


def run(args: argparse.Namespace, out: TextIO) -> int:
    if args.top < 1:
        raise QueryError("--top must be at least 1")
    if args.peak_around < 0:
        raise QueryError("--peak-around must be 0 or more steps")
    if args.output:  # before anything is read: -o must never replace one of the inputs
        from explainer.writers import check_not_an_input  # -o only (it pulls gzip and the pprof schema)

        check_not_an_input(args.output, input_files(args))
    settings = llm_settings(args.llm)  # first: a missing model fails before any query
    budget = budget_from(args)
    if settings is not None:  # the summary may link to this command's own Pyroscope and Grafana only
        from explainer.explain.safety import link_hosts  # the model's rules: not imported offline

        hosts = link_hosts(getattr(args, "server", None), args.grafana_url)
        settings = replace(settings, link_hosts=tuple(dict.fromkeys((*settings.link_hosts, *hosts))))
    baseline = load_baseline(args)  # before --at-peak narrows the window the baseline may default to
    profile, peak = load_source(args)
    from explainer.analysis.summary import Options
    from explainer.cli.passes import summarize_beside_attribution, walk_chains
    from explainer.queries.handoff import chain_targets
    from explainer.reading import read
    from explainer.report.handoff import handoff_markdown

    summary = summarize_beside_attribution(profile, Options(top=args.top))
    reading = read(summary)
    walk_chains(summary, chain_targets(reading, args.top))  # on both cores: the report finds them walked
    report = handoff_markdown(
        profile,
        baseline,
        summary=summary,
        reading=reading,
        llm_settings=settings,
        top=args.top,
        floor=floor_from(args),
        grafana_url=args.grafana_url,
        grafana_datasource=args.grafana_datasource,
        peak=peak,
        require_model=args.llm == "openai",
        pods=server_pods(args, profile, args.top),
        budget=budget,
    )
    if args.output:
        from explainer.writers import write_atomic

        write_atomic(args.output, report)
    else:
        out.write(report)
    return 0
