"""Tests for sizing.engine.frames: gathering columns by row positions and reducing over groups."""

from __future__ import annotations

import numpy as np
import pandas as pd

from sizing.engine import frames


def test_repeat_frames_builds_the_cross_product_by_positions() -> None:
    """Assert each part's rows are picked by the given positions, columns side by side."""
    a = pd.DataFrame({"x": [10, 20], "name": ["p", "q"]})
    b = pd.DataFrame({"y": [0.5, 1.5, 2.5]})
    out = frames.repeat_frames([(a, np.array([0, 0, 1])), (b, np.array([2, 0, 1]))])
    assert out.to_dict("list") == {"x": [10, 10, 20], "name": ["p", "p", "q"], "y": [2.5, 0.5, 1.5]}


def test_group_ids_and_per_group_reduce_like_groupby() -> None:
    """Assert rows with equal keys share an id and fmax over a group skips NaN."""
    df = pd.DataFrame({"m": ["a", "a", "b", "b", "a"], "s": [1, 2, 1, 1, 1]})
    ids, bound = frames.group_ids(df, ["m", "s"])
    assert ids[0] == ids[4] and ids[2] == ids[3] and len({ids[0], ids[1], ids[2]}) == 3 and ids.max() < bound
    values = np.array([1.0, 5.0, np.nan, 3.0, 7.0])
    assert frames.per_group(np.fmax, values, ids, bound).tolist() == [7.0, 5.0, 3.0, 3.0, 7.0]


def test_runs_reduce_like_the_same_groups_found_from_keys() -> None:
    """Assert runs of 2, 1 and 3 rows give the per-row fmax a key grouping gives, and an integer minimum
    per run keeps its dtype (the fill only for groups no row has)."""
    df = pd.DataFrame({"m": ["a", "a", "b", "c", "c", "c"]})
    values = np.array([1.0, np.nan, np.nan, 4.0, 9.0, 2.0])
    runs = frames.Grouping.runs(np.array([2, 1, 3]))
    assert runs.ids.tolist() == [0, 0, 1, 2, 2, 2]
    assert runs.starts is not None and runs.starts.tolist() == [0, 2, 3]
    by_key = frames.Grouping.of(df, ["m"]).reduce(np.fmax, values)
    np.testing.assert_array_equal(runs.reduce(np.fmax, values), by_key)
    np.testing.assert_array_equal(runs.reduce(np.fmax, values), [1.0, 1.0, np.nan, 9.0, 9.0, 9.0])
    ranks = np.array([3, 1, 5, 2, 0, 4], dtype=np.int8)
    assert runs.table(np.minimum, ranks, 127).tolist() == [1, 5, 0]
    unused = frames.Grouping(np.array([0, 0, 2]), 4).table(np.minimum, ranks[:3], 127)
    assert unused.dtype == np.int8 and unused.tolist() == [1, 127, 5, 127]


def test_text_categorical_orders_categories_as_text_and_merges_repeats() -> None:
    """Assert repeated texts share one category, categories are sorted, and each row keeps its text."""
    column = frames.text_categorical(np.array([0, 2, 1, 3, 0]), ["", "tp", "dp", "tp"])
    assert list(column.categories) == ["", "dp", "tp"]
    assert list(column) == ["", "dp", "tp", "tp", ""]
