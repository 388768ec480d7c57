"""Architecture columns the profile-run overhead terms need (:mod:`sizing.engine.overhead`), per model.

Kept apart from :func:`sizing.engine.cases.model_columns` so the overhead model owns its inputs:
the dense (or shared-expert) MLP width, the routed experts' top-k and width, and MLA's
decompressed prefill width.
"""

from __future__ import annotations

from sizing.catalog.schema import Model


def dense_intermediate(m: Model) -> int:
    """Width of the widest dense MLP a token passes: the dense MLP, or a MoE model's dense/shared MLP."""
    if m.moe is None:
        return m.intermediate_size
    shared = m.moe.shared_experts * m.moe.shared_intermediate_size
    return max(shared, m.intermediate_size if m.moe.dense_layers else 0)


KDA_PROFILE_UNITS = 7
"""Projection-wide bf16 tensors a KDA layer holds across its kernel in the profile run (see below)."""


def linear_profile_units(m: Model) -> int:
    """How many ``tokens x heads/TP x head_dim`` bf16 tensors a linear layer keeps live in the profile run.

    KDA (``vllm/model_executor/layers/kda.py: KimiDeltaAttention.forward``, vllm-project/vllm@01a7e5d9)
    computes q, k and v, the fp32 forget gate ``g1`` (``fused_kda_gate`` writes float32: two units),
    the output gate ``g2`` and a zeroed ``core_attn_out`` before the ``kda_attention`` op, whose
    kernel the V1 profile run skips: 7 units. Gated DeltaNet and Mamba-2 are not modelled (0).
    """
    la = m.linear_attention
    return KDA_PROFILE_UNITS if la is not None and la.kind == "kda" else 0


def profile_columns(m: Model) -> dict[str, object]:
    """Columns of one model for :mod:`sizing.engine.overhead` (widths in elements, counts)."""
    moe, mla = m.moe, m.mla
    return {
        "dense_inter": dense_intermediate(m),
        "moe_top_k": moe.experts_per_token if moe else 0,
        "moe_inter": moe.expert_intermediate_size if moe else 0,
        "mla_nope_plus_v": (mla.qk_nope_head_dim + mla.v_head_dim) if mla else 0,
        "la_profile_units": linear_profile_units(m),
    }
