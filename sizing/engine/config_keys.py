"""Every config.json key the importer knows: the ones it models, and the ones that do not change memory.

A key in neither list stops the import with one line naming the key and the file: the importer
cannot tell whether it changes what vLLM allocates, and it does not guess. Keys whose effect depends
on their value (``audio_config``: none is fine, a tower is not modelled) are in :data:`NEUTRAL`
with the test that the value leaves memory as modelled. The lists cover the top level and
``text_config`` (merged, as :class:`~sizing.engine.hf_config.Config` reads them) and the keys of
``quantization_config``.
"""

from __future__ import annotations

from typing import Any, Callable

from sizing.engine.hf_config import plain
from sizing.errors import UsageError

MODELLED = frozenset(
    {
        # shape of the text stack (sizing/engine/importer.py)
        "architectures",
        "model_type",
        "text_config",
        "num_hidden_layers",
        "hidden_size",
        "intermediate_size",
        "num_attention_heads",
        "num_key_value_heads",
        "head_dim",
        "vocab_size",
        "tie_word_embeddings",
        "max_position_embeddings",
        "model_max_length",
        "attention_bias",
        "attn_output_gate",
        "partial_rotary_factor",
        "rotary_dim",
        "rope_parameters",
        "position_embedding_type",
        "sliding_window",
        "use_sliding_window",
        "sliding_window_pattern",
        "layer_types",
        "max_window_layers",  # Qwen2's window layers: with use_sliding_window, sliding() refuses a window
        # whose layers layer_types does not name
        "num_global_key_value_heads",
        "global_head_dim",
        "attention_k_eq_v",
        "num_kv_shared_layers",
        "torch_dtype",
        "dtype",
        "quantization_config",
        "vision_config",
        "spatial_merge_size",
        "vision_soft_tokens_per_image",
        "mlp_hidden_act",
        # Llama 4's chunked local attention, costed as full attention: vLLM turns its hybrid KV-cache
        # manager off for chunked attention and gives every layer full-length KV (catalog Scout notes)
        "attention_chunk_size",
        # MLA and sparse MLA
        "kv_lora_rank",
        "q_lora_rank",
        "qk_nope_head_dim",
        "qk_rope_head_dim",
        "v_head_dim",
        "mla_use_nope",
        "index_head_dim",
        "index_topk",
        "qk_head_dim",
        # MoE, and which layers carry it
        "n_routed_experts",
        "num_experts",
        "num_local_experts",
        "num_experts_per_tok",
        "experts_per_token",
        "num_experts_per_token",
        "top_k_experts",
        "moe_intermediate_size",
        "expert_intermediate_size",
        "n_shared_experts",
        "num_shared_experts",
        "shared_expert_intermediate_size",
        "moe_shared_expert_intermediate_size",
        "shared_intermediate_size",
        "first_k_dense_replace",
        "moe_layer_freq",
        "decoder_sparse_step",
        "mlp_only_layers",
        "interleave_moe_layer_step",
        "intermediate_size_mlp",
        "enable_moe_block",
        "moe_latent_size",
        # DeepSeek-V4: compressed attention, grouped low-rank output, hyper-connections, hash routing
        # (importer.compressed_attention; rope_scaling gives its compressed layers' fp32 RoPE table length,
        # index_n_heads its indexer's projections; DeepSeek-V3.2's indexer projections, about 0.1 % of its
        # weights, are not counted)
        "compress_ratios",
        "o_lora_rank",
        "o_groups",
        "index_n_heads",
        "rope_scaling",
        "hc_mult",
        "num_hash_layers",
        "expert_dtype",
        # MTP layers
        "num_nextn_predict_layers",
        "mtp_num_hidden_layers",
        # linear attention: Gated DeltaNet, KDA, Mamba-2
        "full_attention_interval",
        "linear_num_key_heads",
        "linear_num_value_heads",
        "linear_key_head_dim",
        "linear_value_head_dim",
        "linear_conv_kernel_dim",
        "mamba_ssm_dtype",
        "linear_attn_config",
        "hybrid_override_pattern",
        "n_groups",
        "mamba_n_groups",
        "mamba_num_heads",
        "mamba_n_heads",
        "ssm_state_size",
        "mamba_d_state",
        "mamba_head_dim",
        "mamba_d_head",
        "conv_kernel",
        "mamba_d_conv",
        "mamba_ssm_cache_dtype",
    }
)
"""Keys :mod:`sizing.engine.importer` reads into the catalog entry."""

_BIAS = "bias vectors: one value per output channel, below 0.01 % of the weights"
_ROUTING = "routing arithmetic (scores, groups, scaling): no tensor vLLM allocates depends on it"
_TOKENS = "a token id or generation default: read by the tokenizer or sampler, not the model"
_HF = "transformers bookkeeping (training, export or loading flags) vLLM does not read for memory"
_NORM = "norm epsilon or a numerical constant: no tensor shape depends on it"
_MAMBA_TRAIN = "Mamba training-time initialisation or clamp (time_step_*): no tensor shape depends on it"
_MTP = (
    "MTP modules: the target model skips their weights; they load only as a speculative draft, which "
    "the estimate prices on its own"
)
_ACT = "activation function of a gated MLP: the same weights whichever function it is"

