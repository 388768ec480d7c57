"""Reviewable table changes: committed snapshots (``export``), catalog diffs (``diff``), site downloads.

``python -m sizing export`` writes ``generated/``: one English Markdown snapshot per published table
(the rows and columns the site shows, one row per line, unpadded cells) and ``fits.csv`` (the whole
matrix, one row per stable id). ``export --check`` exits 1 with a unified diff when they are stale.

``python -m sizing diff REV [REV2]`` evaluates ``catalog/`` as it was at two git revisions (read
with ``git show``, no checkout; REV2 defaults to the working tree) with the current engine, and
prints a report for a pull-request comment: verdict flips first, then per page and table the rows
added or removed and every changed cell, old → new with its relative change.

:func:`write_downloads` writes ``downloads/fits.csv`` and ``fits.json`` (the same rows and columns,
the JSON column-oriented with a string table per text column) into the built site's root.
"""

from __future__ import annotations

import argparse
import difflib
import json
import math
import re
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from sizing import safeio
from sizing.catalog.loader import FILES, Catalog, catalog_from_texts, display_path, fill_assumptions
from sizing.errors import CatalogError, UsageError
from sizing.views.bundle import SiteContext, build_context
from sizing.render.tables import NUMERIC, TableSpec, cell_words, format_cell, header, table_specs, to_markdown_en
from sizing.views.matrix import ID_COLUMNS, matrix_view

ROOT = Path(__file__).resolve().parent.parent
BANNER = "<!-- generated — do not edit; run `python -m sizing export` -->"
FIX = "python -m sizing export"
WORKING_TREE = "working tree"
DIFF_LINES = 200
MAX_CHARS = 60_000
FILLED: dict[str, list[str]] = {}
"""Per revision read by :func:`catalog_at`: assumptions it lacked, taken at their current values."""

# ---------------------------------------------------------------------------------------------
# The matrix as CSV / JSON
# ---------------------------------------------------------------------------------------------


def matrix_frame(ctx: SiteContext) -> pd.DataFrame:
    """Every matrix row (all plans) as :func:`sizing.views.matrix.matrix_view`, with a unique id, sorted by it."""
    view = matrix_view(ctx.frame, ctx.contexts)
    return view.sort_values("id", kind="stable").reset_index(drop=True)


def matrix_csv(ctx: SiteContext, with_id: bool = True) -> str:
    """The whole matrix as CSV (floats to 6 significant digits, missing values empty); the site's
    download leaves out the ``id`` column (``with_id=False``): it only joins the row's other keys."""
    frame = matrix_frame(ctx) if with_id else matrix_frame(ctx).drop(columns="id")
    return frame.to_csv(index=False, float_format="%.6g", lineterminator="\n")


def _json_value(value: Any) -> Any:
    """A JSON-safe scalar (NaN -> null, NumPy -> Python, floats to 6 significant digits, whole floats
    as integers)."""
    value = value.item() if hasattr(value, "item") else value
    if isinstance(value, float):
        if math.isnan(value):
            return None
        rounded = float(f"{value:.6g}")
        return int(rounded) if rounded.is_integer() and abs(rounded) < 1e15 else rounded
    return value


JSON_LAYOUT = ("columns: one array per column, one value per row, every array in the same row order; a column "
               "named in strings holds indices into strings[column]")
"""The layout note written into ``fits.json`` (the fit-tables page documents it in every language)."""


def column_arrays(frame: pd.DataFrame) -> tuple[dict[str, list[Any]], dict[str, list[Any]]]:
    """(columns, strings) of ``frame``: each column as a list of JSON values; every text column as
    indices into its table of distinct values (in first-seen order)."""
    columns: dict[str, list[Any]] = {}
    strings: dict[str, list[Any]] = {}
    for name in frame.columns:
        values = [_json_value(v) for v in frame[name].tolist()]
        if pd.api.types.is_string_dtype(frame[name]) or frame[name].dtype == object:
            table = {v: i for i, v in enumerate(dict.fromkeys(values))}
            strings[name], values = list(table), [table[v] for v in values]
        columns[name] = values
    return columns, strings


