"""Where the page's profile comes from: the bundled demo (default, or a file named on the
command line), an upload, or Pyroscope.

Parsing is a plain function (:func:`load_upload`) so tests can drive it without a browser;
the sidebar code around it only remembers results per session. Every error a user can cause
becomes one friendly line: an :class:`ExplainerError` says what to do, anything else (a bug)
is reported without a traceback so no internals or file contents reach the page.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explainer import units
from explainer.demo import demo_profile
from explainer.errors import ExplainerError, SizeLimitError
from explainer.model import Profile
from explainer.readers import ReadOptions, read_bytes, read_file_bytes
from explainer.symbols import clean
from explainer.ui.cache import SHARED, input_key
from explainer.ui.state import Loaded, SessionData

log = logging.getLogger(__name__)

MAX_UPLOAD_MB = 200
"""Must match ``server.maxUploadSize`` in ``.streamlit/config.toml``; checked again here."""
MAX_UPLOAD_BYTES = MAX_UPLOAD_MB * 10**6
APP_MAX_SIZE_KEY = "EXPLAINER_APP_MAX_SIZE"
DEFAULT_APP_MAX_SIZE = 256 * 2**20
"""The app's decompressed cap, below the CLI's: every session shares one server process, so a
bomb costs everyone. Set ``EXPLAINER_APP_MAX_SIZE`` (secrets or environment), e.g. ``128 MiB``."""

DEMO, UPLOAD, SERVER = "Demo: vLLM GPU memory", "Upload a file", "Pyroscope server"
UNITS = ("auto", "count", "samples", "bytes", "nanoseconds")


@dataclass(frozen=True)
class Page:
    """What the rest of the page shows: the profile, an optional baseline, and what went wrong."""

    profile: Profile
    baseline: Profile | None
    label: str
    errors: tuple[str, ...] = ()


def friendly(exc: BaseException) -> str:
    """One line a person can act on; never a traceback, never more than a few hundred chars."""
    if isinstance(exc, ExplainerError):
        return clean(str(exc), 400)
    log.exception("unexpected error while reading a profile")
    return f"Could not read this profile (unexpected {type(exc).__name__}); the error was logged on the server."


def app_max_size(secrets: Any = None, environ: Mapping[str, str] | None = None) -> int:
    """The app's decompressed cap: ``EXPLAINER_APP_MAX_SIZE`` from secrets, else the environment."""
    raw: object = None
    try:
        raw = secrets.get(APP_MAX_SIZE_KEY) if secrets is not None else None
    except Exception:  # no secrets.toml is the normal local case
        raw = None
    if raw is None or raw == "":
        raw = (os.environ if environ is None else environ).get(APP_MAX_SIZE_KEY, "")
    if raw == "":
        return DEFAULT_APP_MAX_SIZE
    size = units.parse_bytes(str(raw))
    if size is None:
        log.warning("%s=%r is not a size such as 128 MiB; using the default", APP_MAX_SIZE_KEY, clean(str(raw), 40))
        return DEFAULT_APP_MAX_SIZE
    return size


def app_options(secrets: Any = None, sample_type: str | None = None, unit: str | None = None) -> ReadOptions:
    return ReadOptions(
        sample_type=sample_type, unit=unit, max_input=MAX_UPLOAD_BYTES, max_decompressed=app_max_size(secrets)
    )


def limits_help(options: ReadOptions) -> str:
    """The upload limits as the uploader's help states them."""
    unpacked = units.format_bytes(options.max_decompressed, "binary")
    return f"up to {units.format_bytes(options.input_limit)} as uploaded and {unpacked} once decompressed"


def load_upload(name: str, size: int, read: Callable[[], bytes], options: ReadOptions | None = None) -> Profile:
    """Parse an uploaded profile; the size is checked before a single byte is read or parsed."""
    options = options or app_options()
    if size > min(options.input_limit, MAX_UPLOAD_BYTES):
        raise SizeLimitError(
            f"{clean(name, 80)} is {size:,} bytes, over the upload limit ({limits_help(options)})",
            hint="use the CLI for larger profiles: explainer analyze FILE",
        )
    data, location = read(), clean(name, 120)
    # sessions uploading the very same bytes under the same name share one parsed profile
    key = input_key(data, options, location, "upload")
    return SHARED.profile(key, lambda: read_bytes(data, options, location=location, kind="upload"))