NO_MEMORY: dict[str, str] = {
    **dict.fromkeys(
        (
            "attention_dropout",
            "hidden_dropout",
            "initializer_range",
            "use_cache",
            "return_dict",
            "output_attentions",
            "output_hidden_states",
            "output_router_logits",
            "torchscript",
            "pruned_heads",
            "tf_legacy_loss",
            "use_bfloat16",
            "transformers_version",
            "_name_or_path",
            "_sources",
            "_notes",
            "auto_map",
            "problem_type",
            "finetuning_task",
            "id2label",
            "label2id",
            "tokenizer_class",
            "prefix",
            "task_specific_params",
            "is_decoder",
            "is_encoder_decoder",
            "add_cross_attention",
            "cross_attention_hidden_size",
            "tie_encoder_decoder",
            "chunk_size_feed_forward",
            "router_aux_loss_coef",
            "aux_loss_alpha",
            "seq_aux",
            "ignore_index",
            "pretraining_tp",
            "ep_size",
            "use_mamba_kernels",
            "moe_shared_expert_overlap",
            "residual_in_fp32",
            "rescale_prenorm_residual",
            "num_logits_to_keep",
            "language_model_only",
            "use_unified_vision_chunk",
            "mtp_use_dedicated_embeddings",
        ),
        _HF,
    ),
    **dict.fromkeys(
        (
            "bos_token_id",
            "eos_token_id",
            "pad_token_id",
            "sep_token_id",
            "decoder_start_token_id",
            "image_token_id",
            "image_token_index",
            "video_token_id",
            "audio_token_id",
            "boi_token_id",
            "eoi_token_id",
            "boa_token_id",
            "eoa_token_id",
            "eoa_token_index",
            "boi_token_index",
            "eoi_token_index",
            "vision_start_token_id",
            "vision_end_token_id",
            "media_placeholder_token_id",
            "video_placeholder",
            "bad_words_ids",
            "begin_suppress_tokens",
            "suppress_tokens",
            "forced_bos_token_id",
            "forced_eos_token_id",
            "max_length",
            "min_length",
            "do_sample",
            "early_stopping",
            "num_beams",
            "num_beam_groups",
            "diversity_penalty",
            "temperature",
            "top_k",
            "top_p",
            "typical_p",
            "repetition_penalty",
            "length_penalty",
            "no_repeat_ngram_size",
            "encoder_no_repeat_ngram_size",
            "num_return_sequences",
            "output_scores",
            "return_dict_in_generate",
            "remove_invalid_values",
            "exponential_decay_length_penalty",
        ),
        _TOKENS,
    ),
    **dict.fromkeys(
        ("mlp_bias", "qkv_bias", "use_bias", "use_conv_bias", "mamba_proj_bias", "multimodal_projector_bias"),
        _BIAS,
    ),
    **dict.fromkeys(
        (
            "rms_norm_eps",
            "layer_norm_epsilon",
            "norm_eps",
            "rope_theta",
            "compress_rope_theta",
            "hc_eps",
            "hc_sinkhorn_iters",
            "rope_interleave",
            "indexer_rope_interleave",
            "final_logit_softcapping",
            "swiglu_limit",
            "use_qk_norm",
            "qk_norm_type",
            "norm_topk_prob",
            "moe_renormalize",
            "output_gate_type",
        ),
        _NORM,
    ),
    **dict.fromkeys(
        (
            "routed_scaling_factor",
            "scoring_func",
            "topk_method",
            "n_group",
            "topk_group",
            "num_expert_group",
            "use_grouped_topk",
            "use_routing_bias",
            "moe_router_activation_func",
        ),
        _ROUTING,
    ),
    **dict.fromkeys(("hidden_act", "hidden_activation", "mamba_hidden_act", "projector_hidden_act"), _ACT),
    **dict.fromkeys(
        ("time_step_limit", "time_step_min", "time_step_max", "time_step_floor", "time_step_rank"),
        _MAMBA_TRAIN,
    ),
    "query_pre_attn_scalar": "the attention's softmax scale (Gemma): no tensor shape depends on it",
    "attn_logit_softcapping": "a cap on attention logits (Gemma 2): no tensor shape depends on it",
    "cache_implementation": "transformers' generation cache class; vLLM allocates its own KV cache",
    "rope_local_base_freq": "the sliding layers' RoPE base (Gemma 3): the cos/sin cache keeps its shape",
    "initial_context_length": "gpt-oss's pre-YaRN context: it scales RoPE frequencies, not a tensor",
    "chunk_size": "Mamba-2 scan chunk: a kernel tile, not a cached tensor",
    "expand": "Mamba expansion factor: vLLM's Nemotron-H sizes the mixer by mamba_num_heads x mamba_head_dim",
    "use_bidirectional_attention": "attention mask over image tokens: no tensor depends on it",
    "vocab_size_per_layer_input": "only used with hidden_size_per_layer_input, which must be 0 (see NEUTRAL)",
    **dict.fromkeys(
        ("num_mtp_modules", "mtp_transformer_layers", "use_mtp", "mtp_hybrid_override_pattern"), _MTP
    ),
}
"""Keys known not to change what vLLM allocates, each with the reason."""


