"""The chat: history per session, suggested questions, streamed answers with their checks.

The loop follows streamlit/llm-examples (history replayed on each rerun, ``st.chat_input``,
``st.chat_message``, ``st.write_stream``) with two differences that matter here: the model's
key is read from secrets/the environment on each run and never stored in the session, and
in model mode the exact text that would leave the machine is shown before it is sent.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields, replace
from typing import Any

from explainer import markdown
from explainer.explain import Answer, Conversation, LlmSettings
from explainer.explain.answers.followups import follow_ups
from explainer.explain.answers.orientation import ORIENTATIONS
from explainer.explain.safety import defang_images
from explainer.knowledge.visibility import Budget
from explainer.model import Profile
from explainer.symbols import clean
from explainer.ui import expanders
from explainer.ui.cache import context as shared_context
from explainer.ui.cache import summary as shared_summary
from explainer.ui.sources import friendly
from explainer.ui.state import SessionData, Turn

OFFLINE, MODEL = "offline", "llm"
SEND, INSTEAD, CANCEL = "send_pending", "offline_pending", "cancel_pending"


def _status(st: Any, turn: Turn) -> None:
    """What was checked and what was not, under each answer."""
    if turn.notice and turn.notice not in turn.markdown:  # the offline explainer quotes it in the text
        st.info(clean(turn.notice, 400), icon="ℹ️")
    if turn.unverified:
        claims = ", ".join(markdown.code(c) for c in turn.unverified[:8])
        st.warning(f"Unverified: {len(turn.unverified)} claim(s) did not match the profile: {claims}", icon="⚠️")
    checked = f"✓ {turn.checked} number(s) checked against the profile" if turn.checked else "no numbers to check"
    if turn.checked:
        verified, derived, unbound, wrong = turn.verdicts
        checked += f" ({verified} verified, {derived} derived, {unbound} unbound, {wrong} wrong)"
    cut = " · ⚠ the answer was cut short" if turn.incomplete else ""
    st.caption(f"{checked} · answered {'offline' if turn.mode == OFFLINE else markdown.code(turn.mode)}{cut}")


def replay(st: Any, state: SessionData) -> None:
    for turn in state.history:
        with st.chat_message(turn.role):
            if turn.role == "user":
                st.text(turn.markdown)  # the user's own words, shown verbatim and never as Markdown
            else:
                st.markdown(turn.markdown)
                _status(st, turn)


def _answer_turn(answer: Answer | None, text: str, mode_label: str) -> Turn:
    if answer is None:
        return Turn("assistant", text, mode=mode_label)
    return Turn(
        "assistant",
        text or answer.markdown,
        mode=OFFLINE if answer.mode == "offline" else mode_label,
        checked=answer.verification.checked,
        unverified=tuple(clean(str(u), 160) for u in answer.verification.unverified),
        verdicts=(
            answer.verification.verified,
            answer.verification.derived,
            answer.verification.unbound,
            answer.verification.wrong,
        ),
        notice=answer.notice or "",
        incomplete=answer.incomplete,
    )


def answer(st: Any, state: SessionData, conv: Keyed, question: str, mode_label: str) -> None:
    """Ask, stream the answer into a chat message, and remember both turns."""
    state.add(Turn("user", question))
    with st.chat_message("user"):
        st.text(question)
    with st.chat_message("assistant"):
        try:
            written = st.write_stream(defang_images(conv.ask_stream(question)))
            text = written if isinstance(written, str) else "".join(str(w) for w in written)
            turn = _answer_turn(conv.last_answer, text, mode_label)
        except Exception as exc:  # a failed answer is a message in the chat, never a traceback
            turn = Turn("assistant", f"Sorry, I could not answer that: {friendly(exc)}", mode=OFFLINE)
            st.markdown(turn.markdown)
        _status(st, turn)
    state.add(turn)
    if conv.last_answer is not None and conv.last_answer.focus:
        state.focus = conv.last_answer.focus


OFFLINE_CHOICE = "Offline explainer"


def mode_switch(st: Any, settings: LlmSettings) -> str:
    """Offline (default, nothing leaves the machine) or the configured model."""
    configured = settings.configured
    described = clean(settings.describe(), 80) if configured else "no model configured"
    choice = st.radio(
        "Answer with",
        (OFFLINE_CHOICE, f"Model: {described}"),
        key="answer_mode",
        horizontal=True,
        disabled=not configured,
        # kept while the Ask tab is closed (its widgets are drawn only while it is open)
        persist_state="page",
        help="Offline answers are computed here; nothing leaves this machine. The model option sends a compact, "
        "encoded summary of the profile (shown to you first) to the configured model.",
    )
    if not configured:
        st.caption(
            "Answers are offline. To use a model, set EXPLAINER_MODEL and OPENAI_API_KEY (or OPENAI_BASE_URL, "
            "or the AZURE_OPENAI_* settings) in the environment or the app's secrets, and restart."
        )
    return MODEL if configured and choice is not None and choice.startswith("Model") else OFFLINE


def options(st: Any, settings: LlmSettings, make_handoff: Callable[[], str]) -> str:
    """The answer mode and the handoff report in one expander, drawn only when opened or while a model is
    chosen (:mod:`explainer.ui.expanders`): a page that opens draws one element for them, not five
    (issue 27). Returns the mode: offline unless a configured model is chosen."""
    label = "Answer mode and handoff report" + (" (a model is configured)" if settings.configured else "")
    chosen = expanders.has_any(st, "answer_mode", empty=OFFLINE_CHOICE)
    box, draw = expanders.expander(st, label, expanders.ANSWER, chosen)
    mode = OFFLINE
    with box:
        if draw:
            mode = mode_switch(st, settings)
            download(st, make_handoff)
    return mode


def preview(st: Any, conv: Keyed, question: str, model: str) -> str | None:
    """Show what would be sent and wait for a decision: 'llm', 'offline', 'cancel' or None (waiting)."""
    with st.chat_message("assistant"):
        st.markdown(f"Before anything is sent, this is exactly what {markdown.code(model)} would receive:")
        st.code(conv.outgoing_preview(question), language=None, wrap_lines=True, height=240)
        cols = st.columns(3)
        if cols[0].button("Send to the model", key=SEND, type="primary"):
            return MODEL
        if cols[1].button("Answer offline instead", key=INSTEAD):
            return OFFLINE
        if cols[2].button("Cancel", key=CANCEL):
            return "cancel"
    return None


def suggestions(st: Any, questions: list[str], key: str = "suggest") -> str | None:
    """The first questions as one row of pills (one element for the browser to draw, not a button
    each: issue 27), for a page that is useful before anyone types; the question clicked, once."""
    asked = f"{key}_asked"

    def picked() -> None:  # ask once and clear the pill, so the same question can be asked again
        st.session_state[asked] = st.session_state[key]
        st.session_state[key] = None

    st.pills(
        "Suggested questions",
        questions[:4],
        key=key,
        on_change=picked,
        label_visibility="collapsed",
    )
    clicked = st.session_state.get(asked)
    st.session_state[asked] = None
    return str(clicked) if clicked else None


def next_questions(st: Any, state: SessionData, conv: Keyed) -> str | None:
    """After an answer: what usually comes next, in the language of the last question, as small buttons."""
    questions = follow_ups(conv.conv.context)
    if not questions:
        return None
    row = st.container(horizontal=True, gap="small")  # wraps: a long question is never cut
    clicked = None
    for i, q in enumerate(questions):
        # keyed by the turn, so a button of an earlier answer is never mistaken for this one's
        if row.button(
            q, key=f"next_{len(state.history)}_{i}", type="tertiary", icon=":material/subdirectory_arrow_right:"
        ):
            clicked = q
    return clicked


def download(st: Any, make: Callable[[], str], disabled: bool = False) -> None:
    """The handoff report, generated only when clicked (big profiles take a moment)."""
    st.download_button(
        "Download handoff report",
        data=lambda: make().encode("utf-8"),
        file_name="explainer-handoff.md",
        mime="text/markdown",
        icon=":material/download:",
        on_click="ignore",  # no rerun: a rerun can drop the lazy file before the browser fetches it
        disabled=disabled,
        help="A Markdown report of this analysis to hand to a teammate or attach to an issue.",
    )


def without_secrets(settings: LlmSettings) -> LlmSettings:
    """``settings`` with every secret (the key, a password in a URL) blanked out of every field."""
    secrets = [x for x in settings.secrets() if x]
    changes: dict[str, Any] = {}
    for f in fields(settings):
        value = getattr(settings, f.name)
        if isinstance(value, str) and any(x in value for x in secrets):
            for x in secrets:
                value = value.replace(x, "")
            changes[f.name] = value
    return replace(settings, **changes)


@dataclass(frozen=True)
class Keyed:
    """A session's stored Conversation (kept without secrets between reruns) and this run's
    settings, which travel with each call and are never stored on it."""

    conv: Conversation
    settings: LlmSettings
    orientation: str = "flame"  # as this browser draws the flame graph

    def __post_init__(self) -> None:
        # "above" and "below" in the offline answers follow the flame graph this browser draws
        self.conv.offline.orientation = self.orientation if self.orientation in ORIENTATIONS else "flame"

    @property
    def last_answer(self) -> Answer | None:
        return self.conv.last_answer

    def suggested_questions(self) -> list[str]:
        return self.conv.suggested_questions()

    def ask_stream(self, question: str) -> Iterator[str]:
        return self.conv.ask_stream(question, self.settings)

    def outgoing_preview(self, question: str) -> str:
        return self.conv.outgoing_preview(question, self.settings)


def conversation(
    state: SessionData,
    profile: Profile,
    baseline: Profile | None,
    settings: LlmSettings,
    mode: str,
    budget: Budget | None = None,
) -> Keyed:
    """This session's Conversation for (profile, baseline, mode); a new profile starts a new chat."""
    key = (id(profile), id(baseline))
    if state.conversation_key != key:
        state.conversations.clear()
        state.history.clear()
        state.pending, state.focus, state.conversation_key = None, "", key
    if mode not in state.conversations:
        state.conversations[mode] = Conversation(
            profile,
            settings=without_secrets(settings),
            mode="llm" if mode == MODEL else "offline",
            baseline=baseline,
            summary=shared_summary(profile),  # the page's, not a second analysis per session
            context=None if baseline is not None else shared_context(profile),  # prepared once for all sessions
        )
    if budget is not None:  # the sidebar's GPU budget, read on every run
        state.conversations[mode].set_budget(budget)
    return Keyed(state.conversations[mode], settings, state.orientation)