def parse_cached(state: SessionData, slot: str, uploaded: Any, options: ReadOptions) -> Loaded:
    """``load_upload`` once per (file, options) for this session's ``slot``."""
    key = (uploaded.file_id, uploaded.name, uploaded.size, options)
    known = state.uploads.get(slot)
    if known is not None and known.key == key:
        return known
    try:
        loaded = Loaded(key, load_upload(uploaded.name, uploaded.size, uploaded.getvalue, options))
    except Exception as exc:  # every failure becomes a message, never a traceback on the page
        loaded = Loaded(key, None, friendly(exc))
    state.uploads[slot] = loaded
    return loaded


def _options(st: Any, sample_type: str | None = None) -> ReadOptions:
    unit = st.session_state.get("read_unit", "auto")
    return app_options(st.secrets, sample_type, None if unit == "auto" else unit)


def _uploaded_profile(st: Any, state: SessionData, slot: str, label: str, help_text: str) -> tuple[Profile | None, str]:
    uploaded = st.file_uploader(label, key=f"upload_{slot}", help=help_text, max_upload_size=MAX_UPLOAD_MB)
    if uploaded is None:
        state.uploads.pop(slot, None)
        return None, ""
    chosen = st.session_state.get(f"sample_type_{slot}")
    loaded = parse_cached(state, slot, uploaded, _options(st, chosen))
    if loaded.profile is None and chosen:  # a type from the previous file: read with the default
        loaded = parse_cached(state, slot, uploaded, _options(st))
    if loaded.profile is None:
        return None, f"{clean(uploaded.name, 80)}: {loaded.error}"
    types = [str(t.type) for t in loaded.profile.sample_types]
    if len(types) > 1:
        st.selectbox(
            "Sample type", types, index=types.index(loaded.profile.sample_type.type), key=f"sample_type_{slot}"
        )
    return loaded.profile, ""


def start_profile(state: SessionData, argv: list[str], errors: list[str], secrets: Any = None) -> tuple[Profile, str]:
    """The profile a session opens on: ``streamlit run app.py -- FILE`` if given, else the demo.

    Read once per content for all sessions (:mod:`explainer.ui.cache`), as uploads are.
    """
    if state.demo is None:
        if argv:
            try:
                options = app_options(secrets)
                data = read_file_bytes(argv[0], options)
                key = input_key(bytes(data), options, argv[0], "file")
                state.demo = SHARED.profile(key, lambda: read_bytes(data, options, location=argv[0]))
            except Exception as exc:  # a bad path on the command line: say so and open the demo
                state.start_error = f"{clean(argv[0], 120)}: {friendly(exc)}"
        if state.demo is None:
            state.demo = SHARED.profile(("demo",), demo_profile)
    if state.start_error:
        errors.append(state.start_error)
    label = DEMO if state.demo.source.kind == "demo" else clean(Path(state.demo.source.location).name, 120)
    return state.demo, label


def sidebar(st: Any, state: SessionData, argv: list[str] | None = None) -> Page:
    """The sidebar's source picker; returns what the page shows (the start profile if nothing else works)."""
    st.header("Profile")
    errors: list[str] = []
    start, start_label = start_profile(state, argv or [], errors, st.secrets)
    start_option = DEMO if start_label == DEMO else f"Opened with: {start_label}"
    kind = st.radio("Source", (start_option, UPLOAD, SERVER), key="source_kind", label_visibility="collapsed")
    profile: Profile | None = None
    if kind == UPLOAD:
        profile, err = _uploaded_profile(
            st,
            state,
            "main",
            "Profile file",
            "pprof (.pb.gz), Pyroscope flame-graph JSON or folded stacks; "
            f"{limits_help(_options(st))}. The format is detected from the content.",
        )
        if err:
            errors.append(err)
        elif profile is None:
            st.caption("No file yet: showing the start profile.")
    elif kind == SERVER:
        profile, err = pyroscope_panel(st, state)
        if err:
            errors.append(err)
    with st.expander("Compare with a baseline (optional)"):
        baseline, err = _uploaded_profile(
            st, state, "baseline", "Baseline profile", "An earlier profile of the same workload, to compare against."
        )
        if err:
            errors.append(f"Baseline: {err}")
    with st.expander("Reading options"):
        st.selectbox(
            "Units of folded / JSON counts",
            UNITS,
            key="read_unit",
            help="Folded stacks and some flame-graph JSON carry no unit; say what the numbers count.",
        )
    if profile is None:
        profile, label = start, start_label
    else:
        label = clean(profile.source.location or profile.source.kind, 120)
    return Page(profile, baseline, label, tuple(errors))


AUTH = ("None", "User + password", "Bearer token", "PYROSCOPE_* environment variables")
WINDOWS = {"Last 15 minutes": "now-15m", "Last hour": "now-1h", "Last 6 hours": "now-6h", "Last 24 hours": "now-24h"}
ANY = "(any)"


