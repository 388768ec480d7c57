"""The references pages make to table columns: all through ``sz_column``, all resolving to a real column.

A page that says "the last column" goes stale the day a column moves; ``{{ sz_column(table, column) }}``
prints the column's own header and stops the build when the table has no such column. This test reads
the page sources in every language, so a reference is checked without building the site.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sizing.errors import UsageError
from sizing.render import macros
from sizing.render.table_specs import table_specs
from sizing.site import context as site

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "docs").glob("*/*.md"))
POSITIONAL = {
    "en": re.compile(r"\b(last|first|final) columns?\b|\bcolumn on the (right|left)\b", re.IGNORECASE),
    "zh": re.compile(r"(最后|第一)[一几两]?列|最右[边侧]?一?列"),
    "ru": re.compile(r"(последн|перв|крайн)\w* (столб|колонк)", re.IGNORECASE),
}
"""How a page would refer to a column by its position, per language (forbidden: name it with sz_column)."""
COLUMN_CALL = re.compile(r"sz_column\(\s*\"([^\"]+)\"\s*,\s*\"([^\"]+)\"\s*\)")
TABLE_CALL = re.compile(r"sz_table\(\s*\"([^\"]+)\"\s*\)")


@pytest.fixture(scope="module")
def ctx() -> site.SiteContext:
    """The real catalog's site context."""
    return site.context()


def test_pages_exist_in_every_language() -> None:
    """Assert the check reads the pages of all three languages."""
    assert {p.parent.name for p in PAGES} >= {"en", "zh", "ru"}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_page_names_a_column_by_its_position(page: Path) -> None:
    """Assert no "last column" (最后一列, последний столбец): a column is named by sz_column."""
    lang = page.parent.name
    if lang not in POSITIONAL:
        pytest.skip(f"no positional pattern for {lang}")
    hits = [m.group(0) for m in POSITIONAL[lang].finditer(page.read_text(encoding="utf-8"))]
    assert hits == []


def test_every_column_a_page_names_exists(ctx: site.SiteContext) -> None:
    """Assert each sz_column call of every page resolves to a column of a published table, in its language."""
    calls = [
        (p.parent.name, *m.groups())
        for p in PAGES
        for m in COLUMN_CALL.finditer(p.read_text(encoding="utf-8"))
    ]
    assert len(calls) >= 9
    for lang, table, column in calls:
        assert macros.column(lang, ctx, table, column).startswith("**")


def test_every_table_a_page_shows_exists(ctx: site.SiteContext) -> None:
    """Assert each sz_table id of every page is a published table."""
    ids = {m.group(1) for p in PAGES for m in TABLE_CALL.finditer(p.read_text(encoding="utf-8"))}
    assert ids and ids <= set(table_specs(ctx))


def test_an_unknown_column_stops_with_one_message(ctx: site.SiteContext) -> None:
    """Assert a reference to a removed column fails, naming the table and the columns it has."""
    with pytest.raises(UsageError, match="has no column 'kv_cache_gib'.*its columns: model_label"):
        macros.column("en", ctx, "fit-gpu-l40s", "kv_cache_gib")
    header = macros.column("ru", ctx, "quick-reference", "change")
    assert header == "**Почему такая схема или что поможет поместиться**"
