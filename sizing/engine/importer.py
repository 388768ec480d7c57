"""``import-config``: a catalog models entry from a Hugging Face ``config.json``, offline.

Reads the architecture keys the engine models (``text_config`` for multimodal models) and the
``quantization_config`` (with modelopt's ``hf_quant_config.json`` beside it for per-layer formats).
Every key of the file must be known (:mod:`sizing.engine.config_keys`): modelled, or listed as not
changing memory; any other key, a model type refused by name (:data:`REFUSED_TYPES`), a size that is
not an integer, or heads that do not divide, stops the import with one line naming file and field.
The parameter count is derived from the architecture.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from sizing import safeio
from sizing.catalog.ids import shown
from sizing.catalog.loader import Catalog, validate_entry
from sizing.catalog.schema import Model
from sizing.engine.config_keys import MODELLED, check_keys, quant_notes
from sizing.engine.hf_config import Config, as_count, as_fraction, check_finite, check_heads, check_layer_list
from sizing.engine.hf_linear import block_counts, block_pattern, linear_attention
from sizing.engine.hf_quant import checkpoint_formats
from sizing.engine.hf_vision import vision
from sizing.engine.vision_keys import check_vision_keys
from sizing.engine.weights import total_params
from sizing.errors import UsageError

TIED_DEFAULT = {"gemma3_text": True, "gemma3": True, "gemma2": True, "gemma4_text": True, "gemma4": True}
UNTIED_TYPES = {
    "kimi_linear",
    "nemotron_h",
    "llama",
    "llama4_text",
    "qwen2",
    "qwen3",
    "qwen3_moe",
    "qwen3_next",
    "qwen3_5_text",
    "qwen3_5_moe_text",
    "mistral",
    "mixtral",
    "deepseek_v2",
    "deepseek_v3",
    "deepseek_v32",
    "kimi_k2",
    "gpt_oss",
    "glm4_moe",
    "phi3",
}

REFUSED_TYPES: dict[str, str] = {}
"""Model types refused by name, with the reason: public, served by vLLM, and not modelled (none at
present; DeepSeek-V4, once here, is modelled through ``compressed_attention``)."""

MODEL_DTYPES = ("bfloat16", "float16", "float32")
"""Checkpoint dtypes vLLM loads in 2 bytes a weight by default (``--dtype auto`` runs float32
checkpoints in 16 bits: ``vllm/config/model.py`` ``_resolve_auto_dtype``)."""


def tie_embeddings(cfg: Config) -> bool:
    """``tie_word_embeddings``, or the transformers default of the model type."""
    if cfg.get("tie_word_embeddings") is not None:
        return cfg.flag("tie_word_embeddings")
    if cfg.model_type in TIED_DEFAULT:
        return TIED_DEFAULT[cfg.model_type]
    if cfg.model_type in UNTIED_TYPES:
        return False
    return cfg.flag("tie_word_embeddings", required=True)


def head_dim(cfg: Config) -> int:
    """vLLM's head size: ``head_dim`` if positive, else hidden / heads (MLA: nope + rope)."""
    if cfg.get("kv_lora_rank"):
        return cfg.count("qk_nope_head_dim") + cfg.count("qk_rope_head_dim")
    if cfg.get("head_dim"):
        return cfg.count("head_dim")
    return cfg.count("hidden_size") // cfg.count("num_attention_heads")


