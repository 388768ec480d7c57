"""Parameter counts of layer kinds that differ from a model's uniform layer (Gemma 4's global layers).

Gemma 4's full-attention layers use their own KV geometry (``num_global_key_value_heads`` x
``global_head_dim``, queries of ``num_attention_heads`` x ``global_head_dim``) and, with
``attention_k_eq_v``, no value projection (source: ``vllm/model_executor/models/gemma4.py``,
the attention module built per layer type; HF ``Gemma4TextConfig``). Units: parameters.
"""

from __future__ import annotations

from sizing.catalog.schema import Model


def attention_layer_params(hidden: int, heads: int, kv_heads: int, head_dim: int, k_eq_v: bool = False) -> int:
    """q, k, v and o projections of one GQA layer: ``hidden x (2 x heads x hd + (1|2) x kv x hd)``."""
    return hidden * (2 * heads * head_dim + (1 if k_eq_v else 2) * kv_heads * head_dim)


def global_attention_delta(m: Model) -> int:
    """Extra parameters of the global layers over the uniform layer, summed over all global layers (0 if none)."""
    ga = m.global_attention
    if ga is None or m.mla:
        return 0
    global_layers = m.layers - (m.sliding_window.layers if m.sliding_window else 0)
    uniform = attention_layer_params(m.hidden_size, m.attention_heads, m.kv_heads, m.head_dim)
    own = attention_layer_params(m.hidden_size, m.attention_heads, ga.kv_heads, ga.head_dim, ga.k_eq_v)
    return (own - uniform) * global_layers
