"""Symbol conventions from the domain doc, plus the real-corpus languages."""

from __future__ import annotations

import pytest

from explainer.symbols import clean, decode

CASES = [
    ("GPUModelRunner > _allocate_kv_cache_tensors", "method", "GPUModelRunner", "_allocate_kv_cache_tensors"),
    ("GPUModelRunner / _allocate_kv_cache_tensors", "method", "GPUModelRunner", "_allocate_kv_cache_tensors"),
    ("GPUModelRunner._allocate_kv_cache_tensors", "method", "GPUModelRunner", "_allocate_kv_cache_tensors"),
    ("LlamaMLP > __init__", "constructor", "LlamaMLP", "__init__"),
    ("LlamaMLP.__init__", "constructor", "LlamaMLP", "__init__"),
    ("_compile_fx_inner", "function", "", "_compile_fx_inner"),
    ("<module>", "module", "", ""),
    ("<interpreter trampoline>", "trampoline", "", ""),
    ("0x7f151", "address", "", ""),
    ("0x7f151a2b7430", "address", "", ""),
    ("libcuda.so.1+0x1a2b", "address", "libcuda.so.1", ""),
    ("[libcuda.so.1]", "address", "libcuda.so.1", ""),
    ("<unknown>", "unknown", "", ""),
    ("make_layers.<locals>.<lambda>", "lambda", "make_layers", "<lambda>"),
    ("_TorchDynamoContext.__call__.<locals>._fn", "nested", "_TorchDynamoContext.__call__", "_fn"),
    ("runtime.mapiternext", "function", "runtime", "mapiternext"),
    ("java/lang/Thread.sleep", "method", "java.lang.Thread", "sleep"),
    ("std::vector<int>::push_back", "method", "std::vector", "push_back"),
    ("cuMemAlloc_v2", "native", "", "cuMemAlloc_v2"),
    ("_start", "native", "", "_start"),
    ("other", "other", "", ""),
]


@pytest.mark.parametrize(("name", "kind", "owner", "member"), CASES)
def test_decode(name: str, kind: str, owner: str, member: str) -> None:
    s = decode(name)
    assert (s.kind, s.owner, s.member) == (kind, owner, member)
    assert s.meaning


def test_seed_wording() -> None:
    assert (
        "class GPUModelRunner: def _allocate_kv_cache_tensors(self)"
        in decode("GPUModelRunner / _allocate_kv_cache_tensors").meaning
    )
    assert "LlamaMLP(...)" in decode("LlamaMLP > __init__").meaning
    assert "ignore" in decode("<interpreter trampoline>").meaning


@pytest.mark.parametrize("evil", ["a\x1b[2Jb", "x\u202ey", "z\u0000", "q\ud800", "\u2066pwn\u2069", "y" * 10_000])
def test_clean_removes_controls_and_caps(evil: str) -> None:
    shown = clean(evil)
    assert len(shown) <= 200
    assert not any(ch in shown for ch in "\x1b\u202e\x00\ud800\u2066\u2069")


def test_meanings_quote_names_cleaned_and_capped() -> None:
    evil = "Evil\x1b[31m" + "A" * 5000 + ".run\u202e"
    meaning = decode(evil).meaning
    assert "\x1b" not in meaning and "\u202e" not in meaning and len(meaning) <= 400
