"""The catalog as it was at a git revision (``git show``, no checkout), for ``diff``."""

from __future__ import annotations

import subprocess
from pathlib import Path

from sizing import safeio
from sizing.catalog.loader import FILES, Catalog, catalog_from_texts, fill_assumptions
from sizing.errors import CatalogError, UsageError

FILLED: dict[str, list[str]] = {}
"""Per revision read by :func:`catalog_at`: assumptions it lacked, taken at their current values."""


def git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``git -C root args`` and capture its output."""
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=False, timeout=60
    )


def repo_of(catalog_dir: Path) -> tuple[Path, str]:
    """(repository root, catalog folder relative to it) of ``catalog_dir``."""
    out = git(catalog_dir, "rev-parse", "--show-toplevel")
    if out.returncode != 0:
        raise UsageError(f"{catalog_dir} is not inside a git repository")
    root = Path(out.stdout.strip())
    return root, catalog_dir.resolve().relative_to(root.resolve()).as_posix()


def catalog_at(catalog_dir: Path, rev: str, current: Catalog | None = None) -> Catalog:
    """The catalog as it was at git revision ``rev`` (``git show REV:catalog/<file>.yaml``).

    With ``current``, assumptions added since ``rev`` are filled from it; their keys are in
    ``FILLED[rev]`` for the report.
    """
    root, rel = repo_of(catalog_dir)
    if git(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").returncode != 0:
        raise UsageError(f"unknown revision {rev!r}")
    texts = {}
    for stem in FILES:
        if int(git(root, "cat-file", "-s", f"{rev}:{rel}/{stem}.yaml").stdout or 0) > safeio.MAX_YAML_BYTES:
            raise UsageError(f"{rev}: {rel}/{stem}.yaml is larger than {safeio.MAX_YAML_BYTES} bytes")
        shown = git(root, "show", f"{rev}:{rel}/{stem}.yaml")
        if shown.returncode != 0:
            raise UsageError(f"{rev}: {rel}/{stem}.yaml does not exist at this revision")
        texts[stem] = shown.stdout
    try:
        if current is not None:
            texts, FILLED[rev] = fill_assumptions(texts, current)
        return catalog_from_texts(texts)
    except CatalogError as exc:
        raise UsageError(f"{rev}: {exc}") from None
