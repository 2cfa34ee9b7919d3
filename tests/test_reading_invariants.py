"""One reading of a profile, whoever asks: the chat, the model's facts and the handoff report name
the same biggest consumer and the same most responsible frame, on every fixture and every real
profile (pprof's golden corpus, flame-graph JSON, folded stacks)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import profile_of
from explainer.demo import demo_cpu_profile, demo_profile
from explainer.errors import ProfileError
from explainer.explain import Conversation, LlmSettings
from explainer.explain.llm.facts import build_facts
from explainer.model import Profile
from explainer.readers import read_path
from explainer.report.handoff import handoff_markdown
from explainer.symbols import clean

FIXTURES = {
    "demo gpu": demo_profile(),
    "demo cpu": demo_cpu_profile(),
    # the example: a near-universal frame must not lose to a 0.05% side branch
    "near-universal": profile_of({"main;Server.serve;Model.load;torch.empty": 99_950, "main;Logger.flush": 50}),
    "recursion": profile_of({"main;a;b;a;b": 5, "main;a;c": 3, "main;d": 2}),
}


def _same(shown: str | None, name: str | None) -> bool:
    """``shown`` is ``name`` as a surface shows it: cleaned, and cut with an ellipsis when long."""
    if shown is None or name is None:
        return shown is None and name is None
    full = clean(name, 10_000)
    return shown == full or (shown.endswith("…") and full.startswith(shown[:-1]))


def _named(pattern: str, text: str) -> str | None:
    m = re.search(pattern, text)
    return m.group(1) if m else None


def _check(profile: Profile) -> None:
    conv = Conversation(profile, settings=LlmSettings(), mode="offline")
    reading = conv.ctx.reading
    if not conv.ctx.total:
        return
    biggest = reading.biggest.name if reading.biggest else None
    responsible = reading.responsible.name if reading.responsible else None
    # the chat
    assert conv.ask(f"What uses the most {reading.resource}?").focus == biggest
    if responsible is not None:
        fresh = Conversation(profile, settings=LlmSettings(), mode="offline", summary=conv.ctx.summary)
        assert fresh.ask("What is responsible?").focus == responsible
    # the model's facts
    facts = {item["about"]: item for item in build_facts(conv.ctx).items if "about" in item}
    if "self #1" in facts:
        assert _same(facts["self #1"]["function"], biggest)
    named = [i["function"] for k, i in facts.items() if k.startswith("most responsible")]
    assert _same(named[0] if named else None, responsible)
    # the handoff report
    report = handoff_markdown(profile)
    assert _same(_named(r"- Biggest consumer: `([^`]*)`", report), biggest)
    assert _same(_named(r"- Most responsible[^`]*`([^`]*)`", report), responsible)


@pytest.mark.parametrize("name", FIXTURES)
def test_every_surface_names_the_same_frames_on_the_fixtures(name: str) -> None:
    _check(FIXTURES[name])


def test_the_near_universal_frame_is_responsible_not_the_side_branch() -> None:
    conv = Conversation(FIXTURES["near-universal"], settings=LlmSettings(), mode="offline")
    assert conv.ctx.reading.responsible is not None
    assert conv.ctx.reading.responsible.name == "Model.load"


@pytest.mark.real
def test_every_surface_names_the_same_frames_on_every_real_profile(real_dir: Path) -> None:
    checked = 0
    for path in sorted(p for p in real_dir.rglob("*") if p.is_file() and p.suffix != ".md"):
        try:
            profile = read_path(path)
        except ProfileError:
            continue  # the corpus keeps a few files that no reader (pprof included) accepts
        _check(profile)
        checked += 1
    assert checked >= 35


def test_idle_time_is_never_where_to_start() -> None:
    """Node's `(idle)` tops a wall-clock profile: waiting, which no code change makes smaller. Every surface starts
    with the code that works most instead, and no list of candidates names idle time."""
    from conftest import named_profile
    from explainer.analysis.summary import summarize
    from explainer.report.analyze import to_text

    idle = Conversation(named_profile("real:pyroscope_agpl-3.0/profile_nodejs"), settings=LlmSettings(), mode="offline")
    start = idle.ctx.reading.start
    assert start is not None and (start.why, start.name, start.biggest) == (
        "busy",
        "./index.ts:carSearchHandler:31",
        ":(idle):0",
    )
    optimise = idle.ask("where should i start optimising").markdown
    assert optimise.startswith("**Start with `./index.ts:carSearchHandler:31`")
    assert "waiting with nothing to run, not work" in optimise and "- `:(idle):0`" not in optimise
    most = idle.ask("what uses the most cpu").markdown
    assert "The code that works most is `./index.ts:carSearchHandler:31`" in most and "runtime code" not in most
    handoff = handoff_markdown(idle.ctx.profile)
    assert "Start with `./index.ts:carSearchHandler:31`" in handoff and "idle time, waiting, not work" in handoff
    assert "start with: ./index.ts:carSearchHandler:31" in to_text(summarize(idle.ctx.profile))
    busy = Conversation(named_profile("real:pyroscope-og_apache-2.0/cpu-js.pb.gz"), settings=LlmSettings())
    assert "(idle)" not in busy.ask("where should i start optimizing").markdown  # a candidate after the start
