"""Named contexts in a config file, in the spirit of kubectl's: a server, who we are, a model.

The file is ``--config FILE``, else ``$EXPLAINER_CONFIG``, else
``$XDG_CONFIG_HOME/explainer/config.toml`` (``~/.config/explainer/config.toml``). A missing
default file is no error, but a missing ``--config`` file is. The context is ``--context NAME``,
else ``$EXPLAINER_CONTEXT``, else the file's ``current-context``::

    current-context = "aks"

    [contexts.aks]
    server = "http://localhost:4040"
    tenant = "team-a"
    token-env = "GRAFANA_SA_TOKEN"        # or token-file; user + password-file / password-env
    grafana-url = "https://grafana.example.com"
    grafana-datasource = "local-pyroscope"
    model = "gpt-4o-mini"
    gpu-memory = "80GB"                   # the visibility audit's budget (also gpu-memory-utilization,
    gpu-memory-utilization = 0.92         # kv-cache-memory and vllm-log, a path)

Secrets are references (``*-file``, ``*-env``), never values: a config file gets copied, shared
and committed. Precedence: a flag, then the environment (``PYROSCOPE_*``, then profilecli's
``PROFILECLI_*`` names), then the context. The table :data:`SETTINGS` is the whole mapping.
"""

from __future__ import annotations

import argparse
import os
import tomllib
from collections.abc import Iterator, Mapping
from typing import Any

from explainer.errors import ConfigError

ENV_CONFIG, ENV_CONTEXT = "EXPLAINER_CONFIG", "EXPLAINER_CONTEXT"
MAX_CONFIG_BYTES = 1 << 20

# (argument, environment variables read by the code that wins over the file, profilecli's aliases, context key)
SETTINGS: tuple[tuple[str, tuple[str, ...], tuple[str, ...], str], ...] = (
    ("tenant", ("PYROSCOPE_TENANT",), ("PROFILECLI_TENANT_ID",), "tenant"),
    ("user", ("PYROSCOPE_USER",), ("PROFILECLI_USERNAME",), "user"),
    ("grafana_url", (), (), "grafana-url"),
    ("grafana_datasource", (), (), "grafana-datasource"),
    ("model", ("EXPLAINER_MODEL",), (), "model"),
    ("gpu_memory", (), (), "gpu-memory"),
    ("gpu_memory_utilization", (), (), "gpu-memory-utilization"),
    ("kv_cache_memory", (), (), "kv-cache-memory"),
    ("vllm_log", (), (), "vllm-log"),
)
# keys a person writes as TOML numbers (gpu-memory-utilization = 0.92): read as their text
NUMERIC_KEYS = frozenset({"gpu-memory", "gpu-memory-utilization", "kv-cache-memory"})
# secret -> (the environment variable the code reads, profilecli's alias)
SECRETS = {"password": ("PYROSCOPE_PASSWORD", "PROFILECLI_PASSWORD"), "token": ("PYROSCOPE_TOKEN", "PROFILECLI_TOKEN")}
# the server stands where $PYROSCOPE_URL does: used by `--server` without a URL and by `explainer
# pyroscope`, never switching a command that was given a file over to the server
SERVER = ("server_fallback", "PYROSCOPE_URL", "PROFILECLI_URL", "server")
KEYS = {key for *_, key in (*SETTINGS, SERVER)} | {f"{s}-{how}" for s in SECRETS for how in ("file", "env")}


