"""Every surface tells the same story about a profile: the chat (English and Dutch), ``analyze``
(text and JSON), the handoff report, the flame graph's payload, the top table and the sandwich name
the same biggest consumer, responsible frame, where-to-start frame and ignorable list, with the
same numbers, and decode a frame's meaning with the profile's runtime. Checked over the fixtures,
the demo, the issue's three repros and every readable real profile.

Each surface is a function ``(profile, reading) -> Said`` in :data:`SURFACES`. HOOK for the tool
layer: the MCP tools and the model's tools register theirs with :func:`surface` (or by adding to
:data:`SURFACES`) and are then checked by every test here: MCP's analyze, handoff and ask (the chat
through MCP), and the tools MCP and the model share that state one of these facts (top_functions,
call_chain's default target, symbol_meaning, function_details), and the model's facts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from conftest import profile_of
from explainer import units
from explainer.analysis.sandwich import sandwich
from explainer.analysis.summary import Options, summarize
from explainer.demo import demo_cpu_profile, demo_profile
from explainer.errors import NoSuchFunctionError, ProfileError
from explainer.explain import Conversation, LlmSettings
from explainer.explain.answers import conventions
from explainer.explain.answers.intents import examples, examples_nl
from explainer.explain.answers.language import translations
from explainer.explain.answers.writer import cap
from explainer.explain.safety import clean_text
from explainer.model import Profile
from explainer.readers import read_path
from explainer.reading import Reading, read
from explainer.report.analyze import to_json, to_text
from explainer.report.handoff import handoff_markdown
from explainer.symbols import clean

# -- what a surface says ---------------------------------------------------------------------


@dataclass(frozen=True)
class Said:
    """What one surface says; None where it does not say it. Numbers as the surface formats them."""

    lang: str = "en"
    biggest: tuple[str, str] | None = None  # (name, its self)
    responsible: tuple[str, str] | None = None  # (name, its total)
    start: tuple[str, str] | None = None  # (name, its value)
    ignorable: tuple[str, ...] | None = None  # in order
    meanings: dict[str, str] = field(default_factory=dict)  # name -> the symbol meaning shown
    complete: bool = False  # it states every one of the four whenever the reading has it
    ignorable_head: bool = False  # it shows the ignorable list's head only (a budget cuts it), in order


Surface = Callable[[Profile, Reading], Said]
SURFACES: dict[str, Surface] = {}


def surface(name: str) -> Callable[[Surface], Surface]:
    """Register a surface for every cross-surface check (the hook MCP and model tools use)."""

    def add(fn: Surface) -> Surface:
        SURFACES[name] = fn
        return fn

    return add


def _v(reading: Reading, value: int, lang: str = "en") -> str:
    return units.localize(units.format_value(value, reading.summary.unit), lang)


def _named(reading: Reading) -> list[str]:
    """The frames whose meaning every surface that shows it must agree on."""
    names = [r.name for r in (reading.biggest, reading.responsible) if r is not None]
    if reading.start is not None:
        names.append(reading.start.name)
    return list(dict.fromkeys(names))


def _askable(name: str) -> bool:
    return "`" not in name and len(name) <= 100 and clean(name, 200) == name


# -- the chat --------------------------------------------------------------------------------


Ask = Callable[[str], tuple[str | None, str]]  # a question -> (the answer's focus, its Markdown)


def _chat(profile: Profile, reading: Reading, lang: str, asker: Ask | None = None) -> Said:
    summary = reading.summary

    def offline(question: str) -> tuple[str | None, str]:
        conv = Conversation(profile, settings=LlmSettings(), mode="offline", summary=summary)
        answer = conv.ask(question)
        return answer.focus, answer.markdown

    ask = asker or offline

    english = [q for q, _, _ in examples(reading.resource, reading.verb)]
    asked = list(examples_nl(reading.resource, reading.verb)) if lang == "nl" else english
    most, responsible, optimise, skip = asked[0], asked[1], asked[5], asked[6]
    if lang == "en":  # "What can I ...?" names the function `i` in a profile that has one (speedscope's tall.txt)
        skip, optimise = "Which frames can be ignored?", "What should be optimised first?"

    def headline(focus: str | None, text: str, value: int) -> tuple[str, str] | None:
        first = text.split("\n\n")[0]
        shown = _v(reading, value, lang)
        if focus is None or f"`{clean(focus, 120)}`" not in first or shown not in first:
            return None  # reported as a mismatch below: the headline does not name it with its number
        return focus, shown

    said: dict[str, object] = {}
    if reading.biggest is not None:
        focus, text = ask(most)
        said["biggest"] = headline(focus, text, reading.biggest.self) or (focus, text[:200])
    if reading.responsible is not None:
        focus, text = ask(responsible)
        said["responsible"] = headline(focus, text, reading.responsible.total) or (focus, text[:200])
    if reading.start is not None:
        focus, text = ask(optimise)
        said["start"] = headline(focus, text, reading.start.value) or (focus, text[:200])
    if lang == "en":  # the self-vs-total lesson's "skip it" example is never a cause
        _, text = ask(asked[3])
        m = re.search(r"In this profile `([^`]*)` has a total of .* but a self of", text)
        causes = {r.name for r in (reading.responsible, reading.biggest) if r is not None}
        causes |= {reading.start.name} if reading.start is not None else set()
        assert m is None or m.group(1) not in {clean(c, 120) for c in causes}, text[:300]
    _, text = ask(skip)
    said["ignorable"] = tuple(re.findall(r"^- `([^`]*)`: ", text, re.M))
    meanings = {}
    for name in _named(reading):
        if not _askable(name):
            continue
        question = f"Wat betekent `{name}`?" if lang == "nl" else f"What does `{name}` mean?"
        focus, text = ask(question)
        m = re.match(r"\*\*`[^`]*`\*\*: (.*)", text)
        if focus == name and m:
            meanings[name] = m.group(1)
    return Said(lang, meanings=meanings, complete=True, **said)  # type: ignore[arg-type]


@surface("chat (English)")
def chat_en(profile: Profile, reading: Reading) -> Said:
    return _chat(profile, reading, "en")


@surface("chat (Dutch)")
def chat_nl(profile: Profile, reading: Reading) -> Said:
    return _chat(profile, reading, "nl")


# -- analyze ---------------------------------------------------------------------------------


@surface("analyze (text)")
def analyze_text(profile: Profile, reading: Reading) -> Said:
    text = to_text(reading.summary)
    for row in text.splitlines():
        assert not (row.startswith("Top by total") and "responsible" in row), row

    def stated(label: str) -> tuple[str, str] | None:
        m = re.search(rf"^{label}: (.*) \((?:self |total )?(.+), [\d.,]+%\)", text, re.M)
        return (m.group(1), m.group(2)) if m else None

    ignorable = None
    m = re.search(r"^can be ignored \(zero self, they only pass calls on\): (.*?)(?: and [\d,]+ more)?$", text, re.M)
    if m:
        ignorable = tuple(m.group(1).split(", "))
    return Said(
        complete=True,
        biggest=stated("biggest consumer"),
        responsible=stated("most responsible"),
        start=stated("start with"),
        ignorable=ignorable if ignorable is not None else (() if reading.summary.total else None),
    )


@surface("analyze (JSON)")
def analyze_json(profile: Profile, reading: Reading) -> Said:
    data = json.loads(json.dumps(to_json(reading.summary)))["reading"]

    def pair(item: dict[str, object] | None, key: str) -> tuple[str, str] | None:
        return None if item is None else (str(item["name"]), _v(reading, int(str(item[key]))))

    return Said(
        complete=True,
        biggest=pair(data["biggest"], "self"),
        responsible=pair(data["responsible"], "total"),
        start=pair(data["start"], "value"),
        ignorable=tuple(f["name"] for f in data["ignorable"]["frames"]),
    )


# -- the handoff report ----------------------------------------------------------------------


def _template(lang: str, message: str, **groups: str) -> str:
    """A regular expression for one of the handoff writer's messages as ``lang`` words it: the
    placeholders named in ``groups`` become those patterns, the others match anything."""
    text = translations(lang).gettext(message)
    parts = re.split(r"(\{\w+\})", text)
    return "".join(groups.get(p[1:-1], ".*?") if re.fullmatch(r"\{\w+\}", p) else re.escape(p) for p in parts)


def _handoff_said(report: str, lang: str = "en") -> Said:
    """What a handoff says, the report's or the chat's: both are written by one writer
    (``explain/answers/handoff.py``), so one reading of its messages, in either language, reads both."""
    code, number = r"`([^`]*)`", r"(.+?)"

    def find(prefix: str, message: str, **groups: str) -> tuple[str, str] | None:
        m = re.search(prefix + _template(lang, message, **groups), report, re.M)
        return (m.group(1), m.group(2)) if m else None

    wide = "Wide bars with zero self only pass calls on (nothing is {verb} there): {names}{more}."
    line = re.search("^- " + _template(lang, wide, names="(.*)") + "$", report, re.M)
    return Said(
        lang,
        complete=True,
        biggest=find(
            "^- ", "Biggest consumer: {name}, **{self}** self ({share} of the total).", name=code, self=r"([^*]+)"
        ),
        responsible=find(
            "^- ",
            "Most responsible (the widest bar where the stacks branch): {name}, {total} total ({share}).",
            name=code,
            total=number,
        ),
        start=find(
            r"^\d+\. ",
            "Start with {name} ({value}, {share}): {why}; its chain above says why it runs.",
            name=code,
            value=r"(.+)",
            share=r"[\d.,<]+%",
        ),
        ignorable=tuple(re.findall(r"`([^`]*)` \(", line.group(1))) if line else (),
    )


@surface("handoff report")
def handoff(profile: Profile, reading: Reading) -> Said:
    return _handoff_said(handoff_markdown(profile, summary=reading.summary))


def _chat_handoff(profile: Profile, reading: Reading, lang: str) -> str:
    conv = Conversation(profile, settings=LlmSettings(), mode="offline", summary=reading.summary)
    question = "schrijf een overdracht voor de volgende on-call" if lang == "nl" else "Write me an on-call handoff"
    answer = conv.ask(question)
    assert answer.focus == (reading.start.name if reading.start else None)
    return answer.markdown


@surface("chat handoff (English)")
def chat_handoff_en(profile: Profile, reading: Reading) -> Said:
    return _handoff_said(_chat_handoff(profile, reading, "en"))


@surface("chat handoff (Dutch)")
def chat_handoff_nl(profile: Profile, reading: Reading) -> Said:
    return _handoff_said(_chat_handoff(profile, reading, "nl"), "nl")


# -- the app's views -------------------------------------------------------------------------


@surface("flame graph payload")
def flame(profile: Profile, reading: Reading) -> Said:
    from explainer.ui.flamegraph import flame_data

    data = flame_data(profile)
    payload = data.payload
    meaning = {r: payload["meanings"][payload["meaning"][i]] for i, r in enumerate(data.raw) if i != payload["otherId"]}
    return Said(meanings={name: meaning[name] for name in _named(reading) if name in meaning})


@surface("top table")
def top_table(profile: Profile, reading: Reading) -> Said:
    from explainer.ui.views import function_table

    frame = function_table(reading.summary)
    by_id = dict(zip(frame["id"].tolist(), frame["meaning"].tolist(), strict=True))
    meanings = {}
    for name in _named(reading):
        fid = profile.function_id(name)
        if fid is not None and fid in by_id:
            meanings[name] = by_id[fid]
    return Said(meanings=meanings)


@surface("sandwich")
def sandwich_view(profile: Profile, reading: Reading) -> Said:
    from explainer.analysis.sandwich import ENTRY, SELF
    from explainer.ui import sandwich as ui_sandwich
    from explainer.ui.state import SessionData

    meanings: dict[str, str] = {}
    for name in _named(reading):
        fid = profile.function_id(name)
        if fid is None:
            continue
        view = sandwich(profile, fid, ui_sandwich.LIMIT)
        for neighbours in (view.callers, view.callees):
            table = ui_sandwich.table_rows(profile, neighbours, 1)
            for n, shown in zip(neighbours, table["meaning"].tolist(), strict=True):
                if n.name not in (ENTRY, SELF):
                    meanings[n.name] = shown
        above, below = ui_sandwich._graphs(SessionData(), profile, fid)
        for data, raw in (above, below):
            shown = {r: data["meanings"][data["meaning"][i]] for i, r in enumerate(raw) if i != data["otherId"]}
            meanings.update(shown)  # the graph's own "other" bar (merged paths) is no frame
    return Said(meanings=meanings)


# -- the MCP server (the model's tools share explain/toolset.py with it) --------------------


@surface("MCP analyze")
def mcp_analyze(profile: Profile, reading: Reading) -> Said:
    from explainer.mcp_server import tools

    data = json.loads(json.dumps(tools.analyze(profile, 10).data))["reading"]

    def pair(item: dict[str, object] | None, key: str) -> tuple[str, str] | None:
        return None if item is None else (str(item["name"]), _v(reading, int(str(item[key]))))

    assert "what is responsible" not in tools.analyze(profile, 10).markdown
    return Said(
        complete=True,
        biggest=pair(data["biggest"], "self"),
        responsible=pair(data["responsible"], "total"),
        start=pair(data["start"], "value"),
        ignorable=tuple(f["name"] for f in data["ignorable"]["frames"]),
    )


@surface("MCP handoff")
def mcp_handoff(profile: Profile, reading: Reading) -> Said:
    from explainer.mcp_server import tools

    report = tools.handoff(profile, limit=10).markdown
    return _handoff_said(report)


@surface("MCP and model tools: symbol_meaning, function_details")
def shared_tools(profile: Profile, reading: Reading) -> Said:
    from explainer.explain.context import ProfileContext
    from explainer.mcp_server import tools

    ctx = ProfileContext(profile, summary=reading.summary)
    meanings: dict[str, str] = {}
    for name in _named(reading):
        if not _askable(name):
            continue
        found = tools.run_shared(ctx, "symbol_meaning", {"name": name}).data
        details = tools.run_shared(ctx, "function_details", {"name": name}).data
        if found["label"] == name:
            meanings[name] = found["convention"]
        if details["function"]["name"] == name:
            assert details["meaning"] == found["convention"], (details["meaning"], found["convention"])
    return Said(meanings=meanings)


@surface("chat through MCP ask")
def mcp_ask(profile: Profile, reading: Reading) -> Said:
    from explainer.mcp_server import tools

    def ask(question: str) -> tuple[str | None, str]:
        data = tools.ask(profile, question).data
        return data["focus"], str(data["answer_markdown"])

    return _chat(profile, reading, "en", ask)


@surface("MCP and model tools: top_functions, call_chain")
def shared_top_and_chain(profile: Profile, reading: Reading) -> Said:
    from explainer.explain.context import ProfileContext
    from explainer.mcp_server import tools

    ctx = ProfileContext(profile, summary=reading.summary)
    rows = tools.run_shared(ctx, "top_functions", {"order": "self", "limit": 1}).data["rows"]
    if not rows:
        return Said()
    first = rows[0]
    if reading.biggest is not None and reading.summary.total:  # the chain's default target is the biggest consumer
        try:
            target = tools.run_shared(ctx, "call_chain", {}).data["target"]
        except NoSuchFunctionError:
            target = None  # only reached off the widest paths: the tool says so instead of a chain
        assert target in (None, first["name"]), (target, first["name"])
    return Said(biggest=(first["name"], _v(reading, int(first["self"]))))


@surface("model facts")
def model_facts(profile: Profile, reading: Reading) -> Said:
    from explainer.explain.context import ProfileContext
    from explainer.explain.llm.facts import build_facts

    items = build_facts(ProfileContext(profile, summary=reading.summary)).items

    def fact(prefix: str, key: str) -> tuple[str, str] | None:
        found = next((i for i in items if str(i.get("about", "")).startswith(prefix)), None)
        return None if found is None else (str(found["function"]), str(found[key]).split(" (")[0])

    skip = next((i for i in items if str(i.get("about", "")).startswith("wide bars with zero self")), None)
    return Said(
        biggest=fact("self #1", "self"),
        responsible=fact("most responsible", "total"),
        start=fact("where to start", "value"),
        ignorable=None if skip is None else tuple(str(f[0]) for f in skip["functions"]),
        ignorable_head=True,
    )


# -- the checks ------------------------------------------------------------------------------


def _same_name(shown: str, name: str) -> bool:
    """``shown`` is ``name`` as a surface shows it: cleaned (as a Markdown code span: backticks made
    quotes, pipes escaped), and cut with an ellipsis when long."""
    full = clean(name, 10_000)
    spans = (full, full.replace("`", "'").replace("|", "\\|"))
    return shown == name or any(shown == f or (shown.endswith("…") and f.startswith(shown[:-1])) for f in spans)


APP_VIEWS = ("flame graph payload", "top table", "sandwich")


def _expected_meaning(reading: Reading, name: str, said: Said, surface_name: str) -> str:
    sym = reading.symbol(name)
    if surface_name.startswith("chat"):
        catalog = translations(said.lang)

        def t(message: str, /, **values: str) -> str:
            return catalog.gettext(message).format(**values)

        text = sym.meaning if said.lang == "en" else conventions.describe(sym, t)
        return cap(clean_text(text, 400, keep_newlines=False))
    if surface_name in APP_VIEWS:  # the app words a frame one way everywhere (its tooltip sentence)
        from explainer.ui.flamegraph import tooltip_meaning

        return tooltip_meaning(name, reading.runtime)
    return sym.meaning


def check(profile: Profile, only: str | None = None) -> int:
    """Every registered surface against the reading; returns how many facts were compared."""
    reading = read(summarize(profile, Options(top=10)))
    if not reading.summary.total:
        return 0
    expect = {
        "biggest": (reading.biggest.name, reading.biggest.self) if reading.biggest else None,
        "responsible": (reading.responsible.name, reading.responsible.total) if reading.responsible else None,
        "start": (reading.start.name, reading.start.value) if reading.start else None,
    }
    # one list: never a cause and ignorable at once
    causes = {pair[0] for pair in expect.values() if pair is not None}
    assert not causes & set(reading.ignorable.names), "a frame is both a cause and ignorable"
    compared = 0
    for surface_name, fn in SURFACES.items():
        if only is not None and surface_name != only:
            continue
        said = fn(profile, reading)
        where = f"{surface_name} on {profile.source.location or profile.source.kind}"
        for key, want in expect.items():
            got = getattr(said, key)
            if got is None:
                assert not (said.complete and want is not None), f"{where}: does not state the {key} {want}"
                continue
            assert want is not None, f"{where}: names a {key} frame {got} where the reading has none"
            assert got[0] is not None, f"{where}: no {key} named ({got[1]!r}); the reading's is {want[0]!r}"
            assert _same_name(got[0], want[0]), f"{where}: {key} is {got[0]!r}, the reading's is {want[0]!r}"
            assert got[1] == _v(reading, want[1], said.lang), f"{where}: {key} {want[0]!r} shown as {got[1]!r}"
            compared += 1
        if said.ignorable is not None:
            expected = (
                reading.ignorable.names[: len(said.ignorable)] if said.ignorable_head else reading.ignorable.names
            )
            assert len(said.ignorable) == len(expected), f"{where}: ignorable {said.ignorable}"
            for shown, name in zip(said.ignorable, expected, strict=True):
                assert _same_name(shown, name), f"{where}: ignorable {said.ignorable} != {reading.ignorable.names}"
            compared += 1
        for name, shown in said.meanings.items():
            if name in causes or surface_name == "sandwich":  # the sandwich shows every neighbour's
                want_meaning = _expected_meaning(reading, name, said, surface_name)
                assert shown == want_meaning, f"{where}: {name!r} means {shown!r}, with the runtime {want_meaning!r}"
                compared += 1
    return compared


# -- the profiles ----------------------------------------------------------------------------

# The 900/50/50 at a GPU's scale (x 10^8 bytes): 1 kB of GPU memory is a nearly empty profile,
# which gets the visibility diagnosis instead of a top table (issue 23).
GPU_SCALE = 10**8
ALLOCATOR_HEAVY = {  # the chat said malloc, the report torch.empty, whole.optimise top_self[0]
    "main;Trainer.step;Model.forward;torch.empty;c10::cuda::CUDACachingAllocator::malloc": 900 * GPU_SCALE,
    "main;Trainer.step;Logger.write;c10::cuda::CUDACachingAllocator::malloc": 50 * GPU_SCALE,
    "main;Trainer.step;Model.forward;Attention.forward": 50 * GPU_SCALE,
}
GO = {  # the flame graph called pkg.Foo.bar a Python method, the table a Go method
    "runtime.main;main.main;pkg.Foo.bar;runtime.mallocgc": 70,
    "runtime.main;main.main;net/http.(*conn).serve;pkg.Foo.bar": 30,
}
NOISE = {  # analyze headed its total list "what is responsible" with these
    "0x7f151;<interpreter trampoline>;<module>;app.run;work.compute": 60,
    "0x7f151;<interpreter trampoline>;<module>;app.run;io.read": 40,
}
PROFILES: dict[str, Callable[[], Profile]] = {
    "demo gpu": demo_profile,
    "demo cpu": demo_cpu_profile,
    "allocator-heavy": lambda: profile_of(ALLOCATOR_HEAVY, unit="bytes", sample_type="alloc_space"),
    "go": lambda: profile_of(GO, unit="nanoseconds", sample_type="cpu"),
    "responsible noise": lambda: profile_of(NOISE),
    "near-universal": lambda: profile_of({"main;Server.serve;Model.load;torch.empty": 99_950, "main;Logger.flush": 50}),
    "recursion": lambda: profile_of({"main;a;b;a;b": 5, "main;a;c": 3, "main;d": 2}),
}


@pytest.mark.parametrize("name", PROFILES)
@pytest.mark.parametrize("surface_name", SURFACES)
def test_every_surface_agrees_with_the_reading(name: str, surface_name: str) -> None:
    assert check(PROFILES[name](), surface_name) > 0 or surface_name in ("flame graph payload", "top table")


def test_the_allocator_heavy_profile_starts_at_the_code_that_asked() -> None:
    reading = read(summarize(PROFILES["allocator-heavy"]()))
    assert reading.biggest is not None and reading.biggest.name.endswith("::malloc")
    assert reading.start is not None and (reading.start.name, reading.start.value, reading.start.why) == (
        "torch.empty",
        900 * GPU_SCALE,
        "site",
    )
    conv = Conversation(PROFILES["allocator-heavy"](), settings=LlmSettings(), mode="offline")
    assert conv.ask("Write me a summary for the on-call handoff").focus == "torch.empty"
    assert "Start with `torch.empty`" in conv.ask("Write me a summary for the on-call handoff").markdown
    assert "Start with `torch.empty`" in handoff_markdown(PROFILES["allocator-heavy"]())


def _sections(markdown: str, level: str) -> dict[str, list[str]]:
    """A Markdown document's sections at heading ``level``: title -> its lines, blank lines left out."""
    out: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in markdown.splitlines():
        if line.startswith("#"):
            current = out.setdefault(line.removeprefix(level + " "), []) if line.startswith(level + " ") else None
        elif current is not None and line.strip():
            current.append(line)
    return out


