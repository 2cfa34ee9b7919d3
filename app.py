"""explainer's web app: ask what uses the most GPU memory, beside the flame graph.

Wiring only; the pieces live in ``explainer/ui``. Run with ``explainer app`` (127.0.0.1:8501,
the packaged settings), or ``explainer app PROFILE`` to open on a file instead of the bundled demo.
"""

from __future__ import annotations

import sys

import streamlit as st

from explainer.ui import (
    budget,
    cache,
    chat,
    cluster_chat,
    diffview,
    exports,
    flamegraph,
    gate,
    pyroscope_form,
    sandwich,
    sources,
    views,
)
from explainer.ui.state import session

st.set_page_config(page_title="explainer: flame graphs in plain language", layout="wide")
state = session(st.session_state)  # type: ignore[arg-type]  # a MutableMapping at run time

# `explainer app FILE` runs `streamlit run app.py -- FILE`: open on FILE; under a test runner argv is its own
argv = sys.argv[1:] if sys.argv and sys.argv[0].endswith("app.py") else []
# read, summary, tree and table: once per profile for all sessions (`explainer app FILE` starts on FILE's
# as the server starts); a page that opens meanwhile waits for that work instead of repeating it
with st.spinner("Reading and analysing the profile, once for every session…", show_time=True):
    with st.sidebar:
        page = sources.sidebar(st, state, argv)
        for error in page.errors:
            st.error(error, icon="🚫")
        gpu_budget, budget_errors = budget.sidebar(st)
        for error in budget_errors:
            st.error(error, icon="🚫")
    # the app's time bound and slots; a summary already made is taken from the shared cache at once
    made = gate.shown(st, lambda: cache.summary(page.profile), lambda: cache.SHARED.known(page.profile, "summary"))
if made is None:
    st.stop()
    raise SystemExit  # not reached: st.stop() ends the run (this tells the type checker)
summary = made
state.keep_only(page.profile, page.baseline)
settings = chat.settings_from(st.secrets)  # read on every run, never kept in the session

st.title(":material/local_fire_department: explainer", anchor=False)
# what sits above the tabs varies with the profile (a truncation warning, a server query, the diff
# banner): in one container, so the tabs' fragment always starts at the same place. Streamlit names a
# fragment by where it starts; a tab clicked while a run that moved it was going (after an upload)
# asked for a fragment that no longer existed, and the click was dropped (the tab went back to Ask)
with st.container():
    views.headline(st, summary, page.label)
    pyroscope_form.loaded_query(st, page.profile, st.secrets)
    if page.baseline is not None:
        diffview.banner(st, state, page.baseline)


# The tabs are a fragment: opening a tab, a chat question or a click in a view reruns only them, so the
# browser does not redraw the sidebar and the headline each time (most of a later page's time is the
# browser drawing elements, not this script: issue 27). Everything they read is fixed by the full run above.
@st.fragment
def panel() -> None:
    # answers get the page's full width (their tables stay on one line); the views sit in tabs beside them
    names = (*views.TABS, diffview.TAB) if page.baseline is not None else views.TABS
    tabs = dict(zip(names, st.tabs(names, key=sandwich.PANEL_KEY, on_change="rerun"), strict=True))
    # the views' elements are drawn while their tab is open; the chat and the flame graph are drawn hidden
    # too, so that their tabs show them at once. Left out while another tab was open, the chat was taken
    # apart by the first click away from it and its tab came back empty until that click's run had drawn
    # it again (the later-session figure did not move beyond its noise either way: bench/results-app.md)
    with tabs["Ask"]:
        handoff = chat.handoff_maker(page.profile, page.baseline, summary, gpu_budget)
        mode = chat.options(st, settings, handoff)
        chat.panel(
            st,
            state,
            lambda m: cluster_chat.with_cluster(
                st, chat.conversation(state, page.profile, page.baseline, settings, m, gpu_budget)
            ),
            mode,
            settings.describe() if settings.configured else "offline",
            chat.greeting(summary, page.label),
        )
        sandwich.answer_button(st, state)
    sandwich.follow_answers(state)  # an answer's function is the one in focus in every view
    with tabs["Flame graph"]:
        # the summary's profile: the same object unless frames that count calls (cuMemFreeAsync) were left out
        data = gate.shown(
            st, lambda: flamegraph.shared(summary.profile), lambda: cache.SHARED.known(summary.profile, "flame")
        )
        if data is not None:
            pick = lambda name: sandwich.select(st, state, name, "the sandwich's function")  # noqa: E731
            flamegraph.show(st, state, summary.profile, data, pick)
        exports.downloads(st, page.profile, page.label)
    # the tables and the sandwich are drawn when their tab is open: a page opens without loading the data
    # grid's scripts (1.2 MB) or sending the 4,000-row table, and a big profile's sandwich takes a second
    with tabs["Top functions"]:
        if tabs["Top functions"].open is not False:
            frame = gate.shown(
                st, lambda: views.shared_table(summary), lambda: cache.SHARED.known(summary.profile, "table")
            )
            pick_row = lambda fid: sandwich.select(st, state, page.profile.names[fid], "the sandwich's function")  # noqa: E731
            if frame is not None:
                views.top_table(st, frame, summary.unit, pick_row)
    with tabs[sandwich.TAB]:
        if tabs[sandwich.TAB].open is not False:
            sandwich.show(st, state, summary)
    with tabs["Call chain"]:
        if tabs["Call chain"].open is not False:
            views.heaviest_chain(st, summary)
    if page.baseline is not None:
        with tabs[diffview.TAB]:
            if tabs[diffview.TAB].open is not False:
                diffview.show(st, state, page.profile, page.baseline)


panel()
