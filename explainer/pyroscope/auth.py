"""Who we are to a Pyroscope server: basic auth, a bearer token, and the tenant header.

Open-source Pyroscope has no authentication of its own; what we meet in practice is Grafana
Cloud (basic auth: numeric stack id + access-policy token), Grafana's datasource proxy
(``Authorization: Bearer``) and multi-tenant servers (``X-Scope-OrgID``). Secrets come from
the environment or a file, never from a command-line value (visible in ``ps`` and shell
history), and nothing in this module ever prints them: ``repr`` masks them and
:meth:`Credentials.redact` scrubs them from any text a server sends back to us.
"""

from __future__ import annotations

import base64
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass, replace
from urllib.parse import quote, unquote, urlsplit, urlunsplit

from explainer.errors import QueryError
from explainer.pyroscope.defaults import ENV_URL as ENV_URL

ENV_USER = "PYROSCOPE_USER"
ENV_PASSWORD = "PYROSCOPE_PASSWORD"
ENV_TOKEN = "PYROSCOPE_TOKEN"
ENV_TENANT = "PYROSCOPE_TENANT"

# Pyroscope's tenant-id rule (docs "about tenant IDs"): at most 150 characters from this set
_TENANT = re.compile(r"[A-Za-z0-9!\-_.*'()]{1,150}")
# a bearer token goes into a header verbatim: visible ASCII only, or it could split the header
_TOKEN = re.compile(r"[\x21-\x7e]+")
_MIN_REDACT = 3  # shorter secrets would turn every message into asterisks; they guard nothing anyway
MASK = "***"


@dataclass(frozen=True, repr=False)
class Credentials:
    """Basic auth (``user`` + ``password``) or a bearer ``token``, plus an optional tenant."""

    user: str = ""
    password: str = ""
    token: str = ""
    tenant: str = ""
    # the origin (scheme, host, port) these secrets were configured for; "" when they were given
    # with the command itself. Environment and context secrets are bound: never sent elsewhere.
    origin: str = ""
    withheld: str = ""  # set when bound secrets were not sent: the origin they belong to

    def __repr__(self) -> str:
        secret = "password=" + (MASK if self.password else "''") + ", token=" + (MASK if self.token else "''")
        return f"Credentials(user={self.user!r}, {secret}, tenant={self.tenant!r})"

    __str__ = __repr__

    @property
    def kind(self) -> str:
        return "basic" if self.user else "bearer" if self.token else "none"

    def headers(self) -> dict[str, str]:
        """The request headers these credentials add (empty when there are none)."""
        out: dict[str, str] = {}
        if self.user:
            out["Authorization"] = "Basic " + self._basic()
        elif self.token:
            out["Authorization"] = "Bearer " + self.token
        if self.tenant:
            out["X-Scope-OrgID"] = self.tenant
        return out

    def _basic(self) -> str:
        return base64.b64encode(f"{self.user}:{self.password}".encode()).decode("ascii")

    def secrets(self) -> list[str]:
        """Every form a secret of ours may take in text a server sends back."""
        out = [self.password, self.token]
        if self.user:
            out += [self._basic(), quote(self.password, safe=""), f"{self.user}:{self.password}"]
        if self.token:
            out.append(quote(self.token, safe=""))
        return [s for s in out if len(s) >= _MIN_REDACT]

    def redact(self, text: str) -> str:
        """``text`` with every secret (its encoded forms too) and every echoed ``Authorization``,
        ``Cookie`` or API-key header value replaced by ``***``.

        A proxy may echo the Authorization header back in an error body; we show server
        messages to the user, so they pass through here first, always before any cut.
        """
        return mask(text, self.secrets())

    def for_url(self, url: str) -> Credentials:
        """These credentials for a request to ``url``: bound secrets only at their own origin."""
        if not self.origin or origin_of(url) == self.origin or self.kind == "none":
            return self
        return Credentials(tenant=self.tenant, withheld=self.origin)

    def bound(self, url: str) -> Credentials:
        """The same secrets, bound to ``url``'s origin."""
        return replace(self, origin=origin_of(url)) if url.strip() else self


# an echoed header: its value up to the end of the line or the quote that closes it
_ECHO = re.compile(
    r"(?i)((?:proxy-)?authorization|(?:set-)?cookie|x-api-key|api[-_]key|x-auth-token|password|token)"
    r"(\\?[\"']?\s*[:=]\s*\[?\s*\\?[\"']?)([^\r\n\"'<>]*)"
)


def mask(text: str, secrets: list[str]) -> str:
    """``text`` with each of ``secrets`` and every echoed credential header value replaced by ``***``.
    Callers cut *after* this: a secret cut in half no longer matches and would leak its first part."""
    for secret in sorted(set(secrets), key=len, reverse=True):
        if len(secret) >= _MIN_REDACT:
            text = text.replace(secret, MASK)
    return _ECHO.sub(lambda m: m.group(1) + m.group(2) + (MASK if m.group(3).strip() else m.group(3)), text)


