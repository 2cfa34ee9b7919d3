"""``explainer app [SOURCE]``: the Streamlit chat app with the packaged settings, on the demo by default.

The app script (the repository's ``app.py``; ``explainer/ui/app.py`` in a wheel) and its Streamlit
settings (``explainer/ui/streamlit.toml``) are package data, so this works from any install, in any directory. Streamlit
only reads ``.streamlit/config.toml`` from the working directory, so the packaged settings are
passed as command-line flags instead; ``--host``/``--port`` override them. The process is
replaced by Streamlit's (``exec``): Ctrl-C and a container's SIGTERM reach the server directly.
"""

from __future__ import annotations

import argparse
import os
import sys
import tomllib
from pathlib import Path
from typing import Any, TextIO

from explainer.errors import QueryError, SourceNotFoundError
from explainer.symbols import clean

UI = Path(__file__).resolve().parent.parent / "ui"
# The Streamlit script: the repository's root app.py (`streamlit run app.py`), which a wheel carries
# as explainer/ui/app.py (setup.py copies it there)
APP_SCRIPT = next((p for p in (UI / "app.py", UI.parent.parent / "app.py") if p.is_file()), UI / "app.py")
CONFIG = UI / "streamlit.toml"
DEFAULT_HOST, DEFAULT_PORT = "127.0.0.1", 8501
HEALTH_PATH = "/_stcore/health"  # Streamlit's liveness endpoint: the container's HEALTHCHECK and k8s probes
ANY_ADDRESS = ("0.0.0.0", "::")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "app",
        help="start the chat app (Streamlit) in the browser, on the demo or on SOURCE",
        description="Start the web app: ask about a profile beside its flame graph. Opens on the bundled demo, "
        "or on SOURCE; uploads and Pyroscope servers are picked in the sidebar. The app has no login of its "
        "own: it binds 127.0.0.1 unless --host says otherwise (put it behind your cluster's auth).",
    )
    p.add_argument("profile", nargs="?", metavar="SOURCE", help="a profile file to open on (default: the demo)")
    p.add_argument("--demo", action="store_true", help="open on the bundled demo profile (the default)")
    p.add_argument("--host", default=DEFAULT_HOST, metavar="ADDR", help=f"address to bind (default {DEFAULT_HOST})")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, metavar="N", help=f"port (default {DEFAULT_PORT})")
    p.add_argument(
        "--allow-remote", action="store_true", help="allow a --host other than loopback (the app has no login)"
    )
    p.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name users reach the app by, e.g. an ingress's (repeatable; loopback names always pass)",
    )
    p.set_defaults(run=run)


def options(config: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """``{"theme": {"dark": {"primaryColor": "#f"}}}`` -> ``[("theme.dark.primaryColor", "#f")]``."""
    out: list[tuple[str, Any]] = []
    for key, value in config.items():
        name = f"{prefix}.{key}" if prefix else key
        out += options(value, name) if isinstance(value, dict) else [(name, value)]
    return out


def config_flags(config: dict[str, Any]) -> list[str]:
    """``{"server": {"port": 8501}}`` -> ``["--server.port", "8501"]``: Streamlit's flag for every option
    (nested tables such as ``[theme.dark]`` included)."""
    flags = []
    for name, value in options(config):
        for item in value if isinstance(value, list) else [value]:  # a list: the flag once per item
            flags += [f"--{name}", str(item).lower() if isinstance(item, bool) else str(item)]
    return flags


def settings(host: str, port: int, extra_hosts: list[str] | None = None) -> dict[str, Any]:
    """The packaged settings with this bind address and port, and the Host allow-list (DNS rebinding)."""
    from explainer.netbind import allowed_hosts

    with CONFIG.open("rb") as f:
        config = tomllib.load(f)
    config["server"].update(address=host, port=port, allowedHosts=allowed_hosts(host, extra_hosts or []))
    if host in ANY_ADDRESS:
        # the URL users type is the ingress's, not ours: let Streamlit derive it from the request
        config.get("browser", {}).pop("serverAddress", None)
    else:
        config.setdefault("browser", {})["serverAddress"] = host
    return config


def streamlit_command(args: argparse.Namespace) -> list[str]:
    """The exact command line: this interpreter's Streamlit on the packaged script and settings
    (:mod:`explainer.ui.serve` is ``python -m streamlit`` plus a warm-up of the start profile)."""
    if args.profile and args.demo:
        raise QueryError("give SOURCE or --demo, not both")
    if not 1 <= args.port <= 65535:
        raise QueryError(f"--port must be between 1 and 65535, got {args.port}")
    script_args: list[str] = []
    if args.profile:
        path = Path(args.profile)
        if not path.is_file():
            raise SourceNotFoundError(f"{clean(args.profile, 200)}: no such file")
        script_args = ["--", str(path.resolve())]
    from explainer.netbind import check_bind

    check_bind(args.host, getattr(args, "allow_remote", False), "the app")
    flags = config_flags(settings(args.host, args.port, getattr(args, "allowed_host", [])))
    # Streamlit's own command line, through a launcher that warms the start profile's analysis meanwhile
    return [sys.executable, "-m", "explainer.ui.serve", "run", str(APP_SCRIPT), *flags, *script_args]


def run(args: argparse.Namespace, out: TextIO) -> int:
    command = streamlit_command(args)
    where = clean(args.profile, 120) if args.profile else "the demo profile"
    out.write(f"explainer: open http://{args.host}:{args.port} ({where}; Ctrl-C to stop)\n")
    out.flush()
    os.execv(command[0], command)  # pragma: no cover - replaces this process
    return 0  # pragma: no cover
