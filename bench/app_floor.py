"""The floor for bench/app_sessions.py: Streamlit with only the page's tab row and our flame graph.

``python bench/app_sessions.py --floor`` serves this script instead of the app, on the same profile
and settings, so later sessions show what Streamlit's own page load and the component cost in the
same browser on the same machine: the app's figures are read beside it. Not part of the product.
"""

import sys

import streamlit as st

from explainer.ui import flamegraph, sources


@st.cache_resource
def flame(path: str) -> flamegraph.FlameData:
    return flamegraph.flame_data(sources.start_file([path]))


st.set_page_config(page_title="floor", layout="wide")
tabs = st.tabs(["Ask", "Flame graph"], key="panel", on_change="rerun")
with tabs[0]:
    st.chat_input("Ask about this profile")
with tabs[1]:
    flamegraph.draw(flame(sys.argv[1]).payload, "flame")