def matrix_json(ctx: SiteContext, revision: str) -> str:
    """The matrix as column-oriented JSON (:data:`JSON_LAYOUT`): revision, vLLM version, contexts,
    the row count, the string tables, then one line per column; the same rows and columns as the CSV."""
    columns, strings = column_arrays(matrix_frame(ctx).drop(columns="id"))
    head = {"catalog_revision": revision, "vllm_version": ctx.frame.attrs["vllm_version"],
            "vllm_rules": ctx.frame.attrs["rules"], "contexts": ctx.contexts, "layout": JSON_LAYOUT,
            "row_count": len(next(iter(columns.values()), [])), "strings": strings}

    def dump(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))

    lines = [f"{dump(name)}:{dump(values)}" for name, values in columns.items()]
    return dump(head)[:-1] + ',\n"columns":{\n' + ",\n".join(lines) + "\n}}\n"


def catalog_revision(directory: Path = ROOT) -> str:
    """``git rev-parse HEAD`` of the repository holding ``directory``, or a note when there is none."""
    try:
        out = subprocess.run(["git", "-C", str(directory), "rev-parse", "HEAD"], capture_output=True, text=True,
                             check=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return "unknown (not a git checkout)"
    return out.stdout.strip()


def download_texts(ctx: SiteContext) -> dict[str, str]:
    """The downloads' contents by file name: ``fits.csv`` and ``fits.json`` (the same for every language)."""
    return {"fits.csv": matrix_csv(ctx, with_id=False), "fits.json": matrix_json(ctx, catalog_revision(ctx.catalog_dir or ROOT))}


def write_downloads(site_lang_dirs: str | Path | list[Path], ctx: SiteContext) -> list[Path]:
    """Write ``downloads/fits.csv`` and ``downloads/fits.json`` of ``ctx`` under each language root (computed once)."""
    roots = [Path(d) for d in site_lang_dirs] if isinstance(site_lang_dirs, list) else [Path(site_lang_dirs)]
    texts, written = download_texts(ctx), []
    for root in roots:
        (root / "downloads").mkdir(parents=True, exist_ok=True)
        for name, text in texts.items():
            (root / "downloads" / name).write_text(text, encoding="utf-8")
            written.append(root / "downloads" / name)
    return written


# ---------------------------------------------------------------------------------------------
# export
# ---------------------------------------------------------------------------------------------

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
    lines = list(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                      f"a/{folder}/{name}", f"b/{folder}/{name}"))
    cut = lines[:DIFF_LINES] + ([f"... {len(lines) - DIFF_LINES} more diff lines\n"] if len(lines) > DIFF_LINES else [])
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
        raise UsageError(f"--out {out_dir}: holds files `export` did not write (no README.md of its "
                         "own); give a new or empty folder, or one `export` wrote. Nothing was changed.")
    files = snapshot_files(build_context(cat, Path(ns.catalog)))
    if not ns.check:
        changed = write_snapshots(out_dir, files)
        print(f"{out_dir}: {len(changed)} file(s) updated" if changed else f"{out_dir}: up to date")
        return 0
    stale = stale_files(out_dir, files)
    for name, (old, new) in stale.items():
        sys.stdout.write(file_diff(name, old, new, out_dir.name))
    if stale:
        print(f"\n{out_dir} is stale: {len(stale)} file(s) differ from the catalog. Run `{FIX}` and commit the result.")
        return 1
    print(f"{out_dir} is up to date")
    return 0


# ---------------------------------------------------------------------------------------------
# Catalogs at git revisions
# ---------------------------------------------------------------------------------------------


def git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``git -C root args`` and capture its output."""
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=False, timeout=60)


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


# ---------------------------------------------------------------------------------------------
# Comparing two catalogs
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CellChange:
    """One changed cell: row key, column header, shown text before and after, relative change."""

    row: str
    column: str
    old: str
    new: str
    relative: float | None


@dataclass
class TableDiff:
    """What changed in one published table."""

    table: str
    page: str
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[CellChange] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)


@dataclass
class Report:
    """The comparison of two revisions: verdict flips, then table diffs in page order."""

    base: str
    head: str
    flips: list[dict[str, Any]]
    tables: list[TableDiff]
    filled: dict[str, list[str]] = field(default_factory=dict)
    """Per revision: assumptions it lacked, evaluated at the current catalog's values."""


