"""The per-GPU memory budget and KV-cache capacity of every row of a case frame, column-wise.

A *case frame* (built by :mod:`sizing.engine.cases`) has one row per deployment: model architecture
columns, checkpoint weight bytes, GPU memory, parallelism and vLLM settings. :func:`compute`
adds every derived column, in bytes, blocks and tokens, following the rules of one vLLM release
line (:class:`sizing.engine.versions.Rules`). No Python loop runs per row.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sizing.engine import dsv4_kv, kv_band, towers
from sizing.engine import kvcache as kv
from sizing.engine import overhead as oh
from sizing.engine import weights as wt
from sizing.engine.versions import PLATFORM_HYBRID_ALIGN_MINOR, Rules
from sizing.units import GiB, MiB


def _col(df: pd.DataFrame, name: str) -> np.ndarray:
    return df[name].to_numpy()


def spec_col(df: pd.DataFrame, name: str) -> np.ndarray:
    """A speculative-decoding column (:func:`sizing.engine.speculative.columns`), zeros where the frame has
    none."""
    return df[name].to_numpy() if name in df else np.zeros(len(df), dtype=np.int64)


ROCM_EXTENSIBLE_MARGIN_GIB = 3.0
"""The extensible KV cache's free-memory floor on ROCm (1 GiB on CUDA, ``extensible_margin_gib``), from the
release of ``versions``' ``v1-extensible`` rules: vLLM's ``Worker._compile_or_warm_up_model`` →
``measure_kv_cache_blocks`` keeps ``max(1 GiB, 3 GiB on ROCm, 0.75 × transient peak)`` free
(``shared/reference/vllm-memory-model.md`` a.2)."""


def _rocm(df: pd.DataFrame) -> np.ndarray:
    """Per row: the GPU runs vLLM's ROCm build (False where the frame has no ``rocm`` column)."""
    return _col(df, "rocm").astype(bool) if "rocm" in df else np.zeros(len(df), dtype=bool)


def expert_padding(df: pd.DataFrame, rules: Rules) -> np.ndarray:
    """Extra routed-expert bytes, divided by TP, when the MoE kernels pad the experts: MXFP4's alignment,
    or ROCm's stride padding of unquantized experts (:func:`sizing.engine.weights.rocm_moe_padding`)."""
    tp = _col(df, "tp")
    split = np.where(df["expert_parallel"].to_numpy(bool), 1, tp) if "expert_parallel" in df else tp
    precision = df["precision"].to_numpy() if "precision" in df else np.full(len(df), "")
    extra = rocm_padding(df, precision, split)
    mask = precision == "mxfp4"
    if not mask.any():
        return extra
    align_i, align_h = wt.mxfp4_alignment(_col(df, "arch_sm"), rules.minor)
    factor = wt.padded_expert_factor(_col(df, "moe_inter"), _col(df, "hidden_size"), split, align_i, align_h)
    return extra + np.where(mask, _col(df, "w_experts") / tp * (factor - 1), 0.0)


UNQUANTIZED = ("bf16", "fp16")
"""Precisions whose experts vLLM loads with ``UnquantizedFusedMoEMethod`` (the one ROCm pads)."""


def rocm_padding(df: pd.DataFrame, precision: np.ndarray, split: np.ndarray) -> np.ndarray:
    """ROCm's padding of unquantized routed experts, bytes divided by TP (0 off ROCm or when quantized)."""
    if "expert_matrices" not in df:
        return np.zeros(len(df))
    mask = _rocm(df) & np.isin(precision, UNQUANTIZED)
    inter = _col(df, "expert_intermediate") // np.maximum(split, 1)
    growth = wt.rocm_moe_padding(_col(df, "expert_matrices"), _col(df, "expert_in_dim"), inter)
    return np.where(mask, _col(df, "w_experts") / _col(df, "tp") * growth, 0.0)


def expert_ranks(df: pd.DataFrame) -> pd.Series:
    """How many ranks share the routed experts: the ``ep`` = TP × DP ranks with expert parallelism,
    else the TP ranks (vLLM's ``FusedMoE`` slices each expert TP ways, or places whole experts per EP
    rank)."""
    ep = df["ep"] if "ep" in df else pd.Series(1, index=df.index)
    return pd.Series(np.where(ep > 1, ep, df["tp"]), index=df.index)


