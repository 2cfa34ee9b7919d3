"""The Pyroscope query in the sidebar: server and auth, a time range (relative or absolute), the
profile type, a label selector checked as it is typed (the error is drawn under the character
it points at), label drop-downs that add matchers to it, the series of the window with its
peak, and "Load profile" / "Load at peak".

Every call gets a fresh HTTP session and a client for that action only: credentials stay in
their password widgets. The query logic is the client's (``explainer.pyroscope``) and the
peak is :mod:`explainer.analysis.peak`; this module only lays them out.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from typing import Any

from explainer import units
from explainer.errors import SelectorError
from explainer.model import Profile
from explainer.symbols import clean
from explainer.ui.friendly import friendly
from explainer.ui.state import SessionData

AUTH = ("None", "User + password", "Bearer token", "PYROSCOPE_* environment variables")
WINDOWS = {"Last 15 minutes": "now-15m", "Last hour": "now-1h", "Last 6 hours": "now-6h", "Last 24 hours": "now-24h"}
CUSTOM = "Custom (from / until)"
ANY = "(any)"


def _friendly(exc: BaseException) -> str:
    return friendly(exc)


ENV_LOCKED = "EXPLAINER_APP_PYROSCOPE_LOCKED"  # "1": the form queries only $PYROSCOPE_URL (container default)


def locked_url() -> str:
    """The configured server when the form is locked to it (``$EXPLAINER_APP_PYROSCOPE_LOCKED``), else ""."""
    import os

    if os.environ.get(ENV_LOCKED, "").strip().lower() not in ("1", "true", "yes", "on"):
        return ""
    return os.environ.get("PYROSCOPE_URL", "").strip()


def _client(st: Any, session: Any) -> Any:
    """A client for this action only: credentials come from the password widgets and are not kept.

    The environment's credentials are bound to ``$PYROSCOPE_URL``'s origin (``credentials_from``),
    so a URL typed here gets only what is typed with it. A page the server sends back is never
    echoed beyond one line of status: the form must not become a window onto internal hosts.
    """
    from explainer.pyroscope import credentials_from
    from explainer.pyroscope.source import ServerSource

    ss, auth = st.session_state, st.session_state.get("pyro_auth", AUTH[0])
    tenant = ss.get("pyro_tenant", "").strip() or None
    fixed = locked_url()
    if auth == AUTH[3] or fixed:
        creds = credentials_from(tenant=tenant)
    else:
        creds = credentials_from(
            user=ss.get("pyro_user", "") if auth == AUTH[1] else "",
            password=ss.get("pyro_password", "") if auth == AUTH[1] else "",
            token=ss.get("pyro_token", "") if auth == AUTH[2] else "",
            tenant=tenant or "",
            environ={},
        )
    return ServerSource(fixed or ss.get("pyro_url", ""), creds, timeout=20.0, quote_bodies=False).client(session)


def window(st: Any, now_ms: int | None = None) -> Any:
    """The chosen time range: a relative preset, or From/Until as now-2h, RFC 3339 or Unix time."""
    from explainer.pyroscope import parse_window

    now = now_ms if now_ms is not None else int(time.time() * 1000)
    choice = st.session_state.get("pyro_window", "Last hour")
    if choice == CUSTOM:
        return parse_window(st.session_state.get("pyro_from", "now-1h"), st.session_state.get("pyro_until", "now"), now)
    return parse_window(WINDOWS.get(choice, "now-1h"), "now", now)


_GATES: list[Any] = []


def _gate() -> Any:
    """One gate for the app's process: every session's Pyroscope calls share its slots and time."""
    if not _GATES:
        from explainer.work_gate import WorkGate

        _GATES.append(WorkGate.from_env("the app"))
    return _GATES[0]


def _server_call(st: Any, call: Callable[[Any, Any], Any], span: Any = None) -> tuple[Any, str]:
    """Run ``call(client, window)`` with a fresh HTTP session; (result, "") or (None, message)."""
    import requests
    from streamlit.runtime.scriptrunner import add_script_run_ctx, get_script_run_ctx

    http = requests.Session()
    session = get_script_run_ctx()  # the call may read widgets: its thread joins this session's script run

    def work(client: Any, when: Any) -> Any:
        add_script_run_ctx(threading.current_thread(), session)
        return call(client, when)

    try:
        client, when = _client(st, http), span if span is not None else window(st)
        return _gate().run(lambda: work(client, when)), ""
    except Exception as exc:  # every server failure becomes a message
        return None, _friendly(exc)
    finally:
        http.close()  # a call given up after its time fails soon after, releasing its slot


def _discover(client: Any, span: Any) -> dict[str, Any]:
    types = sorted(client.profile_types(span), key=lambda t: (t.meaning != "gpu-memory", t.id))
    labels = sorted(n for n in client.label_names(span) if not n.startswith("__"))
    return {"types": types, "labels": labels, "values": {}}


def _defaults_from_environment(ss: Any) -> None:
    """A deployment's ``PYROSCOPE_URL`` (and tenant) start the form, with the environment's credentials."""
    import os

    url = os.environ.get("PYROSCOPE_URL", "").strip()
    if url and "pyro_url" not in ss:
        ss["pyro_url"] = url
        ss["pyro_auth"] = AUTH[3]
        ss["pyro_tenant"] = os.environ.get("PYROSCOPE_TENANT", "").strip()


def _connection(st: Any) -> None:
    _defaults_from_environment(st.session_state)
    fixed = locked_url()
    if fixed:  # the operator's server only: no URL to type, its credentials from the environment
        st.session_state["pyro_url"] = fixed
        st.text_input("Server URL", key="pyro_url", disabled=True, help="set by the deployment")
        st.text_input("Tenant (X-Scope-OrgID, optional)", key="pyro_tenant")
        return
    st.text_input("Server URL", key="pyro_url", placeholder="http://localhost:4040")
    auth = st.selectbox("Authentication", AUTH, key="pyro_auth")
    if auth == AUTH[1]:
        st.text_input("User", key="pyro_user")
        st.text_input("Password", key="pyro_password", type="password")
    elif auth == AUTH[2]:
        st.text_input("Token", key="pyro_token", type="password")
    st.text_input("Tenant (X-Scope-OrgID, optional)", key="pyro_tenant")


def _time_range(st: Any) -> str:
    """The range widgets; returns "" or the one line saying why the custom range is not usable."""
    st.selectbox("Time range", [*WINDOWS, CUSTOM], index=1, key="pyro_window")
    if st.session_state.get("pyro_window") != CUSTOM:
        return ""
    cols = st.columns(2)
    cols[0].text_input("From", value="now-1h", key="pyro_from", help="now-2h, 2026-08-21T10:00:00Z or Unix time")
    cols[1].text_input("Until", value="now", key="pyro_until", help="now, 2026-08-21T11:00:00Z or Unix time")
    try:
        window(st)
    except Exception as exc:
        return _friendly(exc)
    return ""


def selector_error(text: str) -> tuple[str, int] | None:
    """(message, position in ``text``) when the selector does not parse, else None."""
    from explainer.pyroscope import parse_selector

    try:
        parse_selector(text or "{}")
    except SelectorError as exc:
        return str(exc), exc.position
    return None


def _add_matcher(st: Any, name: str, value: str) -> None:
    """A widget callback: the chosen label="value" joins the selector (written canonically)."""
    from explainer.pyroscope import build_selector

    current = st.session_state.get("pyro_selector") or "{}"
    with contextlib.suppress(Exception):  # the selector does not parse yet: its error is already shown under it
        st.session_state["pyro_selector"] = build_selector(current, [(name, value)])


def _selector(st: Any, state: SessionData) -> bool:
    """The selector field with its error under the character it points at; True when it parses."""
    text = st.text_input("Label selector", value="{}", key="pyro_selector", help='e.g. {service_name="vllm"}')
    problem = selector_error(text)
    if problem is not None:
        message, at = problem
        shown = clean(text, 200)
        st.code(f"{shown}\n{' ' * min(at, len(shown))}^", language=None)  # the text as typed, a caret under the error
        st.error(clean(message, 300), icon="🚫")
    label = st.selectbox("Add a label", [ANY, *state.server["labels"]], key="pyro_label", format_func=clean)
    if label != ANY:
        values = state.server["values"].get(label)
        if values is None:
            values, err = _server_call(st, lambda c, w: sorted(c.label_values(label, w)))
            state.server["values"][label] = values or []
            if err:
                st.error(err, icon="🚫")
        value = st.selectbox(f"{clean(label, 40)} =", values or [], key="pyro_value", format_func=clean)
        if value is not None:
            st.button("Add to the selector", key="pyro_add", on_click=_add_matcher, args=(st, label, value))
    return problem is None


def panel(st: Any, state: SessionData) -> tuple[Profile | None, str]:
    """The whole query form; returns the loaded profile (or None) and an error line ("" if none)."""
    from explainer.pyroscope import split_url

    _connection(st)
    range_error = _time_range(st)
    url = locked_url() or st.session_state.get("pyro_url", "").strip()
    auth = st.session_state.get("pyro_auth", AUTH[0])
    try:
        where = (split_url(url)[0], st.session_state.get("pyro_tenant", "").strip(), auth) if url else None
    except Exception as exc:
        return None, _friendly(exc)
    if range_error:
        return None, range_error
    if st.button("Connect", key="pyro_connect", disabled=where is None):
        found, err = _server_call(st, _discover)
        if err:
            return None, err
        state.server = {"where": where, **found}
    if not state.server or state.server.get("where") != where:
        st.caption("Connect to list the server's profile types and labels.")
        return None, ""
    if not state.server["types"]:
        return None, "The server has no profiles in this time range."
    ptype = st.selectbox(
        "Profile type", state.server["types"], key="pyro_type", format_func=lambda t: clean(f"{t.id} {t.meaning}")
    )
    if _selector(st, state):
        err = _series_and_load(st, state, ptype)
        if err:
            return None, err
        from explainer.ui import breakdown

        err = breakdown.panel(st, state, ptype, lambda w: _query(st, ptype, w), _server_call)
        if err:
            return None, err
    remote = state.remote
    if remote is not None and where is not None and remote.source.location == where[0]:
        return remote, ""
    return None, ""


def _query(st: Any, ptype: Any, span: Any) -> Any:
    from explainer.pyroscope import Query, build_selector

    return Query(ptype, build_selector(st.session_state.get("pyro_selector") or "{}"), span)


class _Recording:
    """A client that keeps the series it fetched, so the chart shows what ``find_peak`` read."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.seen: list[Any] = []

    def series(self, query: Any, step_s: float) -> Any:
        self.seen = self.client.series(query, step_s)
        return self.seen


