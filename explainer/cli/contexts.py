"""``explainer contexts``: the config file's contexts, the current one marked (like ``kubectl config get-contexts``).

Shows where each context points and how it authenticates (the reference, never a secret).
"""

from __future__ import annotations

import argparse
import os
import tomllib
from typing import TextIO

from explainer.cli import config
from explainer.errors import ConfigError
from explainer.symbols import clean


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "contexts",
        help="list the config file's named contexts (server, tenant, auth reference, model)",
        description="List the contexts of the config file (see docs/config.md); * marks the one in use.",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace, out: TextIO) -> int:
    given = getattr(args, "config", None) or os.environ.get(config.ENV_CONFIG)
    path = os.path.expanduser(given) if given else config.default_path(os.environ)
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        out.write(f"no config file at {path} (see docs/config.md)\n")
        return 0
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read {clean(path, 200)}: {clean(str(exc), 200)}") from exc
    current = getattr(args, "context", None) or os.environ.get(config.ENV_CONTEXT) or data.get("current-context")
    out.write(f"{path}\n")
    for name, ctx in sorted(data.get("contexts", {}).items()):
        checked = config.load_context(path, name, {})  # validates: a bad context is an error here too
        auth = next((f"{k}={clean(v, 60)}" for k, v in checked.items() if k.endswith(("-file", "-env"))), "none")
        where = clean(ctx.get("server", "-"), 80)
        tenant = clean(ctx.get("tenant", "-"), 40)
        mark = "*" if name == current else " "
        out.write(f"{mark} {clean(name, 40)}  server={where}  tenant={tenant}  auth={auth}\n")
    return 0
