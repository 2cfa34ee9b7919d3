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
from explainer.errors import SizeLimitError
from explainer.model import Profile
from explainer.readers import ReadOptions, read_bytes, read_file_bytes
from explainer.symbols import clean
from explainer.ui import expanders, gate
from explainer.ui.cache import SHARED, input_key
from explainer.ui.friendly import friendly
from explainer.ui.pyroscope_form import AUTH, panel
from explainer.ui.state import Loaded, SessionData
from explainer.work_gate import BusyError

__all__ = ["AUTH", "DEMO", "SERVER", "UPLOAD", "Page", "friendly", "load_upload", "sidebar"]

log = logging.getLogger(__name__)

MAX_UPLOAD_MB = 200
"""Must match ``server.maxUploadSize`` in ``explainer/ui/streamlit.toml`` (a test checks); checked again here."""
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
    # within the app's time bound and analyses in flight (ui/gate.py): sessions share this process
    parse = lambda: read_bytes(data, options, location=location, kind="upload")  # noqa: E731
    return gate.analyse(lambda: SHARED.profile(key, parse))


def parse_cached(state: SessionData, slot: str, uploaded: Any, options: ReadOptions) -> Loaded:
    """``load_upload`` once per (file, options) for this session's ``slot``."""
    key = (uploaded.file_id, uploaded.name, uploaded.size, options)
    known = state.uploads.get(slot)
    if known is not None and known.key == key:
        return known
    try:
        loaded = Loaded(key, load_upload(uploaded.name, uploaded.size, uploaded.getvalue, options))
    except BusyError as exc:  # a bound of the moment, not of the file: not remembered, the next run tries again
        return Loaded(key, None, friendly(exc))
    except Exception as exc:  # every failure becomes a message, never a traceback on the page
        loaded = Loaded(key, None, friendly(exc))
    state.uploads[slot] = loaded
    return loaded


def _options(st: Any, sample_type: str | None = None) -> ReadOptions:
    unit = st.session_state.get("read_unit", "auto")
    return app_options(st.secrets, sample_type, None if unit == "auto" else unit)


def _uploaded_profile(
    st: Any, state: SessionData, slot: str, label: str, help_text: str, key: str = ""
) -> tuple[Profile | None, str]:
    uploaded = st.file_uploader(label, key=key or f"upload_{slot}", help=help_text, max_upload_size=MAX_UPLOAD_MB)
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


def open_file(path: str, options: ReadOptions) -> Profile:
    """The file named on the command line, read once per content for every session (and by the warm-up)."""
    return SHARED.file_profile(
        path, options, lambda: read_file_bytes(path, options), lambda data: read_bytes(data, options, location=path)
    )


def start_file(argv: list[str], secrets: Any = None) -> Profile:
    """The profile named on the command line, else the demo; shared by every session (and the warm-up)."""
    if argv:
        return open_file(argv[0], app_options(secrets))
    return SHARED.profile(("demo",), demo_profile)


def start_profile(state: SessionData, argv: list[str], errors: list[str], secrets: Any = None) -> tuple[Profile, str]:
    """The profile a session opens on: ``streamlit run app.py -- FILE`` if given, else the demo.

    Read once per content for all sessions (:mod:`explainer.ui.cache`), as uploads are.
    """
    if state.demo is None:
        try:
            state.demo = start_file(argv, secrets)
        except Exception as exc:  # a bad path on the command line: say so and open the demo
            state.start_error = f"{clean(argv[0], 120)}: {friendly(exc)}" if argv else friendly(exc)
            state.demo = start_file([])
    if state.start_error:
        errors.append(state.start_error)
    label = DEMO if state.demo.source.kind == "demo" else clean(Path(state.demo.source.location).name, 120)
    return state.demo, label


def sidebar(st: Any, state: SessionData, argv: list[str] | None = None) -> Page:
    """The sidebar's source picker; returns what the page shows (the start profile if nothing else works)."""
    errors: list[str] = []
    start, start_label = start_profile(state, argv or [], errors, st.secrets)
    start_option = DEMO if start_label == DEMO else f"Opened with: {start_label}"
    # the radio's own label is the sidebar's heading: one element less on every page (issue 27)
    kind = st.radio("Profile", (start_option, UPLOAD, SERVER), key="source_kind")
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
        profile, err = panel(st, state)
        if err:
            errors.append(err)
    # "Clear baseline" gives the uploader a new key: a fresh, empty widget
    baseline_key = f"upload_baseline_{state.baseline_rev}" if state.baseline_rev else "upload_baseline"
    baseline: Profile | None = None
    holds_file = expanders.has_any(st, baseline_key)
    box, draw = expanders.expander(st, "Compare with a baseline (optional)", expanders.BASELINE, holds_file)
    with box:
        if draw:
            baseline, err = _uploaded_profile(
                st,
                state,
                "baseline",
                "Baseline profile",
                "An earlier profile of the same workload, to compare against.",
                key=baseline_key,
            )
            if err:
                errors.append(f"Baseline: {err}")
        else:
            state.uploads.pop("baseline", None)  # as the empty uploader does
    unit_set = expanders.has_any(st, "read_unit", empty=UNITS[0])
    box, draw = expanders.expander(st, "Reading options", expanders.READING, unit_set)
    with box:
        if draw:
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