def _series_and_load(st: Any, state: SessionData, ptype: Any) -> str:
    """The window's series with its peak marked, "Load profile" and "Load at peak"."""
    from explainer.analysis.peak import find_peak

    ss = st.session_state
    asked = (ptype.id, ss.get("pyro_selector"), ss.get("pyro_window"), ss.get("pyro_from"), ss.get("pyro_until"))
    cols = st.columns(2)
    if cols[0].button("Show the series", key="pyro_series"):

        def peak(c: Any, w: Any) -> Any:
            recording = _Recording(c)
            return find_peak(recording, _query(st, ptype, w), w.start_ms, w.end_ms), recording.seen

        found, err = _server_call(st, peak)
        if err:
            return err
        state.server["series"] = (asked, *found)
    shown = state.server.get("series")
    shown = shown if shown is not None and shown[0] == asked else None  # only for the query as it stands
    load_all = cols[1].button("Load profile", key="pyro_load", type="primary")
    at_peak = False
    if shown is not None:
        series_chart(st, shown[1], shown[2], ptype.sample_unit)
        at_peak = st.button("Load at peak", key="pyro_load_peak", icon=":material/vertical_align_top:")
    if load_all or at_peak:
        from explainer.pyroscope import TimeRange
        from explainer.pyroscope.exact import exact_profile

        span = TimeRange(shown[1].start_ms, shown[1].end_ms) if at_peak and shown else None
        # exact by default: a flame graph mostly merged into 'other' is replaced by the full profile
        profile, err = _server_call(st, lambda c, w: exact_profile(c, _query(st, ptype, w)), span)
        if err:
            return err
        state.remote = profile
    return ""


