"""The per-GPU memory budget and KV-cache capacity of every row of a case frame, column-wise.

A *case frame* (built by :mod:`sizing.cases`) has one row per deployment: model architecture
columns, checkpoint weight bytes, GPU memory, parallelism and vLLM settings. :func:`compute`
adds every derived column, in bytes, blocks and tokens, following the rules of one vLLM release
line (:class:`sizing.versions.Rules`). No Python loop runs per row.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sizing import kvcache as kv
from sizing import overhead as oh
from sizing import towers
from sizing.units import GiB, MiB
from sizing.versions import Rules


def weights_per_gpu(df: pd.DataFrame) -> np.ndarray:
    """Weight bytes on the fullest rank: sharded layers / TP + replicated layers, stage share, embeddings / TP."""
    stage_share = kv.stage_count(df["layers"], df["pp"]) / df["layers"]
    ep = df["ep"] if "ep" in df else 1  # expert parallelism spreads the routed experts over tp x dp ranks
    tower = df["w_vision"] * df["language_model_only"]  # --language-model-only: the tower is not loaded
    sharded = (df["w_layer_sharded"] - df["w_experts"] - tower) / df["tp"] + df["w_experts"] / (df["tp"] * ep)
    layers = (sharded + df["w_layer_replicated"]) * stage_share
    tied_copy = np.where(df["w_lm_head"] > 0, df["w_lm_head"], df["w_embeddings"])
    ends = np.where(df["pp"] > 1, np.maximum(df["w_embeddings"], tied_copy), df["w_embeddings"] + df["w_lm_head"])
    return (layers + ends / df["tp"]).to_numpy()


def encoder_profile(df: pd.DataFrame) -> np.ndarray:
    """The vision encoder's share of the profile run per GPU, bytes (0 without a tower or when text-only)."""
    budget = np.maximum(df["max_num_batched_tokens"], df["vision_tokens"])
    limited = df["limit_mm_set"] | df["language_model_only"]
    limit = np.where(df["language_model_only"], 0, df["limit_mm_per_prompt"])
    items = np.where(df["vision_tokens"] > 0, towers.profiled_items(budget, df["vision_tokens"], limit, limited), 0)
    return towers.encoder_profile_bytes(items, df["vision_tokens"], df["vision_merge"], df["vision_hidden"],
                                        df["vision_inter"] / df["tp"], df["vision_out"], towers.PROFILE_FACTOR)


def add_kv_geometry(df: pd.DataFrame, rules: Rules) -> None:
    """Per-token bytes, block size, KV groups and bytes per block for the fullest stage."""
    df["full_on_stage"] = kv.stage_count(df["full_layers"], df["pp"])
    df["sliding_on_stage"] = kv.stage_count(df["sliding_layers"], df["pp"])
    df["linear_on_stage"] = kv.stage_count(df["linear_layers"], df["pp"])
    per_layer = kv.attention_bytes_per_token_layer(df["is_mla"], df["kv_heads"], df["head_dim"], df["mla_dim"],
                                                   df["tp"], df["kv_bytes"])
    per_layer = per_layer + kv.indexer_bytes_per_token_layer(df["index_head_dim"])
    per_full = kv.attention_bytes_per_token_layer(df["is_mla"], df["full_kv_heads"], df["full_head_dim"],
                                                  df["mla_dim"], df["tp"], df["kv_bytes"])
    per_full = per_full + kv.indexer_bytes_per_token_layer(df["index_head_dim"])
    page_per_token = kv.page_bytes_per_token(per_full, per_layer, df["sliding_on_stage"])
    df["kv_bytes_per_token_layer"] = page_per_token
    df["kv_bytes_per_token"] = per_full * df["full_on_stage"] + per_layer * df["sliding_on_stage"]
    state = kv.gdn_state_bytes(df["la_key_heads"], df["la_value_heads"], df["la_key_dim"], df["la_value_dim"],
                               df["la_conv_kernel"], df["tp"], df["model_dtype_bytes"])
    df["linear_state_bytes"] = np.where(df["linear_layers"] > 0, state, 0)
    default_bs = np.where(df["block_size_override"] > 0, df["block_size_override"], df["block_size_attention"])
    df["block_size"] = kv.hybrid_block_size(default_bs, df["linear_state_bytes"], page_per_token)
    df["block_size_full"], df["block_size_sliding"] = kv.unified_block_sizes(df["block_size"], page_per_token,
                                                                              per_full, per_layer)
    df["group_size"] = kv.group_size(df["full_on_stage"], df["sliding_on_stage"], df["linear_on_stage"])
    df["page_bytes"] = df["block_size"] * page_per_token
    df["bytes_per_block"] = df["group_size"] * df["page_bytes"]
    for kind in ("full", "sliding", "linear"):
        df[f"groups_{kind}"] = kv.groups_of(df[f"{kind}_on_stage"], df["group_size"])
    df["kv_groups"] = df["groups_full"] + df["groups_sliding"] + df["groups_linear"]