@pytest.mark.parametrize("name", PROFILES)
def test_the_chat_handoff_shows_the_reports_own_sections(name: str) -> None:
    """One writer (``explain/answers/handoff.py``) serves both: the chat's English handoff holds the
    report's Headline, Responsible chains and What can be ignored sections line for line, and its next
    steps start with the report's; its Top consumers are the report's first rows (it shows 3 of the 5)."""
    profile = PROFILES[name]()
    reading = read(summarize(profile, Options(top=10)))
    report = _sections(handoff_markdown(profile, summary=reading.summary), "##")
    chat = _sections(_chat_handoff(profile, reading, "en"), "####")
    assert set(chat) <= set(report), set(chat) - set(report)
    for title in ("Headline", "Responsible chains (total)", "What can be ignored"):
        assert chat.get(title) == report.get(title), title
    steps = [line for line in chat.get("Suggested next steps", []) if re.match(r"\d+\. ", line)]
    assert steps == report["Suggested next steps"][: len(steps)]
    if reading.start is not None:
        assert steps and steps[0].startswith(f"1. Start with `{reading.start.name}`")
    rows = [r for r in chat.get("Top consumers (self)", []) if r.startswith("| ")]
    want = [r for r in report.get("Top consumers (self)", []) if r.startswith("| ")]
    assert [r.split(" | ")[:4] for r in rows] == [r.split(" | ")[:4] for r in want[: len(rows)]]


