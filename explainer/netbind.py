"""Binding a server to an address: loopback is the default, anything else must be asked for.

``explainer app`` and ``explainer mcp --transport http`` have no login of their own (the MCP
server can take a bearer token). On a non-loopback address anyone who can reach it may use it,
so that takes an explicit ``--allow-remote`` and prints one line saying so; the Host (and
Origin) headers stay checked against an allow-list, which is what stops DNS rebinding.
"""

from __future__ import annotations

import ipaddress

from explainer.errors import QueryError

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def is_loopback(host: str) -> bool:
    name = host.strip().strip("[]").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def check_bind(host: str, allow_remote: bool, what: str) -> None:
    """Refuse a non-loopback ``host`` without ``--allow-remote``; warn once when it is allowed."""
    if is_loopback(host):
        return
    if not allow_remote:
        raise QueryError(
            f"--host {host} would serve {what} beyond this machine; add --allow-remote to mean it",
            hint="keep the default 127.0.0.1 and use an SSH tunnel or kubectl port-forward",
        )
    from explainer.notices import warn_once

    warn_once(f"remote:{what}", f"{what} listens on {host}: anyone who can reach this address can use it")


def allowed_hosts(host: str, extra: list[str]) -> list[str]:
    """Host names a request may be addressed to: loopback, the bind address when it is a specific
    one, and each ``--allowed-host``."""
    names = [*LOOPBACK_HOSTS]
    if host not in ("0.0.0.0", "::") and not is_loopback(host):
        names.append(host)
    names += [h.strip() for h in extra if h.strip()]
    return list(dict.fromkeys(names))
