"""The layers of ``sizing/`` import one way: catalog -> engine -> launch -> views -> render -> review -> site.

Read from the source with ``ast`` (imports inside functions count too). The rule is structural, with no
module named: a module in a folder ``sizing/<layer>/`` belongs to that layer; a top-level module
``sizing/<name>.py`` is a foundation when it imports only foundations (any layer may use it: errors,
units, the bounded reader…), and an entry point of the command line otherwise (it sits on top, and no
layer imports it). Besides: no module over :data:`MAX_LINES` lines, and no pandas in ``sizing/render/``.
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
MAX_LINES = 500
"""The longest a module may be: a longer one is split by what it does."""
FORBIDDEN = {"render": {"engine", "review", "site"}, "views": {"render", "review", "site"}}
"""Besides the ranks: renderers call no engine code, views produce no words."""


def module_name(path: Path) -> str:
    """``sizing/engine/memory.py`` -> ``sizing.engine.memory`` (a package's ``__init__`` is the package)."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> str:
    """The layer of a ``sizing`` module: its folder's, or ``base``/``entry`` for a top-level module."""
    if module in BASE:
        return "base"
    if module in ENTRY:
        return "entry"
    return module.split(".")[1]


def foundations(top: set[str], graph: dict[str, set[str]]) -> set[str]:
    """The top-level modules that import only each other: the largest such set of ``top`` (drop any that
    imports a module outside the set until none does)."""
    found = set(top)
    while dropped := {m for m in found if not graph[m] <= found}:
        found -= dropped
    return found


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
TOP = {module_name(p) for p in FILES if p.parent == PACKAGE}
"""``sizing`` itself and the modules ``sizing/<name>.py`` (the layers are folders)."""
BASE = foundations(TOP, GRAPH)
ENTRY = TOP - BASE


def test_every_module_has_a_known_layer() -> None:
    """Assert each module sits in a layer folder, or at the top as a foundation or an entry point."""
    assert {layer(m) for m in MODULES} <= set(RANK)
    assert {"sizing.engine.memory", "sizing.render.charts", "sizing.site.context"} <= MODULES


def test_foundations_and_entry_points_are_told_by_their_imports() -> None:
    """Assert the structural split finds the shared foundations and the command line where they are: a
    foundation imports only foundations, an entry point some layer."""
    assert {"sizing", "sizing.errors", "sizing.safeio", "sizing.units", "sizing.kvdtypes"} <= BASE
    assert {"sizing.cli", "sizing.__main__", "sizing.cli_types", "sizing.cli_tables"} <= ENTRY
    assert all(GRAPH[m] <= BASE for m in BASE) and all(not GRAPH[m] <= BASE for m in ENTRY)
    assert foundations({"a", "b", "c"}, {"a": set(), "b": {"a"}, "c": {"b", "x.y"}}) == {"a", "b"}


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


@pytest.mark.parametrize("path", FILES, ids=lambda p: module_name(p))
def test_no_module_is_over_the_line_limit(path: Path) -> None:
    """Assert every module of ``sizing/`` is at most :data:`MAX_LINES` lines (split a longer one)."""
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{module_name(path)}: {lines} lines"


FRAME_CALLS = {"iloc", "loc", "iterrows", "itertuples", "groupby", "drop_duplicates", "attrs", "to_frame"}
"""DataFrame/Series methods: renderers get rows (:mod:`sizing.views.rows`), never a frame."""


def frame_uses(path: Path) -> list[str]:
    """The pandas (or NumPy) imports and DataFrame/Series method uses (:data:`FRAME_CALLS`) in ``path``."""
    hits = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            hits += [a.name for a in node.names if a.name.split(".")[0] in ("pandas", "numpy")]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in ("pandas", "numpy"):
            hits.append(str(node.module))
        elif isinstance(node, ast.Attribute) and node.attr in FRAME_CALLS:
            hits.append(f".{node.attr}")
    return hits


@pytest.mark.parametrize("path", sorted((PACKAGE / "render").glob("*.py")), ids=lambda p: module_name(p))
def test_renderers_handle_no_dataframe(path: Path) -> None:
    """Assert no renderer imports pandas or NumPy or calls DataFrame methods: views build the rows."""
    assert frame_uses(path) == []


def test_the_frame_check_sees_imports_and_methods(tmp_path: Path) -> None:
    """Assert ``import pandas as pd``, ``from pandas import DataFrame`` and ``.iloc`` are all caught."""
    path = tmp_path / "module.py"
    path.write_text(
        "import pandas as pd\nfrom pandas import DataFrame\nrow = rows.iloc[0]\n", encoding="utf-8"
    )
    assert frame_uses(path) == ["pandas", "pandas", ".iloc"]