def test_a_go_method_is_a_go_method_on_every_surface() -> None:
    profile = PROFILES["go"]()
    reading = read(summarize(profile))
    assert reading.runtime == "go"
    meaning = reading.frame_meaning("pkg.Foo.bar")
    assert meaning.startswith("Go method bar on Foo"), meaning
    for surface_name in ("flame graph payload", "top table", "sandwich", "chat (English)"):
        said = SURFACES[surface_name](profile, reading)
        shown = said.meanings.get("pkg.Foo.bar")
        assert shown is not None and ("Go method" in shown or "(Go)" in shown), (surface_name, shown)
        assert "class Foo" not in shown, (surface_name, shown)
    assert "(Go)" in SURFACES["chat (Dutch)"](profile, reading).meanings["pkg.Foo.bar"]


def test_noise_frames_are_never_called_responsible() -> None:
    profile = PROFILES["responsible noise"]()
    reading = read(summarize(profile))
    assert reading.responsible is not None and reading.role(reading.responsible.name) == "app"
    text = to_text(reading.summary)
    assert "what is responsible" not in text
    assert re.search(r"^most responsible: work\.compute ", text, re.M)
    assert {"0x7f151", "<interpreter trampoline>", "<module>"} <= {r.name for r in reading.entries}


@pytest.mark.real
@pytest.mark.slow  # 43 profiles through every surface: about 20 s
def test_every_surface_agrees_on_every_real_profile(real_dir: Path) -> None:
    checked = 0
    for path in sorted(p for p in real_dir.rglob("*") if p.is_file() and p.suffix != ".md"):
        try:
            profile = read_path(path)
        except ProfileError:
            continue  # the corpus keeps a few files that no reader accepts
        check(profile)
        checked += 1
    assert checked >= 35
