"""The closed-form steady state: each term checked against hand arithmetic on small arrays."""

from __future__ import annotations

import numpy as np
import pytest

from sizing.engine import throughput as tp


def one(**over: float) -> dict[str, np.ndarray]:
    """A 10-layer dense model on one GPU: 1 GB of weights, 1 KB of KV per token and layer, 1 TB/s,
    100 TFLOP/s."""
    x = {
        "full_on_stage": 10,
        "sliding_on_stage": 0,
        "linear_on_stage": 0,
        "window": 0,
        "kv_bytes_per_token_layer": 1000,
        "linear_state_bytes": 0,
        "hidden_size": 1000,
        "tp": 1,
        "pp": 1,
        "dp": 1,
        "max_num_seqs": 256,
        "max_num_batched_tokens": 2048,
        "attn_width": 0,
        "stage_layers": 10,
        "kv_tokens": 1e6,
        "dense_bytes": 1e9,
        "expert_bytes": 0,
        "hit_share": 1,
        "active_params": 5e8,
        "head_params": 0,
        "eta_bw": 1,
        "eta_kv": 1,
        "eta_compute": 1,
        "overlap_loss": 0,
        "tau_layer_s": 0,
        "tau_step_s": 0,
        "eta_experts": 1,
        "tau_seq_s": 0,
        "tau_allreduce_s": 0,
        "tau_expert_s": 0,
        "tau_dequant_s": 0,
        "dequant": 0,
        "expert_weight_bytes": 1,
        "expert_group": 1,
        "experts_on_rank": 0,
        "wave_share": 1,
        "bandwidth": 1e12,
        "link": 32e9,
        "peak_flops": 1e14,
    }
    x.update(over)
    return {k: np.asarray([v], dtype=float) for k, v in x.items()}


def test_one_sequence_step_is_weights_over_bandwidth() -> None:
    x = one()
    weights, experts, cache = tp.step_bytes(x, np.array([1.0]), np.array([0.0]), np.array([0.0]))
    # the new token's KV, nothing to attend yet
    assert (weights[0], experts[0], cache[0]) == pytest.approx((1e9, 0, 1000 * 10))
    assert tp.step_seconds(x, np.array([1.0]), np.array([0.0]), np.array([0.0]), np.array([0.0]))[
        0
    ] == pytest.approx(1.00001e-3)


def test_prompt_tokens_skip_the_lm_head() -> None:
    """A decode token runs every active parameter (2 FLOPs each); a prompt token all but the LM head, whose
    logits vLLM computes only where it samples; the head never counts for more than half."""
    x = one(head_params=1e8)
    zero, ten = np.array([0.0]), np.array([10.0])
    assert tp.step_flops(x, ten, zero, zero, zero)[0] == pytest.approx(2 * 5e8 * 10)
    assert tp.step_flops(x, zero, ten, zero, zero)[0] == pytest.approx(2 * 4e8 * 10)
    assert tp.step_flops(one(head_params=4e8), zero, ten, zero, zero)[0] == pytest.approx(2 * 2.5e8 * 10)


def test_experts_touched_grows_with_the_batch() -> None:
    share = tp.experts_touched(np.array([1.0, 8.0, 1e6]), np.array([0.125] * 3))
    assert share == pytest.approx([0.125, 1 - 0.875**8, 1.0])


def moe(**over: float) -> dict[str, np.ndarray]:
    """:func:`one` with 8 GB of routed experts, 64 of them, 8 per token (k/E = 1/8)."""
    return one(**{"expert_bytes": 8e9, "hit_share": 0.125, "experts_on_rank": 64, **over})


def test_experts_shared_by_data_parallel_engines_see_all_their_tokens() -> None:
    alone, shared = moe(), moe(expert_group=4)
    decode, none = np.array([2.0]), np.array([0.0])
    touched = tp.step_bytes(alone, decode, none, none)[1][0]
    assert touched == pytest.approx(8e9 * (1 - 0.875**2))
    assert tp.step_bytes(shared, decode, none, none)[1][0] == pytest.approx(8e9 * (1 - 0.875**8))


def test_expert_exchange_gathers_the_group_twice_per_layer() -> None:
    x = moe(expert_group=4, tau_allreduce_s=1e-5)
    seconds = tp.expert_exchange_seconds(x, np.array([10.0]))[0]
    assert seconds == pytest.approx(2 * 10 * 3 * 10 * 1000 * 2 / 32e9 + 2 * 10 * 1e-5)
    assert tp.expert_exchange_seconds(moe(), np.array([10.0]))[0] == 0