def origin_of(url: str) -> str:
    """``scheme://host:port`` (lower case, default port filled in): what a secret is bound to."""
    parts = urlsplit(url.strip())
    try:
        port = parts.port
    except ValueError:
        port = None
    scheme = parts.scheme.lower()
    return f"{scheme}://{(parts.hostname or '').lower()}:{port or (443 if scheme == 'https' else 80)}"


def split_url(url: str) -> tuple[str, str, str]:
    """``(base URL without credentials, user, password)``; checks the URL can take API paths."""
    text = url.strip()
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise QueryError(f"the server URL must start with http:// or https:// and name a host, got {_safe(text)!r}")
    if parts.query or parts.fragment:
        raise QueryError(
            "the server URL must not have a ?query or #fragment; give the base URL, e.g. http://localhost:4040"
        )
    try:
        port = parts.port
    except ValueError as exc:
        raise QueryError(f"the server URL has an invalid port: {_safe(text)!r}") from exc
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    netloc = host + (f":{port}" if port is not None else "")
    base = urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))
    return base, unquote(parts.username or ""), unquote(parts.password or "")


def _safe(url: str) -> str:
    """A URL for an error message: any ``user:password@`` part removed, length capped."""
    return re.sub(r"//[^/@]*@", "//", url)[:120]


def credentials_from(
    *,
    user: str | None = None,
    password: str | None = None,
    token: str | None = None,
    tenant: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> Credentials:
    """Credentials from explicit values, falling back to ``PYROSCOPE_*`` in ``environ``.

    Both basic auth and a token is an error rather than a silent choice: the two point at
    different deployments (Grafana Cloud directly vs. Grafana's proxy), and guessing wrong
    sends a secret to a server that was never meant to get it.
    """
    env = dict(os.environ if environ is None else environ)
    # a flag for one kind of auth overrides the environment's other kind, not just its own
    if token is not None and user is None and password is None:
        env.pop(ENV_USER, None)
        env.pop(ENV_PASSWORD, None)
    if token is None and (user is not None or password is not None):
        env.pop(ENV_TOKEN, None)
    # a secret taken from the environment belongs to the environment's server ($PYROSCOPE_URL)
    from_env = any(given is None and env.get(name) for given, name in ((password, ENV_PASSWORD), (token, ENV_TOKEN)))
    bound_to = origin_of(env[ENV_URL]) if from_env and env.get(ENV_URL, "").strip() else ""
    user = user if user is not None else env.get(ENV_USER, "")
    password = password if password is not None else env.get(ENV_PASSWORD, "")
    token = token if token is not None else env.get(ENV_TOKEN, "")
    tenant = tenant if tenant is not None else env.get(ENV_TENANT, "")
    user, tenant, token = user.strip(), tenant.strip(), token.strip()
    if password and not user:
        raise QueryError(f"a password is set but no user; set {ENV_USER} or --user (Grafana Cloud: the stack id)")
    if user and not password:
        raise QueryError(f"user {user!r} has no password; set {ENV_PASSWORD} or --password-file")
    if user and token:
        raise QueryError(f"both basic auth ({ENV_USER}) and a bearer token ({ENV_TOKEN}) are set; unset one")
    if ":" in user:
        raise QueryError("the user name must not contain ':' (basic auth separates user and password with it)")
    if token and not _TOKEN.fullmatch(token):
        raise QueryError("the bearer token contains spaces or characters not allowed in an HTTP header")
    if tenant and (not _TENANT.fullmatch(tenant) or tenant in (".", "..")):
        raise QueryError(
            "the tenant must be 1-150 characters of letters, digits and ! - _ . * ' ( ) (Pyroscope's tenant-id rule)"
        )
    return Credentials(user=user, password=password, token=token, tenant=tenant, origin=bound_to)


def read_secret_file(path: str, what: str) -> str:
    """The first line of a secret file (a mounted Kubernetes secret, a password manager's fifo).
    A file every user may read gets a one-line warning: the secret is only as private as the file."""
    try:
        with open(path, "rb") as fh:
            mode = os.fstat(fh.fileno()).st_mode
            line = fh.readline(64 * 1024).decode("utf-8")
    except OSError as exc:
        # the path is ours to show; the content never is
        raise QueryError(f"cannot read the {what} file {path}: {exc.strerror or type(exc).__name__}") from exc
    except UnicodeDecodeError:
        raise QueryError(f"the {what} file {path} is not UTF-8 text") from None  # no excerpt: it is a secret
    if stat.S_ISREG(mode) and mode & stat.S_IROTH:
        from explainer.notices import warn_once

        warn_once(f"secret-readable:{path}", f"the {what} file {path} can be read by every user; chmod o-r it")
    return line.strip()
