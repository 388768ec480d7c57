"""Tests for sizing.engine.memory: the per-GPU budget arithmetic on hand-made rows, values worked by hand."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from sizing.engine import memory
from sizing.engine.overhead import Coefficients
from sizing.engine.versions import rules_for
from sizing.units import GiB, MiB

EXTENSIBLE, BUDGETED, V0 = rules_for("0.34.0"), rules_for("0.25.0"), rules_for("0.6.4")
COEF = Coefficients(
    act_hidden_factor=2.5,
    act_mlp_factor=0.5,
    nontorch_mib=60,
    nccl_mib=40,
    nvls_mib=0,
    consumed_mib=0,
    cudagraph_mib_per_capture=0.3,
    cuda_context_mib=500,
    extensible_margin_gib=1,
    kv_band_optimistic=0.02,
    kv_band_pessimistic=-0.02,
)
L40S = 48305799168  # 46068 MiB


def frame(**columns: object) -> pd.DataFrame:
    """A one-row frame of the given columns."""
    return pd.DataFrame({k: [v] for k, v in columns.items()})


SPLIT_ROW = dict(
    layers=4,
    w_layer_sharded=800.0,
    w_layer_replicated=10.0,
    w_embeddings=100.0,
    w_lm_head=100.0,
    tp=2,
    w_experts=0.0,
    w_vision=0.0,
    language_model_only=False,
    w_rank_buffers=7,
)
"""A 4-layer model's weight split, bytes: 800 sharded, 10 replicated, 100 each for embeddings and head."""


def test_weights_per_gpu_splits_layers_by_tp_and_stages_by_pp() -> None:
    """Assert (800/2 + 10) + (100 + 100)/2 + 7 = 517 at TP2, and half the layers plus one end at TP2 × PP2;
    the 7 bytes of rank buffers (RoPE caches) are on every rank whole."""
    assert memory.weights_per_gpu(frame(**SPLIT_ROW, pp=1), EXTENSIBLE).tolist() == [517.0]
    assert memory.weights_per_gpu(frame(**SPLIT_ROW, pp=2), EXTENSIBLE).tolist() == [205.0 + 50.0 + 7]
    tied = {**SPLIT_ROW, "w_lm_head": 0.0}
    assert memory.weights_per_gpu(frame(**tied, pp=1), EXTENSIBLE).tolist() == [410.0 + 50.0 + 7]


def test_non_expert_weights_are_the_rank_without_its_routed_experts() -> None:
    """600 of the 800 sharded bytes are routed experts: the rank holds 300 of them at TP2, the rest 217."""
    row = frame(**{**SPLIT_ROW, "w_experts": 600.0}, pp=1, precision="fp8", ep=1)
    assert memory.non_expert_weights_per_gpu(row)[0] == 100.0 + 10.0 + 100.0 + 7
    assert memory.weights_per_gpu(row, EXTENSIBLE)[0] == 517.0


def gqa_row(tp: int = 1) -> pd.DataFrame:
    """Qwen3-0.6B's attention: 28 layers, 8 KV heads of 128, bf16 cache, 64-token blocks.

    No sparse-MLA indexer (``index_head_dim`` 0) and full layers shaped like the others (``full_kv_heads``
    and ``full_head_dim`` as ``kv_heads`` and ``head_dim``), as :mod:`sizing.engine.cases` fills them.
    """
    return frame(
        full_layers=28,
        sliding_layers=0,
        linear_layers=0,
        pp=1,
        tp=tp,
        is_mla=False,
        kv_heads=8,
        head_dim=128,
        mla_dim=0,
        kv_bytes=2,
        la_key_heads=0,
        la_value_heads=0,
        la_key_dim=0,
        la_value_dim=0,
        la_conv_kernel=1,
        la_ssm_bytes=2,
        la_widen_groups=False,
        model_dtype_bytes=2,
        block_size_override=0,
        block_size_attention=64,
        index_head_dim=0,
        full_kv_heads=8,
        full_head_dim=128,
    )


@pytest.mark.parametrize(("tp", "per_layer"), [(1, 4096), (2, 2048), (16, 512)])
def test_kv_geometry_of_a_gqa_model(tp: int, per_layer: int) -> None:
    """Assert 2 × 8 heads × 128 × 2 B = 4096 B per token and layer (heads split by TP, at least one)."""
    df = gqa_row(tp)
    memory.add_kv_geometry(df, EXTENSIBLE)
    row = df.iloc[0]
    assert row["kv_bytes_per_token_layer"] == per_layer
    assert row["kv_bytes_per_token"] == 28 * per_layer
    assert (row["block_size"], row["group_size"], row["groups_full"], row["kv_groups"]) == (64, 28, 1, 1)
    assert (row["block_size_full"], row["block_size_sliding"]) == (64, 64)  # one page size: nothing to unify
    assert row["page_bytes"] == 64 * per_layer and row["bytes_per_block"] == 28 * 64 * per_layer