def test_each_held_expert_costs_its_fitted_time() -> None:
    """The fused-MoE grid spans every expert the rank holds (64 here), however few tokens the step has."""
    x = moe(tau_expert_s=1e-7)
    assert tp.expert_blocks(x)[0] == 64
    host = tp.step_parts(x, np.array([1.0]), np.array([0.0]), np.array([0.0]), np.array([0.0]))[3][0]
    assert host == pytest.approx(1e-7 * 10 * 64)


def test_dequantised_experts_read_no_faster_than_their_weights_convert() -> None:
    """1 GB of touched experts at 0.5 byte per weight (2e9 weights): 1 ms at 1 TB/s, or 2e9 × 1e-12 s = 2 ms
    where the kernels dequantise them; the dense weights (1 ms) add to either."""
    decode, none = np.array([1.0]), np.array([0.0])
    plain = moe(expert_bytes=8e9, tau_dequant_s=1e-12, expert_weight_bytes=0.5)
    weight_only = {**plain, "dequant": np.ones(1)}
    memory = tp.step_parts(plain, decode, none, none, none)[0][0]
    assert memory == pytest.approx(1e-3 + 1e-3 + 1e-8)
    assert tp.step_parts(weight_only, decode, none, none, none)[0][0] == pytest.approx(1e-3 + 2e-3 + 1e-8)


def test_sliding_layers_read_at_most_the_window() -> None:
    x = one(full_on_stage=2, sliding_on_stage=8, window=100)
    assert tp.attended(x, np.array([1000.0]))[0] == 2 * 1000 + 8 * 100


def test_tp_allreduce_follows_the_ring() -> None:
    x = one(tp=4)
    seconds = tp.allreduce_seconds(x, np.array([10.0]))[0]
    assert seconds == pytest.approx(2 * 10 * 1.5 * 10 * 1000 * 2 / 32e9)


def test_steady_state_closed_loop_and_limits() -> None:
    x = one(tau_seq_s=1e-4)
    out = tp.steady_state(x, np.array([100.0]), np.array([100.0]), np.array([4.0]))
    assert out["running"][0] == 4 and out["limited_by"][0] == tp.LIMITS.index("bandwidth")
    request = out["ttft_s"][0] + 99 * out["tpot_s"][0]
    assert out["output_tps"][0] == pytest.approx(4 * 100 / request)
    assert out["user_tps"][0] == pytest.approx(1 / out["tpot_s"][0])
    full = tp.steady_state(one(kv_tokens=300), np.array([100.0]), np.array([100.0]), np.array([4.0]))
    assert full["running"][0] == 2 and full["limited_by"][0] == tp.LIMITS.index("kv-pool")
    assert full["ttft_s"][0] > out["ttft_s"][0]  # two clients wait for a slot
    seqs = tp.steady_state(one(max_num_seqs=3), np.array([100.0]), np.array([100.0]), np.array([4.0]))
    assert tp.LIMITS[seqs["limited_by"][0]] == "max-num-seqs"


def test_cost_per_million_tokens() -> None:
    usd = tp.usd_per_million(np.array([730.0]), np.array([1e6 / 3600]), 730.0)
    assert usd[0] == pytest.approx(1.0)
    low, high = tp.banded(np.array([100.0]), np.array([-0.2]), np.array([0.1]))
    assert (low[0], high[0]) == pytest.approx((80.0, 110.0))


def test_prompt_chunks_fill_the_budget_and_a_rate_caps_throughput() -> None:
    x = one()
    out = tp.steady_state(x, np.array([1000.0]), np.array([100.0]), np.array([8.0]))
    chunk = tp.step_seconds(x, np.array([8.0]), np.array([2040.0]), np.array([1050.0]), np.array([1000.0]))[0]
    plain = tp.step_seconds(x, np.array([8.0]), np.array([0.0]), np.array([1050.0]), np.array([1000.0]))[0]
    steps = 8 * 1000 / 2040  # of every 100 steps, this many carry a full chunk of the budget
    assert out["tpot_s"][0] == pytest.approx((steps * chunk + (100 - steps) * plain) / 100)
    slow = tp.open_loop(x, np.array([100.0]), np.array([100.0]), np.array([64.0]), np.array([0.5]))
    assert slow["output_tps"][0] == pytest.approx(50.0) and slow["running"][0] < 64
