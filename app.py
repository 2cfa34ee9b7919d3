"""explainer's web app: ask what uses the most GPU memory, beside the flame graph.

Wiring only; the pieces live in ``explainer/ui``. Run with ``make run`` (127.0.0.1:8501), or
``streamlit run app.py -- PROFILE`` to open on a file instead of the bundled demo.
"""

from __future__ import annotations

import sys

import streamlit as st

from explainer.ui import cache, chat, flamegraph, sources, views
from explainer.ui.state import session

st.set_page_config(page_title="explainer: flame graphs in plain language", layout="wide")
state = session(st.session_state)

# `streamlit run app.py -- FILE` opens on FILE; under a test runner argv is the runner's, not ours
argv = sys.argv[1:] if sys.argv and sys.argv[0].endswith("app.py") else []
with st.sidebar:
    page = sources.sidebar(st, state, argv)
    for error in page.errors:
        st.error(error, icon="🚫")
state.keep_only(page.profile, page.baseline)
summary = cache.summary(page.profile)  # read, summary, tree and table: once per profile for all sessions
settings = chat.settings_from(st.secrets)  # read on every run, never kept in the session

st.title(":material/local_fire_department: explainer", anchor=False)
views.headline(st, summary, page.label)
left, right = st.columns([11, 9], gap="large")  # answers hold tables: the chat gets more room
with left:
    st.subheader("Ask about this profile")
    mode = chat.mode_switch(st, settings)
    chat.panel(
        st,
        state,
        lambda m: chat.conversation(state, page.profile, page.baseline, settings, m),
        mode,
        settings.describe() if settings.configured else "offline",
        chat.greeting(summary, page.label),
    )
    chat.download(st, chat.handoff_maker(page.profile, page.baseline, summary))
with right:
    st.subheader("Flame graph")
    data = cache.SHARED.derived(page.profile, "flame", lambda: flamegraph.flame_data(page.profile))
    flamegraph.show(st, state, page.profile, data)
    st.subheader("Top functions")
    frame = cache.SHARED.derived(page.profile, "table", lambda: views.function_table(summary))
    views.top_table(st, frame, views.display_scale(summary.total, summary.unit)[0])
    st.subheader("Heaviest call chain")
    views.heaviest_chain(st, summary)