def settings_from(secrets: Any) -> LlmSettings:
    """LlmSettings for this run, from ``st.secrets`` then the environment (never stored as is)."""
    try:
        values = {k: v for k, v in secrets.items() if isinstance(v, str)}
    except Exception:  # no secrets.toml is the normal local case
        values = {}
    return LlmSettings.from_env(values)


def greeting(summary: Any, label: str) -> str:
    """The first message: what is loaded, so the page says something useful before anyone types."""
    from explainer import units

    p = summary.profile
    return (
        f"I'm looking at {markdown.code(label)}: **{units.format_value(summary.total, summary.unit)}** of "
        f"{markdown.code(str(p.sample_type))} across {units.format_count(summary.stats.function_count)} functions. "
        "Ask me what uses the most, why, and what you could change, or start with one of these:"
    )


def panel(
    st: Any, state: SessionData, conv_for: Callable[[str], Keyed], mode: str, model_label: str, intro: str
) -> None:
    """The chat column: history, suggestions, the input, and the send-to-model confirmation."""
    # a fixed height makes a scrolling box, which alone costs the browser 0.25-0.3 s of its main thread
    # on every new page (measured beside bench/app_floor.py, issue 27): a page that opens with only the
    # greeting draws a box as tall as its content; a conversation scrolls in a 600 px box
    talked = bool(state.history) or state.pending is not None
    box = st.container(height=600 if talked else "content", border=True)
    clicked = None
    with box:
        replay(st, state)
        hints = st.empty()
        if not state.history and state.pending is None:
            with hints.chat_message("assistant"):  # the slot holds the message itself: one block less
                st.markdown(intro)
                clicked = suggestions(st, conv_for(mode).suggested_questions())
        elif state.pending is None:  # the last answer's follow-ups (gone once a question is asked)
            with hints:
                clicked = next_questions(st, state, conv_for(mode))
    confirm = mode == MODEL and st.checkbox(
        "Show what is sent before each question", value=True, key="confirm_send", persist_state="page"
    )
    typed = st.chat_input("Ask about this profile, e.g. What uses the most GPU memory?", max_chars=2000)
    question = typed or clicked
    if question:
        hints.empty()
    with box:
        if question and confirm:
            state.pending = question
        elif question:
            answer(st, state, conv_for(mode), question, model_label)
            next_questions(st, state, conv_for(mode))  # a click reruns the page, which finds it above
        if state.pending is not None:
            slot = st.empty()
            with slot.container():
                with st.chat_message("user"):
                    st.text(state.pending)
                decision = preview(st, conv_for(MODEL), state.pending, model_label)
            if decision is not None:
                pending, state.pending = state.pending, None
                slot.empty()
                if decision != "cancel":
                    answer(st, state, conv_for(decision), pending, model_label)


def handoff_maker(profile: Any, baseline: Any, summary: Any, budget: Budget | None = None) -> Callable[[], str]:
    """The handoff report of this page's profile (and baseline), made when the user downloads it."""
    from datetime import UTC, datetime

    from explainer.report.handoff import handoff_markdown

    # no llm_settings: a download must never send the profile to a model behind the user's back
    return lambda: handoff_markdown(profile, baseline=baseline, summary=summary, now=datetime.now(UTC), budget=budget)