def series_chart(st: Any, peak: Any, series: Any, unit: str) -> None:
    """The series of the window (values and times only, no names), with the peak step marked."""
    import altair as alt
    import pandas as pd

    from explainer.analysis.peak import merge_series

    stamps, values = merge_series(s.points for s in series)
    frame = pd.DataFrame({"time": pd.to_datetime(stamps, unit="ms", utc=True), "value": values})
    mark = pd.DataFrame({"time": [pd.to_datetime(peak.peak_ms, unit="ms", utc=True)], "value": [peak.peak_value]})
    line = alt.Chart(frame).mark_line().encode(x=alt.X("time:T", title=None), y=alt.Y("value:Q", title=unit))
    dot = alt.Chart(mark).mark_point(size=90, filled=True, color="#dc2626").encode(x="time:T", y="value:Q")
    st.altair_chart(line + dot, height=160)
    st.caption(
        f"Peak {units.format_value(peak.peak_value, unit)} per step at "
        f"{pd.to_datetime(peak.peak_ms, unit='ms', utc=True):%Y-%m-%d %H:%M:%S} UTC (red dot); "
        f"'Load at peak' reads that {units.format_duration_ns(peak.step_ms * 10**6)} step."
    )


GRAFANA_URL, GRAFANA_DATASOURCE = "EXPLAINER_GRAFANA_URL", "EXPLAINER_GRAFANA_DATASOURCE"


def _setting(secrets: Any, name: str) -> str:
    import os

    try:
        value = secrets.get(name) if secrets is not None else None
    except Exception:  # no secrets.toml is the normal local case
        value = None
    return str(value or os.environ.get(name, "")).strip()


def loaded_query(st: Any, profile: Profile, secrets: Any) -> None:
    """Under the source line: the Pyroscope query behind the page, and "Open in Grafana" when configured."""
    from explainer import markdown
    from explainer.report.scope import explore_url, parse_query, window_text

    query = parse_query(profile)
    if query is None:
        return
    st.caption(f"Query: {markdown.code(query.profile_type + query.selector)}, {window_text(profile)}")
    base, uid = _setting(secrets, GRAFANA_URL), _setting(secrets, GRAFANA_DATASOURCE)
    if base and uid:
        try:
            url = explore_url(base, query, datasource_uid=uid)
        except Exception as exc:  # a malformed Grafana URL in the settings: say so, keep the page
            st.caption(f"No Grafana link: {_friendly(exc)}")
            return
        st.link_button("Open in Grafana", url, icon=":material/open_in_new:")
