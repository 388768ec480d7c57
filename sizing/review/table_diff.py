"""What a catalog change does to the published tables: verdict flips, rows added or removed, changed cells.

:func:`compare` takes two evaluated contexts (two revisions of the catalog, one engine) and returns a
:class:`Report`; :mod:`sizing.review.diff_report` prints it.
"""

from __future__ import annotations

import math
import re
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


def table_cells(spec: TableSpec, ctx: SiteContext) -> Cells:
    """``{row key: {header: (English text, raw value)}}`` of one table."""
    out: Cells = {}
    heads, words = [(header(c, "en"), c) for c in spec.columns], cell_words("en")
    for row in spec.rows(ctx).records:
        key = " · ".join(str(row[k]) for k in spec.key)
        out[key] = {
            h: (format_cell(c, row, "en", words), row.get(c.id) if c.kind in NUMERIC else None)
            for h, c in heads
        }
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
    diffs = []
    for table_id in ids:
        before = table_cells(old_specs[table_id], old) if table_id in old_specs else {}
        after = table_cells(new_specs[table_id], new) if table_id in new_specs else {}
        diffs.append(diff_cells(before, after, table_id, page_of(table_id, pages)))
    order = {p: i for i, p in enumerate(dict.fromkeys(d.page for d in diffs))}
    changed = sorted((d for d in diffs if d), key=lambda d: order[d.page])
    return Report(base, head, verdict_flips(old, new), changed)
