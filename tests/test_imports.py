"""The package's layers, read from the source: no import cycle, no import from a lower layer into a higher one.

GIVEN every module of ``explainer/`` parsed with ``ast`` (imports inside functions count: a lazy
import is still a dependency; imports under ``if TYPE_CHECKING:`` do not run and are left out),
THEN the module graph has no cycle, and every import goes to the same package or to a layer above
in :data:`LAYERS`, the order ``docs/architecture.md`` gives (a test below keeps the two in step).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "explainer"

# The rows of docs/architecture.md's layer table, top first: a module may import its own layer and
# any layer above it, never one below.
LAYERS: tuple[tuple[str, ...], ...] = (
    # `explainer`: the version
    ("explainer", "explainer.errors", "explainer.units", "explainer.lazy", "explainer.lazyre"),
    ("explainer.model",),
    ("explainer.symbols", "explainer.markdown"),
    ("explainer.names",),
    ("explainer.analysis",),
    ("explainer.readers", "explainer.writers", "explainer.demo"),
    ("explainer.knowledge",),
    ("explainer.reading",),
    ("explainer.queries",),
    ("explainer.pyroscope",),
    ("explainer.explain",),
    ("explainer.evaluation",),
    ("explainer.report",),
    ("explainer.mcp_server",),
    ("explainer.ui",),
    ("explainer.cli",),
    ("explainer.__main__",),  # the program entry
)


@cache
def modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _type_checking(node):
            yield from (n for branch in node.orelse for n in [branch, *_runtime_nodes(branch)])
            continue
        yield node
        yield from _runtime_nodes(node)


def _known(name: str) -> str | None:
    """The module ``name`` is, or is inside (``explainer.units.format_value`` -> ``explainer.units``)."""
    while name and name not in modules():
        name = name.rpartition(".")[0]
    return name or None


@cache
def imports(module: str) -> frozenset[str]:
    """The explainer modules ``module`` imports when it runs."""
    path = modules()[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*parts, base] if base else parts)
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules() else base for a in node.names]
        for name in names:
            target = _known(name)
            if target is not None and target != module:
                found.add(target)
    return frozenset(found)


def layer_of(module: str) -> tuple[int, str]:
    """(rank, the package it belongs to) by the longest matching entry of :data:`LAYERS`."""
    best: tuple[int, str] | None = None
    for rank, row in enumerate(LAYERS):
        for entry in row:
            if (module == entry or module.startswith(entry + ".")) and (best is None or len(entry) > len(best[1])):
                best = (rank, entry)
    assert best is not None, f"{module} is in no layer: add it to LAYERS (and to docs/architecture.md)"
    return best


def cycles() -> list[list[str]]:
    """The graph's strongly connected components with more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(modules()):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(imports(start))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(imports(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_reader_sees_the_imports_that_run() -> None:
    assert "explainer.explain.checks.names" in imports("explainer.explain.checks.grounding")
    assert "explainer.pyroscope.source" in imports("explainer.cli.server_args")  # inside a function
    assert "explainer.pyroscope.client" not in imports("explainer.cli.server_args")  # only under TYPE_CHECKING
    assert "explainer.units" in imports("explainer.explain.answers.writer")  # from explainer import units


def test_no_import_cycles() -> None:
    assert cycles() == []


def test_no_import_from_a_lower_layer_into_a_higher_one() -> None:
    upward = []
    for module in sorted(modules()):
        rank = layer_of(module)[0]
        upward += [f"{module} -> {target}" for target in sorted(imports(module)) if layer_of(target)[0] > rank]
    assert upward == []


def test_the_layers_are_the_ones_the_architecture_names() -> None:
    """Every package in LAYERS is in docs/architecture.md's layer table, in the same order."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = "\n".join(line for line in text.split("## ", 1)[0].splitlines() if line.startswith("| "))
    named = [m.replace("/", ".").removesuffix(".py") for m in re.findall(r"`(explainer/[\w/]*?)/?(?:\.py)?`", table)]
    order = [p for p in named if layer_of(p)[1] == p]
    ranks = [layer_of(p)[0] for p in order]
    assert ranks == sorted(ranks), order
    listed = {layer_of(p)[1] for p in named}
    missing = [p for row in LAYERS[1:] for p in row if p not in listed and p != "explainer.__main__"]
    assert missing == []