def rotary_dim(cfg: Config) -> int | None:
    """Rotary dimensions per head where RoPE covers part of it, else None (the whole head).

    Source: ``vllm-project/vllm@v0.20.0:vllm/model_executor/layers/rotary_embedding/__init__.py``
    ``get_rope``: ``rope_dim``, else ``head_size × partial_rotary_factor`` (top level or inside a flat
    ``rope_parameters``); MiniMax-M2 passes its ``rotary_dim`` (``models/minimax_m2.py``). Per-layer-type
    ``rope_parameters`` (Gemma 4, whose proportional RoPE spans the whole head) give None. No RoPE at all
    (0): ``position_embedding_type: nope`` (``models/granitemoehybrid.py`` builds no rotary embedding
    then), ``mla_use_nope`` (``models/kimi_linear.py`` asserts it) and Nemotron-H (``models/nemotron_h.py``
    has no rotary embedding at all).
    """
    if (
        cfg.get("position_embedding_type") == "nope"
        or cfg.get("mla_use_nope")
        or cfg.model_type == "nemotron_h"
    ):
        return 0
    if cfg.get("rotary_dim"):
        return cfg.count("rotary_dim")
    rope = cfg.get("rope_parameters") or {}
    factor = cfg.ratio("partial_rotary_factor")
    if factor is None and isinstance(rope, dict) and "rope_type" in rope and "partial_rotary_factor" in rope:
        factor = as_fraction(
            rope["partial_rotary_factor"], cfg.label, "rope_parameters.partial_rotary_factor"
        )
    return int(head_dim(cfg) * factor) if factor and factor < 1 else None


def mla(cfg: Config) -> dict[str, Any] | None:
    """MLA ranks, when the config has ``kv_lora_rank``; a stated ``qk_head_dim`` must be nope + rope
    (``models/deepseek_v2.py`` ``DeepseekV2MLAAttention``: ``qk_head_dim = qk_nope_head_dim +
    qk_rope_head_dim``)."""
    if not cfg.get("kv_lora_rank"):
        return None
    optional = {key: cfg.count_or(key, 0) or None for key in ("q_lora_rank", "index_head_dim", "index_topk")}
    nope, rope = cfg.count("qk_nope_head_dim"), cfg.count("qk_rope_head_dim")
    if cfg.count_or("qk_head_dim", nope + rope) != nope + rope:
        raise cfg.refuse(
            "qk_head_dim",
            f"must be qk_nope_head_dim + qk_rope_head_dim ({nope + rope}), got {cfg.get('qk_head_dim')}",
        )
    return {
        "kv_lora_rank": cfg.count("kv_lora_rank"),
        "qk_rope_head_dim": rope,
        "qk_nope_head_dim": nope,
        "v_head_dim": cfg.count("v_head_dim"),
        **optional,
    }


