"""Issue 24's app pieces without a browser: orientation words, tooltips, tables, exports, follow-ups.

The browser half (drawing, keyboard, downloads, themes) is tests/test_browser_views.py.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from conftest import use_packaged_streamlit_settings
from explainer.analysis.summary import summarize
from explainer.demo import demo_profile
from explainer.explain import Conversation
from explainer.explain.answers.followups import MORE, NEXT, QUESTIONS, follow_ups
from explainer.explain.answers.language import translations
from explainer.explain.answers.orientation import ICICLE, TOP_DOWN
from explainer.explain.question.reader import Context, read
from explainer.model import ProfileBuilder, SampleType
from explainer.readers import read_bytes
from explainer.symbols import decode
from explainer.ui import expanders, exports, flamegraph, tables, views

REPO = Path(__file__).resolve().parent.parent
APP = str(REPO / "app.py")
SCRIPT = REPO / "explainer" / "ui" / "flame" / "flame.js"
KV = "GPUModelRunner._allocate_kv_cache_tensors"
MOST = "What uses the most GPU memory?"


@pytest.fixture(autouse=True, scope="module")
def _packaged_settings() -> None:
    use_packaged_streamlit_settings()


def app() -> AppTest:
    return AppTest.from_file(APP, default_timeout=60).run()


def ask(at: AppTest, question: str) -> str:
    at.chat_input[0].set_value(question).run()
    assert not at.exception, [e.value for e in at.exception]
    return "\n".join(m.value for m in at.chat_message[-1].markdown)


# --- orientation: the answers' position words follow the graph the reader sees ----------------


def test_answers_place_bars_for_the_orientation_the_browser_draws() -> None:
    at = app()
    assert "nothing on top of it" in ask(at, MOST), "the classic flame graph by default"
    payload = json.loads(at.get("bidi_component")[0].proto.json)
    assert payload["orientation"] == "flame"
    at.session_state["explainer"].orientation = ICICLE  # what the component's callback stores
    answer = ask(at, MOST)
    assert "nothing below it (a leaf at the bottom of the stack)" in answer and "on top of it" not in answer
    assert json.loads(at.get("bidi_component")[0].proto.json)["orientation"] == ICICLE
    howto = ask(at, "How do I read this flame graph?")
    assert "The top bars are entry points" in howto and "The bottom bars" not in howto
    dutch = ask(at, "Wat gebruikt het meeste GPU-geheugen?")
    assert "waar niets onder hangt" in dutch and "boven staat" not in dutch


def test_every_top_down_sentence_replaces_a_message_the_answers_still_write() -> None:
    """A reworded answer sentence would silently keep its old position words in the icicle view."""
    pot = (REPO / "explainer" / "locale" / "explainer.pot").read_text(encoding="utf-8")
    ids = {"".join(re.findall(r'"(.*)"', m)) for m in re.findall(r'^msgid ((?:".*"\n)+)', pot, re.M)}
    for classic, top_down in TOP_DOWN.items():
        assert classic in ids, classic
        assert top_down in ids, top_down
        assert translations("nl").gettext(top_down) != top_down, f"untranslated: {top_down}"


# --- follow-up questions in the user's language ---------------------------------------------


@pytest.mark.parametrize("lang", ["en", "nl"])
def test_each_follow_up_is_read_back_as_its_intent(lang: str) -> None:
    conv = Conversation(demo_profile())
    tr = translations(lang)
    for intent, message in QUESTIONS.items():
        q = read(tr.gettext(message), conv.ctx.subjects, Context(lang="nl" if lang == "nl" else "en"))
        assert (q.intent, q.lang) == (intent, lang), message


@pytest.mark.parametrize("lang", ["en", "nl"])
def test_the_more_follow_up_goes_on_with_the_list(lang: str) -> None:
    conv = Conversation(demo_profile())
    conv.ask("Wat gebruikt het meeste GPU-geheugen?" if lang == "nl" else "What uses the most GPU memory?")
    more = conv.read(translations(lang).gettext(MORE))
    assert (more.intent, more.offset, more.top_n, more.lang) == ("most", 6, 5, lang)


def test_follow_ups_follow_the_last_question_and_its_language() -> None:
    conv = Conversation(demo_profile())
    conv.ask("Wat gebruikt het meeste GPU-geheugen?")
    dutch = follow_ups(conv.context)  # a ranked list: going on with it first, then what usually follows
    assert dutch[:2] == ["Toon er nog 5", "Wat is daarvoor verantwoordelijk?"] and len(dutch) == len(NEXT["most"])
    conv.ask("Who calls it?")
    assert follow_ups(conv.context)[0] == "Show me the call chain to the biggest consumer"
    at = app()
    ask(at, "Wat gebruikt het meeste GPU-geheugen?")
    labels = [b.label for b in at.button if b.key and b.key.startswith("next_")]
    assert labels == dutch
    next(b for b in at.button if b.label == "Wat is daarvoor verantwoordelijk?").click().run()
    assert not at.exception
    assert at.chat_message[-2].name == "user" and "Verantwoordelijk" in at.chat_message[-1].markdown[0].value


# --- the flame graph's tooltip meaning and colour keys -----------------------------------------


def test_tooltip_meanings_add_to_the_name_never_restate_it() -> None:
    data = flamegraph.flame_data(demo_profile()).payload
    meaning = {n: data["meanings"][data["meaning"][i]] for i, n in enumerate(data["names"])}
    assert meaning[KV].startswith("KV cache: Creates the KV cache tensors")
    for name, text in meaning.items():
        assert "def " not in text and f"({name})" not in text, (name, text)
    assert meaning["CachingAutotuner.benchmark_all_configs"] != decode("CachingAutotuner.benchmark_all_configs").meaning
    packages = {n: data["packages"][data["package"][i]] for i, n in enumerate(data["names"])}
    assert packages["torch::autograd::THPVariable_linear" if "torch::autograd::THPVariable_linear" in packages
                    else "at::cuda::getCurrentCUDABlasLtHandle"] == "at"  # fmt: skip
    assert len(data["packages"]) == len(set(data["packages"])), "each package once"


def test_flame_script_shortens_labels_only_between_words() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    source = SCRIPT.read_text()
    found = [re.search(rf"^function {f}\(.*?^}}", source, re.S | re.M) for f in ("cutPoints", "shorten")]
    functions = "\n".join(m.group(0) for m in found if m)
    names = [
        KV,
        "torch::autograd::detail::THPVariable_linear",
        "vllm.worker.gpu_model_runner.GPUModelRunner.load_model",
        "std::vector<std::pair<int, float>>::push_back(std::pair<int, float> const&)",
        "main.(*Server).Serve",
        "/usr/lib/libcuda.so.1",
        "<module>",
        "a_really_long_single_word_function_name_without_separators",
    ]
    rooms = list(range(0, 420, 7))
    program = (
        f"{functions}\nconst names = {json.dumps(names)}, rooms = {json.dumps(rooms)};\n"
        "console.log(JSON.stringify(names.map((n) => rooms.map((r) => shorten(n, r, (s) => 6 * s.length)))));"
    )
    out = json.loads(subprocess.run([node, "-"], input=program, capture_output=True, text=True, check=True).stdout)
    for name, shown in zip(names, out, strict=True):
        for room, text in zip(rooms, shown, strict=True):
            assert 6 * len(text) <= room, (name, room, text)
            if text in ("", name):
                continue
            assert text.startswith("…"), text
            body = text[1:]
            whole = name if not body.endswith("(…)") else name[: name.index("(")] + "(…)"
            assert whole.endswith(body), (name, text)
            before = whole[len(whole) - len(body) - 1]
            assert before in "./\\: ", f"{name!r} cut inside a word: {text!r}"
        if 6 * len(name) <= rooms[-1]:
            assert shown[-1] == name, "the whole name when it fits"
    assert out[0][-1] == KV and "…_allocate_kv_cache_tensors" in out[0]


# --- tables: raw numbers underneath, units.py on top; CSV read back ------------------------------


def test_tables_sort_by_raw_values_and_show_them_as_units_writes_them() -> None:
    summary = summarize(demo_profile())
    frame = views.function_table(summary)
    assert frame["self"].dtype.kind == "i" and frame.iloc[0]["function"] == KV
    html = tables.styled(frame.head(3), summary.unit, values=("self", "total"), shares=("self %",)).to_html()
    assert "55.1 GB" in html and "73.8%" in html and "55.100" not in html
    at = app()
    at.session_state["panel"] = "Top functions"
    at.run()
    assert not at.exception
    shown = at.dataframe[0].value
    assert list(shown["self"]) == sorted(shown["self"], reverse=True)


def test_csv_of_a_table_reads_back_to_the_profile_totals() -> None:
    profile = demo_profile()
    summary = summarize(profile)
    frame = views.function_table(summary)
    back = pd.read_csv(io.BytesIO(tables.csv_bytes(frame, summary.unit, values=("self", "total"), hidden=("id",
                       "name"))))  # fmt: skip
    assert list(back.columns[:3]) == ["function", "self (bytes)", "self %"]
    assert int(back["self (bytes)"].sum()) == profile.total
    assert int(back["total (bytes)"].max()) == profile.total
    assert back.iloc[0]["function"] == KV


# --- profile exports --------------------------------------------------------------------------


def hostile_profile() -> object:
    b = ProfileBuilder(SampleType("alloc_space", "bytes"))
    b.add(["main", "<img src=x onerror=alert(1)>", "Worker.run"], 7 * 10**9)
    b.add(["main", "naïve unicode name", "Worker.run"], 2 * 10**9)
    b.add(["main"], 5)
    return b.build()


@pytest.mark.parametrize("fmt", [f[0] for f in exports.FORMATS])
@pytest.mark.parametrize("make", [demo_profile, hostile_profile])
def test_each_profile_export_reads_back_to_the_same_totals(fmt: str, make: object) -> None:
    profile = make()  # type: ignore[operator]
    back = read_bytes(exports.encode(profile, fmt))
    assert back.total == profile.total
    before, after = summarize(profile), summarize(back)
    extra = set(back.names) - set(profile.names)  # a format's own root label, holding nothing of its own
    assert all(after.stats.self_values[back.function_id(n)] == 0 for n in extra), extra
    for name in profile.names:
        i, j = profile.function_id(name), back.function_id(name)
        assert before.stats.self_values[i] == after.stats.self_values[j], name
        assert before.stats.total_values[i] == after.stats.total_values[j], name


def test_export_file_names_are_safe() -> None:
    assert exports.stem("../../etc/passwd") == "passwd"
    assert exports.stem("gpu run #3 <b>.pb.gz") == "gpu-run-3-b"
    assert exports.stem("Demo: vLLM GPU memory") == "Demo-vLLM-GPU-memory"
    assert exports.stem("") == "profile"


def test_the_page_offers_the_exports() -> None:
    at = app()
    assert not {"pprof", "folded", "JSON"} & {e.proto.label for e in at.get("download_button")}, "drawn when opened"
    at.session_state[expanders.EXPORTS] = True  # as opening the expander does
    at.run()
    labels = [e.proto.label for e in at.get("download_button")]
    assert {"pprof", "folded", "JSON"} <= set(labels), labels


# --- theme and chrome -------------------------------------------------------------------------


def test_theme_follows_the_browser_and_the_menu_has_no_developer_options() -> None:
    config = tomllib.loads((REPO / "explainer" / "ui" / "streamlit.toml").read_text())
    assert "base" not in config.get("theme", {}), "a pinned base hides the light/dark switch"
    assert {"light", "dark"} <= set(config["theme"])
    assert config["client"]["toolbarMode"] in ("viewer", "minimal")
