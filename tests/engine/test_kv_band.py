"""The KV band: each row's model classes and the widest error band of them."""

from __future__ import annotations

import numpy as np
import pytest

from sizing.engine import kv_band as kb
from sizing.engine.overhead import Coefficients
from sizing.units import GiB


def test_band_classes_code_every_class_a_row_has_and_dense_as_none():
    codes = kb.band_classes(
        np.array([False, True, True, False]),
        np.array([False, True, False, False]),
        np.array([0, 0, 12, 0]),
        np.array([0, 0, 0, 1024]),
    )
    assert [kb.classes_in(int(code)) for code in codes] == [
        ("dense",),
        ("moe", "mla"),
        ("moe", "hybrid"),
        ("multimodal",),
    ]


def test_the_band_of_several_classes_is_the_widest_of_theirs():
    coef = Coefficients(
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0.09,
        -0.09,
        class_bands=((0.01, -0.01), (0.05, -0.02), (0.02, -0.03), (0.04, -0.06), (0.03, -0.04)),
    )
    optimistic, pessimistic = kb.band_table(coef)
    assert (optimistic[0], pessimistic[0]) == (0.01, -0.01)  # dense
    assert (optimistic[1 | 2], pessimistic[1 | 2]) == (0.05, -0.03)  # MoE + MLA
    low, high = kb.kv_band(np.array([100.0, 100.0]), coef, np.array([0, 3], dtype=np.int8))
    assert low.tolist() == pytest.approx([100 / 1.01, 100 / 1.05]) and high.tolist() == pytest.approx(
        [100 / 0.99, 100 / 0.97]
    )
    assert kb.kv_band(np.array([100.0]), coef)[0].tolist() == pytest.approx(
        [100 / 1.09]
    )  # no classes: scalar


def _coef(optimistic: float, pessimistic: float) -> Coefficients:
    return Coefficients(0, 0, 0, 0, 0, 0, 0, 0, 0, optimistic, pessimistic)


@pytest.mark.parametrize("printed", [10 * GiB, -2 * GiB])
def test_kv_band_divides_by_the_error_quantiles(printed):
    low, high = kb.kv_band(np.array([printed]), _coef(0.25, -0.2))
    ends = sorted([printed / 1.25, printed / 0.8])
    assert (low[0], high[0]) == pytest.approx(ends)
