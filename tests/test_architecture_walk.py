"""docs/architecture.md's walk of one question, held to the code.

GIVEN the numbered walk in "One question, from the chat input to the rendered answer" (each step a
module and the function that takes the question) and the counts stated under it,
THEN the modules and functions exist, the counts are what the steps list and within the issue's
bounds (15 modules, 5 returns into a module already left), the conversation's ask path calls only
walk modules (read with ``ast``) and no walk module imports the conversation back, and asking the
question on the demo enters the walk's modules in the walk's order, the conversation through its
two ask functions alone. A refactor that moves a step without the document fails here.
"""

from __future__ import annotations

import ast
import re
import sys
from functools import cache
from pathlib import Path
from types import FrameType
from typing import Any

from explainer.demo import demo_profile
from explainer.explain.conversation import Conversation
from explainer.explain.llm.settings import LlmSettings

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"
QUESTION = "What uses the most GPU memory?"
MAX_MODULES, MAX_RETURNS = 15, 5  # the acceptance bounds
CONVERSATION = "explainer.explain.conversation"
_STEP = re.compile(r"^(\d+)\. `(explainer/[\w/]+\.py)` \(`([\w.]+)`\)", re.MULTILINE)
_COUNTS = re.compile(r"\*\*(\d+) modules; (\d+) returns into a module already left\*\*:(.*?)\.\s", re.DOTALL)


@cache
def walk_text() -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("### One question, from the chat input to the rendered answer")
    return text[start : text.index("**Intents are typed records**", start)]


@cache
def steps() -> list[tuple[int, str, str]]:
    """(number, module's dotted name, function) per step, in the document's order."""
    found = [(int(n), path.removesuffix(".py").replace("/", "."), fn) for n, path, fn in _STEP.findall(walk_text())]
    assert found, "the walk's steps were not found in docs/architecture.md"
    return found


def modules_in_order() -> list[str]:
    out: list[str] = []
    for _, module, _ in steps():
        if module not in out:
            out.append(module)
    return out


def path_of(module: str) -> Path:
    return ROOT / (module.replace(".", "/") + ".py")


@cache
def tree(module: str) -> ast.Module:
    return ast.parse(path_of(module).read_text(encoding="utf-8"))


def definition(module: str, name: str) -> ast.AST | None:
    """A top-level function or class of ``module``, or ``Class.method``."""
    scope: list[ast.stmt] = tree(module).body
    node: ast.AST | None = None
    for part in name.split("."):
        node = next(
            (n for n in scope if isinstance(n, ast.FunctionDef | ast.ClassDef) and n.name == part),
            None,
        )
        if node is None:
            return None
        scope = node.body if isinstance(node, ast.ClassDef) else []
    return node