def weights_per_gpu(df: pd.DataFrame, rules: Rules) -> np.ndarray:
    """Weight bytes on the fullest rank: sharded layers / TP + replicated layers, stage share, embeddings /
    TP,
    plus the buffers every rank holds whole (``w_rank_buffers``: RoPE caches)."""
    ranks = expert_ranks(df)
    return rank_weights(df, df["w_experts"] / ranks, expert_padding(df, rules) * df["tp"] / ranks)


def non_expert_weights_per_gpu(df: pd.DataFrame) -> np.ndarray:
    """Weight bytes on the fullest rank apart from the routed experts (:func:`weights_per_gpu` without them),
    bytes. The throughput engine takes the routed experts' bytes per GPU, padding included, as the rest."""
    return rank_weights(df)


def rank_weights(df: pd.DataFrame, *experts: pd.Series) -> np.ndarray:
    """Weight bytes on the fullest rank, with the routed experts' bytes per rank given as ``experts`` (terms
    of the whole model, before the stage share; none: the rank without its experts), bytes."""
    stage_share = kv.stage_count(df["layers"], df["pp"]) / df["layers"]
    tower = df["w_vision"] * df["language_model_only"]  # --language-model-only: the tower is not loaded
    sharded = (df["w_layer_sharded"] - df["w_experts"] - tower) / df["tp"]
    for term in experts:
        sharded = sharded + term
    layers = (sharded + df["w_layer_replicated"]) * stage_share
    tied_copy = np.where(df["w_lm_head"] > 0, df["w_lm_head"], df["w_embeddings"])
    ends = np.where(
        df["pp"] > 1, np.maximum(df["w_embeddings"], tied_copy), df["w_embeddings"] + df["w_lm_head"]
    )
    buffers = df["w_rank_buffers"].to_numpy() + csa_topk_bytes(df)
    loaded = (layers + ends / df["tp"]).to_numpy() * dtype_scale(df)
    return loaded + spec_col(df, "w_draft") / df["tp"].to_numpy() + buffers


def csa_topk_bytes(df: pd.DataFrame) -> np.ndarray:
    """DeepSeek-V4's int32 top-k index buffer of ``max_num_batched_tokens`` rows, every rank (else 0)."""
    per_token = spec_col(df, "csa_topk_bytes_per_token")
    return per_token * _col(df, "max_num_batched_tokens") if per_token.any() else per_token


def dtype_scale(df: pd.DataFrame) -> np.ndarray:
    """How many times the 16-bit bytes a row's unquantised weights and activations take: 2 where vLLM runs
    the model in float32 (``model_dtype_bytes`` 4, :func:`sizing.engine.capability.runs_float32`), else 1."""
    if "model_dtype_bytes" not in df:  # a frame of 16-bit inputs only
        return np.ones(len(df))
    return _col(df, "model_dtype_bytes") / oh.ACT_BYTES