def kimi_linear_row() -> pd.DataFrame:
    """Kimi-Linear at TP2: 7 MLA layers (576-wide bf16 latent) and 20 KDA layers (16 heads of 128 per rank,
    conv kernel 4, fp32 temporal state: 1,085,440 B), on a GPU whose MLA backend keeps 16-token blocks."""
    mla = {
        "full_layers": 7,
        "linear_layers": 20,
        "is_mla": True,
        "kv_heads": 1,
        "head_dim": 576,
        "mla_dim": 576,
    }
    kda = {
        "la_key_heads": 32,
        "la_value_heads": 32,
        "la_key_dim": 128,
        "la_value_dim": 128,
        "la_conv_kernel": 4,
    }
    rest = {"full_kv_heads": 1, "full_head_dim": 576, "la_ssm_bytes": 4, "block_size_attention": 16}
    return frame(**{**gqa_row(2).iloc[0].to_dict(), **mla, **kda, **rest})


@pytest.mark.parametrize(("version", "block"), [("0.11.1", 960), ("0.20.2", 944)])
def test_an_mla_hybrid_aligns_its_block_to_64_before_0_19(version: str, block: int) -> None:
    """Kimi-Linear's 1,085,440 B KDA state in 1,152 B MLA pages: 960 tokens where
    ``HybridAttentionMambaModelConfig`` aligns MLA to 64 (vllm#28228 prints 75,840 = 79 x 960 tokens),
    944 with 16 once the platform aligns to the backend's block; 4 groups of 7 layers either way."""
    df = kimi_linear_row()
    memory.add_kv_geometry(df, rules_for(version))
    row = df.iloc[0]
    assert (row["linear_state_bytes"], row["kv_bytes_per_token_layer"]) == (1_085_440, 1152)
    assert (row["block_size"], row["group_size"], row["kv_groups"]) == (block, 7, 4)
    assert row["page_bytes"] == block * 1152


def llama8b_profile_row(tokens: int) -> pd.DataFrame:
    """Llama 3.1 8B at TP1 on an RTX 3090 (sm 86), profiled over ``tokens`` tokens with 256 sequences."""
    return frame(
        profile_tokens=tokens,
        tp=1,
        pp=1,
        hidden_size=4096,
        dense_inter=14336,
        attention_heads=32,
        vocab_size=128256,
        max_num_seqs=256,
        **{"moe_top_k": 0, "moe_inter": 0, "mla_nope_plus_v": 0, "is_moe": False, "linear_layers": 0},
        **{"la_value_heads": 0, "la_value_dim": 0, "la_profile_units": 0, "arch_sm": 86, "nvswitch": False},
    )


def test_v0_forward_is_a_fixed_term_and_leaves_the_fitted_activations_to_v1() -> None:
    """V0 (vllm#10517, 29,000 tokens): the eager forward is 29,000 x 110,592 B = 2.99 GiB with no fitted
    activation basis; V1 keeps the fitted bases and no fixed eager term."""
    v0, v1 = llama8b_profile_row(29000), llama8b_profile_row(29000)
    memory.add_fixed_terms(v0, rules_for("0.6.5"))
    memory.add_fixed_terms(v1, rules_for("0.10.2"))
    assert round(v0["eager_forward_bytes"][0] / GiB, 2) == 2.99 and v1["eager_forward_bytes"][0] == 0
    bases_v0, bases_v1 = (
        memory.overhead_bases(v0, rules_for("0.6.5")),
        memory.overhead_bases(v1, rules_for("0.10.2")),
    )
    assert bases_v0["act_hidden_factor"][0] == 0 and bases_v0["v0_profile_mib"][0] == MiB
    assert bases_v1["act_hidden_factor"][0] == 29000 * 4096 * 2 and bases_v1["v0_profile_mib"][0] == 0


def budget_row(gmu: float, given: int = 0) -> pd.DataFrame:
    """One L40S with Qwen3-0.6B's weights and overheads."""
    return frame(
        total_bytes=L40S,
        gpu_memory_utilization=gmu,
        weights_bytes=1192085504.0,
        activation_bytes=516685824.0,
        nontorch_bytes=62914560.0,
        cudagraph_bytes=449209958.4,
        kv_cache_memory_bytes=given,
        is_moe=False,
        is_mla=False,
        linear_layers=0,
        vision_tokens=0,
    )


