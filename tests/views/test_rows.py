"""Tests for sizing.views.rows: a table's rows as plain records, their CSV and JSON, the CLI's fit view."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sizing.catalog.loader import load_catalog
from sizing.engine.evaluate import evaluate
from sizing.errors import UsageError
from sizing.views.rows import Rows, as_rows, fit_view_rows, plain_value, rows_of, to_csv, to_json

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "site_catalog"
FRAME = pd.DataFrame({"id": ["a", "b"], "n": [1, 2], "x": [1.5, math.nan], "ok": [True, False]})


def test_rows_hold_python_values_in_frame_order() -> None:
    """Assert records are plain Python values, fields in column order, NaN kept for a missing number."""
    rows = rows_of(FRAME)
    assert rows.fields == ("id", "n", "x", "ok") and len(rows) == 2
    assert type(rows.records[0]["n"]) is int and type(rows.records[0]["ok"]) is bool
    assert rows.column("id") == ["a", "b"] and math.isnan(float(rows.records[1]["x"] or 0.0))


def test_select_keeps_the_named_fields_once_in_order() -> None:
    """Assert select drops absent and repeated names and follows the asked order."""
    picked = rows_of(FRAME).select(["x", "id", "missing", "x"])
    assert picked.fields == ("x", "id") and picked.records[0] == {"x": 1.5, "id": "a"}


def test_csv_and_json_write_raw_values() -> None:
    """Assert CSV keeps ints whole, floats to 6 significant digits and blanks; JSON nulls a NaN."""
    rows = rows_of(pd.DataFrame({"n": [3, 4], "x": [1 / 3, math.nan], "t": ["a", None]}))
    assert to_csv(rows) == "n,x,t\n3,0.333333,a\n4,,\n"
    assert json.loads(to_json(rows)) == [{"n": 3, "x": 0.333333, "t": "a"}, {"n": 4, "x": None, "t": None}]
    assert plain_value(np.int64(7)) == 7 and pd.read_csv(io.StringIO(to_csv(rows)))["n"].tolist() == [3, 4]


def test_as_rows_wraps_a_row_builder() -> None:
    """Assert a builder returning a DataFrame returns Rows once wrapped, keeping its name."""

    def frame_rows(n: int) -> pd.DataFrame:
        return pd.DataFrame({"i": list(range(n))})

    assert as_rows(frame_rows)(3) == Rows(("i",), ({"i": 0}, {"i": 1}, {"i": 2}))
    assert as_rows(frame_rows).__name__ == "frame_rows"


def test_fit_view_rows_filter_the_matrix() -> None:
    """Assert the CLI's fit view keeps the recommended rows of the asked server."""
    cat = load_catalog(FIXTURE)
    rows = fit_view_rows(cat, evaluate(cat), None, "gpu-l40s", None)
    assert len(rows) > 0 and set(rows.column("server")) == {"gpu-l40s"}


@pytest.mark.parametrize(
    ("model", "server", "precision", "flag"),
    [
        ("nope/model", None, None, "--model"),
        (None, "nope", None, "--server"),
        (None, None, "fp3", "--precision"),
    ],
)
def test_fit_view_rows_reject_unknown_ids(
    model: str | None, server: str | None, precision: str | None, flag: str
) -> None:
    """Assert an id the catalog lacks is a one-line usage error naming the flag."""
    with pytest.raises(UsageError, match=flag):
        fit_view_rows(load_catalog(FIXTURE), pd.DataFrame(), model, server, precision)