def _client(st: Any, session: Any) -> Any:
    """A client for this action only: credentials come from the password widgets and are not kept."""
    from explainer.pyroscope import PyroscopeClient, credentials_from

    ss, auth = st.session_state, st.session_state.get("pyro_auth", AUTH[0])
    tenant = ss.get("pyro_tenant", "").strip() or None
    if auth == AUTH[3]:
        creds = credentials_from(tenant=tenant)
    else:
        creds = credentials_from(
            user=ss.get("pyro_user", "") if auth == AUTH[1] else "",
            password=ss.get("pyro_password", "") if auth == AUTH[1] else "",
            token=ss.get("pyro_token", "") if auth == AUTH[2] else "",
            tenant=tenant or "",
            environ={},
        )
    return PyroscopeClient(ss.get("pyro_url", ""), session=session, credentials=creds, timeout=20.0)


def _window(st: Any) -> Any:
    import time

    from explainer.pyroscope import parse_window

    return parse_window(WINDOWS[st.session_state.get("pyro_window", "Last hour")], "now", int(time.time() * 1000))


def _server_call(st: Any, call: Callable[[Any, Any], Any]) -> tuple[Any, str]:
    """Run ``call(client, window)`` with a fresh HTTP session; (result, "") or (None, message)."""
    import requests

    try:
        with requests.Session() as http:
            return call(_client(st, http), _window(st)), ""
    except Exception as exc:  # every server failure becomes a message
        return None, friendly(exc)


def _discover(client: Any, window: Any) -> dict[str, Any]:
    types = sorted(client.profile_types(window), key=lambda t: (t.meaning != "gpu-memory", t.id))
    labels = sorted(n for n in client.label_names(window) if not n.startswith("__"))
    return {"types": types, "labels": labels, "values": {}}


def pyroscope_panel(st: Any, state: SessionData) -> tuple[Profile | None, str]:
    """URL, auth and tenant; profile-type and label pickers filled from the server; a time range."""
    try:
        from explainer.pyroscope import Query, build_selector, split_url
    except ImportError:  # pragma: no cover - the package ships with explainer
        return None, "The Pyroscope client is not installed."
    st.text_input("Server URL", key="pyro_url", placeholder="http://localhost:4040")
    auth = st.selectbox("Authentication", AUTH, key="pyro_auth")
    if auth == AUTH[1]:
        st.text_input("User", key="pyro_user")
        st.text_input("Password", key="pyro_password", type="password")
    elif auth == AUTH[2]:
        st.text_input("Token", key="pyro_token", type="password")
    st.text_input("Tenant (X-Scope-OrgID, optional)", key="pyro_tenant")
    st.selectbox("Time range", list(WINDOWS), index=1, key="pyro_window")
    url = st.session_state.get("pyro_url", "").strip()
    try:
        where = (split_url(url)[0], st.session_state.get("pyro_tenant", "").strip(), auth) if url else None
    except Exception as exc:
        return None, friendly(exc)
    if st.button("Connect", key="pyro_connect", disabled=where is None):
        found, err = _server_call(st, _discover)
        if err:
            return None, err
        state.server = {"where": where, **found}
    if not state.server or state.server.get("where") != where:
        st.caption("Connect to list the server's profile types and labels.")
        return None, ""
    types = state.server["types"]
    if not types:
        return None, "The server has no profiles in this time range."
    ptype = st.selectbox("Profile type", types, key="pyro_type", format_func=lambda t: clean(f"{t.id} {t.meaning}"))
    label = st.selectbox("Label (optional)", [ANY, *state.server["labels"]], key="pyro_label", format_func=clean)
    labels: list[tuple[str, str]] = []
    if label != ANY:
        values = state.server["values"].get(label)
        if values is None:
            values, err = _server_call(st, lambda c, w: sorted(c.label_values(label, w)))
            if err:
                return None, err
            state.server["values"][label] = values
        value = st.selectbox(f"{clean(label, 40)} =", values, key="pyro_value", format_func=clean)
        if value is not None:
            labels.append((label, value))
    if st.button("Load profile", key="pyro_load", type="primary"):
        query = lambda c, w: c.flame_graph(Query(ptype, build_selector("{}", labels), w))  # noqa: E731
        profile, err = _server_call(st, query)
        if err:
            return None, err
        state.remote = profile
    if state.remote is not None and where is not None and state.remote.source.location == where[0]:
        return state.remote, ""
    return None, ""
