"""KV-cache arithmetic, vectorised: every function takes NumPy arrays (or scalars) column-wise.

Sources (``shared/reference/vllm-memory-model.md``): bytes per token (c.1, c.2, e), hybrid
grouping and sliding-window blocks (c.3), Mamba/GDN state and block size (b.1, b.2, c.4),
block counts and printed figures (b.3, b.4, f). Units: bytes, tokens, blocks.
"""

from __future__ import annotations

import numpy as np

ArrayLike = np.ndarray | int | float
HYBRID_ALIGN = 16
"""The kernels' block alignment of a hybrid model's attention layers: FlashAttention's multiple of 16."""
MLA_HYBRID_ALIGN = 64
"""The same for an MLA hybrid (Kimi-Linear) before the alignment moved to the platform
(:data:`sizing.engine.versions.PLATFORM_HYBRID_ALIGN_MINOR`): ``vllm/model_executor/models/config.py``
``HybridAttentionMambaModelConfig.verify_and_update_config`` sets ``kernel_block_alignment_size = 128 if
use_cutlass_mla else 64`` for ``model_config.use_mla`` ("Other MLA backends: kernel_block_size 64
alignment"; text at code-index id 10205018). CUTLASS MLA is taken only when ``VLLM_ATTENTION_BACKEND``
asks for it, so 64."""


