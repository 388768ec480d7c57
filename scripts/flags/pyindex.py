"""A static index of a Python release's sources: parsed modules, name resolution through imports.

Shared by the flag extractors (:mod:`scripts.flags.vllm`, :mod:`scripts.flags.sglang`); nothing of the
release is imported or run. All names here are public.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

__all__ = ["SourceIndex", "is_name", "last_name", "slice_items", "subscript_base", "top_level"]


class SourceIndex:
    """Parsed modules of a release, with name resolution through imports."""

    def __init__(self, sources: dict[str, str]) -> None:
        """Keep ``{"vllm/a/b.py": text}``; modules are parsed on first use."""
        self.sources = sources
        self._trees: dict[str, ast.Module | None] = {}

    def path(self, module: str) -> str | None:
        """Return the file path of a dotted module name, if it is in the release."""
        base = module.replace(".", "/")
        for candidate in (f"{base}.py", f"{base}/__init__.py"):
            if candidate in self.sources:
                return candidate
        return None

    def tree(self, module: str) -> ast.Module | None:
        """Return the parsed AST of ``module`` (None when it is not in the release)."""
        if module not in self._trees:
            path = self.path(module)
            self._trees[module] = ast.parse(self.sources[path]) if path else None
        return self._trees[module]

    def absolute(self, module: str, node: ast.ImportFrom) -> str:
        """Resolve the (possibly relative) module of a ``from ... import``."""
        if not node.level:
            return node.module or ""
        path = self.path(module) or ""
        package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
        for _ in range(node.level - 1):
            package = package.rpartition(".")[0]
        return f"{package}.{node.module}" if node.module else package

    def definitions(self, module: str, name: str, seen: frozenset = frozenset()) -> list:
        """Return ``(module, node)`` pairs defining ``name`` at module level.

        ``node`` is a ClassDef/FunctionDef or the assigned expression. Imports
        are followed, including those under ``if TYPE_CHECKING:``.
        """
        tree = self.tree(module)
        if tree is None or (module, name) in seen:
            return []
        found: list = []
        for stmt in top_level(tree.body):
            found.extend(self._defs_in(module, stmt, name, seen | {(module, name)}))
        return found

    def _defs_in(self, module: str, stmt: ast.stmt, name: str, seen: frozenset) -> list:
        """Definitions of ``name`` made by one top-level statement."""
        if isinstance(stmt, (ast.ClassDef, ast.FunctionDef)) and stmt.name == name:
            return [(module, stmt)]
        if isinstance(stmt, ast.Assign) and any(is_name(t, name) for t in stmt.targets):
            return [(module, stmt.value)]
        if isinstance(stmt, ast.AnnAssign) and is_name(stmt.target, name) and stmt.value:
            return [(module, stmt.value)]
        if isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                if (alias.asname or alias.name) == name:
                    return self.definitions(self.absolute(module, stmt), alias.name, seen)
        return []

    def find_class(self, module: str, name: str) -> tuple[str, ast.ClassDef] | None:
        """Return the class called ``name`` as seen from ``module``."""
        for where, node in self.definitions(module, name):
            if isinstance(node, ast.ClassDef):
                return where, node
        return None

    def find_function(self, module: str, name: str) -> ast.FunctionDef:
        """Return the module-level function ``name`` of ``module``."""
        for where, node in self.definitions(module, name):
            if isinstance(node, ast.FunctionDef) and where == module:
                return node
        raise SystemExit(f"{module}.{name} not found: vLLM's layout changed")

    def mro(self, module: str, cls: ast.ClassDef) -> list[tuple[str, ast.ClassDef]]:
        """Return the class and its resolvable bases, most derived first."""
        chain = [(module, cls)]
        for base in cls.bases:
            found = self.find_class(module, last_name(base) or "")
            if found:
                chain.extend(self.mro(*found))
        return chain

    def method(self, module: str, cls: ast.ClassDef, name: str) -> tuple[str, ast.FunctionDef] | None:
        """Return the first definition of method ``name`` along the class chain."""
        for where, klass in self.mro(module, cls):
            for stmt in klass.body:
                if isinstance(stmt, ast.FunctionDef) and stmt.name == name:
                    return where, stmt
        return None

    def fields(self, module: str, cls: ast.ClassDef) -> dict[str, tuple[str, ast.expr]]:
        """Return dataclass fields ``{name: (module, annotation)}``, bases first."""
        out: dict[str, tuple[str, ast.expr]] = {}
        for where, klass in reversed(self.mro(module, cls)):
            for stmt in klass.body:
                if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                    if last_name(subscript_base(stmt.annotation)) not in {"ClassVar", "InitVar"}:
                        out[stmt.target.id] = (where, stmt.annotation)
        return out


def top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Yield module-level statements, descending into ``if``/``try`` blocks."""
    for stmt in body:
        if isinstance(stmt, ast.If):
            yield from top_level(stmt.body + stmt.orelse)
        elif isinstance(stmt, ast.Try):
            yield from top_level(stmt.body + stmt.orelse + stmt.finalbody)
            for handler in stmt.handlers:
                yield from top_level(handler.body)
        else:
            yield stmt


def is_name(node: ast.AST, name: str) -> bool:
    """True if ``node`` is the bare name ``name``."""
    return isinstance(node, ast.Name) and node.id == name


def last_name(node: ast.AST | None) -> str | None:
    """Return ``c`` for ``a.b.c`` or ``c``; None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def subscript_base(node: ast.expr) -> ast.expr:
    """Return ``X`` for ``X[...]``, else the node itself."""
    return node.value if isinstance(node, ast.Subscript) else node


def slice_items(node: ast.Subscript) -> list[ast.expr]:
    """Return the items of ``X[a, b]`` as a list."""
    return list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]


# --- annotations -----------------------------------------------------------
