"""Tests for scripts/throughput_fit.py: what a class's entry of calibration/throughput.yaml holds, the loss,
the constants each class fits and the shared ones."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from scripts.throughput_fit import METRICS, SHARED, class_entry, fit, free_constants, predict, pseudo_huber
from tests.engine.test_throughput import moe, one


def test_band_comes_from_v1_runs_and_statistics_from_all() -> None:
    """Assert V0 runs (scored, not fitted) are in the error statistics but do not widen the band, and a
    class of V0 runs only takes its band from them."""
    v1_errors = np.linspace(-0.2, 0.2, 11)
    errors = pd.DataFrame({m: np.r_[v1_errors, -0.6, -0.65] for m in METRICS})
    sub = pd.DataFrame({"v1": [True] * 11 + [False] * 2, "publisher": ["a"] * 11 + ["b"] * 2})
    entry = class_entry({"eta": 1.0}, errors, sub, (0.1, 0.9))
    metric = METRICS[0]
    assert entry["band"][metric] == [-0.16, 0.16]
    assert entry["errors"][metric]["low"] < -0.2 and entry["runs"] == 13 and entry["sources"] == 2
    only_v0 = class_entry({"eta": 1.0}, errors, sub.assign(v1=False), (0.1, 0.9))
    assert only_v0["band"][metric] == [only_v0["errors"][metric]["low"], only_v0["errors"][metric]["high"]]


def test_pseudo_huber_is_quadratic_near_zero_and_linear_far_out() -> None:
    small, large = pseudo_huber(np.array([0.01, 1.0]))
    assert small == pytest.approx(0.01**2, rel=0.01)
    assert large == pytest.approx(2 * 0.1**2 * (np.sqrt(101) - 1))  # ≈ 2 δ |e|, not e² = 1


def test_a_class_without_experts_fits_no_expert_constant_and_none_fits_a_shared_one() -> None:
    dense = free_constants(one())
    assert "eta_experts" not in dense and "tau_expert_s" not in dense
    assert "eta_experts" in free_constants(moe())
    assert not set(SHARED) & set(free_constants(moe()))


def runs_of(classes: list[str]) -> pd.DataFrame:
    """One closed-loop run per class: 1024/128 tokens at 4 clients, measured 10 ms TPOT, 50 ms TTFT."""
    n = len(classes)
    return pd.DataFrame(
        {
            "class": classes,
            "isl": [1024] * n,
            "osl": [128] * n,
            "concurrency": [4] * n,
            "tpot_s": [0.01] * n,
            "ttft_s": [0.05] * n,
            "output_tps": [4 * 128 / (0.05 + 127 * 0.01)] * n,
            "weight": [1.0] * n,
        }
    )


def test_the_shared_constants_take_one_value_for_every_class() -> None:
    a, b = moe(dequant=1, expert_weight_bytes=0.5), one()
    x = {k: np.concatenate([a[k], b[k]]) for k in a}
    runs = runs_of(["moe", "dense"])
    constants = fit(x, runs, rounds=1)
    assert {constants["moe"][p] for p in SHARED} == {constants["dense"][p] for p in SHARED}
    assert constants["dense"]["tau_expert_s"] == 0 and constants["dense"]["eta_experts"] == 1
    out = predict(x, runs, constants)
    assert np.all(np.isfinite(out["tpot_s"])) and out["tpot_s"][0] > out["tpot_s"][1]  # 8 GB of experts more
