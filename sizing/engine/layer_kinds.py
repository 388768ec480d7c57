"""Parameter counts of layer kinds that differ from a model's uniform layer (Gemma 4's global layers).

Gemma 4's full-attention layers use their own KV geometry (``num_global_key_value_heads`` x
``global_head_dim``, queries of ``num_attention_heads`` x ``global_head_dim``) and, with
``attention_k_eq_v``, no value projection in the checkpoint (HF ``Gemma4TextConfig``). vLLM still
builds a full ``QKVParallelLinear`` for those layers and loads the key weights into the value slots
too (``vllm-project/vllm@v0.20.0:vllm/model_executor/models/gemma4.py`` ``Gemma4Attention.__init__``),
so the loaded weights count them (:func:`value_slot_params`). Units: parameters.
"""

from __future__ import annotations

from sizing.catalog.schema import Model


def attention_layer_params(
    hidden: int, heads: int, kv_heads: int, head_dim: int, k_eq_v: bool = False
) -> int:
    """q, k, v and o projections of one GQA layer: ``hidden x (2 x heads x hd + (1|2) x kv x hd)``."""
    return hidden * (2 * heads * head_dim + (1 if k_eq_v else 2) * kv_heads * head_dim)


def global_layers(m: Model) -> int:
    """Layers that are neither sliding-window nor linear-attention nor MLP-only."""
    la = m.linear_attention.layers if m.linear_attention else 0
    return m.layers - (m.sliding_window.layers if m.sliding_window else 0) - la - m.mlp_only_layers


def value_slot_params(m: Model) -> int:
    """Value-projection slots vLLM allocates in ``k_eq_v`` global layers, which the checkpoint lacks (0
    otherwise)."""
    ga = m.global_attention
    if ga is None or m.mla or not ga.k_eq_v:
        return 0
    return m.hidden_size * ga.kv_heads * ga.head_dim * global_layers(m)


def global_attention_delta(m: Model) -> int:
    """Extra parameters of the global layers over the uniform layer, summed over all global layers (0 if
    none)."""
    ga = m.global_attention
    if ga is None or m.mla:
        return 0
    uniform = attention_layer_params(m.hidden_size, m.attention_heads, m.kv_heads, m.head_dim)
    own = attention_layer_params(m.hidden_size, m.attention_heads, ga.kv_heads, ga.head_dim, ga.k_eq_v)
    return (own - uniform) * global_layers(m)
