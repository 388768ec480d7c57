"""``python -m sizing export``: the committed snapshots of every published table in ``generated/``.

One English Markdown snapshot per published table (the rows and columns the site shows, one row per
line, unpadded cells) and ``fits.csv`` (the whole matrix, one row per stable id). ``export --check``
exits 1 with a unified diff when they are stale.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

from sizing import safeio
from sizing.catalog.loader import Catalog, display_path
from sizing.errors import CatalogError, UsageError
from sizing.render.table_specs import TableSpec, table_specs
from sizing.render.tables import to_markdown_en
from sizing.review.downloads import matrix_csv
from sizing.views.bundle import SiteContext, build_context

BANNER = "<!-- generated — do not edit; run `python -m sizing export` -->"
FIX = "python -m sizing export"
DIFF_LINES = 200

README = f"""{BANNER}

# generated/

Snapshots of every table the site publishes, computed from `catalog/` by `sizing/`: one Markdown
file per table (English headers, one row per line) and `fits.csv`, the whole matrix with a stable
row id. They exist so that a pull request shows what a catalog or engine change does to the
published numbers. Never edit them by hand: run `{FIX}`; `{FIX} --check` fails when they are stale.
"""


def snapshot_markdown(spec: TableSpec, ctx: SiteContext) -> str:
    """One table's snapshot: banner, its id as title, the English table and its note."""
    return f"{BANNER}\n\n# {spec.id}\n\n{to_markdown_en(spec, ctx)}"


def snapshot_files(ctx: SiteContext) -> dict[str, str]:
    """Every file of ``generated/`` by name, with its content."""
    files = {"README.md": README, "fits.csv": matrix_csv(ctx)}
    files.update({f"{spec.id}.md": snapshot_markdown(spec, ctx) for spec in table_specs(ctx).values()})
    return files


def _snapshot_text(path: Path, expected: bool) -> str | None:
    """The text of ``path`` if it is ours (a name ``export`` writes, or Markdown starting with :data:`BANNER`:
    a table since removed), else None (``.DS_Store``, notes). Read by :func:`sizing.safeio.read_bytes`."""
    if not expected and path.suffix != ".md":
        return None
    try:
        data = safeio.read_bytes(path, display_path(path))
    except CatalogError:
        if expected:
            raise
        return None
    ours = expected or data.startswith(BANNER.encode("utf-8"))
    return data.decode("utf-8", errors="replace") if ours else None


def stale_files(out_dir: Path, files: dict[str, str]) -> dict[str, tuple[str, str]]:
    """``{name: (on disk, expected)}`` of each snapshot that differs, is missing or extra (others ignored)."""
    entries = sorted(out_dir.iterdir()) if out_dir.is_dir() else []
    present = {p.name: text for p in entries if (text := _snapshot_text(p, p.name in files)) is not None}
    names = sorted(set(present) | set(files))
    return {n: (present.get(n, ""), files.get(n, "")) for n in names if present.get(n) != files.get(n)}


def file_diff(name: str, old: str, new: str, folder: str) -> str:
    """A unified diff of one snapshot, cut to :data:`DIFF_LINES` lines."""
    lines = list(
        difflib.unified_diff(
            old.splitlines(keepends=True),
            new.splitlines(keepends=True),
            f"a/{folder}/{name}",
            f"b/{folder}/{name}",
        )
    )
    more = [f"... {len(lines) - DIFF_LINES} more diff lines\n"] if len(lines) > DIFF_LINES else []
    cut = lines[:DIFF_LINES] + more
    return "".join(line if line.endswith("\n") else line + "\n" for line in cut)


def write_snapshots(out_dir: Path, files: dict[str, str]) -> list[str]:
    """Make ``out_dir`` hold exactly ``files`` among its snapshots (other files are left alone); return the
    names written or removed. The caller checked :func:`owns_folder`."""
    out_dir.mkdir(parents=True, exist_ok=True)
    changed = stale_files(out_dir, files)
    for name in changed:
        path = out_dir / name
        if name in files:
            safeio.write_atomic(path, files[name])
        else:
            path.unlink()
    return list(changed)


def cmd_export(ns: argparse.Namespace, cat: Catalog) -> int:
    """``export``: write generated/; with ``--check`` print the diff and exit 1 when it is stale."""
    out_dir = Path(ns.out) if ns.out else Path(ns.catalog).resolve().parent / "generated"
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"--out {out_dir}: exists and is not a folder; give a folder (created if missing)")
    if not ns.check and not safeio.may_write_into(out_dir, lambda d: _snapshot_text(d / "README.md", False)):
        raise UsageError(
            f"--out {out_dir}: holds files `export` did not write (no README.md of its "
            "own); give a new or empty folder, or one `export` wrote. Nothing was changed."
        )
    files = snapshot_files(build_context(cat, Path(ns.catalog)))
    if not ns.check:
        changed = write_snapshots(out_dir, files)
        print(f"{out_dir}: {len(changed)} file(s) updated" if changed else f"{out_dir}: up to date")
        return 0
    stale = stale_files(out_dir, files)
    for name, (old, new) in stale.items():
        sys.stdout.write(file_diff(name, old, new, out_dir.name))
    if stale:
        print(
            f"\n{out_dir} is stale: {len(stale)} file(s) differ from the catalog. "
            f"Run `{FIX}` and commit the result."
        )
        return 1
    print(f"{out_dir} is up to date")
    return 0