Cells = dict[str, dict[str, tuple[str, Any]]]


def table_cells(spec: TableSpec, ctx: SiteContext) -> Cells:
    """``{row key: {header: (English text, raw value)}}`` of one table."""
    out: Cells = {}
    heads, words = [(header(c, "en"), c) for c in spec.columns], cell_words("en")
    for row in spec.rows(ctx).to_dict("records"):
        key = " · ".join(str(row[k]) for k in spec.key)
        out[key] = {h: (format_cell(c, row, "en", words), row.get(c.id) if c.kind in NUMERIC else None)
                    for h, c in heads}
    return out


def relative_change(old: Any, new: Any) -> float | None:
    """(new − old) / |old| for two finite numbers with old ≠ 0, else None."""
    try:
        a, b = float(old), float(new)
    except (TypeError, ValueError):
        return None
    return (b - a) / abs(a) if math.isfinite(a) and math.isfinite(b) and a != 0 else None


def diff_cells(old: Cells, new: Cells, table: str, page: str) -> TableDiff:
    """Rows added and removed (by key) and changed cells of rows in both, in the new table's order."""
    result = TableDiff(table, page, [k for k in new if k not in old], [k for k in old if k not in new])
    for key in (k for k in new if k in old):
        for column, (text, raw) in new[key].items():
            before = old[key].get(column)
            if before is not None and before[0] != text:
                result.changed.append(CellChange(key, column, before[0], text, relative_change(before[1], raw)))
    return result


def verdict_flips(old: SiteContext, new: SiteContext) -> list[dict[str, Any]]:
    """Recommended rows present in both revisions whose verdict changed (fits ↔ does not fit)."""
    keys = list(ID_COLUMNS)
    a = old.frame[old.frame["chosen"]].set_index(keys)["fits"]
    b = new.frame[new.frame["chosen"]].set_index(keys)["fits"]
    both = a.index.intersection(b.index, sort=False)
    flipped = [k for k in both if bool(a[k]) != bool(b[k])]
    return [{**dict(zip(keys, k)), "old": bool(a[k]), "new": bool(b[k])} for k in flipped]


PAGE_CALL = re.compile(r"""sz_table\(\s*["']([^"']+)["']|(sz_fit_tables)\(""")


def pages_of_tables(docs_dir: Path) -> dict[str, str]:
    """``{table id or "fit-*": page file}`` from the macro calls of the English pages."""
    found: dict[str, str] = {}
    for page in sorted(docs_dir.glob("*.md")):
        for table_id, fits in PAGE_CALL.findall(page.read_text(encoding="utf-8")):
            found.setdefault("fit-*" if fits else table_id, page.name)
    return found


def page_of(table_id: str, pages: dict[str, str]) -> str:
    """The page a table is published on, or ``(not on a page)``."""
    return pages.get("fit-*" if table_id.startswith("fit-") and table_id not in pages else table_id,
                     "(not on a page)")


def compare(old: SiteContext, new: SiteContext, pages: dict[str, str], base: str, head: str) -> Report:
    """The full comparison of two contexts."""
    old_specs, new_specs = table_specs(old), table_specs(new)
    ids = list(new_specs) + [t for t in old_specs if t not in new_specs]
    diffs = []
    for table_id in ids:
        before = table_cells(old_specs[table_id], old) if table_id in old_specs else {}
        after = table_cells(new_specs[table_id], new) if table_id in new_specs else {}
        diffs.append(diff_cells(before, after, table_id, page_of(table_id, pages)))
    order = {p: i for i, p in enumerate(dict.fromkeys(d.page for d in diffs))}
    changed = sorted((d for d in diffs if d), key=lambda d: order[d.page])
    return Report(base, head, verdict_flips(old, new), changed)


# ---------------------------------------------------------------------------------------------
# The report
# ---------------------------------------------------------------------------------------------


def _verdict(fits: bool) -> str:
    return "✅ fits" if fits else "❌ does not fit"


def _md(text: str) -> str:
    """Text for a report table cell."""
    return text.replace("|", "\\|")


def _percent(relative: float | None) -> str:
    return "" if relative is None else f"{relative:+.1%}"


