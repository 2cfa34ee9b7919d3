"""The Streamlit UI: per-session state, sources, views, flame graph and chat.

``app.py`` only wires these together; everything here takes the ``streamlit`` module's
functions at call time and keeps its data in ``st.session_state`` (one session, one
:class:`~explainer.ui.state.SessionData`). Only immutable analysis is shared between browser
sessions, by content (:mod:`explainer.ui.cache`).
"""
