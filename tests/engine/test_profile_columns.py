"""The architecture columns the overhead terms read."""

from __future__ import annotations

from sizing.engine.profile_columns import dense_intermediate, profile_columns


def test_dense_model_columns(catalog):
    m = catalog.models["Qwen/Qwen3-8B"]
    assert profile_columns(m) == {
        "dense_inter": 12288,
        "moe_top_k": 0,
        "moe_inter": 0,
        "mla_nope_plus_v": 0,
        "la_profile_units": 0,
    }


def test_moe_mla_model_uses_its_dense_layers_and_latent_widths(catalog):
    m = catalog.models["deepseek-ai/DeepSeek-V3"]
    cols = profile_columns(m)
    shared = m.moe.shared_experts * m.moe.shared_intermediate_size
    assert cols["dense_inter"] == max(m.intermediate_size, shared)
    assert (cols["moe_top_k"], cols["moe_inter"]) == (m.moe.experts_per_token, m.moe.expert_intermediate_size)
    assert cols["mla_nope_plus_v"] == m.mla.qk_nope_head_dim + m.mla.v_head_dim


def test_moe_without_dense_layers_or_shared_experts_has_no_dense_mlp(catalog):
    assert dense_intermediate(catalog.models["Qwen/Qwen3-30B-A3B"]) == 0


def test_only_kda_layers_count_their_profiled_projections(catalog):
    # q, k, v, the fp32 forget gate (two units), the output gate and core_attn_out
    assert profile_columns(catalog.models["moonshotai/Kimi-Linear-48B-A3B-Instruct"])["la_profile_units"] == 7
    assert profile_columns(catalog.models["Qwen/Qwen3-Next-80B-A3B-Instruct"])["la_profile_units"] == 0
