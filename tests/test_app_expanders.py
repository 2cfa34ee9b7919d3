"""The sidebar's lazy expanders (explainer/ui/expanders.py), alone and driven by AppTest.

A collapsed expander draws no widgets (a new page costs the browser less); opening it draws them; a
widget that holds a value stays drawn when its expander closes again, so nothing typed or uploaded
is forgotten.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from conftest import use_packaged_streamlit_settings
from explainer.ui import expanders

APP = str(Path(__file__).resolve().parent.parent / "app.py")


class _Box:
    def __init__(self, open_: bool | None) -> None:
        self.open = open_


class _St:
    def __init__(self, open_: bool | None, values: dict[str, Any]) -> None:
        self.session_state, self._open, self.asked = values, open_, {}

    def expander(self, label: str, **kw: Any) -> _Box:
        self.asked = {"label": label, **kw}
        return _Box(self._open)


@pytest.mark.parametrize(
    ("open_", "values", "drawn"),
    [
        (False, {}, False),  # collapsed and empty: nothing drawn
        (False, {"gpu_memory": ""}, False),  # an emptied field is empty
        (False, {"gpu_memory": "80GB"}, True),  # a value keeps its widget
        (True, {}, True),
        (None, {}, True),  # an expander that does not say: drawn, as before
    ],
)
def test_expander_draws_when_open_or_holding_a_value(open_: bool | None, values: dict[str, Any], drawn: bool) -> None:
    st = _St(open_, values)
    _, draw = expanders.expander(st, "GPU budget", expanders.BUDGET, expanders.has_any(st, "gpu_memory", "gpu_util"))
    assert draw is drawn
    assert st.asked == {"label": "GPU budget", "key": expanders.BUDGET, "on_change": "rerun"}


def test_a_default_value_is_empty() -> None:
    st = _St(False, {"read_unit": "auto"})
    assert not expanders.has_any(st, "read_unit", empty="auto")()
    st.session_state["read_unit"] = "bytes"
    assert expanders.has_any(st, "read_unit", empty="auto")()


@pytest.fixture
def app() -> AppTest:
    use_packaged_streamlit_settings()
    return AppTest.from_file(APP, default_timeout=60).run()


def test_collapsed_expanders_draw_no_widgets_until_opened(app: AppTest) -> None:
    assert [e.label for e in app.sidebar.expander] == [
        "Compare with a baseline (optional)",
        "Reading options",
        "GPU budget (where is the rest?)",
    ]
    assert not app.file_uploader and not app.sidebar.selectbox and not app.text_input and not app.text_area
    for key in (expanders.BASELINE, expanders.READING, expanders.BUDGET):
        app.session_state[key] = True
    app.run()
    assert not app.exception
    assert [u.label for u in app.get("file_uploader")] == ["Baseline profile"]
    assert [s.key for s in app.sidebar.selectbox] == ["read_unit"]
    assert [t.key for t in app.text_input] == ["gpu_memory", "gpu_util"] and app.text_area[0].key == "vllm_log"


def test_a_typed_budget_survives_its_expander_closing(app: AppTest) -> None:
    app.session_state[expanders.BUDGET] = True
    app.run()
    app.text_input(key="gpu_memory").set_value("80GB").run()
    app.session_state[expanders.BUDGET] = False  # the user collapses it
    app.run()
    assert app.text_input(key="gpu_memory").value == "80GB"  # still drawn, so Streamlit keeps it
    app.chat_input[0].set_value("where is the rest?").run()
    reply = "\n".join(m.value for m in app.chat_message[-1].markdown)
    assert "Budget: 80.0 GB" in reply  # without the field the answer asks for the GPU's memory instead
    assert not app.exception and not app.error
