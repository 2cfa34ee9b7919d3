"""'What is `LABEL`?' answered offline with the right language, for labels from several profilers.

GIVEN a small CPU profile whose labels come from one runtime, WHEN the offline explainer is asked
what one of its frames is, THEN the answer names the frame's language (read with the profile's
runtime), never another one, and every number in it checks out.
"""

from __future__ import annotations

import pytest

from explainer.explain import Conversation, LlmSettings
from explainer.model import Profile, ProfileBuilder, SampleType

OFFLINE = LlmSettings()

CASES = [
    (
        ["<module>", "vllm/entrypoints/cli/main.py:75 - main", "torch/nn/modules/module.py:1736 - _call_impl"],
        "torch/nn/modules/module.py:1736 - _call_impl",
        "Python function _call_impl",
        ["Go ", "package"],
    ),
    (
        ["runtime.main", "main.main", "github.com/pyroscope-io/pyroscope/pkg/convert.(*Profile).findFunction.func1"],
        "github.com/pyroscope-io/pyroscope/pkg/convert.(*Profile).findFunction.func1",
        "closure func1) defined inside method findFunction on Profile",
        ["Python"],
    ),
    (
        [
            "node:internal/process/task_queues:processTicksAndRejections:82",
            "./node_modules/express/lib/router/index.js:handle:174",
        ],
        "./node_modules/express/lib/router/index.js:handle:174",
        "JavaScript function handle of the npm package express",
        ["Go ", "Python"],
    ),
    (
        ["gems/sinatra-2.0.3/lib/sinatra/base.rb:1503 - call", "(unknown):-1 - new [c function]"],
        "(unknown):-1 - new [c function]",
        "Ruby's built-in method new",
        ["Go ", "Python"],
    ),
    (
        ["System.Private.CoreLib!System.Threading.ThreadPoolWorkQueue.Dispatch()", "System.Threading.Tasks.Task.Run"],
        "System.Threading.Tasks.Task.Run",
        ".NET method Run of Task",
        ["Python", "def Run"],
    ),
    (
        ["std::rt::lang_start::{{closure}}", "tokio::runtime::task::harness::Harness<T,S>::poll"],
        "tokio::runtime::task::harness::Harness<T,S>::poll",
        "Rust method poll of Harness",
        ["C++"],
    ),
    (
        ["java/lang/Thread.run", "com.example.function12"],
        "com.example.function12",
        "Java method function12",
        ["Go ", "Python"],
    ),
]


def _profile(stack: list[str]) -> Profile:
    builder = ProfileBuilder(SampleType("samples", "count"))
    builder.add(stack, 7)
    builder.add(stack[:1], 1)
    return builder.build()


@pytest.mark.parametrize(("stack", "label", "says", "never"), CASES, ids=[c[1][:40] for c in CASES])
def test_what_is_label_names_its_language(stack: list[str], label: str, says: str, never: list[str]) -> None:
    answer = Conversation(_profile(stack), settings=OFFLINE, mode="offline").ask(f"What is `{label}`?")
    assert answer.verification.unverified == [], answer.markdown
    assert says in answer.markdown, answer.markdown
    what = answer.markdown.split("\n\n", 1)[0]  # the frame's reading, before the numbers
    assert not [w for w in never if w in what], what
    assert "A name on its own is a module-level function" not in answer.markdown  # the seed's Python reading
