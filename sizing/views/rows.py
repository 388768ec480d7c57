"""A table's rows as the renderers get them: typed, language-neutral records, no pandas.

The row builders (:mod:`sizing.views.table_rows`, :mod:`sizing.views.catalog_rows`,
:mod:`sizing.views.plan_rows`) compute DataFrames; :func:`rows_of` turns one into :class:`Rows`, plain
Python values by field name (bytes, counts, ids, flags; a missing number is NaN, a missing text None or
""). :mod:`sizing.render` formats cells from these records and never handles a DataFrame. The raw
exports (CSV, JSON) are language-neutral too, so they are written here.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

import pandas as pd

from sizing.catalog.loader import Catalog
from sizing.errors import UsageError
from sizing.views.matrix import Filter, fit_view, select
from sizing.views.verdict import tight_below

Cell: TypeAlias = str | int | float | bool | None
"""One raw value: bytes, a count, an id, a flag; NaN or None when absent."""
Record: TypeAlias = Mapping[str, Cell]
CSV_DIGITS = 6
"""Significant digits of a float in the CSV and JSON exports."""


@dataclass(frozen=True)
class Rows:
    """A table's rows: ``fields`` in column order and one ``records`` mapping per row, in row order."""

    fields: tuple[str, ...]
    records: tuple[Record, ...]

    def __len__(self) -> int:
        return len(self.records)

    def column(self, field: str) -> list[Cell]:
        """Every row's value of ``field``, in row order."""
        return [r[field] for r in self.records]

    def select(self, fields: Sequence[str]) -> Rows:
        """These rows with only ``fields`` (in that order, once each; absent ones skipped)."""
        kept = tuple(f for f in dict.fromkeys(fields) if f in self.fields)
        return Rows(kept, tuple({f: r[f] for f in kept} for r in self.records))


def rows_of(frame: pd.DataFrame) -> Rows:
    """``frame`` as :class:`Rows` (NumPy scalars become Python values)."""
    return Rows(tuple(str(c) for c in frame.columns), tuple(frame.to_dict("records")))


def as_rows(build: Callable[..., pd.DataFrame]) -> Callable[..., Rows]:
    """``build`` (a row builder returning a DataFrame) returning :class:`Rows` instead."""

    @functools.wraps(build)
    def rows(*args: Any, **kwargs: Any) -> Rows:
        return rows_of(build(*args, **kwargs))

    return rows


def plain_value(value: Any) -> Any:
    """A JSON-safe cell: NaN -> None, NumPy scalars -> Python, floats rounded to 6 significant digits."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float):
        return None if math.isnan(value) else float(f"{value:.{CSV_DIGITS}g}")
    return value


def to_csv(rows: Rows) -> str:
    """The raw values as CSV (floats to 6 significant digits, missing values empty)."""
    frame = pd.DataFrame.from_records(list(rows.records), columns=list(rows.fields))
    return frame.to_csv(index=False, float_format=f"%.{CSV_DIGITS}g", lineterminator="\n")


def to_json(rows: Rows) -> str:
    """The raw values as a JSON list of objects, one per row."""
    records = [{k: plain_value(v) for k, v in r.items()} for r in rows.records]
    return json.dumps(records, ensure_ascii=False, indent=2) + "\n"


def check_ids(cat: Catalog, model: str | None, server: str | None, precision: str | None) -> None:
    """Fail with a one-line error on an id the catalog does not have."""
    checkpoints = {c.id for m in cat.models.values() for c in m.checkpoints}
    if model and model not in cat.models and model not in checkpoints:
        raise UsageError(f"--model: {model!r} is neither a catalog model nor a checkpoint id")
    if server and server not in cat.servers:
        raise UsageError(f"--server: unknown server {server!r}")
    if precision and precision not in cat.precisions:
        raise UsageError(f"--precision: unknown precision {precision!r}")


def fit_view_rows(
    cat: Catalog, df: pd.DataFrame, model: str | None, server: str | None, precision: str | None
) -> Rows:
    """The fit view (recommended plans, :func:`sizing.views.matrix.fit_view`) of the evaluated matrix
    ``df``, filtered by ids (checked first, :func:`check_ids`)."""
    check_ids(cat, model, server, precision)
    view = fit_view(
        select(df, Filter(model=model, server=server, precision=precision)),
        df.attrs["contexts"],
        tight_below(cat.assume),
    )
    return rows_of(view)