def sliding(cfg: Config, layers: int) -> dict[str, Any] | None:
    """Sliding-window size and how many layers use it (``layer_types`` or Gemma's pattern).

    A window the config declares without saying which layers use it (no ``layer_types``, no
    ``sliding_window_pattern``, ``use_sliding_window`` not false) is refused unless it spans the whole
    context: vLLM would apply it to layers the importer cannot name.
    """
    types = check_layer_list(cfg, "layer_types", layers)
    window = cfg.count_or("sliding_window", 0)
    if types and window:
        count = sum(1 for t in types if t == "sliding_attention")
        return {"window": window, "layers": count} if count else None
    pattern = cfg.count_or("sliding_window_pattern", 0, minimum=1)
    enabled = cfg.get("use_sliding_window", True) is not False
    if window and pattern and enabled:
        return {"window": window, "layers": layers - layers // pattern}
    if window and enabled and window < cfg.count("max_position_embeddings", "model_max_length"):
        raise cfg.refuse(
            "sliding_window",
            f"a {window}-token window without layer_types or a pattern naming its layers is not modelled",
        )
    return None


def mtp_layers(cfg: Config) -> int:
    """MTP (next-n prediction) layers shipped with the checkpoint: ``num_nextn_predict_layers``
    (DeepSeek, GLM, Nemotron-H) or ``mtp_num_hidden_layers`` (Qwen3-Next/3.5/3.6); 0 when neither is set."""
    return cfg.count_or("num_nextn_predict_layers", 0) or cfg.count_or("mtp_num_hidden_layers", 0)


def compressed_attention(cfg: Config, layers: int) -> dict[str, Any] | None:
    """DeepSeek-V4's layout (``compress_ratios``): per-layer compression, indexer, low-rank output,
    hyper-connections, hash layers, and the compressed layers' RoPE length (``rope_scaling`` original
    length x factor, as ``models/deepseek_v4/common/rope.py`` builds it). None for other models."""
    if cfg.get("compress_ratios") is None:
        return None
    ratios = check_list(cfg, "compress_ratios")
    if len(ratios) < layers or set(ratios[:layers]) - {0, 4, 128}:
        raise cfg.refuse("compress_ratios", f"must give 0, 4 or 128 for each of the {layers} layers")
    if not any(cfg.get(key) for key in EXPERT_KEYS):
        raise cfg.refuse(
            "compress_ratios", "DeepSeek-V4 without routed experts (n_routed_experts) is not modelled"
        )
    return {
        "compress_ratios": ratios[:layers],
        "window": cfg.count("sliding_window"),
        "rope_dim": cfg.count("qk_rope_head_dim"),
        "compressed_rope_positions": compressed_rope_positions(cfg),
        **{k: cfg.count(key) for k, key in DSV4_KEYS.items()},
        "hash_layers": cfg.count_or("num_hash_layers", 0),
        "fp4_experts": cfg.get("expert_dtype", "fp4") == "fp4",
    }


def compressed_rope_positions(cfg: Config) -> int:
    """Rows of the compressed layers' RoPE table: ``rope_scaling`` original length x factor (YaRN), else
    ``max_position_embeddings``."""
    rope = cfg.get("rope_scaling") or {}
    if not isinstance(rope, dict):
        raise cfg.refuse("rope_scaling", "must be a JSON object")
    if "original_max_position_embeddings" not in rope:
        return cfg.count("max_position_embeddings")
    original = as_count(
        rope["original_max_position_embeddings"], cfg.label, "rope_scaling.original_max_position_embeddings"
    )
    factor = rope.get("factor", 1)
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not 1 <= factor <= 10**6:
        raise cfg.refuse("rope_scaling.factor", f"must be a number of at least 1, got {factor!r}")
    return int(original * factor)


DSV4_KEYS = {
    "q_lora_rank": "q_lora_rank",
    "o_lora_rank": "o_lora_rank",
    "o_groups": "o_groups",
    "index_heads": "index_n_heads",
    "index_head_dim": "index_head_dim",
    "index_topk": "index_topk",
    "hc_mult": "hc_mult",
}
"""Fields of :func:`compressed_attention` read as positive integers, by config key."""


def global_attention(cfg: Config) -> dict[str, Any] | None:
    """Gemma 4's full-attention geometry (``num_global_key_value_heads`` x ``global_head_dim``), if any."""
    if not cfg.get("num_global_key_value_heads") or not cfg.get("global_head_dim"):
        return None
    return {
        "kv_heads": cfg.count("num_global_key_value_heads"),
        "head_dim": cfg.count("global_head_dim"),
        "k_eq_v": cfg.flag("attention_k_eq_v"),
    }


def kv_sharing(cfg: Config) -> dict[str, Any] | None:
    """The trailing ``num_kv_shared_layers`` that reuse earlier KV, and how many of them slide."""
    count = cfg.count_or("num_kv_shared_layers", 0)
    if not count:
        return None
    tail = (cfg.get("layer_types") or [])[-count:]
    return {"layers": count, "sliding_layers": sum(1 for t in tail if t == "sliding_attention")}


def moe_layer_flags(cfg: Config, layers: int) -> list[bool]:
    """For each MLP-carrying layer, whether vLLM builds it as MoE (the rest get a dense MLP).

    Sources (``vllm-project/vllm:vllm/model_executor/models/``): ``deepseek_v2.py``
    ``DeepseekV2DecoderLayer`` (``layer_idx >= first_k_dense_replace and layer_idx % moe_layer_freq == 0``);
    ``qwen3_moe.py`` ``Qwen3MoeDecoderLayer`` (``layer_idx not in mlp_only_layers and (layer_idx + 1) %
    decoder_sparse_step == 0``); ``llama4.py`` ``Llama4DecoderLayer`` (``interleave_moe_layer_step > 0 and
    (layer_idx + 1) % interleave_moe_layer_step == 0``); ``nemotron_h.py`` (``E`` blocks are MoE, ``-``
    blocks dense). Each family sets only its own keys; the others keep their neutral defaults.
    """
    pattern = block_pattern(cfg, layers)
    if pattern:
        return [block == "E" for block in pattern if block in "-E"]
    first, freq = cfg.count_or("first_k_dense_replace", 0), cfg.count_or("moe_layer_freq", 1, minimum=1)
    step, interleave = (
        cfg.count_or("decoder_sparse_step", 1, minimum=1),
        cfg.count_or("interleave_moe_layer_step", 1),
    )
    only = {as_count(i, cfg.label, "mlp_only_layers", minimum=0) for i in check_list(cfg, "mlp_only_layers")}
    return [
        i >= first
        and i % freq == 0
        and (i + 1) % step == 0
        and i not in only
        and interleave > 0
        and (i + 1) % interleave == 0
        for i in range(layers)
    ]


def check_list(cfg: Config, key: str) -> list[Any]:
    """An optional list-valued key ([] when absent)."""
    value = cfg.get(key) or []
    if not isinstance(value, list):
        raise cfg.refuse(key, f"must be a list, got {type(value).__name__}")
    return value


SHARED_SIZE_KEYS = (
    "shared_expert_intermediate_size",
    "moe_shared_expert_intermediate_size",
    "shared_intermediate_size",
)
EXPERT_KEYS = ("n_routed_experts", "num_experts", "num_local_experts")


def moe(cfg: Config, layers: int) -> dict[str, Any] | None:
    """Routed and shared experts, the MLP-carrying layers without them, and the latent width (Nemotron-H)."""
    key = next((k for k in EXPERT_KEYS if cfg.get(k)), None)
    if key is None:
        return None
    experts = cfg.count(key)
    if cfg.get("enable_moe_block"):
        return gemma4_moe(cfg, experts)
    shared_key = next((k for k in SHARED_SIZE_KEYS if cfg.get(k)), None)
    shared_size = cfg.count(shared_key) if shared_key else 0
    llama4 = cfg.model_type.startswith("llama4")
    shared = (
        cfg.count_or("n_shared_experts", 0)
        or cfg.count_or("num_shared_experts", 0)
        or (1 if shared_size or llama4 else 0)
    )
    size = cfg.count("moe_intermediate_size", "intermediate_size")
    top_k = cfg.count("num_experts_per_tok", "experts_per_token", "num_experts_per_token")
    if top_k > experts:
        raise cfg.refuse("num_experts_per_tok", f"must be at most the experts ({experts}), got {top_k}")
    flags = moe_layer_flags(cfg, layers)
    latent = cfg.count_or("moe_latent_size", 0) or None
    return {
        "experts": experts,
        "experts_per_token": top_k,
        "expert_intermediate_size": size,
        "shared_experts": shared,
        "shared_intermediate_size": shared_size or (size if shared else 0),
        "dense_layers": flags.count(False),
        "latent_size": latent,
    }


def gemma4_moe(cfg: Config, experts: int) -> dict[str, Any]:
    """Gemma 4 MoE: routed experts beside each layer's dense MLP, modelled as one always-on shared expert."""
    return {
        "experts": experts,
        "experts_per_token": cfg.count("top_k_experts"),
        "expert_intermediate_size": cfg.count("moe_intermediate_size"),
        "shared_experts": 1,
        "shared_intermediate_size": cfg.count("intermediate_size"),
    }


def dense_width(cfg: Config, experts: dict[str, Any] | None) -> int:
    """The dense MLP's width: Llama 4's ``intermediate_size_mlp`` where it has dense layers, else
    ``intermediate_size`` (an MoE model without one: the expert width, which no layer then uses)."""
    if experts and experts.get("dense_layers") and cfg.get("intermediate_size_mlp") is not None:
        return cfg.count("intermediate_size_mlp")
    if experts and cfg.get("intermediate_size") is None:
        return int(experts["expert_intermediate_size"])
    return cfg.count("intermediate_size")


def carriers(layers: int, mlp_only: int, experts: dict[str, Any] | None) -> dict[str, int]:
    """Decoder layers holding each part (for per-layer quantization tables)."""
    if experts is None:
        return {"attention": layers - mlp_only, "dense_mlp": mlp_only or layers}
    moe_layers = (mlp_only or layers) - experts.get("dense_layers", 0)
    shared = moe_layers if experts.get("shared_experts") else 0
    return {
        "attention": layers - mlp_only,
        "experts": moe_layers,
        "router": moe_layers,
        "shared_experts": shared,
        "dense_mlp": experts.get("dense_layers", 0),
    }


def architecture(cfg: Config) -> str:
    """The class vLLM loads: the first of the top level's ``architectures`` (a multimodal wrapper's), else the
    text config's, else the model type."""
    names = cfg.raw.get("architectures") or cfg.get("architectures") or [cfg.model_type]
    if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
        raise cfg.refuse("architectures", "must be a list of class names")
    return names[0]


def check_config(cfg: Config) -> None:
    """The checks before any field is read: refused model types, unknown keys, the dtype, the heads."""
    if cfg.model_type in REFUSED_TYPES:
        raise cfg.refuse("model_type", f"{cfg.model_type}: {REFUSED_TYPES[cfg.model_type]}")
    qc = cfg.get("quantization_config")
    if qc is not None and not isinstance(qc, dict):
        raise cfg.refuse("quantization_config", "must be a JSON object")
    check_keys(cfg.data, qc, cfg.label)
    check_vision_keys(cfg.raw.get("vision_config"), cfg.label)
    check_finite(cfg, MODELLED)
    dtype = cfg.get("torch_dtype") or cfg.get("dtype") or "bfloat16"
    if dtype not in MODEL_DTYPES:
        raise cfg.refuse(
            "torch_dtype", f"{shown(str(dtype))}: the engine models {', '.join(MODEL_DTYPES)} checkpoints"
        )
    check_heads(cfg)


def shape_fields(cfg: Config, layers: int) -> dict[str, Any]:
    """The attention and vocabulary fields of the entry."""
    heads, hidden = cfg.count("num_attention_heads"), cfg.count("hidden_size")
    return {
        "layers": layers,
        "hidden_size": hidden,
        "attention_heads": heads,
        "kv_heads": cfg.count_or("num_key_value_heads", heads, minimum=1),
        "head_dim": head_dim(cfg),
        "rotary_dim": rotary_dim(cfg) if not cfg.get("kv_lora_rank") or cfg.get("mla_use_nope") else None,
        "vocab_size": cfg.count("vocab_size"),
        "tie_embeddings": tie_embeddings(cfg),
        "max_context": cfg.count("max_position_embeddings", "model_max_length"),
        "attention_bias": cfg.flag("attention_bias"),
        "mla": mla(cfg),
        "sliding_window": None if cfg.get("compress_ratios") is not None else sliding(cfg, layers),
        "compressed_attention": compressed_attention(cfg, layers),
        "global_attention": global_attention(cfg),
        "kv_sharing": kv_sharing(cfg),
        "attention_output_gate": cfg.flag("attn_output_gate"),
        "vision": vision(cfg.raw, hidden, cfg.label),
    }


def raw_entry(cfg: Config, model_id: str, sidecar: dict[str, Any] | None = None) -> dict[str, Any]:
    """The models entry (a plain dict, before validation), total parameters derived afterwards."""
    check_config(cfg)
    layers = cfg.count("num_hidden_layers")
    check_layer_list(cfg, "layer_types", layers)
    experts = moe(cfg, layers)
    mlp_only = block_counts(cfg, layers)["mlp_only"]
    formats = checkpoint_formats(
        cfg.get("quantization_config"), sidecar, carriers(layers, mlp_only, experts), cfg.label
    )
    entry = {
        "name": model_id.split("/")[-1],
        "family": cfg.model_type or "unknown",
        "architecture": architecture(cfg),
        "total_params_b": 1.0,
        **shape_fields(cfg, layers),
        "intermediate_size": dense_width(cfg, experts),
        "linear_attention": linear_attention(cfg, layers),
        "mtp_layers": mtp_layers(cfg),
        "moe": {k: v for k, v in experts.items() if v is not None} if experts else None,
        "mlp_only_layers": mlp_only or None,
        "gated_mlp": False if cfg.get("mlp_hidden_act") == "relu2" else None,
        "checkpoints": [{"id": model_id, **{k: v for k, v in formats.items() if v and k != "note"}}],
        "source": "config.json (python -m sizing import-config)",
        "notes": "; ".join(
            n for n in (formats.get("note"), *quant_notes(cfg.get("quantization_config"))) if n
        )
        or None,
    }
    return {k: v for k, v in entry.items() if v is not None}


def read_config(path: Path) -> dict[str, Any]:
    """Parse ``path`` as JSON through :func:`sizing.safeio.read_json` (a regular file, bounded in size, depth
    and time); UsageError or CatalogError on unreadable or non-object files.

    ``Infinity`` and ``NaN`` are read as Python's ``json`` (and so vLLM) reads them (``finite=False``:
    Nemotron-H's ``time_step_limit`` holds ``Infinity``); the fields that size memory refuse them, and
    ``1e309``, when read (:func:`sizing.engine.hf_config.as_count`).
    """
    data = safeio.read_json(path, str(path), finite=False)
    if not isinstance(data, dict):
        raise UsageError(f"{path}: a config.json must be a JSON object")
    return data


def model_from_config(
    raw: dict[str, Any], model_id: str, label: str, sidecar: dict[str, Any] | None = None
) -> Model:
    """A validated :class:`Model` from config.json contents (``sidecar``: an ``hf_quant_config.json``)."""
    entry = raw_entry(Config(raw, label), model_id, sidecar)
    model = validate_entry(Model, entry, label, model_id)
    entry["total_params_b"] = round(total_params(model) / 1e9, 2)
    return validate_entry(Model, entry, label, model_id)


def default_id(raw: dict[str, Any], path: Path) -> str:
    """The model id: ``_name_or_path`` when it looks like ORG/NAME, else ``local/<folder or stem>``."""
    name = str(raw.get("_name_or_path", ""))
    if name.count("/") == 1 and not name.startswith(("/", ".")):
        return name
    return f"local/{path.parent.name if path.name == 'config.json' else path.stem}"


def quant_sidecar(path: Path) -> dict[str, Any] | None:
    """modelopt's ``hf_quant_config.json`` beside the config, None when there is none."""
    beside = path.parent / "hf_quant_config.json"
    return read_config(beside) if beside.is_file() else None


def with_sidecar(raw: dict[str, Any], sidecar: dict[str, Any] | None, label: str) -> dict[str, Any]:
    """``raw`` with the sidecar as its ``quantization_config`` when the config has none, as vLLM reads it.

    Source: ``vllm-project/vllm:vllm/transformers_utils/config.py`` ``get_config`` ("ModelOpt 0.29.0 and
    before saves the quantization config in a separate hf_quant_config.json"): without a
    ``quantization_config`` in config.json, vLLM loads that file as the quantization config.
    """
    text = raw.get("text_config") if isinstance(raw.get("text_config"), dict) else {}
    if not sidecar or raw.get("quantization_config") or (text or {}).get("quantization_config"):
        return raw
    quant = sidecar.get("quantization")
    if not isinstance(quant, dict):
        raise UsageError(f"{label}: hf_quant_config.json beside it has no quantization object")
    return {**raw, "quantization_config": {"quant_method": "modelopt", **quant}}


def model_from_config_file(path: Path, cat: Catalog | None = None, model_id: str | None = None) -> Model:
    """A validated :class:`Model` from a config.json file (``cat`` is accepted for API symmetry)."""
    raw, sidecar = read_config(path), quant_sidecar(path)
    model_id = model_id or default_id(raw, path)
    return model_from_config(with_sidecar(raw, sidecar, str(path)), model_id, str(path), sidecar)


def entry_yaml(path: Path, model_id: str | None, cat: Catalog) -> str:
    """The catalog/models.yaml entry for ``path``, as YAML text ready to paste."""
    model = model_from_config_file(path, cat, model_id)
    body = model.model_dump(mode="json", exclude_none=True, exclude_defaults=True)
    body["tie_embeddings"] = model.tie_embeddings
    return yaml.safe_dump({model.checkpoints[0].id: body}, sort_keys=False, allow_unicode=True, width=100)
