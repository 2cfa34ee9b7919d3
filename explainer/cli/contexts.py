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

FORMAT = """\
The file: --config FILE, else $EXPLAINER_CONFIG, else ~/.config/explainer/config.toml (TOML):

  current-context = "aks"
  [contexts.aks]
  server = "http://localhost:4040"
  [contexts.cloud]
  server = "https://profiles-prod-001.grafana.net"
  user = "123456"
  password-file = "~/.config/explainer/cloud-token"   # or password-env, token-file, token-env
  tenant = "team-a"
  grafana-url = "https://example.grafana.net"
  grafana-datasource = "grafanacloud-profiles"
  model = "gpt-4o-mini"

Secrets are references (-file, -env), never values. Choose one with --context NAME or
$EXPLAINER_CONTEXT; a flag beats the environment, which beats the context."""


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "contexts",
        help="list the config file's named contexts (server, tenant, auth reference, model)",
        description="List the contexts of the config file; * marks the one in use.",
        epilog=FORMAT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace, out: TextIO) -> int:
    given = getattr(args, "config", None) or os.environ.get(config.ENV_CONFIG)
    path = os.path.expanduser(given) if given else config.default_path(os.environ)
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        out.write(f"no config file at {path} (run `explainer contexts --help` for its format)\n")
        return 0
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read {clean(path, 200)}: {clean(str(exc), 200)}") from exc
    current = getattr(args, "context", None) or os.environ.get(config.ENV_CONTEXT) or data.get("current-context")
    lines = [f"{path}\n"]  # every context is checked before anything is printed: stdout stays clean on an error
    for name, ctx in sorted(data.get("contexts", {}).items()):
        checked = config.load_context(path, name, {})  # validates: a bad context is an error here too
        auth = next((f"{k}={clean(v, 60)}" for k, v in checked.items() if k.endswith(("-file", "-env"))), "none")
        where = clean(ctx.get("server", "-"), 80)
        tenant = clean(ctx.get("tenant", "-"), 40)
        mark = "*" if name == current else " "
        lines.append(f"{mark} {clean(name, 40)}  server={where}  tenant={tenant}  auth={auth}\n")
    out.write("".join(lines))
    return 0
