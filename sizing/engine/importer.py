"""``import-config``: a catalog models entry from a Hugging Face ``config.json``, offline.

Reads the architecture keys the engine models (``text_config`` for multimodal models) and the
``quantization_config``; every other key is ignored. A key the engine needs and cannot find is a
:class:`UsageError` naming it. The parameter count is derived from the architecture.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from sizing import safeio
from sizing.catalog.loader import Catalog, validate_entry
from sizing.errors import UsageError
from sizing.catalog.schema import Model
from sizing.engine.weights import total_params

TIED_DEFAULT = {"gemma3_text": True, "gemma3": True, "gemma2": True, "gemma4_text": True, "gemma4": True}
UNTIED_TYPES = {"kimi_linear", "nemotron_h", "llama", "llama4_text", "qwen2", "qwen3", "qwen3_moe", "qwen3_next",
                "qwen3_5_text", "qwen3_5_moe_text", "mistral", "mixtral",
                "deepseek_v2", "deepseek_v3", "deepseek_v32", "kimi_k2", "gpt_oss", "glm4_moe", "phi3"}


class Config:
    """A config.json with a clear error for each missing key the engine needs."""

    def __init__(self, raw: dict[str, Any], label: str) -> None:
        text = raw.get("text_config") or {}
        self.data, self.label, self.raw = {**raw, **text}, label, raw
        self.model_type = str(text.get("model_type") or raw.get("model_type") or "")

    def need(self, *keys: str) -> Any:
        """The first present, non-null value among ``keys``; UsageError naming them when none is."""
        for key in keys:
            if self.data.get(key) is not None:
                return self.data[key]
        raise UsageError(f"{self.label}: missing key {' or '.join(keys)} (needed by the sizing engine)")

    def get(self, key: str, default: Any = None) -> Any:
        """An optional key."""
        value = self.data.get(key)
        return default if value is None else value


def tie_embeddings(cfg: Config) -> bool:
    """``tie_word_embeddings``, or the transformers default of the model type."""
    if cfg.get("tie_word_embeddings") is not None:
        return bool(cfg.get("tie_word_embeddings"))
    if cfg.model_type in TIED_DEFAULT:
        return TIED_DEFAULT[cfg.model_type]
    if cfg.model_type in UNTIED_TYPES:
        return False
    return bool(cfg.need("tie_word_embeddings"))


def head_dim(cfg: Config) -> int:
    """vLLM's head size: ``head_dim`` if positive, else hidden / heads (MLA: nope + rope)."""
    if cfg.get("kv_lora_rank"):
        return int(cfg.need("qk_nope_head_dim")) + int(cfg.need("qk_rope_head_dim"))
    explicit = cfg.get("head_dim")
    return int(explicit) if explicit else int(cfg.need("hidden_size")) // int(cfg.need("num_attention_heads"))


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
    if cfg.get("position_embedding_type") == "nope" or cfg.get("mla_use_nope") or cfg.model_type == "nemotron_h":
        return 0
    if cfg.get("rotary_dim"):
        return int(cfg.get("rotary_dim"))
    rope = cfg.get("rope_parameters") or {}
    factor = cfg.get("partial_rotary_factor") or (rope.get("partial_rotary_factor") if "rope_type" in rope else None)
    return int(head_dim(cfg) * float(factor)) if factor and float(factor) < 1 else None


def mla(cfg: Config) -> dict[str, Any] | None:
    """MLA ranks, when the config has ``kv_lora_rank``."""
    if not cfg.get("kv_lora_rank"):
        return None
    return {"kv_lora_rank": cfg.need("kv_lora_rank"), "qk_rope_head_dim": cfg.need("qk_rope_head_dim"),
            "qk_nope_head_dim": cfg.need("qk_nope_head_dim"), "v_head_dim": cfg.need("v_head_dim"),
            "q_lora_rank": cfg.get("q_lora_rank"), "index_head_dim": cfg.get("index_head_dim"),
            "index_topk": cfg.get("index_topk")}


