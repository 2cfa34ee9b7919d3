"""The MCP server over streamable HTTP: a Host/Origin allow-list always, a bearer token if given.

The MCP library turns its DNS-rebinding protection on only for a loopback bind address; here it
is on for every address, with the allow-list of :func:`explainer.netbind.allowed_hosts`. The
token (``--auth-token-file`` or ``$EXPLAINER_MCP_TOKEN``) is checked in constant time on every
request before the MCP app sees it.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

ENV_TOKEN = "EXPLAINER_MCP_TOKEN"


class BearerGate:
    """ASGI middleware: HTTP requests need ``Authorization: Bearer TOKEN``; others pass (lifespan)."""

    def __init__(self, app: App, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                body = b'{"error": "unauthorized: this MCP server needs its bearer token"}'
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", b'Bearer realm="explainer"'),
                            (b"content-length", str(len(body)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def security(host: str, port: int, extra_hosts: list[str]) -> Any:
    """The MCP library's transport security for these hosts (``host:*`` and ``http(s)://host:*``)."""
    from mcp.server.transport_security import TransportSecuritySettings

    from explainer.netbind import allowed_hosts

    names = [f"[{h}]" if ":" in h else h for h in allowed_hosts(host, extra_hosts)]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{n}:*" for n in names] + names,
        allowed_origins=[f"{scheme}://{n}{port}" for n in names for scheme in ("http", "https") for port in (":*", "")],
    )


def serve_http(server: Any, host: str, port: int, *, extra_hosts: list[str], token: str = "") -> None:
    """Run ``server`` (an ``MCPServer``) on ``host:port`` behind the allow-list and the token."""
    import uvicorn

    app: App = server.streamable_http_app(transport_security=security(host, port, extra_hosts), host=host)
    if token:
        app = BearerGate(app, token)
    uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning")).run()
