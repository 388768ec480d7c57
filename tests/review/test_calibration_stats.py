"""Tests for sizing.review.calibration_stats: grouped statistics, class bands and their coverage."""

from __future__ import annotations

import pytest

from sizing.review.calibration import Check
from sizing.review.calibration_stats import MIN_MODELS, class_bands, coverage, failures, group_summary, stats


def kv(
    case: str,
    lomo_error: float,
    model: str,
    classes: tuple[str, ...] = ("dense",),
    weight: float = 1.0,
    gpu: str = "h200",
) -> Check:
    """An available-KV check of 100 GiB logged whose leave-one-model-out error is ``lomo_error``."""
    return Check(
        case,
        "available_kv",
        100.0,
        100.0,
        0.1,
        lomo=100.0 * (1 + lomo_error),
        logo=100.0,
        classes=classes,
        line="V1",
        model=model,
        gpu=gpu,
        weight=weight,
    )


def test_near_duplicates_count_once_in_every_statistic():
    """Four twins of +10 % at weight ¼ weigh as much as one log: the median of (+10 %, −1 %, −2 %) is −1 %."""
    checks = [kv(f"t{i}", 0.10, "a", weight=0.25) for i in range(4)] + [
        kv("b", -0.01, "b"),
        kv("c", -0.02, "c"),
    ]
    found = stats(checks)
    assert (found["cases"], found["groups"]) == (6, 3)
    assert found["lomo_signed_median"] == pytest.approx(-0.01)
    assert found["lomo_median"] == pytest.approx(0.02) and found["lomo_worst"] == pytest.approx(0.10)


DECILES = (0.1, 0.9)
"""The band's error quantiles these tests use (the catalog's ``kv_band_quantiles``)."""


def test_each_class_with_enough_models_has_its_band_and_the_others_borrow_the_widest():
    dense = [
        kv(f"d{i}", e, f"m{i}")
        for i, e in enumerate((-0.05, -0.01, 0.0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.2))
    ]
    moe = [kv("x", 0.01, "moe-only", classes=("moe",))]
    bands = class_bands(dense + moe, DECILES)
    assert bands["dense"] == (pytest.approx(0.06), pytest.approx(-0.05))  # 10 logs: the 2nd and 9th
    assert len({"moe-only"}) < MIN_MODELS and bands["moe"] == bands["dense"] == bands["hybrid"]


def test_coverage_counts_the_logs_inside_their_band_pooled_and_without_their_model():
    checks = [
        kv(f"d{i}", e, f"m{i}")
        for i, e in enumerate((-0.05, -0.01, 0.0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.2))
    ]
    found = coverage(checks, DECILES)
    assert found["pooled"] == pytest.approx(0.9)  # only +20 % lies outside (−5 %, +6 %)
    assert found["nested"] == pytest.approx(0.8)  # both end models fall outside a band built without them
    assert found["cases"] == 10


def test_failures_name_each_bound_the_errors_break():
    good = [kv(f"g{i}", 0.005 * (-1) ** i, f"m{i}") for i in range(10)]
    weights = [Check(f"w{i}", "weights", 10.0, 10.05, 0.03, model=f"m{i}") for i in range(3)]
    assert failures(good + weights, DECILES) == []
    biased = [kv(f"o{i}", 0.03, f"m{i}") for i in range(10)]
    assert failures(biased + weights, DECILES) == [
        "available KV lomo_median 3.00% > 2%",
        "available KV lomo_signed_median 3.00% > 1%",
    ]


def test_group_summary_by_gpu():
    checks = [
        kv("a", 0.01, "m1", gpu="b200"),
        kv("b", -0.03, "m2", gpu="h200"),
        kv("c", 0.01, "m3", gpu="h200"),
    ]
    found = group_summary(checks, "gpu")
    assert list(found) == ["b200", "h200"] and found["h200"]["cases"] == 2
