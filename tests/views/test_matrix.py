"""Tests for sizing.views.matrix: filtering, stable row ids and the fit/matrix views of an evaluated frame."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from sizing.units import GiB, KiB
from sizing.views import matrix


def rows() -> pd.DataFrame:
    """Two hand-made matrix rows: one fits at 4K only (8K model), one does not fit."""
    return pd.DataFrame(
        {
            "model": ["m/a", "m/b"],
            "checkpoint": ["m/a-FP8", "m/b"],
            "precision": ["fp8", "bf16"],
            "server": ["s1", "s1"],
            "kv_cache_dtype": ["fp8", "auto"],
            "plan": ["tp", "dp"],
            "tp": [2, 1],
            "pp": [1, 1],
            "dp": [1, 1],
            "rank": [1, 0],
            "fits": [True, False],
            "chosen": [True, True],
            "weights_bytes": [3 * GiB, 30 * GiB],
            "kv_cache_bytes": [2 * GiB, -GiB],
            "kv_bytes_per_token": [2048, 4096],
            "kv_cache_tokens": [1000, 0],
            "max_context": [8192, 32768],
            "sequences_4096": [5.0, 0.0],
            "sequences_32768": [0.0, 0.0],
            "change": ["", "more-gpus"],
            "change_value": ["", "2"],
            "available_kv_bytes": [2 * GiB, 0.0],
            "max_concurrency": [1.5, 0.0],
            "decode_tps_ceiling": [100.0, 10.0],
            "verdict": ["tight", "no-fit"],
            "verdict_context": [4096, 0],
            "change_plan": ["", ""],
        }
    )


def test_fit_view_masks_contexts_beyond_the_model_and_clamps_negative_kv() -> None:
    """Assert 32K is NaN for an 8K model, negative KV memory shows as 0, units are GiB and KiB."""
    view = matrix.fit_view(rows(), [4096, 32768])
    assert view["seq_4096"].tolist() == [5.0, 0.0]
    assert math.isnan(view["seq_32768"][0]) and view["seq_32768"][1] == 0.0
    assert view["kv_cache_gib"].tolist() == [2.0, 0.0]
    assert view["weights_gib"].tolist() == [3.0, 30.0] and view["kv_kib_per_token"].tolist() == [
        2048 / KiB,
        4.0,
    ]
    assert view["verdict"].tolist() == ["tight", "no-fit"] and view["verdict_context"].tolist() == [4096, 0]


def test_fit_view_judges_rows_without_verdicts_with_the_threshold_given() -> None:
    """Assert a frame straight from the engine gets its verdicts from sizing.views.verdict, and needs the
    threshold."""
    df = (
        rows()
        .drop(columns=["verdict", "verdict_context"])
        .assign(
            fits_optimistic=[True, False],
            starts_optimistic_4096=[True, False],
            starts_optimistic_32768=[False, False],
            max_model_len=[8192, 32768],
        )
    )
    view = matrix.fit_view(df, [4096, 32768], tight_below=4)
    assert view["verdict"].tolist() == ["tight", "no-fit"] and view["verdict_context"].tolist() == [8192, 0]
    with pytest.raises(ValueError, match="tight_below"):
        matrix.fit_view(df, [4096, 32768])


def test_row_ids_are_unique_and_readable() -> None:
    """Assert model|checkpoint|precision|server|kv|plan-tpN-ppN."""
    assert matrix.row_id(rows()).tolist() == [
        "m/a|m/a-FP8|fp8|s1|fp8|tp-tp2-pp1",
        "m/b|m/b|bf16|s1|auto|dp-tp1-pp1",
    ]


def test_select_by_model_or_checkpoint_in_catalog_order() -> None:
    """Assert --model matches a checkpoint id too, filters combine, and rows sort by ORDER."""
    df = rows()
    assert matrix.select(df, matrix.Filter(model="m/a-FP8"))["model"].tolist() == ["m/a"]
    assert matrix.select(df, matrix.Filter(server="s1", kv_cache_dtype="auto"))["model"].tolist() == ["m/b"]
    assert matrix.select(df, matrix.Filter())["model"].tolist() == ["m/a", "m/b"]


def test_matrix_view_adds_id_and_figures() -> None:
    """Assert the download view leads with the id and carries the chosen flag and vLLM's printed figures."""
    view = matrix.matrix_view(rows(), [4096])
    assert list(view.columns[:2]) == ["id", "model"]
    assert view["available_kv_gib"].tolist() == [2.0, 0.0] and view["chosen"].tolist() == [True, True]