def imported_names(module: str) -> dict[str, str]:
    """Names bound by ``from explainer... import name`` anywhere in ``module`` -> the module they come from."""
    out: dict[str, str] = {}
    for node in ast.walk(tree(module)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("explainer"):
            for alias in node.names:
                source = f"{node.module}.{alias.name}"
                out[alias.asname or alias.name] = source if path_of(source).exists() else node.module
    return out


def called_modules(module: str, function: str) -> list[str]:
    """The explainer modules ``function`` calls into by an imported name, in the order written."""
    node = definition(module, function)
    assert node is not None, f"{module} has no {function}"
    names = imported_names(module)
    out: list[str] = []
    calls = sorted((n for n in ast.walk(node) if isinstance(n, ast.Call)), key=lambda n: (n.lineno, n.col_offset))
    for call in calls:
        callee = call.func
        while isinstance(callee, ast.Attribute):
            callee = callee.value
        if isinstance(callee, ast.Name) and callee.id in names and (not out or out[-1] != names[callee.id]):
            out.append(names[callee.id])
    return out


def all_imports(module: str) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(tree(module)):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
    return out


def test_every_step_names_a_module_and_a_function_that_exist() -> None:
    assert [n for n, _, _ in steps()] == list(range(1, len(steps()) + 1)), "steps are numbered 1, 2, 3, ..."
    for _, module, function in steps():
        assert path_of(module).exists(), f"{module} is in the walk but not in the code"
        assert definition(module, function) is not None, f"{module} defines no {function}"


def test_the_stated_counts_are_the_walks_and_within_the_bounds() -> None:
    found = _COUNTS.search(walk_text())
    assert found is not None, "the walk states '**N modules; M returns into a module already left**: ...'"
    stated_modules, stated_returns = int(found.group(1)), int(found.group(2))
    returns = [p.removesuffix(".py").replace("/", ".") for p in re.findall(r"`(explainer/[\w/]+\.py)`", found.group(3))]
    assert stated_modules == len(modules_in_order()) <= MAX_MODULES
    assert stated_returns == len(returns) <= MAX_RETURNS
    assert set(returns) <= set(modules_in_order()), "a return goes into a module of the walk"


def test_the_conversation_calls_only_walk_modules_in_the_walks_order() -> None:
    walk = modules_in_order()
    assert walk[1] == CONVERSATION and [f for _, m, f in steps() if m == CONVERSATION] == ["Conversation.ask_stream"]
    called = called_modules(CONVERSATION, "Conversation.ask_stream")
    assert called and set(called) <= set(walk), f"the ask path calls modules the walk does not name: {called}"
    assert called == sorted(called, key=walk.index), "the conversation's calls follow the walk's order"
    assert len(set(called_modules(CONVERSATION, "Conversation.ask") + called)) <= MAX_MODULES
    # entered once: the ask path calls none of the conversation's own methods
    methods = {n.name for n in ast.walk(tree(CONVERSATION)) if isinstance(n, ast.FunctionDef)}
    node = definition(CONVERSATION, "Conversation.ask_stream")
    assert node is not None
    own = [
        c.func.attr
        for c in ast.walk(node)
        if isinstance(c, ast.Call)
        and isinstance(c.func, ast.Attribute)
        and isinstance(c.func.value, ast.Name)
        and c.func.value.id == "self"
        and c.func.attr in methods
    ]
    assert not own, f"ask_stream calls back into the conversation: {own}"


def test_the_message_is_taken_in_by_the_steps_the_walk_lists_in_their_order() -> None:
    walk = modules_in_order()
    intake = "explainer.explain.question.intake"
    called = [m for m in called_modules(intake, "take") if m in walk]
    listed = walk[walk.index(intake) + 1 : walk.index(intake) + 1 + len(called)]
    assert called == listed, f"take calls {called}, the walk lists {listed}"


def test_no_step_imports_the_conversation_back() -> None:
    later = [m for m in modules_in_order() if m not in (CONVERSATION, "explainer.ui.chat")]
    for module in [*later, "explainer.explain.llm.turn"]:
        assert CONVERSATION not in all_imports(module), f"{module} reaches back into the conversation"


def test_asking_the_question_enters_the_walks_modules_in_the_walks_order() -> None:
    conv = Conversation(demo_profile(), settings=LlmSettings(), mode="offline")
    walk = modules_in_order()
    first: list[str] = []
    conversation_functions: set[str] = set()

    def watch(frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        module = frame.f_globals.get("__name__", "")
        if module in walk and module not in first:
            first.append(module)
        if module == CONVERSATION:
            conversation_functions.add(frame.f_code.co_name)

    before = sys.getprofile()
    sys.setprofile(watch)
    try:
        answer = conv.ask(QUESTION)
    finally:
        sys.setprofile(before)
    assert answer.mode == "offline" and "uses the most GPU memory" in answer.markdown
    assert first == walk[1:], "the question goes through the walk's modules (after the chat's) in its order"
    assert conversation_functions == {"ask", "ask_stream"}, "the conversation is entered by its ask path alone"
