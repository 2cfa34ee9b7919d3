"""`explainer analyze`: the JSON contract, the text a person reads, options, and a light start-up."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

from conftest import REPO
from explainer.cli.main import main
from explainer.demo import SEED_CHAIN

DEMO = REPO / "explainer" / "fixtures" / "demo_vllm_gpu.pb.gz"


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(args), out, err), out.getvalue(), err.getvalue()


def test_demo_fixture_is_current(demo) -> None:  # type: ignore[no-untyped-def]
    from explainer.writers import to_pprof

    assert DEMO.read_bytes() == to_pprof(demo), "run: python -m explainer.demo"


def test_json_contract_on_the_seed_demo() -> None:
    code, out, _ = run("analyze", str(DEMO), "--format", "json")
    assert code == 0
    got = json.loads(out)
    assert got["unit"] == "bytes" and got["sample_type"] == "malloc"
    assert got["total"] == 74_700_000_000
    first = got["top_self"][0]
    assert first == {
        "name": "GPUModelRunner._allocate_kv_cache_tensors",
        "self": 55_100_000_000,
        "total": 55_100_000_000,
    }
    assert all(isinstance(r[k], int) for r in got["top_self"] + got["top_total"] for k in ("self", "total"))
    assert [s["name"] for s in got["chain"]["steps"]] == list(SEED_CHAIN)
    assert got["coverage"]["top_self"] == {
        "shown": 10,
        "of": got["functions"],
        "share": got["coverage"]["top_self"]["share"],
    }


def test_text_output_states_numbers_and_truncation() -> None:
    code, out, _ = run("analyze", str(DEMO), "--top", "3")
    assert code == 0
    assert "55.1 GB  73.8%" in out
    assert "top 3 of 51 functions" in out
    assert "Heaviest call chain to GPUModelRunner._allocate_kv_cache_tensors" in out


def test_markdown_output_has_tables() -> None:
    code, out, _ = run("analyze", str(DEMO), "--format", "markdown")
    assert code == 0 and "| function | self |" in out and "`GPUModelRunner._allocate_kv_cache_tensors`" in out


def test_focus_ignore_and_hide() -> None:
    _, out, _ = run("analyze", str(DEMO), "--format", "json", "--focus", "load_model")
    assert json.loads(out)["total"] == 13_800_000_000  # the weights
    _, out, _ = run("analyze", str(DEMO), "--format", "json", "--ignore", "_allocate_kv_cache_tensors$")
    assert json.loads(out)["total"] == 74_700_000_000 - 55_100_000_000
    _, out, _ = run("analyze", str(DEMO), "--format", "json", "--hide-trampolines")
    assert "<interpreter trampoline>" not in [s["name"] for s in json.loads(out)["chain"]["steps"]]
    code, _, err = run("analyze", str(DEMO), "--focus", "(")
    assert code == 2 and "invalid regular expression" in err


def test_unknown_sample_type_lists_the_valid_ones() -> None:
    code, _, err = run("analyze", str(DEMO), "--sample-type", "inuse_space")
    assert code == 2 and "malloc/bytes" in err


def test_analyze_does_not_import_ui_or_model_libraries(tmp_path: Path) -> None:
    probe = (
        "import sys, io; from explainer.cli.main import main; "
        f"main(['analyze', {str(DEMO)!r}], io.StringIO(), io.StringIO()); "
        "heavy = [m for m in ('streamlit', 'langchain', 'langchain_openai', 'openai', 'plotly', 'tiktoken') "
        "if m in sys.modules]; "
        "print(','.join(heavy))"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""


def test_category_breakdown_in_json_and_text() -> None:
    _, out, _ = run("analyze", str(DEMO), "--format", "json")
    cats = {c["category"]: c for c in json.loads(out)["categories"]}
    assert cats["kv-cache"]["self"] == 55_100_000_000 and round(cats["kv-cache"]["share"] * 100, 1) == 73.8
    assert round(cats["weights"]["share"] * 100, 1) == 18.5
    assert sum(c["self"] for c in cats.values()) == 74_700_000_000
    _, text, _ = run("analyze", str(DEMO))
    assert "by category: KV cache 73.8%, model weights 18.5%" in text
