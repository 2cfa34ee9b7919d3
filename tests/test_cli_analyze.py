"""`explainer analyze`: the JSON contract, the text a person reads, options, and a light start-up."""

from __future__ import annotations

import io
import json
import subprocess
import sys

from conftest import REPO
from explainer.cli.main import main
from explainer.demo import SEED_CHAIN

DEMO = REPO / "fixtures" / "demo_vllm_gpu.pb.gz"


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


def imported_after(argv: list[str], modules: tuple[str, ...]) -> list[str]:
    """Which of ``modules`` a fresh interpreter has imported after running ``explainer ARGV``."""
    probe = (
        "import sys, io, contextlib; from explainer.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        f"    main({argv!r}, io.StringIO(), io.StringIO())\n"
        f"print(','.join(m for m in {modules!r} if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return [m for m in result.stdout.strip().split(",") if m]


def test_analyze_does_not_import_ui_model_or_http_libraries() -> None:
    heavy = ("streamlit", "langchain", "langchain_core", "openai", "plotly", "tiktoken", "pandas")
    heavy += ("requests", "urllib3")  # HTTP only for servers
    assert imported_after(["analyze", str(DEMO)], heavy) == []


def test_help_imports_no_verb_and_no_numpy() -> None:
    # `explainer --help` lists every verb from the table in main.py without importing one
    assert imported_after(["--help"], ("numpy", "explainer.model", "explainer.cli.analyze", "explainer.cli.ask")) == []


def test_help_lines_match_each_verbs_own_help() -> None:
    import argparse

    from explainer.cli.main import VERBS, build_parser

    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    helps = {c.dest: c.help for c in commands._choices_actions}
    assert helps == {verb: summary for verb, (_, summary) in VERBS.items()}


def test_category_breakdown_in_json_and_text() -> None:
    _, out, _ = run("analyze", str(DEMO), "--format", "json")
    cats = {c["category"]: c for c in json.loads(out)["categories"]}
    assert cats["kv-cache"]["self"] == 55_100_000_000 and round(cats["kv-cache"]["share"] * 100, 1) == 73.8
    assert round(cats["weights"]["share"] * 100, 1) == 18.5
    assert sum(c["self"] for c in cats.values()) == 74_700_000_000
    _, text, _ = run("analyze", str(DEMO))
    assert "by category: KV cache 73.8%, model weights 18.5%" in text
