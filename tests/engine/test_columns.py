"""Tests for sizing.engine.columns: the frames the engine returns have exactly the declared columns."""

from __future__ import annotations

import pandas as pd
import pytest

from sizing.catalog.settings import Settings
from sizing.engine import columns
from sizing.engine.estimate import estimate_frame

KINDS = {"int": "iu", "float": "fiu", "bool": "b"}
"""dtype kinds per declared kind: a float column of the single estimate may come out int64 (w_experts)."""


def _undeclared(frame: pd.DataFrame) -> list[str]:
    return [name for name in frame.columns if columns.declaration(name) is None]


def _wrong_kind(frame: pd.DataFrame) -> list[str]:
    """Columns whose dtype does not match the declared kind (text columns may be str or object)."""
    wrong = []
    for name in frame.columns:
        decl = columns.declaration(name)
        ok = (
            frame[name].dtype.kind in KINDS[decl.kind]
            if decl.kind in KINDS
            else frame[name].dtype.kind in "OT"
        )
        wrong += [] if ok else [f"{name}: {frame[name].dtype} is not {decl.kind}"]
    return wrong


def test_the_matrix_has_exactly_the_declared_columns(matrix: pd.DataFrame) -> None:
    """Assert every column of the evaluated catalog is declared, with its kind, and none is missing."""
    assert _undeclared(matrix) == []
    assert _wrong_kind(matrix) == []
    assert set(matrix.columns) == set(columns.expected_columns(list(matrix.attrs["contexts"])))


def test_one_estimate_has_the_same_columns(catalog, matrix: pd.DataFrame) -> None:
    """Assert the single-estimate path writes the same schema as the matrix, plus the declared request-only
    columns (speculative decoding, prefix caching) the matrix runs without and the per-class inputs the
    matrix rows leave out."""
    frame = estimate_frame(catalog, Settings(model="Qwen/Qwen3-14B", gpu="l40s"))
    assert (
        set(frame.columns)
        == set(matrix.columns) | {c.name for c in columns.REQUEST_ONLY} | columns.PER_CLASS_ONLY
    )
    assert not set(matrix.columns) & columns.PER_CLASS_ONLY
    assert _wrong_kind(frame) == []


def test_an_undeclared_column_is_caught(matrix: pd.DataFrame) -> None:
    """Assert the check fails for a column the declaration does not know."""
    assert _undeclared(matrix.head(1).assign(surprise=1)) == ["surprise"]


@pytest.mark.parametrize(
    ("name", "declared"),
    [
        ("concurrency_4096", "concurrency_<ctx>"),
        ("decode_tps_ceiling", "decode_tps_ceiling"),
        ("sequences_x", None),
        ("nope", None),
    ],
)
def test_declarations_resolve_per_context_names(name: str, declared: str | None) -> None:
    """Assert per-context names map onto their pattern and unknown names onto None."""
    found = columns.declaration(name)
    assert (found.name if found else None) == declared


def test_every_column_is_declared_once() -> None:
    """Assert no name is declared twice and each has a unit or is a flag/text, and a meaning."""
    names = [c.name for c in columns.COLUMNS]
    assert len(names) == len(set(names))
    assert all(c.meaning for c in columns.COLUMNS)
