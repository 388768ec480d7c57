"""Tests of :mod:`sizing.views.steps`: worked-example steps whose sums a reader can redo."""

from __future__ import annotations

import math

from sizing.units import GiB
from sizing.views.steps import Quantity, block_steps, kv_token_step, weights_step

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


CSA_ROW = {
    "csa_bytes_per_block": 1002240,
    "csa_full_page_bytes": 1002240,
    "csa_full_groups": 1,
    "csa_swa_groups": 2,
    "csa_c4_state_groups": 1,
    "csa_c128_state_groups": 1,
    "csa_window": 128,
    "bytes_per_block": 1002240,
    "kv_bytes_per_token": 3915,
    "kv_groups": 5,
    "blocks_per_request": 3866,
    "num_gpu_blocks": 104105,
    "kv_cache_bytes": 104105 * 1002240,
    "max_model_len": 131072,
    "max_num_batched_tokens": 8192,
    "pp": 1,
}


def test_deepseek_v4_steps_show_its_own_pool() -> None:
    """Assert DeepSeek-V4-Flash's steps: 3,915 B a token of context (one 1,002,240-byte block of the
    whole-context caches over 256 tokens), the largest page of its 5 groups, and the 3,866 blocks of a
    128K request split into 512 whole-context, 262 sliding-window and 3,092 compressor-state blocks."""
    token = kv_token_step(CSA_ROW)
    assert (token.label_key, token.formula_key, token.result[0].value) == (
        "step_kv_per_token_csa",
        "formula_kv_csa",
        3915,
    )
    assert dict(token.terms)["page"].value / dict(token.terms)["block_size"].value == 3915
    block, request, blocks = block_steps(CSA_ROW)
    assert (block.formula_key, dict(block.terms)["groups"].value, block.result[0].value) == (
        "formula_block_csa",
        5,
        1002240,
    )
    parts = {k: q.value for k, q in request.terms}
    assert parts == {"full": 512, "window": 262, "states": 2051 + 1041, "window_size": 128}
    assert parts["full"] + parts["window"] + parts["states"] == request.result[0].value == 3866
    assert blocks.id == "num_gpu_blocks"
