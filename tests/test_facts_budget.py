"""Facts stay within 2,000 tokens (tiktoken, cl100k, offline) whatever the profile's size or names.

The generated 50k- and 500k-stack profiles are made by the shared generator (the 500k one once,
kept in .pytest_cache/gen; EXPLAINER_BIG_PROFILE may point at one made elsewhere).
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from explainer.explain.context import ProfileContext
from explainer.explain.llm.facts import BUDGET_TOKENS, build_facts, count_tokens
from explainer.explain.safety import split_data_blocks
from explainer.model import Profile, ProfileBuilder, SampleType
from explainer.readers import ReadOptions, read_path

BIG = ReadOptions(max_decompressed=2 * 10**9, max_input=2 * 10**9)


@pytest.fixture(scope="session")
def generated_50k(generator: Path, tmp_path_factory: pytest.TempPathFactory) -> Profile:
    out = tmp_path_factory.mktemp("gen") / "g50k.pb.gz"
    subprocess.run(
        [sys.executable, str(generator), "--stacks", "50000", "-o", str(out)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    return read_path(out, BIG)


def decoded(block: str) -> dict[str, object]:
    outside, inside = split_data_blocks(block)
    assert outside.strip() == "" and len(inside) == 1
    return json.loads(inside[0])  # type: ignore[no-any-return]


def check(profile: Profile, budget: int = BUDGET_TOKENS) -> list[dict[str, object]]:
    facts = build_facts(ProfileContext(profile), budget)
    block = facts.block()
    assert facts.tokens == count_tokens(block) <= budget
    items = decoded(block)["facts"]
    assert isinstance(items, list)
    assert [item["id"] for item in items] == [f"F{i}" for i in range(1, len(items) + 1)]
    return items


@pytest.mark.slow  # generates and reads a 50k-stack profile
def test_the_budget_holds_on_a_50k_stack_generated_profile(generated_50k: Profile) -> None:
    items = check(generated_50k)
    text = json.dumps(items)
    top = ProfileContext(generated_50k).summary.top_self.rows[0].name
    assert top in text and "heaviest call chain" in text and "50,000" in text
    assert len(items) >= 10  # the budget is used, not left empty


@pytest.mark.slow  # the 500k-stack profile
# the first test to ask for the 500k profile generates it (about 80 s on a quiet machine; over 300 s, the
# default bound, at a load of 7 on two cores): the bound covers the generator's own (900 s) and the read
@pytest.mark.timeout(1200)
def test_the_budget_holds_on_the_500k_stack_profile(big_profile_path: Path) -> None:
    items = check(read_path(big_profile_path, BIG))
    assert "500,000" in json.dumps(items)


def test_the_budget_holds_with_huge_hostile_names_and_deep_chains() -> None:
    builder = ProfileBuilder(SampleType("alloc_space", "bytes"))
    for i in range(60):  # every name far over its cap, in characters that cost several tokens each
        deep = [f"深い層{j}🔥{'Ж' * 400}\u202e{i}" for j in range(40)]
        builder.add([*deep, f"leaf_{i}_" + "名" * 5_000], (i + 1) * 10**6)
    profile = builder.build(labels=tuple((f"k{i}" + "é" * 500, "v" * 2_000) for i in range(20)))
    items = check(profile)
    assert items[0]["about"] == "profile"
    assert any(str(item.get("about", "")).startswith("self #1") for item in items)


def test_a_tiny_budget_still_holds_and_keeps_the_first_fact(demo: Profile) -> None:
    items = check(demo, budget=300)
    assert items[0]["id"] == "F1" and "74.7 GB" in json.dumps(items[0])


def test_the_demo_facts_carry_the_seed_numbers(demo: Profile) -> None:
    text = json.dumps(check(demo))
    for expected in ("GPUModelRunner._allocate_kv_cache_tensors", "55.1 GB (73.8%)", "74.7 GB", "60.9 GB (81.5%)"):
        assert expected in text


def test_tokens_are_counted_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    from explainer.explain.llm import facts

    facts._encoding.cache_clear()

    def no_network(*args: object, **kwargs: object) -> socket.socket:
        raise AssertionError("tiktoken tried to use the network")

    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket.socket, "connect", no_network)
    assert count_tokens("55.1 GB of KV cache") > 0
