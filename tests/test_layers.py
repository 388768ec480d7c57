"""The layers of ``sizing/`` import one way: catalog -> engine -> launch -> views -> render -> review -> site.

Read from the source with ``ast`` (imports inside functions count too). The foundations (``BASE``, importing
only each other) may be used by every layer; the command line (``ENTRY``) sits on top.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "sizing"
RANK = {
    "base": 0,
    "catalog": 1,
    "engine": 2,
    "launch": 3,
    "views": 4,
    "render": 5,
    "review": 6,
    "site": 7,
    "entry": 8,
}
"""A module may import modules of its own rank or below, never above."""
BASE = {"sizing", "sizing.errors", "sizing.safeio", "sizing.units", "sizing.kvdtypes", "sizing.flaglists"}
"""Foundations any layer may use, importing only each other: errors, the bounded file reader
(``safeio``), units, the KV dtypes and the reader of the committed vLLM/SGLang flag lists (``flaglists``)."""
ENTRY = {
    "sizing.cli",
    "sizing.__main__",
    "sizing.cli_tables",
    "sizing.cli_types",
    "sizing.cli_review",
    "sizing.completion",
    "sizing.cli_throughput",
}
"""The command line and its own modules (terminal tables, value types, review and throughput commands,
shell completion)."""
FORBIDDEN = {"render": {"engine", "review", "site"}, "views": {"render", "review", "site"}}
"""Besides the ranks: renderers call no engine code, views produce no words."""


def module_name(path: Path) -> str:
    """``sizing/engine/memory.py`` -> ``sizing.engine.memory`` (a package's ``__init__`` is the package)."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> str:
    """The layer of a ``sizing`` module."""
    if module in BASE:
        return "base"
    if module in ENTRY:
        return "entry"
    return module.split(".")[1]


def sizing_imports(path: Path) -> set[str]:
    """The ``sizing`` modules that ``path`` imports (``from sizing.x import y`` counts ``sizing.x.y`` if a
    module)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("sizing")}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sizing"):
            module = str(node.module)
            subs = {f"{module}.{alias.name}" for alias in node.names}
            found |= {s for s in subs if s in MODULES} or {module}
    return found


FILES = sorted(PACKAGE.rglob("*.py"))
MODULES = {module_name(p) for p in FILES}
GRAPH = {module_name(p): sizing_imports(p) - {module_name(p)} for p in FILES}


def test_every_module_has_a_known_layer() -> None:
    """Assert each module sits in a layer folder, or is a named foundation or entry point."""
    assert {layer(m) for m in MODULES} <= set(RANK)
    assert all(module.count(".") == 1 for module in (BASE | ENTRY) - {"sizing"}), "no layer module is named"


@pytest.mark.parametrize("module", sorted(BASE & MODULES))
def test_foundations_import_nothing_from_sizing(module: str) -> None:
    """Assert a foundation imports only other foundations, so any layer may use it."""
    assert GRAPH[module] <= BASE
    assert {"sizing.engine.memory", "sizing.render.charts", "sizing.site.context"} <= MODULES


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_no_upward_or_forbidden_import(module: str) -> None:
    """Assert a module imports nothing from a higher layer, and renderers/views nothing they must not."""
    mine = layer(module)
    upward = sorted(i for i in GRAPH[module] if RANK[layer(i)] > RANK[mine])
    forbidden = sorted(i for i in GRAPH[module] if layer(i) in FORBIDDEN.get(mine, set()))
    assert upward == [] and forbidden == []


def test_no_import_cycle() -> None:
    """Assert the module import graph is acyclic (depth-first search, reporting one cycle)."""
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> list[str]:
        state[node] = 1
        for nxt in sorted(GRAPH.get(node, ())):
            if state.get(nxt) == 1:
                return [*trail, node, nxt]
            if nxt not in state and (cycle := visit(nxt, [*trail, node])):
                return cycle
        state[node] = 2
        return []

    cycles = [c for m in sorted(GRAPH) if m not in state and (c := visit(m, []))]
    assert cycles == []


def _uses(path: Path, names: set[str]) -> list[str]:
    """The ``os.environ``/``os.getenv``-style attributes and imported modules of ``names`` used in
    ``path``."""
    hits = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            dotted = f"{node.value.id}.{node.attr}"
            hits += [dotted] if dotted in names else []
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            module = node.module if isinstance(node, ast.ImportFrom) else None
            imported = [module] if module else [a.name for a in node.names]
            if module:
                imported += [f"{module}.{alias.name}" for alias in node.names]
            hits += [m for m in imported if m in names]
    return hits


@pytest.mark.parametrize(
    "path", [p for p in FILES if layer(module_name(p)) not in ("site", "entry")], ids=lambda p: module_name(p)
)
def test_only_the_site_reads_the_environment_or_pickles(path: Path) -> None:
    """Assert no module below sizing/site/ reads environment variables or unpickles."""
    assert _uses(path, {"os.environ", "os.getenv", "os.putenv", "pickle"}) == []


@pytest.mark.parametrize(
    "source",
    [
        "from os import environ\nx = environ['HOME']\n",
        "import os\nos.getenv('X')\n",
        "from os import getenv as g\n",
        "from pickle import loads\n",
    ],
)
def test_the_environment_check_sees_every_spelling(tmp_path: Path, source: str) -> None:
    """Assert ``from os import environ`` and the like are caught, not only ``os.environ``."""
    path = tmp_path / "module.py"
    path.write_text(source, encoding="utf-8")
    assert _uses(path, {"os.environ", "os.getenv", "os.putenv", "pickle"}) != []
