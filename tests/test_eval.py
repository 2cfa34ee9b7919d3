"""``explainer eval`` against the local OpenAI-compatible server, scripted to answer well on some
questions and badly on others.

GIVEN the built-in question set and a model that misattributes, invents a function, names the
wrong subject or fails outright on some questions, WHEN ``explainer eval`` runs, THEN each
question's score follows from the chat's own checks, the total is their mean, the Markdown and
JSON reports say so, and the exit status follows ``--min-score``.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from openai_server import Fault, OpenAIServer, Reply

from explainer.cli.main import main
from explainer.evaluation.questions import BUILT_IN, load

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "demo_vllm_gpu.pb.gz"

# question -> (the scripted answer or a fault, the score the checks must give it)
SCRIPT: dict[str, tuple[str | Fault, float]] = {
    "kv-cache": (
        "`GPUModelRunner._allocate_kv_cache_tensors` uses the most: 55.1 GB, 73.8% of the 74.7 GB total [F3].",
        1.0,
    ),
    "weights": (
        "The model weights take 13.8 GB (18.5%), mostly `UnquantizedLinearMethod.create_weights` with 12.0 GB [F19].",
        1.0,
    ),
    # misattributed (numbers 0 of 1 right), subject named, the 4.2 GB fact missing
    "cuda-graphs": ("CUDA graphs (`CUDAGraphWrapper.__call__`) use 12.0 GB [F5].", (0 + 1 + 0) / 3),
    # two numbers right, one invented function: claims 2 of 3 right
    "zero-self": (
        "`EngineCore._initialize_kv_caches` has 60.9 GB (81.5%) passing through it but no self: "
        "its callee `KVCacheManager.allocate` does the allocating [F12].",
        (2 / 3 + 1 + 1) / 3,
    ),
    "cpu-hot": ("`psycopg.Cursor.execute` spends 3.2 s (32.3%) of the 10.0 s total [F3].", 1.0),
    # the wrong subject, and its number misattributed; the fact's number is there
    "cpu-json": ("`Template.render` dominates serialisation at 2.1 s.", (0 + 0 + 1) / 3),
    "diff-what": (
        "The KV cache grew from 43.6 GB to 55.1 GB (+11.5 GB) in `GPUModelRunner._allocate_kv_cache_tensors` [F21].",
        1.0,
    ),
    "diff-total": (Fault("status", status=400), 0.0),  # the model fails: the offline answer scores nothing
}
TOTAL = sum(score for _, score in SCRIPT.values()) / len(SCRIPT)


def reply(body: dict[str, Any]) -> Reply | Fault:
    asked = body["messages"][-1]["content"]
    for q in BUILT_IN:
        if f"Question: {q.question}" in asked:
            answer = SCRIPT[q.id][0]
            return answer if isinstance(answer, Fault) else Reply(answer + "\n")
    return Fault("status", status=400)


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> Iterator[OpenAIServer]:
    for key in ("AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_API_KEY", "EXPLAINER_REDACT_LABELS"):
        monkeypatch.delenv(key, raising=False)
    with OpenAIServer() as srv:
        srv.push(*[reply] * 40)
        monkeypatch.setenv("OPENAI_BASE_URL", srv.url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        monkeypatch.setenv("EXPLAINER_MODEL", "scripted")
        yield srv


def run_eval(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["eval", "--quiet", *args], out, err)
    return code, out.getvalue(), err.getvalue()


def test_scores_follow_the_checks_and_the_exit_status_the_minimum(model: OpenAIServer, tmp_path: Path) -> None:
    assert set(SCRIPT) == {q.id for q in BUILT_IN}
    report = tmp_path / "eval.json"
    code, markdown, err = run_eval("--min-score", "0.6", "--json", str(report))
    assert code == 0, err
    data = json.loads(report.read_text())
    scores = {q["id"]: q["score"] for q in data["questions"]}
    assert scores == {qid: pytest.approx(score, abs=1e-4) for qid, (_, score) in SCRIPT.items()}
    assert data["total"]["score"] == pytest.approx(TOTAL, abs=1e-4) and data["passed"]
    by_id = {q["id"]: q for q in data["questions"]}
    cuda = by_id["cuda-graphs"]
    assert (cuda["subject_named"], cuda["facts_found"], cuda["wrong"]) == (True, 0, 1)
    assert (
        cuda["wrong_claims"][0]["reason"] == "12.0 GB is `UnquantizedLinearMethod.create_weights`'s, not CUDA graphs'"
    )
    assert by_id["zero-self"]["wrong_names"] == 1 and by_id["cpu-json"]["subject_named"] is False
    assert by_id["diff-total"]["answered"] is False and "HTTP 400" in by_id["diff-total"]["note"]
    assert by_id["kv-cache"]["verified"] == 3 and by_id["kv-cache"]["tokens_in"] > 1_000
    assert data["total"]["answered"] == 7 and data["total"]["subject_named"] == 6
    assert f"Score **{TOTAL:.2f}**" in markdown and "| `cuda-graphs` | `demo` | yes | 0/1 | 0 | 0 | 0 | 1 |" in markdown
    assert "What went wrong" in markdown

    code, markdown, _ = run_eval("--min-score", f"{TOTAL + 0.01:.2f}")
    assert code == 1 and "below the minimum" in markdown


def test_a_users_own_set_in_toml_and_jsonl(model: OpenAIServer, tmp_path: Path) -> None:
    (tmp_path / "set.toml").write_text(
        f'[[question]]\nid = "mine"\nprofile = "{FIXTURE}"\nquestion = "What uses the most GPU memory?"\n'
        'subject = "KV cache"\nfacts = ["51.3 GiB"]\n'
    )
    line = {"profile": "cpu", "question": "Where does the CPU time go?", "subject": "psycopg.Cursor.execute"}
    (tmp_path / "set.jsonl").write_text(json.dumps(line) + "\n")
    md = tmp_path / "out" / "eval.md"
    md.parent.mkdir()
    for name in ("set.toml", "set.jsonl"):
        code, _, err = run_eval("--set", str(tmp_path / name), "--markdown", str(md), "--min-score", "0.99")
        assert code == 0, err  # GPU question: the KV-cache answer; CPU question: the psycopg one
    assert "Score **1.00**" in md.read_text()
    assert [q.id for q in load(tmp_path / "set.jsonl")] == ["q1"]


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("[[question]]\nprofile = 'demo'\n", "'question' must be a non-empty string"),
        ("[[question]]\nprofile = 'demo'\nquestion = 'x'\nurl = 'http://evil.example'\n", "unknown field(s) url"),
        ("[[question]]\nprofile = 'demo'\nquestion = 'x'\nfacts = '55.1 GB'\n", "'facts' must be a list"),
        ("not = [toml", "not valid TOML"),
        ("", "has no questions"),
    ],
)
def test_a_bad_set_is_one_line_and_exit_2(model: OpenAIServer, tmp_path: Path, content: str, words: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(content)
    code, _, err = run_eval("--set", str(path))
    assert code == 2 and words in err and err.count("\n") == 1 and "Traceback" not in err


def test_eval_needs_a_model_and_a_sane_minimum(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("EXPLAINER_MODEL", "OPENAI_API_KEY", "OPENAI_BASE_URL", "AZURE_OPENAI_ENDPOINT"):
        monkeypatch.delenv(key, raising=False)
    code, _, err = run_eval()
    assert code == 2 and "needs a model" in err
    with pytest.raises(SystemExit) as exc:
        run_eval("--min-score", "1.5")
    assert exc.value.code == 2