def clean(text: str, limit: int) -> str:
    """Untrusted text in a message; imported here, not at the top: ``--help`` must not load the decoders."""
    from explainer.symbols import clean as clean_name

    return clean_name(text, limit)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--config``/``--context`` on the top level and on every command (so either place works)."""
    for target, default in ((parser, None), *((leaf, argparse.SUPPRESS) for leaf in _leaves(parser))):
        group = target.add_argument_group("configuration")
        group.add_argument("--config", metavar="FILE", default=default, help=f"config file (default ${ENV_CONFIG}, "
                           "else $XDG_CONFIG_HOME/explainer/config.toml)")  # fmt: skip
        group.add_argument("--context", metavar="NAME", default=default, help="named context of the config file")


def _leaves(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):  # aliases share one parser
                subs = [a for a in child._actions if isinstance(a, argparse._SubParsersAction)]
                yield from (_leaves(child) if subs else (child,))


def default_path(environ: Mapping[str, str]) -> str:
    # os.path rather than pathlib: every command reads the config, and pathlib costs start-up
    base = environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "explainer", "config.toml")


def config_path(config: str | None, environ: Mapping[str, str] | None = None) -> str:
    """The config file this command reads (whether or not it exists): never a place to write to."""
    env = os.environ if environ is None else environ
    given = config or env.get(ENV_CONFIG)
    return os.path.expanduser(given) if given else default_path(env)


def load_context(config: str | None, context: str | None, environ: Mapping[str, str]) -> dict[str, Any]:
    """The chosen context's settings ({} without a file or a context)."""
    given = config or environ.get(ENV_CONFIG)
    path = config_path(config, environ)
    try:
        data = tomllib.loads(_read_config(path).decode("utf-8"))
    except FileNotFoundError:
        if given:
            raise ConfigError(f"config file {clean(str(path), 200)} does not exist") from None
        if context:
            raise ConfigError(f"--context {clean(context, 60)}: no config file at {path}") from None
        return {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read {clean(str(path), 200)}: {clean(str(exc), 200)}") from exc
    contexts = data.get("contexts", {})
    name = context or environ.get(ENV_CONTEXT) or data.get("current-context")
    if not name:
        return {}
    if not isinstance(contexts, dict) or not isinstance(contexts.get(name), dict):
        known = ", ".join(sorted(contexts)) if isinstance(contexts, dict) else ""
        raise ConfigError(f"{path}: no context {clean(str(name), 60)!r} (contexts: {known or 'none'})")
    return _checked(name, contexts[name], path)


def _read_config(path: str) -> bytes:
    """The config file's bytes: a regular file only (opened without blocking, so a FIFO cannot hang
    the command), with a warning when anyone may write it (it names servers and secret files)."""
    import stat

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with open(fd, "rb", buffering=0) as f:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ConfigError(f"config file {clean(str(path), 200)} is not a regular file")
        if info.st_mode & stat.S_IWOTH:
            from explainer.notices import warn_once

            warn_once(f"config-writable:{path}", f"the config file {clean(path, 200)} is writable by every user "
                      "(it names servers and secret files); chmod o-w it")  # fmt: skip
        os.set_blocking(fd, True)
        return f.read(MAX_CONFIG_BYTES + 1)


def _checked(name: str, ctx: dict[str, Any], path: str) -> dict[str, Any]:
    for key, value in ctx.items():
        if key in SECRETS:
            raise ConfigError(f"{path}: context {name!r} has a literal {key}; use {key}-file or {key}-env instead")
        if key not in KEYS:
            known = ", ".join(sorted(KEYS))
            raise ConfigError(f"{path}: context {name!r}: unknown key {clean(key, 40)!r} (known: {known})")
        if key in NUMERIC_KEYS and isinstance(value, int | float) and not isinstance(value, bool):
            ctx = {**ctx, key: str(value)}
        elif not isinstance(value, str):
            raise ConfigError(f"{path}: context {name!r}: {key} must be a string")
    return ctx


def apply(args: argparse.Namespace, environ: Mapping[str, str] | None = None) -> None:
    """Fill what neither a flag nor the environment set: profilecli's variables, then the context."""
    env = os.environ if environ is None else environ
    ctx = load_context(getattr(args, "config", None), getattr(args, "context", None), env)
    fallback, reader, alias, key = SERVER
    if hasattr(args, "server") and not env.get(reader) and (env.get(alias) or ctx.get(key)):
        setattr(args, fallback, env.get(alias) or ctx[key])
    for attr, readers, aliases, key in SETTINGS:
        if not hasattr(args, attr) or getattr(args, attr) is not None or any(env.get(e) for e in readers):
            continue
        value = next((env[a] for a in aliases if env.get(a)), None) or ctx.get(key)
        if value:
            setattr(args, attr, value)
    for secret, (secret_reader, secret_alias) in SECRETS.items():
        if not hasattr(args, f"{secret}_file") or getattr(args, f"{secret}_file") or env.get(secret_reader):
            continue
        value = env.get(secret_alias) or _from_env_reference(ctx, secret, env)
        # the secret belongs to the server configured beside it: profilecli's URL, or the context's
        home = (env.get(SERVER[2]) if env.get(secret_alias) else ctx.get(SERVER[3])) or ""
        if value:
            setattr(args, f"{secret}_value", value)
        elif ctx.get(f"{secret}-file"):
            setattr(args, f"{secret}_file", os.path.expanduser(ctx[f"{secret}-file"]))
        else:
            continue
        if home:
            args.secret_origin = home


def _from_env_reference(ctx: dict[str, Any], secret: str, env: Mapping[str, str]) -> str | None:
    name = ctx.get(f"{secret}-env")
    if not name:
        return None
    if not env.get(name):
        raise ConfigError(f"the context's {secret}-env names ${clean(name, 60)}, which is not set")
    return env[name]