def _none_or_false(value: Any) -> bool:
    return value is None or value is False or value == 0 or value == [] or value == {}


NEUTRAL: dict[str, tuple[Callable[[Any], bool], str]] = {
    "audio_config": (_none_or_false, "an audio tower, which the engine does not model"),
    "hidden_size_per_layer_input": (
        _none_or_false,
        "per-layer input embeddings (Gemma 3n/4 E models), which the engine does not model",
    ),
    "use_double_wide_mlp": (
        _none_or_false,
        "double-width MLPs in KV-shared layers, which the engine does not model",
    ),
    "mtp_block_configs": (_none_or_false, "per-block MTP shapes, which the engine does not model"),
    "vision_feature_layer": (
        lambda v: v in (None, -1),
        "a vision tower cut below its last layer (vLLM then "
        "builds fewer layers), which the engine does not model",
    ),
    "block_configs": (
        _none_or_false,
        "per-layer block shapes (heterogeneous layers), which the engine does not model",
    ),
}
"""Keys that change memory unless they hold their neutral value: (is neutral, what the value asks for)."""

QUANT_KEYS = frozenset(
    {
        "quant_method",
        "quant_algo",
        "bits",
        "w_bit",
        "group_size",
        "q_group_size",
        "desc_act",
        "sym",
        "zero_point",
        "version",
        "fmt",
        "format",
        "activation_scheme",
        "weight_block_size",
        "scale_fmt",
        "config_groups",
        "ignore",
        "modules_to_not_convert",
        "exclude_modules",
        "quantization_status",
        "kv_cache_scheme",
        "kv_cache_quant_algo",
        "quantized_layers",
        "producer",
        "global_compression_ratio",
        "sparsity_config",
        "transform_config",
        "modules_in_block_to_quantize",
        "checkpoint_format",
        "true_sequential",
        "damp_percent",
        "static_groups",
        "lm_head",
        "backend",
        "pack_dtype",
        "meta",
        "tokenizer",
        "dataset",
        "use_exllama",
        "exllama_config",
        "model_name_or_path",
        "model_file_base_name",
        "quant_type",
        "linear_method",
    }
)
"""``quantization_config`` keys the importer reads or knows to be bookkeeping of the quantizer."""

KV_NOTE = (
    "the checkpoint asks for an FP8 KV cache ({key}): from vLLM 0.13 --kv-cache-dtype auto uses it "
    "(vllm-project/vllm pull request 29980); estimate with --kv-cache-dtype fp8 to match"
)
KV_KEYS = ("kv_cache_scheme", "kv_cache_quant_algo")
"""``quantization_config`` keys that change the KV cache's dtype under ``--kv-cache-dtype auto``. The
estimate takes the KV dtype as an input (``auto``: the model dtype, the cautious end), so the entry
carries :data:`KV_NOTE` instead of a refusal."""


def quant_notes(qc: dict[str, Any] | None) -> list[str]:
    """Notes the entry carries for ``quantization_config`` keys the estimate takes as an input."""
    return [KV_NOTE.format(key=key) for key in KV_KEYS if (qc or {}).get(key)]


def unknown_key(cfg_data: dict[str, Any], qc: dict[str, Any] | None) -> str | None:
    """The first key (sorted) the importer does not know, or None; ``quantization_config`` keys prefixed."""
    known = MODELLED | NO_MEMORY.keys() | NEUTRAL.keys()
    for key in sorted(cfg_data):
        if key not in known:
            return key
    for key in sorted(qc or {}):
        if key not in QUANT_KEYS:
            return f"quantization_config.{key}"
    return None


def check_keys(cfg_data: dict[str, Any], qc: dict[str, Any] | None, label: str) -> None:
    """Refuse, with one line naming the key and the file, a key the importer does not model.

    ``cfg_data`` is the merged top level and ``text_config``; ``qc`` the ``quantization_config``.
    """
    key = unknown_key(cfg_data, qc)
    if key is not None:
        raise UsageError(
            f"{label}: {plain(key)}: a config key the sizing engine does not know; it may change "
            f"memory, so the config is not imported"
        )
    check_neutral(cfg_data, NEUTRAL, label)


def check_neutral(
    data: dict[str, Any], table: dict[str, tuple[Callable[[Any], bool], str]], label: str, prefix: str = ""
) -> None:
    """Refuse, with one line, a key of ``table`` that ``data`` sets to a value that changes memory."""
    for key, (neutral, asks) in table.items():
        if key in data and not neutral(data[key]):
            raise UsageError(f"{label}: {prefix}{key}: asks for {asks}")
