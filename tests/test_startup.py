"""Start-up stays light: a command imports what its own work needs, and nothing else.

Issue 13 asks for `--help` and `analyze` on a small file under 0.12 s. The time is measured in
`bench/run.py` (never here: a busy machine would make a timed test flaky); these tests pin the
behaviour that keeps it there. Each probe runs the real program (`explainer.cli.main.run`, what
the console script and `python -m explainer` call) in a fresh interpreter and reports which
modules it imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from conftest import REPO

pytestmark = pytest.mark.slow  # a fresh interpreter per probe

DEMO = REPO / "fixtures" / "demo_vllm_gpu.pb.gz"

# (module, why a file-reading command must not import it)
NOT_FOR_A_FILE = (
    ("requests", "HTTP is for servers only"),
    ("urllib3", "HTTP is for servers only"),
    ("httpx", "the model client's HTTP"),
    ("explainer.pyroscope.query", "the Pyroscope modules are for --server only"),
    ("explainer.pyroscope.auth", "the Pyroscope modules are for --server only"),
    ("explainer.pyroscope.selector", "the Pyroscope modules are for --server only"),
    ("explainer.pyroscope.client", "the Pyroscope modules are for --server only"),
    ("explainer.readers.flamegraph", "the flame-graph JSON reader is for JSON input only"),
    ("explainer.analysis.tree", "the call tree is the flame graph's (explainer.analysis is a lazy face)"),
    ("google.protobuf.descriptor_pb2", "the pprof schema is written as bytes, not built from descriptor messages"),
    ("ctypes.util", "only demangling a C++ name needs it (and it pulls subprocess and tempfile)"),
    ("importlib.resources", "package data is read with pkgutil.get_data (resources pulls tempfile, zipfile)"),
    ("tempfile", "nothing is written"),
    ("shutil", "argparse's formatter asks os for the width"),
    ("pathlib", "paths are os.path strings (pathlib pulls urllib.parse and ipaddress)"),
    ("streamlit", "the UI"),
    ("openai", "the model path"),
    ("tiktoken", "the model path"),
    ("pandas", "the UI"),
    ("explainer.explain", "questions are for ask and chat"),
    ("explainer.ui", "the UI"),
)
NOT_FOR_A_FILE_PREFIXES = ("langchain", "mcp")


def fresh_interpreter(probe: str, environ: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -c PROBE`` without ``site`` (the editable install's finder imports pathlib and re
    before explainer runs), with the repository and this environment's packages on the path: the
    modules it ends with are the ones explainer imported, as in a regular install."""
    paths = dict.fromkeys([str(REPO), sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    env = {**(os.environ if environ is None else environ), "PYTHONPATH": os.pathsep.join(paths)}
    return subprocess.run(
        [sys.executable, "-S", "-c", probe], capture_output=True, text=True, check=True, timeout=120, env=env
    )


def imported_by(argv: list[str], environ: dict[str, str] | None = None) -> tuple[int, str, set[str]]:
    """Run the ``explainer ARGV`` program in a fresh interpreter: its exit code, its output and
    the modules it had imported when it finished."""
    probe = (
        "import contextlib, io, json, sys\n"
        "from explainer.cli.main import run\n"
        f"sys.argv = ['explainer', *{argv!r}]\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        "    try:\n"
        "        code = run()\n"
        "    except SystemExit as exc:  # --help\n"
        "        code = exc.code\n"
        "sys.stderr.write(json.dumps({'code': code, 'out': out.getvalue(), 'modules': sorted(sys.modules)}))\n"
    )
    report = json.loads(fresh_interpreter(probe, environ).stderr.strip().splitlines()[-1])
    return report["code"], report["out"], set(report["modules"])


def test_analyze_on_a_file_imports_only_what_reading_a_file_needs() -> None:
    code, out, modules = imported_by(["analyze", str(DEMO), "--format", "json"])
    assert code == 0 and json.loads(out)["total"] == 74_700_000_000
    assert {"numpy", "explainer.readers.pprof", "explainer.knowledge"} <= modules  # the probe sees imports
    wrong = {name: why for name, why in NOT_FOR_A_FILE if name in modules}
    wrong |= {m: "UI, model or assistant libraries" for m in modules if m.startswith(NOT_FOR_A_FILE_PREFIXES)}
    assert wrong == {}


def test_text_and_markdown_formats_stay_as_light() -> None:
    for fmt in ("text", "markdown"):
        code, out, modules = imported_by(["analyze", str(DEMO), "--format", fmt])
        assert code == 0 and "GPUModelRunner._allocate_kv_cache_tensors" in out
        assert [name for name, _ in NOT_FOR_A_FILE if name in modules] == []


def test_handoff_on_a_file_imports_no_pyroscope_module() -> None:
    """The report's pods section is for --server only: a file's handoff never loads the server's client."""
    code, out, modules = imported_by(["handoff", str(DEMO), "--llm", "offline"])
    assert code == 0 and "GPUModelRunner._allocate_kv_cache_tensors" in out
    server_only = {name for name, why in NOT_FOR_A_FILE if "servers" in why or "--server" in why}
    assert sorted((server_only | {"explainer.pyroscope.cluster", "explainer.report.cluster"}) & modules) == []


def test_handoff_defines_only_its_own_records_and_analyze_none() -> None:
    """Python 3.11 builds each frozen dataclass's methods with exec (about 0.7 ms a record): a file's
    handoff answers its one query (explainer.queries.handoff) without the chat's catalogue of records
    and the dispatch over them (nor the peak finder, a server's), and analyze asks no query at all."""
    code, _, modules = imported_by(["handoff", str(DEMO), "--llm", "offline"])
    assert code == 0 and {"explainer.queries.handoff", "explainer.queries.common"} <= modules
    chat_only = {"explainer.queries.records", "explainer.queries.answering", "explainer.queries.shares"}
    assert sorted((chat_only | {"explainer.analysis.sandwich", "explainer.analysis.peak"}) & modules) == []
    code, _, modules = imported_by(["analyze", str(DEMO), "--format", "json"])
    assert code == 0 and sorted(m for m in modules if m.startswith("explainer.queries")) == []


MODEL_PATH_PREFIXES = ("langchain", "openai", "httpx", "tiktoken", "explainer.explain.llm.turn")
# a file's ask and handoff: besides the server's client, neither the cluster desk nor the flame graph's tree
NOT_FOR_A_FILES_ANSWER = (
    "requests",
    "explainer.pyroscope.query",
    "explainer.pyroscope.selector",
    "explainer.pyroscope.cluster",
    "explainer.pyroscope.client",
    "explainer.explain.cluster",
    "explainer.analysis.tree",
    "numpy.ma",
    "statistics",
    "streamlit",
    "explainer.ui",
)


def no_model_environ(tmp: str) -> dict[str, str]:
    """The environment without any model setting, and a configuration directory with no file:
    ``--llm auto`` then answers offline."""
    model_keys = ("OPENAI_", "AZURE_OPENAI_", "EXPLAINER_MODEL", "EXPLAINER_CONFIG", "EXPLAINER_CONTEXT")
    env = {k: v for k, v in os.environ.items() if not k.startswith(model_keys)}
    return {**env, "XDG_CONFIG_HOME": tmp, "HOME": tmp}


def model_or_server_modules(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.startswith(MODEL_PATH_PREFIXES) or m in NOT_FOR_A_FILES_ANSWER)


@pytest.mark.parametrize("llm", [["--llm", "offline"], []])  # offline, and auto with no model configured
def test_ask_on_a_file_imports_no_model_path_and_no_pyroscope_module(llm: list[str], tmp_path: Path) -> None:
    argv = ["ask", str(DEMO), "What uses the most GPU memory?", *llm]
    code, out, modules = imported_by(argv, no_model_environ(str(tmp_path)))
    assert code == 0 and "_allocate_kv_cache_tensors" in out
    assert "explainer.explain.conversation" in modules  # the probe sees the offline explainer
    assert model_or_server_modules(modules) == []


# (module, why a file's ask must not import it): issue 27, ask at most 1.08x analyze
NOT_FOR_A_QUESTION = (
    ("explainer.explain.question.lexicon_build", "the index writer is the tool's (make lexicon), never a question's"),
    ("importlib.resources", "package data is read with pkgutil.get_data (resources pulls tempfile, shutil, zipfile)"),
    ("tempfile", "nothing is written"),
    ("shutil", "nothing is copied"),
    ("zipfile", "package data is read with pkgutil.get_data"),
    ("bz2", "only importlib.resources' zip support pulls it"),
    ("lzma", "only importlib.resources' zip support pulls it"),
    ("random", "only tempfile pulls it"),
    ("explainer.analysis.diff", "a comparison needs a baseline: the diff's types are type-only imports"),
    ("explainer.analysis.sandwich", "only a question about one function's callers or callees builds a sandwich"),
)


@pytest.mark.parametrize("question", ["What uses the most GPU memory?", "hoeveel geheugen gebruikt de kv cache?"])
def test_ask_on_a_file_reads_the_question_without_building_anything_from_source(question: str, tmp_path: Path) -> None:
    code, out, modules = imported_by(["ask", str(DEMO), question, "--llm", "offline"], no_model_environ(str(tmp_path)))
    assert code == 0 and "explainer.explain.question.lexicon" in modules and out.strip()
    assert {name: why for name, why in NOT_FOR_A_QUESTION if name in modules} == {}


def test_a_pod_question_on_a_file_is_answered_without_the_pyroscope_modules(tmp_path: Path) -> None:
    argv = ["ask", str(DEMO), "Which pod uses the most memory?", "--llm", "offline"]
    code, out, modules = imported_by(argv, no_model_environ(str(tmp_path)))
    assert code == 0 and "A profile file has no pods" in out and "--server URL" in out
    assert model_or_server_modules(modules) == []


@pytest.mark.parametrize("llm", [["--llm", "offline"], []])
def test_handoff_on_a_file_imports_no_model_path(llm: list[str], tmp_path: Path) -> None:
    code, out, modules = imported_by(["handoff", str(DEMO), *llm], no_model_environ(str(tmp_path)))
    assert code == 0 and "GPUModelRunner._allocate_kv_cache_tensors" in out
    assert model_or_server_modules(modules) == []
    if llm:  # offline: not even the model's settings and link rules, nor the writers (stdout, no -o)
        assert {"explainer.explain.llm.settings", "explainer.explain.safety", "explainer.writers"} & modules == set()


def test_help_imports_no_verb_no_numpy_and_no_protobuf() -> None:
    code, out, modules = imported_by(["--help"])
    assert code == 0 and "analyze" in out and "handoff" in out
    heavy = {
        "numpy",
        "google.protobuf",
        "explainer.model",
        "explainer.cli.analyze",
        "explainer.cli.ask",
        "shutil",
        "pathlib",
    }
    assert heavy & modules == set()


def test_a_verbs_help_imports_that_verb_only() -> None:
    code, out, modules = imported_by(["analyze", "--help"])
    assert code == 0 and "--format" in out
    assert "explainer.cli.analyze" in modules
    assert {"explainer.cli.ask", "explainer.cli.handoff", "requests", "explainer.pyroscope.query"} & modules == set()


def test_the_program_freezes_its_imports_and_in_process_callers_keep_their_collector() -> None:
    probe = (
        "import contextlib, gc, io, sys\n"
        "from explainer.cli.main import main, run\n"
        f"argv = ['analyze', {str(DEMO)!r}, '--format', 'json']\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(argv)\n"
        "    print_after_main = (gc.isenabled(), gc.get_freeze_count())\n"
        "    sys.argv = ['explainer', *argv]\n"
        "    run()\n"
        "print(*print_after_main, gc.isenabled(), gc.get_freeze_count() > 0)\n"
    )
    assert fresh_interpreter(probe).stdout.split() == ["True", "0", "True", "True"]


@pytest.mark.skipif(not os.path.isdir("/proc/self/task") or (os.cpu_count() or 1) < 2, reason="Linux, 2+ cores")
def test_the_program_starts_no_blas_threads_for_a_file() -> None:
    # OpenBLAS starts a thread per core when numpy loads unless told otherwise before that
    probe = (
        "import contextlib, io, os, sys\n"
        "from explainer.cli.main import run\n"
        f"sys.argv = ['explainer', 'analyze', {str(DEMO)!r}]\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    code = run()\n"
        "print(code, len(os.listdir('/proc/self/task')), 'numpy' in sys.modules)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=env)
    assert result.stdout.split() == ["0", "1", "True"]


def test_the_pprof_schema_bytes_are_what_descriptor_pb2_would_build() -> None:
    from google.protobuf import descriptor_pb2

    from explainer.readers import pprof_schema

    field = descriptor_pb2.FieldDescriptorProto
    kinds = {"m": field.TYPE_MESSAGE, "b": field.TYPE_BYTES, "i": field.TYPE_INT64, "u": field.TYPE_UINT64}
    kinds["t"] = field.TYPE_BOOL
    package = "explainer.pprof"
    expected = descriptor_pb2.FileDescriptorProto(name="explainer_pprof.proto", package=package, syntax="proto3")
    for message, fields in pprof_schema.SCHEMA.items():
        m = expected.message_type.add(name=message)
        for name, number, kind, repeated, type_name in fields:
            f = m.field.add(name=name, number=number, type=kinds[kind])
            f.label = field.LABEL_REPEATED if repeated else field.LABEL_OPTIONAL
            if type_name:
                f.type_name = f".{package}.{type_name}"
    assert pprof_schema.file_descriptor() == expected.SerializeToString()
    assert descriptor_pb2.FileDescriptorProto.FromString(pprof_schema.file_descriptor()) == expected


def test_the_lazy_analysis_face_exports_every_name_it_lists() -> None:
    import importlib

    import explainer.analysis as face

    assert sorted(face.__all__) == sorted(face._WHERE)
    for name in face.__all__:
        module = importlib.import_module(f"explainer.analysis.{face._WHERE[name]}")
        assert getattr(face, name) is getattr(module, name)


# What the warm-up (explainer/cli/warmup.py) imports on the second core while the profile is read: a verb's
# module must not import it itself, or it is imported before the read and the overlap is lost unnoticed.
# (explainer.symbols is not among them: handoff's diff options come from explainer.analysis.diff, which needs it.)
AFTER_THE_READ = ("explainer.report", "explainer.knowledge", "explainer.explain", "explainer.reading")


@pytest.mark.parametrize("verb", ["analyze", "handoff", "ask"])
def test_a_verbs_module_leaves_the_report_and_knowledge_to_the_warmup(verb: str) -> None:
    probe = f"import json, sys\nimport explainer.cli.{verb}\nsys.stderr.write(json.dumps(sorted(sys.modules)))\n"
    modules = json.loads(fresh_interpreter(probe).stderr.strip().splitlines()[-1])
    early = [m for m in modules if m.startswith(AFTER_THE_READ)]
    assert early == [], f"explainer.cli.{verb} imports {early[:5]} before the read (see explainer.cli.warmup)"
    assert "explainer.readers" in modules  # the read's own modules are imported before it
