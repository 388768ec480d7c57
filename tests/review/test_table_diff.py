"""Tests for sizing.review.table_diff: cells compared between two catalogs, pages found from the macros."""

from __future__ import annotations

from pathlib import Path

import pytest

from sizing.catalog.loader import load_catalog
from sizing.review.table_diff import (
    CellChange,
    compare,
    diff_cells,
    page_of,
    pages_of_tables,
    relative_change,
)
from sizing.views.bundle import build_context


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [(100, 110, 0.1), (-4, -2, 0.5), (0, 5, None), ("n/a", 5, None), (float("nan"), 1, None)],
)
def test_relative_change_of_finite_numbers_only(old, new, expected) -> None:
    assert relative_change(old, new) == (pytest.approx(expected) if expected is not None else None)


def test_diff_cells_lists_added_removed_and_changed_rows_in_the_new_order() -> None:
    old = {"a": {"GiB": ("1.0", 1.0)}, "b": {"GiB": ("2.0", 2.0)}}
    new = {"c": {"GiB": ("3.0", 3.0)}, "a": {"GiB": ("1.5", 1.5)}}
    diff = diff_cells(old, new, "t", "p.md")
    assert (diff.added, diff.removed) == (["c"], ["b"])
    assert diff.changed == [CellChange("a", "GiB", "1.0", "1.5", 0.5)] and bool(diff)
    assert not diff_cells(old, old, "t", "p.md")


def test_pages_of_tables_from_the_macro_calls(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(
        "{{ sz_table('price-per-gb') }}\n{{ sz_fit_tables() }}\n", encoding="utf-8"
    )
    pages = pages_of_tables(tmp_path)
    assert pages == {"price-per-gb": "a.md", "fit-*": "a.md"}
    assert [page_of(t, pages) for t in ("price-per-gb", "fit-l40s", "other")] == [
        "a.md",
        "a.md",
        "(not on a page)",
    ]


def test_same_row_counts_nan_as_equal_and_any_other_difference_as_a_change() -> None:
    """Assert rows are the same when every value is equal or both NaN (their cells are then not formatted
    again), and differ on one changed value or a different set of fields."""
    from sizing.review.table_diff import same_row

    row = {"model": "m", "gib": 1.5, "price": float("nan"), "note": None}
    assert same_row(row, dict(row))
    assert not same_row(row, {**row, "gib": 1.6})
    assert not same_row(row, {**row, "extra": 1})
    assert not same_row(row, {**row, "price": 2.0})


def test_a_context_compared_with_itself_changes_nothing() -> None:
    """Assert two evaluations of one catalog give no flip and no table change (what ``diff`` answers for two
    equal catalogs without evaluating them, :func:`sizing.review.diff_report.revisions_report`)."""
    small = Path(__file__).resolve().parents[1] / "data" / "site_catalog"
    contexts = [build_context(load_catalog(small)) for _ in range(2)]
    report = compare(*contexts, {}, "a", "b")
    assert (report.flips, report.tables) == ([], [])