def cdiv(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    """Element-wise ceiling division of non-negative integers."""
    return -(-np.asarray(a, dtype=np.int64) // np.asarray(b, dtype=np.int64))


def kv_heads_per_rank(kv_heads: ArrayLike, tp: ArrayLike) -> np.ndarray:
    """``max(1, kv_heads // tp)``: heads are replicated once tp exceeds them."""
    return np.maximum(1, np.asarray(kv_heads) // np.asarray(tp))


def attention_bytes_per_token_layer(
    is_mla: ArrayLike,
    kv_heads: ArrayLike,
    head_dim: ArrayLike,
    mla_dim: ArrayLike,
    tp: ArrayLike,
    kv_bytes: ArrayLike,
) -> np.ndarray:
    """KV bytes one token costs in ONE attention layer on one rank.

    GQA/MHA: ``2 × kv_heads_per_rank × head_dim × dtype bytes`` (K and V).
    MLA: ``(kv_lora_rank + qk_rope_head_dim) × dtype bytes``, the same on every TP rank.
    """
    gqa = 2 * kv_heads_per_rank(kv_heads, tp) * np.asarray(head_dim) * np.asarray(kv_bytes)
    return np.where(is_mla, np.asarray(mla_dim) * np.asarray(kv_bytes), gqa).astype(np.int64, copy=False)


INDEXER_QUANT_BLOCK = 128
SPARSE_MLA_BLOCK_SIZE = 64


def indexer_bytes_per_token_layer(index_head_dim: ArrayLike) -> np.ndarray:
    """Bytes one token costs in the sparse-MLA indexer's K cache of ONE layer (0 without an indexer).

    DeepSeek-V3.2's lightning indexer keeps an FP8 key of ``index_head_dim`` bytes plus one FP32 scale
    per 128 values, whatever ``--kv-cache-dtype`` is; like the latent cache it is the same on every TP
    rank, and it shares the latent's block table (source: ``vllm/model_executor/models/deepseek_v2.py:
    DeepseekV32IndexerCache.get_kv_cache_spec``, an ``MLAAttentionSpec`` of uint8 with that head size).
    """
    dim = np.asarray(index_head_dim, dtype=np.int64)
    return dim + dim // INDEXER_QUANT_BLOCK * 4


def stage_count(count: ArrayLike, pp: ArrayLike) -> np.ndarray:
    """Layers of one kind on the fullest pipeline stage: ``ceil(count / pp)``."""
    return cdiv(count, pp)


def recurrent_state_bytes(
    key_heads: ArrayLike,
    value_heads: ArrayLike,
    key_dim: ArrayLike,
    value_dim: ArrayLike,
    conv_kernel: ArrayLike,
    tp: ArrayLike,
    conv_bytes: ArrayLike,
    ssm_bytes: ArrayLike,
    spec_tokens: ArrayLike = 0,
) -> np.ndarray:
    """State of ONE linear-attention layer per rank per sequence: conv state + temporal state, bytes.

    One form covers vLLM's Gated-DeltaNet, KDA and Mamba-2 shapes (``vllm/model_executor/layers/
    mamba/mamba_utils.py: MambaStateShapeCalculator``, vllm-project/vllm@02d71083): the conv state is
    ``(2 x key_heads x key_dim + value_heads x value_dim) / tp`` channels by ``conv_kernel - 1 +
    spec_tokens`` (the draft tokens of speculative decoding widen it), the temporal state ``value_heads / tp x
    value_dim x key_dim``. The conv
    state has the model dtype (``conv_bytes``); the temporal one ``ssm_bytes`` (fp32 for KDA,
    ``kda_state_dtype``; for Mamba-2 ``--mamba-ssm-cache-dtype``, which Nemotron-H takes from its
    config). For Mamba-2 pass n_groups (widened by :func:`mamba2_groups`) as key heads and
    ``ssm_state_size`` as key dim. vLLM rounds each state to ``state_alignment`` (not modelled).
    """
    conv_channels = (2 * np.asarray(key_heads) * key_dim + np.asarray(value_heads) * value_dim) // tp
    conv = conv_channels * (np.asarray(conv_kernel) - 1 + np.asarray(spec_tokens)) * np.asarray(conv_bytes)
    ssm = (np.asarray(value_heads) // tp) * np.asarray(value_dim) * key_dim * np.asarray(ssm_bytes)
    return (conv + ssm).astype(np.int64)


def gdn_state_bytes(
    key_heads: ArrayLike,
    value_heads: ArrayLike,
    key_dim: ArrayLike,
    value_dim: ArrayLike,
    conv_kernel: ArrayLike,
    tp: ArrayLike,
    state_bytes: ArrayLike,
    spec_tokens: ArrayLike = 0,
    ssm_bytes: ArrayLike | None = None,
) -> np.ndarray:
    """Recurrent state of ONE Gated-DeltaNet layer per rank per sequence, bytes: :func:`recurrent_state_bytes`
    with the temporal state in ``ssm_bytes`` (``mamba_ssm_dtype``; default ``state_bytes``)."""
    ssm = state_bytes if ssm_bytes is None else ssm_bytes
    return recurrent_state_bytes(
        key_heads, value_heads, key_dim, value_dim, conv_kernel, tp, state_bytes, ssm, spec_tokens
    )


def mamba2_groups(n_groups: ArrayLike, tp: ArrayLike) -> np.ndarray:
    """Mamba-2 groups after vLLM widens them to shard with the heads: ``n_groups + (tp - n_groups)`` when
    ``n_groups % tp != 0``, else ``n_groups`` (``MambaStateShapeCalculator.extra_groups_for_head_shards``)."""
    g, t = np.asarray(n_groups), np.asarray(tp)
    return np.where(g % t == 0, g, g + t - g)


def hybrid_block_size(
    default_bs: ArrayLike, mamba_state: ArrayLike, attn_per_token: ArrayLike, floor: ArrayLike = HYBRID_ALIGN
) -> np.ndarray:
    """Block size vLLM picks so one attention page covers one linear layer's state (0 state -> default).

    The alignment is the larger of the kernels' ``floor`` (16, or :data:`MLA_HYBRID_ALIGN` for an MLA
    hybrid before 0.19) and the block size already set (``default_bs``), and
    the block is the smallest multiple of it whose page (``attn_per_token`` bytes per token: the
    model's uniform attention layer, MLA's latent for Kimi-Linear) holds ``mamba_state``; the Mamba
    page is then padded to it (``vllm/platforms/interface.py: Platform._align_hybrid_block_size``,
    text at code-index id 52132374917; up to 0.18 ``HybridAttentionMambaModelConfig`` in
    ``vllm/model_executor/models/config.py`` aligned to 16, the same with a 16-token default).
    """
    align = np.maximum(np.asarray(floor), np.asarray(default_bs))
    needed = align * cdiv(mamba_state, align * np.maximum(attn_per_token, 1))
    return np.where(np.asarray(mamba_state) > 0, needed, default_bs)


def group_size(full: ArrayLike, sliding: ArrayLike, mamba: ArrayLike) -> np.ndarray:
    """Layers per KV-cache group: the smallest non-empty bucket, or the largest when max < 1.5 × min."""
    counts = np.stack([np.asarray(full), np.asarray(sliding), np.asarray(mamba)]).astype(np.float64)
    present = counts > 0
    smallest = np.where(present, counts, np.inf).min(axis=0)
    largest = np.where(present, counts, 0).max(axis=0)
    return np.where(largest < 1.5 * smallest, largest, smallest).astype(np.int64)


def groups_of(count: ArrayLike, size: ArrayLike) -> np.ndarray:
    """How many groups a bucket of ``count`` layers forms (padding the last)."""
    return cdiv(count, np.maximum(size, 1))


def sliding_blocks(window: ArrayLike, in_flight: ArrayLike, context: ArrayLike, bs: ArrayLike) -> np.ndarray:
    """Blocks one request holds in one sliding-window group: ``cdiv(min(W-1+in_flight, ctx), bs) + 1``."""
    span = np.minimum(np.asarray(window) - 1 + np.asarray(in_flight), context)
    return cdiv(span, bs) + 1


def blocks_per_request(
    context: ArrayLike,
    bs: ArrayLike,
    g_full: ArrayLike,
    g_sliding: ArrayLike,
    g_mamba: ArrayLike,
    window: ArrayLike,
    in_flight: ArrayLike,
    bs_sliding: ArrayLike | None = None,
) -> np.ndarray:
    """Blocks one request of ``context`` tokens needs from the shared pool, over all groups.

    ``bs`` is the full-attention groups' block size, ``bs_sliding`` the sliding groups' (default ``bs``):
    they differ when the two layer kinds have different bytes per token (:func:`unified_block_sizes`).
    """
    bs_sliding = bs if bs_sliding is None else bs_sliding
    full = np.asarray(g_full) * cdiv(context, bs)
    sliding = np.asarray(g_sliding) * sliding_blocks(np.maximum(window, 1), in_flight, context, bs_sliding)
    return full + sliding + np.asarray(g_mamba)


def page_bytes_per_token(
    per_full: ArrayLike, per_sliding: ArrayLike, sliding_layers: ArrayLike
) -> np.ndarray:
    """Bytes per token of the largest attention page: every group's page is made this size."""
    return np.maximum(np.asarray(per_full), np.where(np.asarray(sliding_layers) > 0, per_sliding, 0))


def unified_block_sizes(
    bs: ArrayLike, page_per_token: ArrayLike, per_full: ArrayLike, per_sliding: ArrayLike
) -> tuple[np.ndarray, np.ndarray]:
    """(full, sliding) block sizes once vLLM makes every attention page the same size.

    The layer kind with the largest bytes per token keeps ``bs``; a kind with smaller pages gets a
    block size raised by the ratio (Gemma 4 31B: sliding 16 heads x 256 keep 16 tokens, full layers of
    4 heads x 512 get 32), so each block is one page of ``bs x page_per_token`` bytes (source:
    ``vllm/v1/core/kv_cache_utils.py: unify_kv_cache_spec_page_size``).
    """
    page = np.asarray(bs) * np.asarray(page_per_token)
    full = page // np.maximum(np.asarray(per_full), 1)
    sliding = page // np.maximum(np.asarray(per_sliding), 1)
    return full.astype(np.int64), sliding.astype(np.int64)


def num_blocks(available: ArrayLike, bytes_per_block: ArrayLike) -> np.ndarray:
    """``floor(available / bytes_per_block)``, 0 when nothing is available."""
    blocks = np.floor(np.maximum(np.asarray(available, dtype=np.float64), 0) / np.asarray(bytes_per_block))
    return blocks.astype(np.int64)
