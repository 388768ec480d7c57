"""Generic column gathering and group reductions over large frames (no sizing rules, no column names).

:func:`repeat_frames` builds a cross product from row positions, :func:`take_block` fills a 2-D block on
:data:`GATHER_THREADS` threads, and :class:`Grouping` reduces a column over groups of equal keys with
NumPy ufuncs instead of ``groupby`` (the 100x catalog of ``scripts/bench_sizing.py`` is 1.5M rows).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.internals import create_dataframe_from_blocks


def repeat_frames(parts: list[tuple[pd.DataFrame, np.ndarray]]) -> pd.DataFrame:
    """The columns of each small frame repeated at its row positions, side by side, as one DataFrame.

    NumPy columns of one dtype are written straight into one 2-D block (the layout a consolidated
    frame has, without the copy that consolidating costs). Text becomes categorical: cheap to compare
    and group over a 1.5M-row matrix, its categories in text order so that it sorts as the text does
    (:func:`sizing.engine.evaluate.as_text` turns it into plain text).
    """
    columns = [(name, frame[name], rows) for frame, rows in parts for name in frame.columns]
    by_dtype: dict[Any, list[int]] = {}
    for position, (_, column, _) in enumerate(columns):
        if isinstance(column.dtype, np.dtype):
            by_dtype.setdefault(column.dtype, []).append(position)
    others = [
        position for position, (_, column, _) in enumerate(columns) if not isinstance(column.dtype, np.dtype)
    ]
    with ThreadPoolExecutor(GATHER_THREADS) as pool:
        blocks: list[Any] = list(
            pool.map(lambda p: (_repeat_extension(*columns[p][1:]), np.array([p])), others)
        )
    rows_count = len(parts[0][1])
    blocks += [
        (
            take_block([(columns[p][1].to_numpy(), columns[p][2]) for p in positions], dtype, rows_count),
            np.array(positions),
        )
        for dtype, positions in by_dtype.items()
    ]
    return create_dataframe_from_blocks(
        blocks, index=pd.RangeIndex(rows_count), columns=pd.Index([name for name, _, _ in columns])
    )


def _repeat_extension(column: pd.Series, rows: np.ndarray) -> pd.api.extensions.ExtensionArray:
    """A text column as a categorical repeated at ``rows``; any other extension column taken as it is."""
    if isinstance(column.dtype, pd.StringDtype):
        codes, values = pd.factorize(column, sort=True)
        small = codes.astype(np.min_scalar_type(-len(values)))  # int8/int16 codes, as categoricals keep
        return pd.Categorical.from_codes(small[rows], values, validate=False)
    return column.array.take(rows)


def text_categorical(codes: np.ndarray, texts: list[str] | tuple[str, ...]) -> pd.Categorical:
    """A categorical of ``texts[code]`` per row, its categories the distinct texts in text order (so that it
    sorts and groups as the text would); ``texts`` may repeat a text."""
    categories, renumber = np.unique(np.asarray(texts, dtype=object), return_inverse=True)
    return pd.Categorical.from_codes(
        renumber.ravel()[codes], pd.Index(categories, dtype="str"), validate=False
    )


GATHER_THREADS = min(2, os.cpu_count() or 1)
"""Threads that fill the rows of a block together (NumPy's take releases the GIL on numeric data)."""


def take_block(columns: list[tuple[np.ndarray, np.ndarray]], dtype: np.dtype, rows_count: int) -> np.ndarray:
    """A (columns, rows) array of ``dtype``: each ``(values, positions)`` column's values taken at its
    positions."""
    block = np.empty((len(columns), rows_count), dtype=dtype)

    def fill(row: int) -> None:
        values, positions = columns[row]
        np.take(values, positions, out=block[row], mode="clip")  # positions are valid; "clip" skips a buffer

    with ThreadPoolExecutor(GATHER_THREADS) as pool:
        list(pool.map(fill, range(len(columns))))
    return block


def key_codes(column: pd.Series) -> tuple[np.ndarray, int]:
    """Integer codes of a key column (a categorical's own codes; 0 for missing values) and a bound on them."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes, count = column.cat.codes.to_numpy(), len(column.cat.categories)
    else:
        codes, values = pd.factorize(column)
        count = len(values)
    shifted = codes.astype(np.int64)
    shifted += 1
    return shifted, count + 1


def group_ids(df: pd.DataFrame, keys: list[str]) -> tuple[np.ndarray, int]:
    """One integer per distinct combination of ``keys`` (as a groupby on them would group), and a bound on
    them."""
    ids, bound = np.zeros(len(df), dtype=np.int64), 1
    for key in keys:
        codes, count = key_codes(df[key])
        if bound * count > 4 * len(df) + 1024:
            ids, bound = _renumber(ids, bound)
        ids *= count
        ids += codes
        bound *= count
    return ids, bound


def _renumber(ids: np.ndarray, bound: int) -> tuple[np.ndarray, int]:
    """``ids`` (all below ``bound``) renumbered 0..k-1 over the k values in use, in the same order.

    The lookup table is written only where a value is in use, so only those pages of it are touched.
    """
    if bound > 64 * len(ids) + 1024:
        codes, values = pd.factorize(ids)
        return codes.astype(np.int64), len(values)
    used = np.zeros(bound, dtype=bool)
    used[ids] = True
    in_use = np.flatnonzero(used)
    lookup = np.empty(bound, dtype=np.int64)
    lookup[in_use] = np.arange(len(in_use))
    return lookup[ids], len(in_use)


def spread(values: np.ndarray, at: np.ndarray, length: int, fill: object) -> np.ndarray:
    """A column of ``length`` rows holding ``values`` at the rows ``at`` and ``fill`` elsewhere."""
    column = np.full(length, fill, dtype=np.asarray(values).dtype)
    column[at] = values
    return column


def group_table(
    reduce: np.ufunc, values: np.ndarray, ids: np.ndarray, bound: int, fill: object = np.nan
) -> np.ndarray:
    """``reduce`` of ``values`` (``np.fmax``/``np.fmin`` on floats, NaN skipped) over each group, per group
    id; ``fill`` for the ids no row has."""
    out = np.full(bound, fill, dtype=values.dtype)
    reduce.at(out, ids, values)
    return out


def per_group(reduce: np.ufunc, values: np.ndarray, ids: np.ndarray, bound: int) -> np.ndarray:
    """``reduce`` (``np.fmax`` or ``np.fmin``: NaN skipped) of ``values`` over each row's group, per row."""
    return group_table(reduce, np.asarray(values, dtype=np.float64), ids, bound)[ids]


@dataclass(frozen=True)
class Grouping:
    """Rows grouped by integer ``ids`` (0 <= id < ``bound``).

    ``starts`` is set when the groups are runs of consecutive rows numbered 0, 1, ... in frame order:
    the first row of each run. Reductions then take each run in one pass (``reduceat``).
    """

    ids: np.ndarray
    bound: int
    starts: np.ndarray | None = None

    @classmethod
    def of(cls, df: pd.DataFrame, keys: list[str]) -> Grouping:
        """The groups of equal ``keys`` in ``df`` (:func:`group_ids`), in any row order."""
        return cls(*group_ids(df, keys))

    @classmethod
    def runs(cls, counts: np.ndarray) -> Grouping:
        """Consecutive groups of ``counts[i]`` rows each (all counts positive), in order."""
        counts = counts.astype(np.int64)
        return cls(np.repeat(np.arange(len(counts)), counts), len(counts), np.cumsum(counts) - counts)

    def table(self, reduce: np.ufunc, values: np.ndarray | pd.Series, fill: object = np.nan) -> np.ndarray:
        """``reduce`` of ``values`` over each group, per group id (``fill`` for an id no row has).

        ``reduce``: ``np.fmax`` or ``np.fmin`` (NaN skipped; float values), or ``np.maximum`` /
        ``np.minimum`` on integers (the dtype kept; ``fill`` must not win against any value).
        """
        values = np.asarray(values, dtype=None if np.asarray(values).dtype.kind in "iu" else np.float64)
        if self.starts is None or not len(self.starts):
            return group_table(reduce, values, self.ids, self.bound, fill)
        return reduce.reduceat(values, self.starts)

    def reduce(self, reduce: np.ufunc, values: np.ndarray | pd.Series) -> np.ndarray:
        """:meth:`table` of ``values`` taken at each row's group, per row."""
        return self.table(reduce, values)[self.ids]


def marked_positions(df: pd.DataFrame, keys: list[str], marked: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """For each row position in ``rows``: the position, among the ``marked`` positions, of the row of the
    same ``keys`` group (at most one marked row per group); −1 where its group has none marked."""
    ids, bound = group_ids(df, keys)
    where = np.full(bound, -1, dtype=np.int64)
    where[ids[marked]] = marked
    return where[ids[rows]]