def add_overheads(df: pd.DataFrame, rules: Rules, coef: oh.Coefficients) -> None:
    """Weights, activation peak, non-torch and CUDA-graph memory per GPU, bytes."""
    df["weights_bytes"] = weights_per_gpu(df)
    tokens = df["max_num_batched_tokens"] if rules.chunked_prefill else np.maximum(df["max_model_len"],
                                                                                   df["max_num_batched_tokens"])
    df["profile_tokens"] = tokens
    df["activation_bytes"] = oh.activation_peak(coef, tokens, df["hidden_size"], df["inter_per_token"] / df["tp"],
                                                df["vocab_size"], df["max_num_seqs"])
    df["encoder_profile_bytes"] = encoder_profile(df)
    df["activation_bytes"] = df["activation_bytes"] + df["encoder_profile_bytes"]
    df["nontorch_bytes"] = oh.nontorch(coef, df["tp"] * df["pp"])
    captures = oh.capture_sizes(df["max_num_seqs"], df["max_num_batched_tokens"], df["max_capture_size"])
    layers = kv.stage_count(df["layers"], df["pp"])
    cudagraphs = oh.cudagraph_memory(coef, captures, layers, df["enforce_eager"])
    df["cudagraph_bytes"] = cudagraphs if rules.cudagraphs_budgeted else 0.0
    df["cudagraph_after_bytes"] = 0.0 if rules.cudagraphs_budgeted else cudagraphs


def add_budget(df: pd.DataFrame, rules: Rules, coef: oh.Coefficients) -> None:
    """Budget, the printed 'Available KV cache memory', and the KV bytes blocks are cut from."""
    df["budget_bytes"] = np.ceil(df["gpu_memory_utilization"] * df["total_bytes"])
    non_kv = df["weights_bytes"] + df["activation_bytes"] + df["nontorch_bytes"]
    printed = df["budget_bytes"] - non_kv - (0 if rules.extensible_kv_cache else df["cudagraph_bytes"])
    effective = printed - (df["cudagraph_bytes"] if rules.extensible_kv_cache else 0)
    if rules.extensible_kv_cache:
        margin = np.maximum(coef.extensible_margin_gib * GiB, 0.75 * df["activation_bytes"])
        headroom = df["total_bytes"] - coef.cuda_context_mib * MiB - non_kv - df["cudagraph_bytes"] - margin
        effective = np.minimum(effective, headroom)
    given = df["kv_cache_memory_bytes"] > 0
    df["available_kv_bytes"] = np.where(given, df["kv_cache_memory_bytes"], printed)
    df["kv_cache_bytes"] = np.where(given, df["kv_cache_memory_bytes"], effective)


def concurrency_at(df: pd.DataFrame, rules: Rules, context: np.ndarray | int) -> np.ndarray:
    """Maximum concurrency vLLM prints for requests of ``context`` tokens."""
    if rules.concurrency_rule == "tokens":
        return df["num_gpu_blocks"] * df["block_size"] / context
    needed = kv.blocks_per_request(context, df["block_size_full"], df["groups_full"], df["groups_sliding"],
                                   df["groups_linear"], df["window"], df["max_num_batched_tokens"] * df["pp"],
                                   df["block_size_sliding"])
    return df["num_gpu_blocks"] / needed


def printed_tokens(df: pd.DataFrame, rules: Rules) -> np.ndarray:
    """'GPU KV cache size: N tokens' as the release line computes N."""
    if rules.token_rule == "blocks":
        return df["num_gpu_blocks"] * df["block_size"]
    if rules.token_rule == "groups":
        return df["num_gpu_blocks"] // np.maximum(df["kv_groups"], 1) * df["block_size"]
    return np.floor(df["max_concurrency"] * df["max_model_len"]).astype(np.int64)


def add_capacity(df: pd.DataFrame, rules: Rules) -> None:
    """Blocks, printed tokens, concurrency at max_model_len, and the fit verdict."""
    df["num_gpu_blocks"] = kv.num_blocks(df["kv_cache_bytes"], df["bytes_per_block"])
    df["blocks_per_request"] = kv.blocks_per_request(
        df["max_model_len"], df["block_size_full"], df["groups_full"], df["groups_sliding"], df["groups_linear"],
        df["window"], df["max_num_batched_tokens"] * df["pp"], df["block_size_sliding"])
    df["max_concurrency"] = concurrency_at(df, rules, df["max_model_len"])
    df["kv_cache_tokens"] = printed_tokens(df, rules)
    df["fits"] = (df["kv_cache_bytes"] > 0) & (df["max_concurrency"] >= 1) & (df["max_model_len"] <= df["max_context"])


def compute(df: pd.DataFrame, rules: Rules, coef: oh.Coefficients) -> pd.DataFrame:
    """Add every derived column to a copy of the case frame ``df`` (shallow: ``df`` is left as it was)."""
    out = df.copy(deep=False)
    add_kv_geometry(out, rules)
    add_overheads(out, rules, coef)
    add_budget(out, rules, coef)
    add_capacity(out, rules)
    return out