def flips_markdown(flips: list[dict[str, Any]]) -> list[str]:
    """The verdict-flip section."""
    if not flips:
        return ["No verdict changes."]
    lines = ["| Model | Checkpoint | Precision | Server | KV cache | Before | After |", "|---|---|---|---|---|---|---|"]
    lines += [f"| {f['model']} | {f['checkpoint']} | {f['precision']} | {f['server']} | {f['kv_cache_dtype']} | "
              f"{_verdict(f['old'])} | {_verdict(f['new'])} |" for f in flips]
    return lines


def table_markdown(diff: TableDiff, limit: int) -> list[str]:
    """One table's section: added rows, removed rows, changed cells (at most ``limit``, 0 = all)."""
    lines = [f"#### `{diff.table}` (`generated/{diff.table}.md`)", ""]
    for label, keys in (("Rows added", diff.added), ("Rows removed", diff.removed)):
        if keys:
            lines += [f"{label} ({len(keys)}):", "", *(f"- {_md(k)}" for k in keys), ""]
    if diff.changed:
        shown = diff.changed if not limit else diff.changed[:limit]
        lines += ["| Row | Column | Before | After | Change |", "|---|---|---:|---:|---:|"]
        lines += [f"| {_md(c.row)} | {_md(c.column)} | {_md(c.old)} | {_md(c.new)} | {_percent(c.relative)} |"
                  for c in shown]
        if len(shown) < len(diff.changed):
            lines.append(f"\n… and {len(diff.changed) - len(shown)} more changed cells (`--limit 0` lists all).")
        lines.append("")
    return lines


def report_markdown(report: Report, limit: int = 100) -> str:
    """The report as Markdown for a pull-request comment."""
    cells = sum(len(d.changed) for d in report.tables)
    rows = sum(len(d.added) + len(d.removed) for d in report.tables)
    lines = [f"## Published tables: `{report.base}` → `{report.head}`", "",
             f"**{len(report.flips)} verdict flip(s); {len(report.tables)} table(s) changed: "
             f"{rows} row(s) added or removed, {cells} cell(s) changed.**", "",
             *(f"_`{rev}` predates the assumption(s) {', '.join(f'`{k}`' for k in keys)}; "
               f"evaluated with their current values._\n" for rev, keys in report.filled.items()),
             "### Verdict flips", "",
             *flips_markdown(report.flips), ""]
    if not report.tables:
        lines += ["No published table changes.", ""]
    for page in dict.fromkeys(d.page for d in report.tables):
        lines += [f"### {page}", ""]
        for diff in (d for d in report.tables if d.page == page):
            lines += table_markdown(diff, limit)
    return "\n".join(lines).rstrip() + "\n"


def cut(markdown: str, max_chars: int) -> str:
    """``markdown`` cut after its last whole line within ``max_chars`` (GitHub comments hold 65,536)."""
    if len(markdown) <= max_chars:
        return markdown
    kept = markdown[:max_chars].rsplit("\n", 1)[0]
    return f"{kept}\n\n… report cut at {max_chars:,} characters; run `python -m sizing diff` locally for all of it.\n"


def report_json(report: Report) -> str:
    """The report as JSON (every change, no limit)."""
    return json.dumps(asdict(report), ensure_ascii=False, indent=2) + "\n"


def cmd_diff(ns: argparse.Namespace, cat: Catalog) -> int:
    """``diff REV [REV2]``: compare the catalog at two revisions (REV2: the working tree)."""
    catalog_dir = Path(ns.catalog)
    old = build_context(catalog_at(catalog_dir, ns.rev, cat))
    new = build_context(catalog_at(catalog_dir, ns.rev2, cat) if ns.rev2 else cat)
    pages = pages_of_tables(repo_of(catalog_dir)[0] / "docs" / "en")
    report = compare(old, new, pages, ns.rev, ns.rev2 or WORKING_TREE)
    report.filled = {rev: FILLED[rev] for rev in (ns.rev, ns.rev2) if rev and FILLED.get(rev)}
    text = report_json(report) if ns.format == "json" else cut(report_markdown(report, ns.limit), ns.max_chars)
    sys.stdout.write(text)
    return 0