def split_rounding(df: pd.DataFrame, rules: Rules) -> np.ndarray:
    """What the 0.21+ loader's allocator counts beyond the weight tensors of the fullest rank, bytes.

    Each layer's fused QKV and output projections (full and sliding attention, not MLA), its gate/up and
    down projections (dense models) or fused expert tensors (MoE: ``fused_moe/layer.py`` ``FusedMoE`` makes
    them local experts × intermediate // the MoE TP size, i.e. E × I/TP, or E/EP whole with EP), and the
    embedding and LM head are single tensors; :func:`sizing.engine.weights.split_rounding` rounds each one.
    The layers' tensors take the checkpoint's main weight width, the embeddings BF16."""
    if not rules.scoped_weight_split:
        return np.zeros(len(df))
    tp, hidden, b = _col(df, "tp"), _col(df, "hidden_size").astype(np.float64), _col(df, "w_tensor_bytes")
    q, kv_width = (
        _col(df, "attention_heads") * _col(df, "head_dim"),
        2 * _col(df, "kv_heads") * _col(df, "head_dim"),
    )
    attention = wt.split_rounding(hidden * (q + kv_width) * b / tp) + wt.split_rounding(q * hidden * b / tp)
    # DeepSeek-V4 (csa): its split projections and expert slices are whole 2 MiB multiples at TP 1 to 8
    csa = spec_col(df, "csa_bytes_per_block") > 0
    attention_layers = np.where(
        _col(df, "is_mla") | csa, 0, _col(df, "full_layers") + _col(df, "sliding_layers")
    )
    inter = _col(df, "dense_inter") / tp
    ranks = expert_ranks(df).to_numpy()
    per_rank = _col(df, "experts") * _col(df, "expert_intermediate") / ranks
    width = np.where(_col(df, "is_moe"), per_rank, inter) * hidden * b  # gate/up is twice the down projection
    mlp = np.where(csa, 0.0, wt.split_rounding(2 * width) + wt.split_rounding(width))
    share = np.asarray(kv.stage_count(df["layers"], df["pp"])) / _col(df, "layers")
    heads = wt.split_rounding(_col(df, "vocab_size") * hidden * wt.BF16_BYTES / tp) * np.where(
        _col(df, "w_lm_head") > 0, 2, 1
    )
    return (attention * attention_layers + mlp * _col(df, "layers")) * share + heads


def encoder_profile(df: pd.DataFrame) -> np.ndarray:
    """The vision encoder's share of the profile run per GPU, bytes (0 without a tower or when text-only)."""
    budget = np.maximum(df["max_num_batched_tokens"], df["vision_tokens"])
    limited = df["limit_mm_set"] | df["language_model_only"]
    limit = np.where(df["language_model_only"], 0, df["limit_mm_per_prompt"])
    items = np.where(
        df["vision_tokens"] > 0, towers.profiled_items(budget, df["vision_tokens"], limit, limited), 0
    )
    return towers.encoder_profile_bytes(
        items,
        df["vision_tokens"],
        df["vision_merge"],
        df["vision_hidden"],
        df["vision_inter"] / df["tp"],
        df["vision_out"],
        towers.PROFILE_FACTOR,
    )


def add_kv_geometry(df: pd.DataFrame, rules: Rules) -> None:
    """Per-token bytes, block size, KV groups and bytes per block for the fullest stage."""
    df["full_on_stage"] = kv.stage_count(df["full_layers"] + spec_col(df, "draft_kv_layers"), df["pp"])
    df["sliding_on_stage"] = kv.stage_count(df["sliding_layers"], df["pp"])
    df["linear_on_stage"] = kv.stage_count(df["linear_layers"], df["pp"])
    per_layer = kv.attention_bytes_per_token_layer(
        df["is_mla"], df["kv_heads"], df["head_dim"], df["mla_dim"], df["tp"], df["kv_bytes"]
    )
    per_layer = per_layer + kv.indexer_bytes_per_token_layer(df["index_head_dim"])
    per_full = kv.attention_bytes_per_token_layer(
        df["is_mla"], df["full_kv_heads"], df["full_head_dim"], df["mla_dim"], df["tp"], df["kv_bytes"]
    )
    per_full = per_full + kv.indexer_bytes_per_token_layer(df["index_head_dim"])
    page_per_token = kv.page_bytes_per_token(per_full, per_layer, df["sliding_on_stage"])
    df["kv_bytes_per_token_layer"] = page_per_token
    df["kv_bytes_per_token"] = per_full * df["full_on_stage"] + per_layer * df["sliding_on_stage"]
    groups = np.where(
        df["la_widen_groups"], kv.mamba2_groups(df["la_key_heads"], df["tp"]), df["la_key_heads"]
    )
    state = kv.recurrent_state_bytes(
        groups,
        df["la_value_heads"],
        df["la_key_dim"],
        df["la_value_dim"],
        df["la_conv_kernel"],
        df["tp"],
        df["model_dtype_bytes"],
        df["la_ssm_bytes"],
        spec_col(df, "spec_tokens"),
    )
    df["linear_state_bytes"] = np.where(df["linear_layers"] > 0, state, 0)
    default_bs = np.where(
        df["block_size_override"] > 0, df["block_size_override"], df["block_size_attention"]
    )
    mla_align = (
        df["is_mla"].to_numpy(bool) & (rules.engine == "v1") & (rules.minor < PLATFORM_HYBRID_ALIGN_MINOR)
    )
    floor = np.where(mla_align, kv.MLA_HYBRID_ALIGN, kv.HYBRID_ALIGN)
    df["block_size"] = kv.hybrid_block_size(default_bs, df["linear_state_bytes"], page_per_token, floor)
    df["block_size_full"], df["block_size_sliding"] = kv.unified_block_sizes(
        df["block_size"], page_per_token, per_full, per_layer
    )
    df["group_size"] = kv.group_size(df["full_on_stage"], df["sliding_on_stage"], df["linear_on_stage"])
    df["page_bytes"] = df["block_size"] * page_per_token
    df["bytes_per_block"] = df["group_size"] * df["page_bytes"]
    for kind in ("full", "sliding", "linear"):
        df[f"groups_{kind}"] = kv.groups_of(df[f"{kind}_on_stage"], df["group_size"])
    df["kv_groups"] = df["groups_full"] + df["groups_sliding"] + df["groups_linear"]
    compressed_geometry(df)


