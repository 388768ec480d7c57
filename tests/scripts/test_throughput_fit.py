"""Tests for scripts/throughput_fit.py: what a class's entry of calibration/throughput.yaml holds."""

from __future__ import annotations

import numpy as np
import pandas as pd

from scripts.throughput_fit import METRICS, class_entry


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
