"""What a catalog change does to the published tables: verdict flips, rows added or removed, changed cells.

:func:`compare` takes two evaluated contexts (two revisions of the catalog, one engine) and returns a
:class:`Report`; :mod:`sizing.review.diff_report` prints it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sizing.render.cells import NUMERIC, cell_words, format_cell, header
from sizing.render.table_specs import TableSpec, table_specs
from sizing.views.bundle import SiteContext
from sizing.views.matrix import ID_COLUMNS


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
RawRows = dict[str, Mapping[str, Any]]


def table_rows(spec: TableSpec, ctx: SiteContext) -> RawRows:
    """``{row key: row}`` of one table: the raw values its cells are formatted from."""
    return {" · ".join(str(row[k]) for k in spec.key): row for row in spec.rows(ctx).records}


def row_cells(spec: TableSpec, row: Mapping[str, Any], words: Any) -> dict[str, tuple[str, Any]]:
    """``{header: (English text, raw value)}`` of one row (``words``: :func:`cell_words` of English)."""
    return {
        header(c, "en"): (format_cell(c, row, "en", words), row.get(c.id) if c.kind in NUMERIC else None)
        for c in spec.columns
    }


def table_cells(spec: TableSpec, ctx: SiteContext) -> Cells:
    """``{row key: {header: (English text, raw value)}}`` of one table."""
    words = cell_words("en")
    return {key: row_cells(spec, row, words) for key, row in table_rows(spec, ctx).items()}


def same_row(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether two raw rows hold the same values (NaN equal to NaN): their cells cannot differ."""
    return a.keys() == b.keys() and all(x == y or (x != x and y != y) for x, y in zip(a.values(), b.values()))


def diff_table(
    specs: tuple[TableSpec | None, TableSpec | None],
    contexts: tuple[SiteContext, SiteContext],
    table: str,
    page: str,
) -> TableDiff:
    """One table's :class:`TableDiff` between two contexts. Rows with the same raw values under the same
    columns are not formatted (a cell's text depends only on its row and column): only the others are."""
    (old_spec, new_spec), (old, new) = specs, contexts
    before = table_rows(old_spec, old) if old_spec else {}
    after = table_rows(new_spec, new) if new_spec else {}
    same_columns = old_spec is not None and new_spec is not None and old_spec.columns == new_spec.columns
    moved = [k for k in after if k in before and not (same_columns and same_row(before[k], after[k]))]
    words = cell_words("en")
    result = diff_cells(
        {k: row_cells(old_spec, before[k], words) for k in moved} if old_spec else {},
        {k: row_cells(new_spec, after[k], words) for k in moved} if new_spec else {},
        table,
        page,
    )
    result.added, result.removed = (
        [k for k in after if k not in before],
        [k for k in before if k not in after],
    )
    return result


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
                change = relative_change(before[1], raw)
                result.changed.append(CellChange(key, column, before[0], text, change))
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
    return pages.get(
        "fit-*" if table_id.startswith("fit-") and table_id not in pages else table_id, "(not on a page)"
    )


def compare(old: SiteContext, new: SiteContext, pages: dict[str, str], base: str, head: str) -> Report:
    """The full comparison of two contexts."""
    old_specs, new_specs = table_specs(old), table_specs(new)
    ids = list(new_specs) + [t for t in old_specs if t not in new_specs]
    diffs = [diff_table((old_specs.get(t), new_specs.get(t)), (old, new), t, page_of(t, pages)) for t in ids]
    order = {p: i for i, p in enumerate(dict.fromkeys(d.page for d in diffs))}
    changed = sorted((d for d in diffs if d), key=lambda d: order[d.page])
    return Report(base, head, verdict_flips(old, new), changed)