def test_each_class_gets_its_own_band_and_a_row_in_several_the_widest() -> None:
    """Assert a dense row's low end divides by 1.01 and a MoE + multimodal row's by 1.05 (the wider of its two
    classes' optimistic quantiles), its high end by 1 − 0.04 (the wider pessimistic one)."""
    bands = (
        (0.01, -0.01),
        (0.05, -0.02),
        (0.02, -0.03),
        (0.0, 0.0),
        (0.03, -0.04),
    )  # dense moe mla hybrid mm
    coef = dataclasses.replace(COEF, class_bands=bands)
    df = pd.concat([budget_row(0.9), budget_row(0.9)], ignore_index=True)
    df.loc[1, ["is_moe", "vision_tokens"]] = [True, 256]
    memory.add_budget(df, BUDGETED, coef)
    printed = df["available_kv_bytes"].to_numpy()
    assert df["available_kv_low_bytes"].tolist() == pytest.approx([printed[0] / 1.01, printed[1] / 1.05])
    assert df["available_kv_high_bytes"].tolist() == pytest.approx([printed[0] / 0.99, printed[1] / 0.96])


def test_budget_printed_and_effective_kv_memory() -> None:
    """Assert ceil(0.9 × 48305799168) = 43475219252, minus 1771685888 non-KV bytes, printed 41703533364.

    The band of COEF (±2 %) puts the printed figure between 41703533364 / 1.02 = 40885817023.53 and
    41703533364 / 0.98 = 42554625881.63. The point estimate takes the 449209958.4 graph bytes off the
    printed figure (41254323405.6); blocks are cut from the low end less the graphs,
    40885817023.53 − 449209958.4 = 40436607065.13.
    """
    df = budget_row(0.9)
    memory.add_budget(df, EXTENSIBLE, COEF)
    assert df["budget_bytes"].tolist() == [43475219252.0]
    assert df["available_kv_bytes"].tolist() == [41703533364.0]
    assert df["available_kv_low_bytes"].iloc[0] == pytest.approx(40885817023.53, abs=0.01)
    assert df["available_kv_high_bytes"].iloc[0] == pytest.approx(42554625881.63, abs=0.01)
    assert df["kv_cache_point_bytes"].iloc[0] == pytest.approx(41254323405.6)
    assert df["kv_cache_bytes"].iloc[0] == pytest.approx(40436607065.13, abs=0.01)


def test_extensible_cache_keeps_headroom_when_the_budget_is_high() -> None:
    """Assert at 0.99 the point KV memory is total − 500 MiB context − non-KV − graphs − 1 GiB margin.

    48305799168 − 524288000 − 1771685888 − 449209958.4 − 1073741824 = 44486873497.6, below the printed
    47822741177 − 1771685888 = 46051055289 less the graphs (the margin is 1 GiB: 0.75 × 516685824 is less).
    Blocks are cut that far below the low end of the band: 44486873497.6 − 46051055289 × 0.02 / 1.02
    = 44486873497.6 − 902961868.41 = 43583911629.19.
    """
    df = budget_row(0.99)
    memory.add_budget(df, EXTENSIBLE, COEF)
    assert df["available_kv_bytes"].iloc[0] == 47822741177 - 1771685888 == 46051055289
    assert df["kv_cache_point_bytes"].iloc[0] == pytest.approx(
        L40S - 500 * MiB - 1771685888 - 449209958.4 - 1 * GiB
    )
    assert df["kv_cache_point_bytes"].iloc[0] == pytest.approx(44486873497.6)
    assert df["kv_cache_bytes"].iloc[0] == pytest.approx(43583911629.19, abs=0.01)


def test_extensible_cache_keeps_three_gib_free_on_rocm() -> None:
    """Assert the same row on a ROCm GPU keeps 3 GiB instead of 1 (``measure_kv_cache_blocks``): 2 GiB
    less."""
    cuda, rocm = budget_row(0.99), budget_row(0.99)
    rocm["rocm"] = True
    memory.add_budget(cuda, EXTENSIBLE, COEF)
    memory.add_budget(rocm, EXTENSIBLE, COEF)
    got = cuda["kv_cache_point_bytes"].iloc[0] - rocm["kv_cache_point_bytes"].iloc[0]
    assert got == pytest.approx(2 * GiB)
    assert rocm["available_kv_bytes"].iloc[0] == cuda["available_kv_bytes"].iloc[0]  # the print is the same


