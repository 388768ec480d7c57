"""The throughput ladder frame: one row per deployment × shape, bands, cost and users within the target."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sizing.catalog.settings import Settings
from sizing.catalog.workloads import load_constants, load_workloads
from sizing.engine import columns
from sizing.engine.estimate import estimate
from sizing.engine.throughput_frame import Shape, Target, ladder, users_within_target, workload_shapes


@pytest.fixture(scope="module")
def frame(catalog) -> pd.DataFrame:
    row = pd.DataFrame([estimate(catalog, Settings(model="Qwen/Qwen3-14B-FP8", server="gpu-l40s"))])
    return ladder(row, catalog, load_constants(), workload_shapes(load_workloads()), Target.of(catalog))


def test_columns_are_declared(frame: pd.DataFrame) -> None:
    assert all(columns.declaration(name) is not None for name in frame.columns)
    assert {c.name for c in columns.THROUGHPUT} <= set(frame.columns)


def test_bands_and_cost(frame: pd.DataFrame, catalog) -> None:
    assert len(frame) == 15
    assert (frame["output_tps_low"] < frame["output_tps"]).all() and (
        frame["tpot_s_high"] > frame["tpot_s"]
    ).all()
    price = catalog.servers["gpu-l40s"].price.monthly
    assert np.allclose(frame["usd_per_mtok_high"], price / (frame["output_tps_low"] * 730 * 3600) * 1e6)


def test_users_within_target(frame: pd.DataFrame) -> None:
    users = users_within_target(frame)
    chat = frame[frame["workload"] == "chat"]
    best = chat.loc[chat["within_target"], "concurrency"].max()
    assert users.xs("chat", level="workload").iloc[0] == best > 1


def test_a_finite_rate_caps_throughput(catalog) -> None:
    row = pd.DataFrame([estimate(catalog, Settings(model="Qwen/Qwen3-14B-FP8", server="gpu-l40s"))])
    out = ladder(row, catalog, {}, [Shape("x", 1024, 512, 64)], Target.of(catalog), rate=0.5)
    assert out["output_tps"].iloc[0] == pytest.approx(256) and out["output_tps_high"].isna().iloc[0]


def test_identical_deployments_are_computed_once_and_agree(catalog) -> None:
    one = estimate(catalog, Settings(model="Qwen/Qwen3-14B-FP8", server="gpu-l40s"))
    other = estimate(catalog, Settings(model="Qwen/Qwen3-8B", server="gpu-l40s"))
    df = pd.DataFrame([one, other, one])
    from sizing.engine.throughput_frame import distinct_rows
    from sizing.engine.throughput_inputs import inputs

    first, inverse = distinct_rows(inputs(df, catalog, {}))
    assert len(first) == 2 and inverse[0] == inverse[2] != inverse[1]
    out = ladder(df, catalog, {}, [Shape("chat", 1024, 1024, 16)], Target.of(catalog))
    assert out["output_tps"].iloc[0] == out["output_tps"].iloc[2] != out["output_tps"].iloc[1]
