"""``--server URL`` and friends: query Pyroscope in place of a profile file.

Secrets are read from the environment (``PYROSCOPE_PASSWORD``, ``PYROSCOPE_TOKEN``) or from a
file (``--password-file``, ``--token-file``), never from a flag's value: command lines are
visible to every local user in ``ps`` and end up in shell history.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from types import TracebackType
from typing import TYPE_CHECKING, TextIO

from explainer.errors import QueryError
from explainer.pyroscope.defaults import DEFAULT_MAX_NODES, DEFAULT_TIMEOUT, ENV_URL
from explainer.readers.limits import DEFAULT_MAX_DECOMPRESSED

# explainer.symbols (clean) is imported where a label or a note is shown: every command that reads a
# profile imports this module, and the symbols package loads on the second core during the read.

if TYPE_CHECKING:  # the Pyroscope modules (HTTP among them) are imported only when a server is queried
    import requests

    from explainer.model import Profile
    from explainer.pyroscope.client import PyroscopeClient
    from explainer.pyroscope.query import TimeRange
    from explainer.pyroscope.source import ServerSource
    from explainer.pyroscope.transport import Event

_FROM_ENV = "\0env"  # ``--server`` given without a value


def add_connection_arguments(parser: argparse.ArgumentParser, *, instead_of_source: bool = False) -> None:
    """Where the server is, who we are, and which window to look at (shared by every server command)."""
    g = parser.add_argument_group("Pyroscope server")
    what = "query this Pyroscope server instead of reading SOURCE" if instead_of_source else "Pyroscope base URL"
    g.add_argument(
        "--server",
        "--url",  # profilecli's name
        nargs="?",
        const=_FROM_ENV,
        metavar="URL",
        help=f"{what} (no URL: ${ENV_URL}), e.g. http://localhost:4040 after kubectl port-forward",
    )
    g.add_argument(
        "--from",
        dest="start",
        default="now-1h",
        metavar="TIME",
        help="window start: now-1h, now-30m, now-1d/d (Grafana's rounding, UTC), RFC 3339 or Unix seconds/ms "
        "(default now-1h)",
    )
    g.add_argument(
        "--until", "--to", dest="end", default="now", metavar="TIME", help="window end (default now); at most 24 h"
    )
    g.add_argument(
        "--selector",
        "--query",  # profilecli's name
        default="{}",
        metavar="SEL",
        help='label selector, e.g. \'{k8s_namespace="inference",k8s_podName=~"vllm-.*"}\'',
    )
    g.add_argument(
        "--label",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="add an exact label match; the value is escaped for you (repeatable)",
    )
    g.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"give up after this long, retries included (default {DEFAULT_TIMEOUT:g})",
    )
    g.add_argument(
        "--tenant",
        "--tenant-id",
        metavar="ID",
        help="X-Scope-OrgID for multi-tenant servers (default: $PYROSCOPE_TENANT)",
    )
    g.add_argument(
        "--user",
        "--username",
        metavar="USER",
        help="basic-auth user, e.g. the Grafana Cloud stack id ($PYROSCOPE_USER)",
    )
    g.add_argument(
        "--password-file", metavar="FILE", help="read the basic-auth password from FILE ($PYROSCOPE_PASSWORD)"
    )
    g.add_argument("--token-file", metavar="FILE", help="read a bearer token from FILE ($PYROSCOPE_TOKEN)")
    for secret in ("password", "token"):  # profilecli takes these as values; we never do (ps, shell history)
        g.add_argument(f"--{secret}", action=_RefuseSecret, nargs="?", help=argparse.SUPPRESS)


class _RefuseSecret(argparse.Action):
    def __call__(self, parser: argparse.ArgumentParser, *_: object, **__: object) -> None:
        name = self.dest
        parser.error(
            f"--{name} would put a secret on the command line; use --{name}-file FILE, "
            f"$PYROSCOPE_{name.upper()} or $PROFILECLI_{name.upper()}"
        )


def add_server_arguments(parser: argparse.ArgumentParser) -> None:
    """The connection options plus what to query; ``--server`` then replaces SOURCE."""
    add_connection_arguments(parser, instead_of_source=True)
    g = parser.add_argument_group("Pyroscope query")
    g.add_argument(
        "--profile-type",
        default="gpu-memory",
        metavar="ID|gpu-memory|cpu",
        help="a profile type ID (see 'explainer pyroscope types') or gpu-memory / cpu (default gpu-memory)",
    )
    g.add_argument(
        "--max-nodes",
        type=int,
        default=DEFAULT_MAX_NODES,
        metavar="N",
        help=f"node budget of the server's flame graph; the rest is merged into 'other' (default {DEFAULT_MAX_NODES})",
    )
    g.add_argument(
        "--full-profile",
        action="store_true",
        help="fetch the whole merged pprof (binary SelectMergeProfile) instead of the flame graph: no node budget "
        "(done by default when the flame graph's 'other' holds more than 1%% of the total)",
    )
    g.add_argument(
        "--keep-other",
        action="store_true",
        help="keep the flame graph even when its 'other' nodes hold more than 1%% of the total "
        "(an approximate answer; default: fetch the full profile instead)",
    )
    _make_source_optional(parser)


def _make_source_optional(parser: argparse.ArgumentParser) -> None:
    # --server stands in for the SOURCE positional, so it cannot stay required; load_profile
    # already says "give a profile file, or --server URL" when both are missing
    for action in parser._actions:
        if not action.option_strings and action.dest == "source" and action.nargs is None:
            action.nargs, action.required = "?", False


def _server_url(args: argparse.Namespace) -> str:
    # after the flag and the environment: profilecli's variable or the config context (explainer.cli.config)
    fallback = getattr(args, "server_fallback", None) or ""
    url = args.server if args.server and args.server != _FROM_ENV else os.environ.get(ENV_URL) or fallback
    if args.server and args.server != _FROM_ENV and _has_password(args.server):
        raise QueryError(
            "--server URL carries a password (user:password@), which would put a secret on the command line "
            "(ps, shell history); use --user with --password-file or $PYROSCOPE_PASSWORD"
        )
    if not url.strip():
        raise QueryError(f"no server: give --server URL or set {ENV_URL}")
    return str(url)


def _has_password(url: str) -> bool:
    from urllib.parse import urlsplit

    try:
        return urlsplit(url.strip()).password is not None
    except ValueError:
        return False


def _labels(args: argparse.Namespace) -> list[tuple[str, str]]:
    out = []
    for item in args.label or ():
        name, sep, value = str(item).partition("=")
        if not sep:
            from explainer.symbols import clean

            raise QueryError(f"--label wants NAME=VALUE, got {clean(item, 60)!r}")
        out.append((name.strip(), value))
    return out


def server_source(args: argparse.Namespace) -> ServerSource:
    """The :class:`ServerSource` the flags and the environment describe (the one object every
    surface opens a server with)."""
    from explainer.pyroscope.auth import credentials_from, read_secret_file
    from explainer.pyroscope.selector import build_selector
    from explainer.pyroscope.source import ServerSource

    # *_value: a secret from profilecli's variables or the context's *-env reference (never a flag)
    password = read_secret_file(args.password_file, "password") if args.password_file else None
    token = read_secret_file(args.token_file, "token") if args.token_file else None
    password = password if password is not None else getattr(args, "password_value", None)
    token = token if token is not None else getattr(args, "token_value", None)
    credentials = credentials_from(user=args.user, password=password, token=token, tenant=args.tenant)
    if getattr(args, "secret_origin", None):  # a context's (or profilecli's) secret: only for its own server
        credentials = credentials.bound(args.secret_origin)
    if not args.timeout > 0:
        raise QueryError("--timeout must be a positive number of seconds")
    max_size = getattr(args, "max_size", DEFAULT_MAX_DECOMPRESSED)
    return ServerSource(
        _server_url(args),
        credentials,
        timeout=args.timeout,
        # --max-size keeps its file meaning (384 MiB) unless set; a JSON answer that big is a mistake
        max_response=None if max_size == DEFAULT_MAX_DECOMPRESSED else max_size,
        profile_type=getattr(args, "profile_type", None) or "gpu-memory",
        selector=build_selector(args.selector, _labels(args)),
        start=args.start,
        end=args.end,
        max_nodes=getattr(args, "max_nodes", DEFAULT_MAX_NODES),
        full_profile=bool(getattr(args, "full_profile", False)),
        keep_other=bool(getattr(args, "keep_other", False)),
        max_profile=max_size,  # a binary pprof is a profile like a file's: the file cap bounds it, not JSON's
    )


def client_from_args(
    args: argparse.Namespace, session: requests.Session, on_event: Event | None = None
) -> PyroscopeClient:
    return server_source(args).client(session, on_event)


def window_from_args(args: argparse.Namespace, now_ms: int | None = None) -> TimeRange:
    from explainer.pyroscope.query import parse_window

    now = int(time.time() * 1000) if now_ms is None else now_ms
    return parse_window(args.start, args.end, now)


def selector_from_args(args: argparse.Namespace) -> str:
    from explainer.pyroscope.selector import build_selector

    return build_selector(args.selector, _labels(args))


def load_from_server(args: argparse.Namespace) -> Profile:
    """The profile for ``--server``: resolve the type in the window, then one flame-graph query."""
    window_from_args(args)  # a bad --from/--until is reported before credentials are read
    source = server_source(args)
    with Progress(sys.stderr) as progress:
        return source.open(progress.note)


class Progress:
    """A spinner with the elapsed time on a terminal, after a short delay; silent otherwise
    (pipes, logs and CI get no carriage-return noise)."""

    _FRAMES = "|/-\\"

    def __init__(self, stream: TextIO, *, delay: float = 0.5, interval: float = 0.1) -> None:
        isatty = getattr(stream, "isatty", None)
        self.enabled = bool(isatty and isatty())
        self._stream = stream
        self._delay, self._interval = delay, interval
        self._text = "querying Pyroscope"
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._drawn = False

    def note(self, text: str) -> None:
        from explainer.symbols import clean

        self._text = clean(text, 70)

    def __enter__(self) -> Progress:
        if self.enabled:
            self._thread = threading.Thread(target=self._run, name="progress", daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        start = time.monotonic()
        frame = 0
        while not self._stop.wait(self._interval):
            elapsed = time.monotonic() - start
            if elapsed >= self._delay:
                frame += 1
                self._stream.write(f"\r{self._FRAMES[frame % 4]} {self._text} {elapsed:.1f}s\033[K")
                self._stream.flush()
                self._drawn = True

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self._drawn:
            self._stream.write("\r\033[K")  # leave the line clean for the result or the error
            self._stream.flush()