def test_budgeted_graphs_are_printed_and_given_kv_memory_wins() -> None:
    """Assert 0.20–0.33 subtract the graphs from the printed figure; --kv-cache-memory-bytes replaces all.

    Printed 41703533364 − 449209958.4 = 41254323405.6 is also the point estimate (nothing is taken after
    the print); blocks are cut from the low end of the band, 41254323405.6 / 1.02 = 40445415103.53.
    A given KV size has no band: printed, low, high, point and cut figures are all 10 GiB.
    """
    df = budget_row(0.9)
    memory.add_budget(df, BUDGETED, COEF)
    assert df["available_kv_bytes"].iloc[0] == pytest.approx(41254323405.6)
    assert df["kv_cache_point_bytes"].iloc[0] == df["available_kv_bytes"].iloc[0]
    assert df["kv_cache_bytes"].iloc[0] == df["available_kv_low_bytes"].iloc[0]
    assert df["kv_cache_bytes"].iloc[0] == pytest.approx(40445415103.53, abs=0.01)
    given = budget_row(0.9, given=10 * GiB)
    memory.add_budget(given, EXTENSIBLE, COEF)
    for column in (
        "available_kv_bytes",
        "available_kv_low_bytes",
        "available_kv_high_bytes",
        "kv_cache_point_bytes",
        "kv_cache_bytes",
    ):
        assert given[column].tolist() == [10 * GiB], column


def capacity_row(**extra: object) -> pd.DataFrame:
    """Blocks and groups for the capacity rules; both groups keep ``block_size`` unless told otherwise."""
    base = dict(
        num_gpu_blocks=5620,
        block_size=64,
        groups_full=1,
        groups_sliding=0,
        groups_linear=0,
        window=0,
        max_num_batched_tokens=2048,
        pp=1,
    )
    merged = {**base, **extra}
    merged.setdefault("block_size_full", merged["block_size"])
    merged.setdefault("block_size_sliding", merged["block_size"])
    return frame(**merged)


@pytest.mark.parametrize("rules", [EXTENSIBLE, V0])
def test_concurrency_is_blocks_over_blocks_per_request(rules) -> None:
    """Assert 5620 blocks of 64 tokens hold 5620 / 512 = 10.98 requests of 32K and 87.81 of 4K."""
    df = capacity_row()
    assert memory.concurrency_at(df, rules, 32768).tolist() == [5620 / 512]
    assert memory.concurrency_at(df, rules, 4096).tolist() == [5620 / 64]


def test_sliding_window_groups_hold_only_the_window() -> None:
    """Assert a full + sliding(128) pair at 4K needs 256 + (ceil(2175 / 16) + 1) = 393 blocks of 16."""
    df = capacity_row(num_gpu_blocks=1000, block_size=16, groups_sliding=1, window=128)
    assert memory.concurrency_at(df, EXTENSIBLE, 4096).tolist() == [1000 / 393]


def test_unified_pages_give_the_full_group_its_own_block_size() -> None:
    """Assert full blocks of 32 tokens beside sliding ones of 16 need 4096 / 32 + 137 = 265 blocks at 4K."""
    df = capacity_row(num_gpu_blocks=1000, block_size=16, block_size_full=32, groups_sliding=1, window=128)
    assert memory.concurrency_at(df, EXTENSIBLE, 4096).tolist() == [1000 / 265]


def test_printed_tokens_follow_the_release_line() -> None:
    """Assert V0 prints blocks × block size, ≥ 0.20 int(concurrency × max_model_len)."""
    df = capacity_row(kv_groups=1, max_concurrency=5620 / 512, max_model_len=32768)
    assert memory.printed_tokens(df, V0).tolist() == [5620 * 64]
    assert memory.printed_tokens(df, EXTENSIBLE).tolist() == [359680]
    assert np.issubdtype(np.asarray(memory.printed_tokens(df, EXTENSIBLE)).dtype, np.integer)


def moe_row(**plan: int) -> pd.DataFrame:
    """Qwen1.5-MoE-A2.7B's routed experts (60 of intermediate 1408, hidden 2048, BF16) in 24 layers; its
    attention left out (``is_mla``: not rounded here) and no vocabulary."""
    return frame(
        layers=24,
        pp=1,
        hidden_size=2048,
        w_tensor_bytes=2,
        attention_heads=16,
        head_dim=128,
        kv_heads=16,
        is_mla=True,
        full_layers=24,
        sliding_layers=0,
        dense_inter=5632,
        is_moe=True,
        experts=60,
        expert_intermediate=1408,
        vocab_size=0,
        w_lm_head=0.0,
        **plan,
    )


@pytest.mark.parametrize("plan", [dict(tp=4, ep=1), dict(tp=4, ep=4), dict(tp=1, ep=4)])
def test_split_rounding_counts_each_rank_s_whole_fused_expert_tensors(plan: dict[str, int]) -> None:
    """Assert a rank's fused expert tensors are all 60 experts at 1408/4 under TP 4 (``FusedMoE`` slices each
    expert) and 15 whole experts under EP 4, the same size: w13 165 MiB and w2 82.5 MiB, which the
    allocator rounds up to 166 and 84 MiB, 2.5 MiB a layer."""
    assert memory.split_rounding(moe_row(**plan), EXTENSIBLE)[0] == 24 * 2.5 * MiB