def sliding(cfg: Config, layers: int) -> dict[str, Any] | None:
    """Sliding-window size and how many layers use it (``layer_types`` or Gemma's pattern)."""
    types = cfg.get("layer_types")
    window = cfg.get("sliding_window")
    if types and window:
        count = sum(1 for t in types if t == "sliding_attention")
        return {"window": int(window), "layers": count} if count else None
    pattern = cfg.get("sliding_window_pattern")
    if window and pattern and cfg.get("use_sliding_window", True):
        return {"window": int(window), "layers": layers - layers // int(pattern)}
    return None


def linear_layer_count(cfg: Config, layers: int) -> int:
    """Gated-DeltaNet layers: the ``linear_attention`` entries of ``layer_types`` (Qwen3.5/3.6), else all but one
    per ``full_attention_interval`` (Qwen3-Next); 0 when the config declares neither."""
    types = cfg.get("layer_types") or []
    if "linear_attention" in types:
        return sum(1 for t in types if t == "linear_attention")
    interval = cfg.get("full_attention_interval")
    return layers - layers // int(interval) if interval else 0


def linear_attention(cfg: Config, layers: int) -> dict[str, Any] | None:
    """Linear-attention layers of hybrid models: KDA (Kimi-Linear's ``linear_attn_config``), Mamba-2
    (Nemotron-H's pattern, Granite-4.0-H's ``layer_types``) or Gated DeltaNet (:func:`gated_delta_net`)."""
    if isinstance(cfg.get("linear_attn_config"), dict):
        return kda(cfg.get("linear_attn_config"))
    if cfg.get("hybrid_override_pattern") or "mamba" in (cfg.get("layer_types") or []):
        return mamba2(cfg)
    return gated_delta_net(cfg, layers)


def gated_delta_net(cfg: Config, layers: int) -> dict[str, Any] | None:
    """Gated-DeltaNet layers (Qwen3-Next/3.5/3.6), with the recurrent state's dtype (``mamba_ssm_dtype``)."""
    count = linear_layer_count(cfg, layers)
    if not count:
        return None
    return {"kind": "gated_delta_net", "layers": count,
            "num_key_heads": cfg.need("linear_num_key_heads"), "num_value_heads": cfg.need("linear_num_value_heads"),
            "key_head_dim": cfg.need("linear_key_head_dim"), "value_head_dim": cfg.need("linear_value_head_dim"),
            "conv_kernel": cfg.need("linear_conv_kernel_dim"),
            "ssm_dtype_bytes": 4 if str(cfg.get("mamba_ssm_dtype", "")) == "float32" else 2}


def mtp_layers(cfg: Config) -> int:
    """MTP (next-n prediction) layers shipped with the checkpoint: ``num_nextn_predict_layers`` (DeepSeek, GLM)
    or ``mtp_num_hidden_layers`` (Qwen3-Next/3.5/3.6); 0 when neither is set."""
    return int(cfg.get("num_nextn_predict_layers") or cfg.get("mtp_num_hidden_layers") or 0)


def kda(lac: dict[str, Any]) -> dict[str, Any]:
    """Kimi Delta Attention layers: ``kda_layers`` of ``num_heads`` x ``head_dim`` (keys as values)."""
    heads, dim = int(lac["num_heads"]), int(lac["head_dim"])
    return {"kind": "kda", "layers": len(lac.get("kda_layers") or []), "num_key_heads": heads,
            "num_value_heads": heads, "key_head_dim": dim, "value_head_dim": dim,
            "conv_kernel": int(lac.get("short_conv_kernel_size", 4)), "ssm_dtype_bytes": 4}


def block_counts(cfg: Config) -> dict[str, int]:
    """Blocks by kind: Nemotron-H's ``hybrid_override_pattern`` (M, *, -, E) or ``layer_types`` (mamba, attention)."""
    pattern = str(cfg.get("hybrid_override_pattern") or "")
    if pattern:
        return {"mamba": pattern.count("M"), "attention": pattern.count("*"),
                "mlp_only": pattern.count("-") + pattern.count("E")}
    types = cfg.get("layer_types") or []
    return {"mamba": types.count("mamba"), "attention": types.count("attention"), "mlp_only": 0}


def mamba2_ssm_bytes(cfg: Config) -> int:
    """Bytes per value of the Mamba-2 temporal state (4: float32, else 2): for Nemotron-H vLLM takes the
    config's ``mamba_ssm_cache_dtype``, float32 when absent (``vllm/model_executor/models/config.py:
    NemotronHForCausalLMConfig``, code-index id 51780233634); other models use the model dtype."""
    default = "float32" if cfg.model_type == "nemotron_h" else "auto"
    return 4 if str(cfg.get("mamba_ssm_cache_dtype", default)) == "float32" else 2


def mamba2(cfg: Config) -> dict[str, Any]:
    """Mamba-2 layers in the shared geometry (groups as key heads, state size as key dim)."""
    return {"kind": "mamba2", "layers": block_counts(cfg)["mamba"],
            "num_key_heads": int(cfg.need("n_groups", "mamba_n_groups")),
            "num_value_heads": int(cfg.need("mamba_num_heads", "mamba_n_heads")),
            "key_head_dim": int(cfg.need("ssm_state_size", "mamba_d_state")),
            "value_head_dim": int(cfg.need("mamba_head_dim", "mamba_d_head")),
            "conv_kernel": int(cfg.need("conv_kernel", "mamba_d_conv")),
            "ssm_dtype_bytes": mamba2_ssm_bytes(cfg)}


def global_attention(cfg: Config) -> dict[str, Any] | None:
    """Gemma 4's full-attention geometry (``num_global_key_value_heads`` x ``global_head_dim``), when declared."""
    heads, dim = cfg.get("num_global_key_value_heads"), cfg.get("global_head_dim")
    if not heads or not dim:
        return None
    return {"kv_heads": int(heads), "head_dim": int(dim), "k_eq_v": bool(cfg.get("attention_k_eq_v", False))}


def kv_sharing(cfg: Config) -> dict[str, Any] | None:
    """The trailing ``num_kv_shared_layers`` that reuse earlier KV, and how many of them slide (``layer_types``)."""
    count = int(cfg.get("num_kv_shared_layers", 0))
    if not count:
        return None
    tail = (cfg.get("layer_types") or [])[-count:]
    return {"layers": count, "sliding_layers": sum(1 for t in tail if t == "sliding_attention")}


def vision(raw: dict[str, Any], text_hidden: int) -> dict[str, Any] | None:
    """The vision tower from ``vision_config`` (Qwen-VL ``depth``/``out_hidden_size``, SigLIP-style ``num_hidden_layers``).

    ``max_tokens_per_item`` comes from ``vision_soft_tokens_per_image`` or ``image_seq_length`` when the
    config states it; Qwen-VL configs do not (their largest image is the processor's), so the 16384
    tokens of Qwen3-VL's processor limit are used.
    """
    v = raw.get("vision_config")
    if not isinstance(v, dict) or not v.get("hidden_size"):
        return None
    deepstack = v.get("deepstack_visual_indexes") or []
    merge = int(v.get("spatial_merge_size") or raw.get("spatial_merge_size") or 1)
    pixtral = v.get("model_type") == "pixtral"
    return {"layers": int(v.get("depth") or v["num_hidden_layers"]), "hidden_size": int(v["hidden_size"]),
            "intermediate_size": int(v["intermediate_size"]), "patch_size": int(v.get("patch_size", 14)),
            "out_hidden_size": int(v.get("out_hidden_size") or text_hidden),
            "merge_size": merge, "mergers": 1 + len(deepstack), "gated_mlp": pixtral,
            "max_tokens_per_item": max_image_tokens(raw, v, merge)}


QWEN_VL_MAX_IMAGE_TOKENS = 16384


def max_image_tokens(raw: dict[str, Any], v: dict[str, Any], merge: int) -> int:
    """Encoder output tokens of the largest image: the config's own count, Pixtral's full square, else Qwen-VL's limit.

    Pixtral (Mistral Small 3.x) encodes images up to ``image_size`` pixels a side in ``patch_size``
    patches merged ``merge`` x ``merge``: ``(image_size // (patch_size * merge))²`` tokens (the
    ``[IMG_BREAK]`` row markers are text tokens, not encoder outputs).
    """
    stated = raw.get("vision_soft_tokens_per_image") or v.get("image_seq_length")
    if stated:
        return int(stated)
    if v.get("model_type") == "pixtral" and v.get("image_size"):
        return (int(v["image_size"]) // (int(v.get("patch_size", 14)) * merge)) ** 2
    return QWEN_VL_MAX_IMAGE_TOKENS


def moe(cfg: Config) -> dict[str, Any] | None:
    """Routed and shared experts, and the leading dense layers."""
    experts = cfg.get("n_routed_experts") or cfg.get("num_experts") or cfg.get("num_local_experts")
    if not experts:
        return None
    if cfg.get("enable_moe_block"):
        return gemma4_moe(cfg, int(experts))
    llama4 = cfg.model_type.startswith("llama4")
    shared_size = next((cfg.get(k) for k in SHARED_SIZE_KEYS if cfg.get(k)), None)
    shared = cfg.get("n_shared_experts") or cfg.get("num_shared_experts") or (1 if shared_size or llama4 else 0)
    size = cfg.need("moe_intermediate_size", "intermediate_size")
    top_k = cfg.need("num_experts_per_tok", "experts_per_token", "num_experts_per_token")
    return {"experts": int(experts), "experts_per_token": int(top_k),
            "expert_intermediate_size": int(size), "shared_experts": int(shared),
            "shared_intermediate_size": int(shared_size or (size if shared else 0)),
            "dense_layers": int(cfg.get("first_k_dense_replace", 0))}


SHARED_SIZE_KEYS = ("shared_expert_intermediate_size", "moe_shared_expert_intermediate_size", "shared_intermediate_size")


def gemma4_moe(cfg: Config, experts: int) -> dict[str, Any]:
    """Gemma 4 MoE: routed experts beside each layer's dense MLP, modelled as one always-on shared expert."""
    return {"experts": experts, "experts_per_token": int(cfg.need("top_k_experts")),
            "expert_intermediate_size": int(cfg.need("moe_intermediate_size")), "shared_experts": 1,
            "shared_intermediate_size": int(cfg.need("intermediate_size"))}


KEEP_PATTERNS = (("lm_head", "lm_head"), ("embed", "embeddings"), ("self_attn", "attention"),
                 ("attn", "attention"), ("router", "router"), ("gate", "router"), ("shared_expert", "shared_experts"),
                 ("mlp.gate_proj", "dense_mlp"), ("mlp.down_proj", "dense_mlp"), ("mlp\\.(gate|up", "dense_mlp"))
SKIPPED_NAMES = ("norm", "indexer")
"""Excluded modules that are not linear weights of a part (norms, the sparse-MLA indexer's projections)."""


def _excluded(qc: dict[str, Any]) -> list[str]:
    names = qc.get("modules_to_not_convert") or qc.get("ignore") or qc.get("exclude_modules") or []
    kept = [str(name) for name in names if not any(skip in str(name) for skip in SKIPPED_NAMES)]
    keeps = {part for name in kept for pattern, part in KEEP_PATTERNS if pattern in name}
    return sorted(keeps | {"embeddings", "lm_head"})


def compressed_tensors_precision(groups: dict[str, Any]) -> str:
    """fp8, int4 with symmetric group-32 bf16 scales (Kimi-K2.5-style experts), else group-128 int4."""
    if "float" in json.dumps(groups):
        return "fp8"
    first: dict[str, Any] = next(iter(groups.values()), {}) if groups else {}
    weights = first.get("weights", {})
    if weights.get("num_bits") == 4 and weights.get("group_size") == 32 and weights.get("symmetric", True):
        return "int4-ct-g32"
    return "int4-gptq"


def precision_of(qc: dict[str, Any] | None) -> str:
    """The catalog precision id of a ``quantization_config`` (bf16 when there is none)."""
    if not qc:
        return "bf16"
    method = str(qc.get("quant_method", "")).lower()
    algo = str(qc.get("quant_algo", "")).upper()
    bits = int(qc.get("bits", qc.get("w_bit", 4)))
    table = {"fp8": "fp8", "mxfp4": "mxfp4", "awq": "int4-awq", "gptq": "int4-gptq" if bits == 4 else "int8"}
    if method in table:
        return table[method]
    if method == "modelopt":
        return "nvfp4" if "FP4" in algo else "fp8"
    if method == "compressed-tensors":
        return compressed_tensors_precision(qc.get("config_groups", {}))
    raise UsageError(f"quantization_config: unsupported quant_method {method!r}")


def checkpoint(model_id: str, cfg: Config) -> dict[str, Any]:
    """The checkpoint entry: precision from ``quantization_config`` and the modules it keeps in BF16."""
    qc = cfg.get("quantization_config")
    entry: dict[str, Any] = {"id": model_id, "precision": precision_of(qc)}
    if qc:
        entry["keeps_bf16"] = _excluded(qc)
    return entry


def raw_entry(cfg: Config, model_id: str) -> dict[str, Any]:
    """The models entry (a plain dict, before validation), total parameters derived afterwards."""
    layers = int(cfg.need("num_hidden_layers"))
    heads = int(cfg.need("num_attention_heads"))
    experts = moe(cfg)
    entry = {
        "name": model_id.split("/")[-1], "family": cfg.model_type or "unknown",
        "architecture": (cfg.raw.get("architectures") or cfg.get("architectures") or [cfg.model_type])[0], "total_params_b": 1.0,
        "layers": layers, "hidden_size": int(cfg.need("hidden_size")),
        "intermediate_size": int(cfg.get("intermediate_size") or experts["expert_intermediate_size"] if experts
                                 else cfg.need("intermediate_size")),
        "attention_heads": heads, "kv_heads": int(cfg.get("num_key_value_heads", heads)), "head_dim": head_dim(cfg),
        "rotary_dim": rotary_dim(cfg) if not cfg.get("kv_lora_rank") or cfg.get("mla_use_nope") else None,
        "vocab_size": int(cfg.need("vocab_size")), "tie_embeddings": tie_embeddings(cfg),
        "max_context": int(cfg.need("max_position_embeddings", "model_max_length")), "attention_bias": bool(cfg.get("attention_bias", False)),
        "mla": mla(cfg), "sliding_window": sliding(cfg, layers), "linear_attention": linear_attention(cfg, layers),
        "global_attention": global_attention(cfg), "kv_sharing": kv_sharing(cfg), "mtp_layers": mtp_layers(cfg),
        "attention_output_gate": bool(cfg.get("attn_output_gate", False)),
        "vision": vision(cfg.raw, int(cfg.need("hidden_size"))),
        "moe": experts, "mlp_only_layers": block_counts(cfg)["mlp_only"] or None,
        "gated_mlp": False if cfg.get("mlp_hidden_act") == "relu2" else None, "checkpoints": [checkpoint(model_id, cfg)], "source": "config.json (python -m sizing import-config)",
    }
    return {k: v for k, v in entry.items() if v is not None}


def read_config(path: Path) -> dict[str, Any]:
    """Parse ``path`` as JSON through :func:`sizing.safeio.read_json` (a regular file, bounded in size, depth
    and time; NaN, infinities and overflowing numbers refused by field); CatalogError otherwise."""
    data = safeio.read_json(path, str(path), finite=True)
    if not isinstance(data, dict):
        raise UsageError(f"{path}: a config.json must be a JSON object")
    return data


def model_from_config(raw: dict[str, Any], model_id: str, label: str) -> Model:
    """A validated :class:`Model` from config.json contents; total parameters from the architecture."""
    entry = raw_entry(Config(raw, label), model_id)
    model = validate_entry(Model, entry, label, model_id)
    entry["total_params_b"] = round(total_params(model) / 1e9, 2)
    return validate_entry(Model, entry, label, model_id)


def default_id(raw: dict[str, Any], path: Path) -> str:
    """The model id: ``_name_or_path`` when it looks like ORG/NAME, else ``local/<folder or stem>``."""
    name = str(raw.get("_name_or_path", ""))
    if name.count("/") == 1 and not name.startswith(("/", ".")):
        return name
    return f"local/{path.parent.name if path.name == 'config.json' else path.stem}"


def model_from_config_file(path: Path, cat: Catalog | None = None, model_id: str | None = None) -> Model:
    """A validated :class:`Model` from a config.json file (``cat`` is accepted for API symmetry)."""
    raw = read_config(path)
    return model_from_config(raw, model_id or default_id(raw, path), str(path))


def entry_yaml(path: Path, model_id: str | None, cat: Catalog) -> str:
    """The catalog/models.yaml entry for ``path``, as YAML text ready to paste."""
    model = model_from_config_file(path, cat, model_id)
    body = model.model_dump(mode="json", exclude_none=True, exclude_defaults=True)
    body["tie_embeddings"] = model.tie_embeddings
    return yaml.safe_dump({model.checkpoints[0].id: body}, sort_keys=False, allow_unicode=True, width=100)