def compressed_geometry(df: pd.DataFrame) -> None:
    """DeepSeek-V4's rows (``csa_bytes_per_block`` > 0): one pool of 1,002,240-byte blocks (Flash) shared
    by its five groups, the same on every GPU (:mod:`sizing.engine.dsv4_kv`), in place of the per-token
    geometry; ``kv_bytes_per_token`` is what the whole-context groups take per token (their pages of one
    256-token block over 256), the part of the cache that grows with the context."""
    csa = spec_col(df, "csa_bytes_per_block") > 0
    if not csa.any():
        return
    groups = sum(spec_col(df, f"csa_{kind}_groups") for kind in dsv4_kv.GROUP_KINDS)
    for name, value in (
        ("bytes_per_block", spec_col(df, "csa_bytes_per_block")),
        ("page_bytes", spec_col(df, "csa_bytes_per_block")),
        ("kv_bytes_per_token", spec_col(df, "csa_full_page_bytes") // dsv4_kv.KV_BLOCK),
        ("kv_groups", groups),
        ("block_size", np.full(len(df), dsv4_kv.KV_BLOCK)),
    ):
        df[name] = np.where(csa, value, df[name])


def request_blocks(df: pd.DataFrame, context: np.ndarray | int) -> np.ndarray:
    """Blocks one request of ``context`` tokens holds over every KV group (and Mamba/GDN state), per row;
    DeepSeek-V4's rows over its own groups (:func:`sizing.engine.dsv4_kv.column_blocks`)."""
    in_flight = df["max_num_batched_tokens"] * df["pp"]
    blocks = kv.blocks_per_request(
        context,
        df["block_size_full"],
        df["groups_full"],
        df["groups_sliding"],
        mamba_blocks(df),
        df["window"],
        in_flight,
        df["block_size_sliding"],
    )
    csa = spec_col(df, "csa_bytes_per_block") > 0
    if not csa.any():
        return blocks
    groups = {f"csa_{kind}_groups": spec_col(df, f"csa_{kind}_groups") for kind in dsv4_kv.GROUP_KINDS}
    own = dsv4_kv.column_blocks(context, in_flight, spec_col(df, "csa_window"), groups)
    return np.where(csa, own, blocks)


def profile_tokens(df: pd.DataFrame, rules: Rules) -> np.ndarray:
    """Tokens of the profiled forward pass: max_num_batched_tokens (V0 without chunked prefill: ≥ context).

    V0 turns chunked prefill on by itself above 32K tokens of context
    (:func:`sizing.engine.overhead.v0_batch`).
    """
    mnbt = df["max_num_batched_tokens"].to_numpy()
    if rules.chunked_prefill:
        return mnbt
    mml = df["max_model_len"].to_numpy()
    return np.where(mml > oh.V0_LONG_CONTEXT, mnbt, np.maximum(mml, mnbt))


def overhead_bases(df: pd.DataFrame, rules: Rules) -> dict[str, np.ndarray]:
    """The basis of every fitted overhead term, by coefficient name (bytes per unit of coefficient).

    Needs ``profile_tokens``; calibration fits against these, :func:`add_overheads` multiplies them.
    """
    tokens, tp = _col(df, "profile_tokens"), _col(df, "tp")
    fitted = tokens * (rules.engine != "v0")  # V0's eager forward is a fixed term (eager_forward_bytes)
    bases = {
        "act_hidden_factor": oh.hidden_activation_basis(fitted, _col(df, "hidden_size")),
        "act_mlp_factor": oh.dense_mlp_basis(fitted, _col(df, "dense_inter") / tp),
    }
    nvls = (_col(df, "arch_sm") >= 90) & _col(df, "nvswitch").astype(bool)
    bases.update(
        oh.nontorch_basis(
            tp * _col(df, "pp"),
            nvls,
            oh.distributed_init_charged(rules.engine, rules.minor),
            oh.free_memory_charged(rules.engine, rules.minor),
            _rocm(df),
            rules.engine == "v0",
        )
    )
    return bases


def graph_bases(df: pd.DataFrame, rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """(captured, estimated) CUDA-graph bases in bytes per MiB of ``cudagraph_mib_per_capture``.

    The captured graphs cost what one pool holds (:func:`sizing.engine.overhead.cudagraph_basis`); the
    estimate that 0.20+ subtracts before the KV cache counts every graph of both modes
    (:func:`sizing.engine.overhead.cudagraph_estimate_basis`). The extensible cache of the supported
    release line (``Rules.extensible_kv_cache``, :data:`sizing.engine.versions.SUPPORTED`) measures the
    captured graphs instead of estimating them.
    """
    decode_rows = _col(df, "max_num_seqs") * (1 + spec_col(df, "spec_tokens"))
    mnbt, cap, eager = (
        _col(df, "max_num_batched_tokens"),
        _col(df, "max_capture_size"),
        _col(df, "enforce_eager"),
    )
    captures = oh.capture_sizes(decode_rows, mnbt, cap)
    captured = oh.cudagraph_basis(captures, eager)
    if rules.extensible_kv_cache:
        return captured, captured
    return captured, oh.cudagraph_estimate_basis(captures, oh.full_graph_sizes(decode_rows, mnbt, cap), eager)


def add_fixed_terms(df: pd.DataFrame, rules: Rules) -> None:
    """Overhead terms whose shape the vLLM source fixes completely: MoE workspaces, MLA prefill, sampler,
    Model Runner V2's persistent buffers."""
    tokens, tp = _col(df, "profile_tokens"), _col(df, "tp")
    split = np.where(df["expert_parallel"].to_numpy(bool), 1, tp) if "expert_parallel" in df else tp
    df["moe_workspace_bytes"] = oh.moe_workspace(
        tokens, _col(df, "moe_top_k"), _col(df, "moe_inter"), _col(df, "hidden_size"), split
    )
    heads = np.maximum(_col(df, "attention_heads") // tp, 1)
    df["mla_prefill_bytes"] = oh.mla_prefill(tokens, heads, _col(df, "mla_nope_plus_v"), rules.engine == "v0")
    v2 = oh.runner_v2(rules.engine, rules.minor, _col(df, "is_moe"), _col(df, "linear_layers"))
    df["runner_v2"] = v2
    df["sampler_bytes"] = oh.sampler_peak(
        _col(df, "max_num_seqs"),
        tokens,
        _col(df, "vocab_size"),
        oh.sampler_bytes_per_logit(rules.minor, v2, _rocm(df) | spec_col(df, "no_flashinfer").astype(bool)),
    )
    charged = v2 & oh.free_memory_charged(rules.engine, rules.minor)
    df["runner_buffers_bytes"] = oh.runner_buffers(_col(df, "max_num_seqs"), _col(df, "vocab_size"), charged)
    v0 = tokens * (rules.engine == "v0")
    df["eager_forward_bytes"] = oh.eager_forward(v0, _col(df, "hidden_size"), _col(df, "dense_inter") / tp)
    df["linear_profile_bytes"] = oh.linear_profile(
        tokens, _col(df, "la_value_heads") // tp, _col(df, "la_value_dim"), _col(df, "la_profile_units")
    )


def add_overheads(df: pd.DataFrame, rules: Rules, coef: oh.Coefficients) -> None:
    """Weights, activation peak, non-torch and CUDA-graph memory per GPU, bytes."""
    df["split_rounding_bytes"] = split_rounding(df, rules)
    df["weights_bytes"] = weights_per_gpu(df, rules) + df["split_rounding_bytes"]
    df["profile_tokens"] = profile_tokens(df, rules)
    add_fixed_terms(df, rules)
    term = {name: getattr(coef, name) * basis for name, basis in overhead_bases(df, rules).items()}
    scale = dtype_scale(df)  # activations in the model's dtype: float32 doubles the 16-bit bases
    forward = (
        term["act_hidden_factor"]
        + term["act_mlp_factor"]
        + _col(df, "mla_prefill_bytes")
        + _col(df, "linear_profile_bytes")
        + _col(df, "eager_forward_bytes")
    ) * scale
    df["encoder_profile_bytes"] = encoder_profile(df) * scale
    df["sampler_phase_bytes"], peak = oh.profile_peak(
        forward, _col(df, "sampler_bytes"), _col(df, "profile_tokens"), _col(df, "hidden_size")
    )
    df["activation_bytes"] = peak + _col(df, "moe_workspace_bytes") * scale + df["encoder_profile_bytes"]
    df["nontorch_bytes"] = (
        term["nontorch_mib"]
        + term["nccl_mib"]
        + term["nvls_mib"]
        + term["consumed_mib"]
        + term["rocm_mib"]
        + term["v0_profile_mib"]
        + _col(df, "runner_buffers_bytes")
    )
    captured, estimated = (coef.cudagraph_mib_per_capture * basis for basis in graph_bases(df, rules))
    df["cudagraph_budgeted"] = oh.cudagraphs_estimated(
        rules.cudagraphs_budgeted, rules.minor, _col(df, "runner_v2")
    )
    df["cudagraph_bytes"] = np.where(df["cudagraph_budgeted"], estimated, 0.0)
    df["cudagraph_captured_bytes"] = captured
    df["cudagraph_after_bytes"] = np.where(df["cudagraph_budgeted"], 0.0, captured)


def add_budget(df: pd.DataFrame, rules: Rules, coef: oh.Coefficients) -> None:
    """Budget, the printed 'Available KV cache memory' with its band, and the KV bytes blocks are cut from.

    ``kv_cache_bytes`` is the cautious end: the low end of the band, less what the release line
    takes after the printed figure. With ``--kv-cache-memory-bytes`` there is no band.

    The band's width ``printed − low`` is an error of the non-KV estimate (the budget is exact), so
    it is subtracted whole where the extensible cache's headroom is the binding limit too: that
    headroom is computed from the same non-KV bytes and is off by the same amount.
    """
    df["budget_bytes"] = np.ceil(df["gpu_memory_utilization"] * df["total_bytes"])
    non_kv = df["weights_bytes"] + df["activation_bytes"] + df["nontorch_bytes"]
    printed = df["budget_bytes"] - non_kv - (0 if rules.extensible_kv_cache else df["cudagraph_bytes"])
    effective = printed - (df["cudagraph_bytes"] if rules.extensible_kv_cache else 0)
    if rules.extensible_kv_cache:
        floor = np.where(_rocm(df), ROCM_EXTENSIBLE_MARGIN_GIB, coef.extensible_margin_gib) * GiB
        margin = np.maximum(floor, rules.extensible_activation_share * df["activation_bytes"])
        headroom = df["total_bytes"] - coef.cuda_context_mib * MiB - non_kv - df["cudagraph_bytes"] - margin
        effective = np.minimum(effective, headroom)
    classes = kv_band.band_classes(df["is_moe"], df["is_mla"], df["linear_layers"], df["vision_tokens"])
    low, high = kv_band.kv_band(printed, coef, classes)
    given = df["kv_cache_memory_bytes"] > 0
    df["available_kv_bytes"] = np.where(given, df["kv_cache_memory_bytes"], printed)
    df["available_kv_low_bytes"] = np.where(given, df["kv_cache_memory_bytes"], low)
    df["available_kv_high_bytes"] = np.where(given, df["kv_cache_memory_bytes"], high)
    df["kv_cache_point_bytes"] = np.where(given, df["kv_cache_memory_bytes"], effective)
    df["kv_cache_bytes"] = np.where(given, df["kv_cache_memory_bytes"], effective - (printed - low))


def mamba_blocks(df: pd.DataFrame) -> np.ndarray:
    """Blocks one request holds over the Mamba/GDN groups: ``groups x (1 + k)``, ``groups x (2 + k)`` with
    ``--enable-prefix-caching`` (k = num_speculative_tokens).

    ``MambaSpec.max_memory_usage_bytes`` (``vllm/v1/kv_cache_interface.py``) is ``1 + num_speculative_blocks``
    pages with ``mamba_cache_mode`` ``none`` and ``2 + num_speculative_blocks`` (no prefill checkpoints) with
    ``align``, the mode prefix caching selects; ``num_speculative_blocks`` is the drafter's token count.
    """
    align = spec_col(df, "prefix_caching").astype(np.int64)
    return _col(df, "groups_linear") * (1 + align + spec_col(df, "spec_tokens"))


def concurrency_at(
    df: pd.DataFrame, rules: Rules, context: np.ndarray | int, blocks: np.ndarray | None = None
) -> np.ndarray:
    """Maximum concurrency vLLM prints for requests of ``context`` tokens (``blocks``: instead of the
    frame's ``num_gpu_blocks``)."""
    blocks = df["num_gpu_blocks"] if blocks is None else blocks
    if rules.concurrency_rule == "tokens":
        return blocks * df["block_size"] / context
    return blocks / request_blocks(df, context)


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
    df["blocks_per_request"] = request_blocks(df, df["max_model_len"])
    df["max_concurrency"] = concurrency_at(df, rules, df["max_model_len"])
    df["kv_cache_tokens"] = printed_tokens(df, rules)
    df["fits"] = (
        (df["kv_cache_bytes"] > 0) & (df["max_concurrency"] >= 1) & (df["max_model_len"] <= df["max_context"])
    )
    df["fits_optimistic"] = df["fits"] | (
        (optimistic_blocks(df) >= df["blocks_per_request"]) & (df["max_model_len"] <= df["max_context"])
    )


def optimistic_blocks(df: pd.DataFrame) -> np.ndarray:
    """KV blocks per GPU at the optimistic (high) end of the available-KV band: the blocks are cut from
    ``kv_cache_bytes`` (the cautious end) plus the band's width ``high − low``.

    vLLM refuses to start when the blocks cannot hold one ``--max-model-len`` request
    (``vllm/v1/core/kv_cache_utils.py`` ``check_enough_kv_cache_memory``); a case that starts at this end
    and not at the cautious one is inside the band: borderline.
    """
    width = np.asarray(df["available_kv_high_bytes"]) - np.asarray(df["available_kv_low_bytes"])
    return kv.num_blocks(np.asarray(df["kv_cache_bytes"]) + np.maximum(width, 0), df["bytes_per_block"])


def starts_at(df: pd.DataFrame, rules: Rules, context: int, optimistic: bool = False) -> np.ndarray:
    """Whether vLLM starts with ``--max-model-len context``: the blocks hold one such request and the
    model reaches that far. With chunked prefill (V1) the memory profile runs ``max_num_batched_tokens``
    tokens whatever ``--max-model-len`` is (:func:`profile_tokens`), so the blocks counted at the catalog's
    length are those of a launch at ``context``; under V0 a shorter length profiles fewer tokens, so the
    count is cautious. ``optimistic``: at the band's high end (:func:`optimistic_blocks`)."""
    holds = concurrency_at(df, rules, context, optimistic_blocks(df) if optimistic else None)
    return np.asarray(holds >= 1) & (context <= np.asarray(df["max_context"]))


def compute(df: pd.DataFrame, rules: Rules, coef: oh.Coefficients) -> pd.DataFrame:
    """Add every derived column to a copy of the case frame ``df`` (shallow: ``df`` is left as it was)."""
    out = df.copy(deep=False)
    add_kv_geometry(out, rules)
    add_overheads(out, rules, coef)
    add_budget(out, rules, coef)
    add_capacity(out, rules)
    return out
