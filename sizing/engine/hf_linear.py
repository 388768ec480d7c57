"""Linear-attention layers of hybrid models, read from a Hugging Face config (for the importer).

Three kinds share one geometry (:class:`~sizing.catalog.schema.LinearAttention`): Gated DeltaNet
(Qwen3-Next/3.5/3.6), Kimi Delta Attention (Kimi-Linear) and Mamba-2 (Nemotron-H, Granite-4.0-H).
Every size is read through :meth:`Config.count`, so a fractional or boolean count is refused by field.
"""

from __future__ import annotations

from typing import Any

from sizing.engine.hf_config import Config, as_count, as_list

NEMOTRON_BLOCKS = "M*-E"
"""Block letters of Nemotron-H's ``hybrid_override_pattern`` (``models/nemotron_h.py``
``ALL_DECODER_LAYER_TYPES``: Mamba, attention, MLP, MoE)."""


def linear_layer_count(cfg: Config, layers: int) -> int:
    """Gated-DeltaNet layers: the ``linear_attention`` entries of ``layer_types`` (Qwen3.5/3.6), else all
    but one per ``full_attention_interval`` (Qwen3-Next); 0 when the config declares neither."""
    types = cfg.get("layer_types") or []
    if "linear_attention" in types:
        return sum(1 for t in types if t == "linear_attention")
    interval = cfg.count_or("full_attention_interval", 0, minimum=1)
    return layers - layers // interval if interval else 0


def linear_attention(cfg: Config, layers: int) -> dict[str, Any] | None:
    """Linear-attention layers of hybrid models: KDA (Kimi-Linear's ``linear_attn_config``), Mamba-2
    (Nemotron-H's pattern, Granite-4.0-H's ``layer_types``) or Gated DeltaNet (:func:`gated_delta_net`)."""
    if isinstance(cfg.get("linear_attn_config"), dict):
        return kda(cfg.get("linear_attn_config"), cfg.label)
    if cfg.get("hybrid_override_pattern") or "mamba" in (cfg.get("layer_types") or []):
        return mamba2(cfg)
    return gated_delta_net(cfg, layers)


def check_groups(cfg: Config, field: str, heads: int, group_field: str, groups: int) -> None:
    """Heads must split evenly into groups, as vLLM's kernels index them.

    Sources (``vllm-project/vllm``): Gated DeltaNet gives each key head ``num_v_heads // num_k_heads``
    value heads (``models/qwen3_next.py`` ``Qwen3NextGatedDeltaNet.fix_query_key_value_ordering``);
    Mamba-2's chunked scan asserts ``nheads % ngroups == 0``
    (``layers/mamba/ops/ssd_combined.py`` ``_mamba_chunk_scan_combined_fwd``).
    """
    if heads % groups:
        raise cfg.refuse(field, f"must be a multiple of {group_field} ({groups}), got {heads}")


def gated_delta_net(cfg: Config, layers: int) -> dict[str, Any] | None:
    """Gated-DeltaNet layers (Qwen3-Next/3.5/3.6), with the recurrent state's dtype (``mamba_ssm_dtype``)."""
    count = linear_layer_count(cfg, layers)
    if not count:
        return None
    keys, values = cfg.count("linear_num_key_heads"), cfg.count("linear_num_value_heads")
    check_groups(cfg, "linear_num_value_heads", values, "linear_num_key_heads", keys)
    return {
        "kind": "gated_delta_net",
        "layers": count,
        "num_key_heads": keys,
        "num_value_heads": values,
        "key_head_dim": cfg.count("linear_key_head_dim"),
        "value_head_dim": cfg.count("linear_value_head_dim"),
        "conv_kernel": cfg.count("linear_conv_kernel_dim"),
        "ssm_dtype_bytes": 4 if str(cfg.get("mamba_ssm_dtype", "")) == "float32" else 2,
    }


def kda(lac: dict[str, Any], label: str) -> dict[str, Any]:
    """Kimi Delta Attention layers: ``kda_layers`` of ``num_heads`` x ``head_dim`` (keys as values)."""

    def field(key: str, default: Any = None) -> int:
        return as_count(lac.get(key, default), label, f"linear_attn_config.{key}")

    heads, dim = field("num_heads"), field("head_dim")
    return {
        "kind": "kda",
        "layers": len(as_list(lac.get("kda_layers"), label, "linear_attn_config.kda_layers")),
        "num_key_heads": heads,
        "num_value_heads": heads,
        "key_head_dim": dim,
        "value_head_dim": dim,
        "conv_kernel": field("short_conv_kernel_size", 4),
        "ssm_dtype_bytes": 4,
    }


def block_pattern(cfg: Config, layers: int) -> str:
    """Nemotron-H's ``hybrid_override_pattern``, checked: one known letter per layer ('' when absent)."""
    pattern = cfg.get("hybrid_override_pattern") or ""
    if not pattern:
        return ""
    if not isinstance(pattern, str) or len(pattern) != layers or set(pattern) - set(NEMOTRON_BLOCKS):
        raise cfg.refuse(
            "hybrid_override_pattern",
            f"must give one of {NEMOTRON_BLOCKS!r} for each of the num_hidden_layers ({layers}) layers",
        )
    return pattern


def block_counts(cfg: Config, layers: int) -> dict[str, int]:
    """Blocks by kind: Nemotron-H's ``hybrid_override_pattern`` (M, *, -, E) or ``layer_types``."""
    pattern = block_pattern(cfg, layers)
    if pattern:
        return {
            "mamba": pattern.count("M"),
            "attention": pattern.count("*"),
            "mlp_only": pattern.count("-") + pattern.count("E"),
            "moe": pattern.count("E"),
        }
    types = cfg.get("layer_types") or []
    return {"mamba": types.count("mamba"), "attention": types.count("attention"), "mlp_only": 0, "moe": 0}


def mamba2_ssm_bytes(cfg: Config) -> int:
    """Bytes per value of the Mamba-2 temporal state (4: float32, else 2): for Nemotron-H vLLM takes the
    config's ``mamba_ssm_cache_dtype``, float32 when absent (``vllm/model_executor/models/config.py:
    NemotronHForCausalLMConfig``, code-index id 51780233634); other models use the model dtype."""
    default = "float32" if cfg.model_type == "nemotron_h" else "auto"
    return 4 if str(cfg.get("mamba_ssm_cache_dtype", default)) == "float32" else 2


def mamba2(cfg: Config) -> dict[str, Any]:
    """Mamba-2 layers in the shared geometry (groups as key heads, state size as key dim)."""
    groups, heads = cfg.count("n_groups", "mamba_n_groups"), cfg.count("mamba_num_heads", "mamba_n_heads")
    check_groups(cfg, "mamba_num_heads", heads, "n_groups", groups)
    return {
        "kind": "mamba2",
        "layers": block_counts(cfg, cfg.count("num_hidden_layers"))["mamba"],
        "num_key_heads": groups,
        "num_value_heads": heads,
        "key_head_dim": cfg.count("ssm_state_size", "mamba_d_state"),
        "value_head_dim": cfg.count("mamba_head_dim", "mamba_d_head"),
        "conv_kernel": cfg.count("conv_kernel", "mamba_d_conv"),
        "ssm_dtype_bytes": mamba2_ssm_bytes(cfg),
    }
