"""Tests of :mod:`sizing.views.steps`: worked-example steps whose sums a reader can redo."""

from __future__ import annotations

import math

from sizing.units import GiB
from sizing.views.steps import Quantity, weights_step

ROW = {"tp": 8, "pp": 1, "w_total": 626.92 * GiB}


def test_weights_split_evenly_show_the_plain_split() -> None:
    """Assert an even split (within 0.005 GiB per GPU) names the checkpoint and TP × PP only."""
    step = weights_step(
        {**ROW, "weights_bytes": 626.92 * GiB / 8 + 0.004 * GiB}, Quantity(1, "gib"), Quantity(1, "gib"), True
    )
    assert step.formula_key == "formula_weights" and [k for k, _ in step.terms] == ["checkpoint", "tp", "pp"]


def test_weights_not_split_evenly_show_the_even_share_and_the_rest() -> None:
    """Assert DeepSeek-V3's 79.31 GiB per GPU on TP 8 reads as 78.37 GiB even share + 0.95 GiB not divided
    (MLA's replicated projections and the router), so the sum can be redone."""
    step = weights_step({**ROW, "weights_bytes": 79.31 * GiB}, Quantity(1, "gib"), Quantity(1, "gib"), True)
    terms = dict(step.terms)
    assert step.formula_key == "formula_weights_uneven"
    assert math.isclose(terms["even"].value, 626.92 * GiB / 8)
    assert round((terms["even"].value + terms["uneven"].value) / GiB, 2) == 79.31


def test_weights_on_one_gpu_have_no_formula() -> None:
    """Assert a model on one GPU shows its weights without a split."""
    step = weights_step({**ROW, "tp": 1, "weights_bytes": 1.0}, Quantity(1, "gib"), Quantity(1, "gib"), False)
    assert step.formula_key == "" and step.terms == ()
