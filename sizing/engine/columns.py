"""The matrix schema: every column of an evaluated frame, with its dtype, unit and meaning, declared once.

:func:`sizing.engine.evaluate.evaluate` (the whole catalog) and
:func:`sizing.engine.estimate.estimate_frame` (one request) return frames with exactly these
columns; ``tests/engine/test_columns.py`` fails on a column that is written but not declared here,
or declared but never written. Per-context columns are declared once as a pattern with ``<ctx>``
(one column per published context length, tokens). Units: ``bytes`` (memory, binary multiples
in output), ``count``, ``tokens``, ``fraction`` (0..1), ``GB`` (decimal, as sold or read from disk),
``GB/s``, ``tokens/s``, ``s``, ``money/month`` (in ``currency``), ``id`` (a catalog key), ``text``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sizing.engine.dsv4_kv import CSA_COLUMNS

Kind = Literal["int", "float", "bool", "str"]


@dataclass(frozen=True)
class Column:
    """One matrix column: its name (``<ctx>`` for per-context columns), dtype kind, unit and meaning."""

    name: str
    kind: Kind
    unit: str
    meaning: str


def _c(name: str, kind: Kind, unit: str, meaning: str) -> Column:
    return Column(name, kind, unit, meaning)


MODEL = (
    _c("model", "str", "id", "catalog model id"),
    _c("layers", "int", "count", "decoder layers"),
    _c("hidden_size", "int", "count", "hidden size"),
    _c("vocab_size", "int", "count", "vocabulary size"),
    _c("attention_heads", "int", "count", "query heads"),
    _c("kv_heads", "int", "count", "key/value heads (GQA)"),
    _c(
        "w_rank_buffers",
        "int",
        "bytes",
        "buffers every rank holds whole in the loaded model (RoPE cos/sin caches)",
    ),
    _c("head_dim", "int", "count", "dimension of one attention head"),
    _c("is_mla", "bool", "", "multi-head latent attention (DeepSeek): one latent per token and layer"),
    _c("mla_dim", "int", "count", "MLA latent plus rope dimension per token and layer (0 without MLA)"),
    _c("full_layers", "int", "count", "layers with full attention"),
    _c("sliding_layers", "int", "count", "layers with sliding-window attention"),
    _c("window", "int", "tokens", "sliding window (0 without)"),
    _c("linear_layers", "int", "count", "linear-attention layers (Gated DeltaNet, KDA, Mamba-2)"),
    _c("la_key_heads", "int", "count", "linear-attention key heads"),
    _c("la_value_heads", "int", "count", "linear-attention value heads"),
    _c("la_key_dim", "int", "count", "linear-attention key head dimension"),
    _c("la_value_dim", "int", "count", "linear-attention value head dimension"),
    _c("la_conv_kernel", "int", "count", "linear-attention convolution kernel size"),
    _c(
        "la_ssm_bytes", "int", "bytes", "bytes per element of the linear layers' temporal state (4 when fp32)"
    ),
    _c(
        "la_widen_groups",
        "bool",
        "",
        "linear-attention key heads are Mamba-2 groups vLLM widens to the TP size",
    ),
    _c(
        "inter_per_token",
        "int",
        "count",
        "MLP intermediate size of the experts active per token (whole model)",
    ),
    _c("max_context", "int", "tokens", "the model's own maximum context"),
    _c(
        "model_dtype_bytes",
        "int",
        "bytes",
        "bytes per element of the dtype vLLM runs the model in (2: bf16/fp16; 4 where it runs float32)",
    ),
    _c("fp16_refused", "bool", "flag", "vLLM refuses float16 for the model type (gemma2, gemma3, glm4 ...)"),
    _c("is_moe", "bool", "", "mixture of experts"),
    _c("active_share", "float", "fraction", "share of expert weights read per token"),
    _c(
        "index_head_dim",
        "int",
        "count",
        "sparse-MLA indexer key size per token and layer (0 without an indexer)",
    ),
    _c("csa_bytes_per_block", "int", "bytes", "DeepSeek-V4: one block of its shared pool (0: other models)"),
    _c("csa_full_page_bytes", "int", "bytes", "DeepSeek-V4: one block's pages of its whole-context groups"),
    _c(
        "csa_full_groups", "int", "count", "DeepSeek-V4: KV groups of 256-token blocks over the whole context"
    ),
    _c("csa_swa_groups", "int", "count", "DeepSeek-V4: sliding-window KV groups (64-token blocks)"),
    _c("csa_c4_state_groups", "int", "count", "DeepSeek-V4: ratio-4 compressor-state groups"),
    _c("csa_c128_state_groups", "int", "count", "DeepSeek-V4: ratio-128 compressor-state groups"),
    _c("csa_window", "int", "tokens", "DeepSeek-V4: the sliding window every layer keeps (0: other models)"),
    _c("csa_topk_bytes_per_token", "int", "bytes", "DeepSeek-V4: top-k index buffer per batched token"),
    _c(
        "full_kv_heads",
        "int",
        "count",
        "KV heads of the full-attention layers where they differ from the sliding ones (Gemma 4)",
    ),
    _c("full_head_dim", "int", "count", "head size of the full-attention layers (Gemma 4)"),
    _c("experts", "int", "count", "routed experts (0 for dense models)"),
    _c("expert_intermediate", "int", "count", "intermediate size of one expert (0 for dense models)"),
    _c("expert_matrices", "int", "count", "weight matrices per expert: 3 gated, 2 not (0 for dense models)"),
    _c("expert_in_dim", "int", "count", "input width of the experts: hidden, or the MoE latent size"),
    _c("dense_inter", "int", "count", "intermediate size of the dense MLP layers"),
    _c("moe_top_k", "int", "count", "experts each token is routed to"),
    _c("moe_inter", "int", "count", "expert intermediate size the fused-MoE workspaces are shaped by"),
    _c("mla_nope_plus_v", "int", "count", "MLA: no-RoPE key plus value head size (decompressed prefill)"),
    _c(
        "la_profile_units",
        "int",
        "count",
        "projection-wide bf16 tensors a linear layer holds in the profile run (KDA 7; 0 not modelled)",
    ),
    _c(
        "vision_tokens",
        "int",
        "tokens",
        "tokens of the largest image the encoder profile run uses (0 text-only)",
    ),
    _c("vision_hidden", "int", "count", "vision tower hidden size"),
    _c("vision_inter", "int", "count", "vision tower MLP intermediate size"),
    _c("vision_merge", "int", "count", "patches per side encoded for one language token (merge x pooling)"),
    _c("vision_out", "int", "count", "width of the tower output projected into the language model"),
)
CHECKPOINT = (
    _c("checkpoint", "str", "id", "checkpoint id as vLLM loads it"),
    _c("precision", "str", "id", "catalog precision id of the weights"),
    _c("online_quantization", "bool", "", "quantised by vLLM at load time (--quantization)"),
    _c("w_layer_sharded", "float", "bytes", "weights of all layers split by tensor parallelism"),
    _c("w_layer_replicated", "float", "bytes", "weights of all layers every TP rank holds whole"),
    _c("w_embeddings", "float", "bytes", "input embedding weights"),
    _c("w_lm_head", "float", "bytes", "output head weights (0 when tied)"),
    _c("w_total", "float", "bytes", "the whole checkpoint in GPU memory (all GPUs together)"),
    _c("w_experts", "float", "bytes", "expert weights of all layers (0 for dense models)"),
    _c("needs_hw", "str", "text", "hardware the precision needs: fp8, fp4 or empty"),
    _c("min_sm", "int", "count", "lowest compute capability x 10 vLLM has kernels for (0: any)"),
    _c(
        "w_tensor_bytes",
        "float",
        "bytes",
        "bytes per parameter of a layer's main weight tensor (scales apart)",
    ),
    _c("w_vision", "int", "bytes", "vision tower weights (kept in BF16; 0 without a tower)"),
)
HARDWARE = (
    _c("server", "str", "id", "catalog server id (or a described GPU for one estimate)"),
    _c("gpus_per_node", "int", "count", "GPUs per node"),
    _c("nodes", "int", "count", "nodes"),
    _c("server_gpus", "int", "count", "GPUs of the whole server"),
    _c("server_kind", "str", "text", "offer, reference or custom"),
    _c("price_monthly", "float", "money/month", "monthly price of the server (NaN without a price)"),
    _c("currency", "str", "text", "ISO currency of the price"),
    _c("nvme_read_gbs", "float", "GB/s", "disk read rate the load time assumes"),
    _c("ram_gb", "float", "GB", "host RAM"),
    _c("gpu", "str", "id", "catalog GPU id"),
    _c("total_bytes", "int", "bytes", "memory of one GPU as nvidia-smi reports it"),
    _c("memory_gb", "float", "GB", "memory of one GPU as sold (binary GB)"),
    _c("bandwidth_gbs", "float", "GB/s", "memory bandwidth of one GPU"),
    _c("is_a100", "bool", "", "an A100 (vLLM's batch defaults treat it apart)"),
    _c("hw_fp8", "bool", "", "the GPU computes in FP8"),
    _c("hw_fp4", "bool", "", "the GPU computes in FP4"),
    _c("arch_sm", "int", "count", "compute capability × 10 (89, 90, 100)"),
    _c("unsupported", "bool", "flag", "vLLM has no kernel for the precision on this GPU (arch_sm < min_sm)"),
    _c("max_capture_size", "int", "count", "largest batch vLLM captures a CUDA graph for"),
    _c("interconnect", "str", "text", "nvlink, pcie or xgmi (AMD Infinity Fabric)"),
    _c("nvswitch", "bool", "flag", "the GPUs of a node talk through NVSwitch (NVLS buffers)"),
    _c("rocm", "bool", "flag", "an AMD Instinct GPU (gfx target): vLLM's ROCm build"),
)
PLAN = (
    _c("kv_cache_dtype", "str", "text", "--kv-cache-dtype"),
    _c("plan", "str", "text", "plan template: dp, tp, tp-pp, …"),
    _c("tp", "int", "count", "--tensor-parallel-size"),
    _c("rank", "int", "count", "preference order of the plan template (0 first)"),
    _c("pp", "int", "count", "--pipeline-parallel-size"),
    _c("dp", "int", "count", "--data-parallel-size (engine replicas)"),
    _c("expert_parallel", "bool", "flag", "--enable-expert-parallel (the dp-ep plan)"),
    _c("ep", "int", "count", "expert-parallel ranks (TP × DP with expert parallelism, else 1)"),
    _c("nodes_per_engine", "int", "count", "nodes one engine spans (PP stages, the DP+EP group, else 1)"),
    _c("dp_per_node", "int", "count", "--data-parallel-size-local: data-parallel ranks on each node"),
)
SETTINGS = (
    _c("gpu_memory_utilization", "float", "fraction", "--gpu-memory-utilization"),
    _c("max_model_len", "int", "tokens", "--max-model-len (capped at the model's context)"),
    _c("max_num_batched_tokens", "int", "tokens", "--max-num-batched-tokens (vLLM's default unless given)"),
    _c("max_num_seqs", "int", "count", "--max-num-seqs (vLLM's default unless given)"),
    _c("kv_bytes", "int", "bytes", "bytes per cached K or V element"),
    _c(
        "float32",
        "bool",
        "flag",
        "vLLM runs the model in float32 here (--dtype float32: no bf16 below sm_80)",
    ),
    _c("block_size_override", "int", "tokens", "--block-size (0: vLLM chooses)"),
    _c("block_size_attention", "int", "tokens", "KV block size of the attention backend"),
    _c("enforce_eager", "bool", "", "--enforce-eager (no CUDA graphs)"),
    _c("kv_cache_memory_bytes", "int", "bytes", "--kv-cache-memory-bytes (0: from the budget)"),
    _c("limit_mm_set", "bool", "flag", "--limit-mm-per-prompt given"),
    _c("limit_mm_per_prompt", "int", "count", "images per prompt the encoder profile run uses"),
    _c("language_model_only", "bool", "flag", "--language-model-only (the tower is not loaded)"),
)
KV_GEOMETRY = (
    _c("full_on_stage", "int", "count", "full-attention layers on one pipeline stage"),
    _c("sliding_on_stage", "int", "count", "sliding-window layers on one pipeline stage"),
    _c("linear_on_stage", "int", "count", "linear-attention layers on one pipeline stage"),
    _c("kv_bytes_per_token_layer", "int", "bytes", "KV bytes of one token in one layer on one GPU"),
    _c("kv_bytes_per_token", "int", "bytes", "KV bytes of one token on one GPU (all its layers)"),
    _c("linear_state_bytes", "int", "bytes", "recurrent state of one sequence in one linear layer, per GPU"),
    _c("block_size", "int", "tokens", "tokens per KV block"),
    _c("group_size", "int", "count", "layers sharing one KV cache group"),
    _c("page_bytes", "int", "bytes", "one block of one layer"),
    _c("bytes_per_block", "int", "bytes", "one block across a group's layers"),
    _c("groups_full", "int", "count", "KV cache groups of full attention"),
    _c("groups_sliding", "int", "count", "KV cache groups of sliding-window attention"),
    _c("groups_linear", "int", "count", "KV cache groups of linear attention"),
    _c("kv_groups", "int", "count", "all KV cache groups"),
    _c("block_size_full", "int", "tokens", "block size of the full-attention KV group"),
    _c("block_size_sliding", "int", "tokens", "block size of the sliding-window KV group"),
)
MEMORY = (
    _c("weights_bytes", "float", "bytes", "weights on one GPU"),
    _c("profile_tokens", "int", "tokens", "tokens of vLLM's profiling run"),
    _c("activation_bytes", "float", "bytes", "activation peak of the profiling run, per GPU"),
    _c(
        "nontorch_bytes",
        "float",
        "bytes",
        "persistent buffers and memory outside PyTorch (NCCL, CUDA), per GPU",
    ),
    _c("cudagraph_bytes", "float", "bytes", "CUDA graph memory counted in the budget, per GPU"),
    _c("cudagraph_after_bytes", "float", "bytes", "CUDA graph memory taken after the KV cache, per GPU"),
    _c("budget_bytes", "float", "bytes", "gpu_memory_utilization × total memory, per GPU"),
    _c("available_kv_bytes", "float", "bytes", "'Available KV cache memory' as vLLM prints it, per GPU"),
    _c("kv_cache_bytes", "float", "bytes", "memory KV blocks are cut from, per GPU (may be negative)"),
    _c("num_gpu_blocks", "int", "count", "KV blocks per GPU"),
    _c("blocks_per_request", "int", "count", "blocks one max_model_len request needs"),
    _c("max_concurrency", "float", "count", "'Maximum concurrency' at max_model_len, per engine"),
    _c("kv_cache_tokens", "int", "tokens", "'GPU KV cache size' as vLLM prints it"),
    _c("fits", "bool", "", "the engine starts and holds one max_model_len request"),
    _c("fits_optimistic", "bool", "", "it starts at the optimistic end of the available-KV band"),
    _c("moe_workspace_bytes", "float", "bytes", "fused-MoE workspaces of the profile run, per GPU"),
    _c(
        "mla_prefill_bytes",
        "float",
        "bytes",
        "MLA decompressed-prefill buffers of the profile run (V0), per GPU",
    ),
    _c("sampler_bytes", "float", "bytes", "the sampler's dummy run over max_num_seqs rows, per GPU"),
    _c(
        "sampler_phase_bytes",
        "float",
        "bytes",
        "the profile run's sampler phase: the sampler plus the forward pass's output hidden states, per GPU",
    ),
    _c("runner_v2", "bool", "", "vLLM runs the model with Model Runner V2"),
    _c(
        "split_rounding_bytes",
        "float",
        "bytes",
        "what the allocator counts beyond the weight tensors (0.21+), per GPU",
    ),
    _c(
        "runner_buffers_bytes",
        "float",
        "bytes",
        "Model Runner V2's persistent sampler buffers charged to the budget, per GPU",
    ),
    _c(
        "cudagraph_budgeted",
        "bool",
        "",
        "the printed available KV memory already subtracts the CUDA-graph estimate",
    ),
    _c("cudagraph_captured_bytes", "float", "bytes", "memory the captured CUDA graphs take, per GPU"),
    _c(
        "linear_profile_bytes",
        "float",
        "bytes",
        "linear-attention projections live in the profile run (KDA), per GPU",
    ),
    _c(
        "eager_forward_bytes",
        "float",
        "bytes",
        "the V0 engine's eager forward peak of the profile run, per GPU",
    ),
    _c("encoder_profile_bytes", "float", "bytes", "the vision encoder's share of the profile run, per GPU"),
    _c(
        "available_kv_low_bytes",
        "float",
        "bytes",
        "cautious end of the available-KV band (leave-one-out errors)",
    ),
    _c("available_kv_high_bytes", "float", "bytes", "optimistic end of the available-KV band"),
    _c(
        "kv_cache_point_bytes",
        "float",
        "bytes",
        "memory blocks are cut from at the point estimate (the blocks use the low end)",
    ),
)
PER_CONTEXT = (
    _c(
        "concurrency_<ctx>",
        "float",
        "count",
        "requests of <ctx> tokens one engine holds (NaN beyond the model)",
    ),
    _c(
        "sequences_<ctx>",
        "float",
        "count",
        "whole sequences of <ctx> tokens the server holds launched with --max-model-len <ctx> (0 where none)",
    ),
    _c("starts_optimistic_<ctx>", "bool", "", "--max-model-len <ctx> starts at the band's optimistic end"),
    _c("decode_tps_<ctx>", "float", "tokens/s", "decode ceiling of one sequence at <ctx> tokens"),
)
SERVICE = (
    _c("weights_read_bytes", "float", "bytes", "weight bytes read per decoded token, per GPU"),
    _c("decode_tps_ceiling", "float", "tokens/s", "memory bandwidth ÷ weights read per token"),
    _c("longest_context", "int", "tokens", "longest request that fits"),
    _c("price_per_gb_month", "float", "money/month", "monthly price per GB of GPU memory"),
    _c("cpu_cores_min", "int", "count", "CPU cores the server should have"),
    _c("load_time_s", "float", "s", "checkpoint read time from disk"),
    _c("ram_per_vram", "float", "fraction", "host RAM ÷ GPU memory of the server"),
)
CHOICE = (
    _c("chosen", "bool", "", "the recommended plan of its model × checkpoint × server × KV type"),
    _c("reason", "str", "text", "why that plan was chosen"),
    _c(
        "chosen_<ctx>",
        "bool",
        "",
        "the recommended plan of its combination launched with --max-model-len <ctx>",
    ),
    _c("change", "str", "text", "nearest change that makes a row start (empty if none): its kind"),
    _c("change_value", "str", "text", "the value of that change"),
    _c("change_plan", "str", "text", "the suggested case's plan, <plan>-tp<N>-pp<N>-dp<N>, when it differs"),
)

COLUMNS: tuple[Column, ...] = (
    *MODEL,
    *CHECKPOINT,
    *HARDWARE,
    *PLAN,
    *SETTINGS,
    *KV_GEOMETRY,
    *MEMORY,
    *PER_CONTEXT,
    *SERVICE,
    *CHOICE,
)
"""Every matrix column, in the order the engine writes them."""

REQUEST_ONLY = (
    _c("spec_method", "str", "name", "--speculative-config method (mtp, eagle3, ngram); empty when off"),
    _c("spec_tokens", "int", "tokens", "num_speculative_tokens: draft tokens per decoding step"),
    _c("spec_draft", "str", "id", "the draft checkpoint (EAGLE-3 head), empty otherwise"),
    _c("w_draft", "float", "bytes", "the drafter's own weights (MTP layers or EAGLE-3 head), all ranks"),
    _c("draft_kv_layers", "int", "count", "attention layers the drafter adds to the KV cache"),
    _c(
        "draft_weights_bytes",
        "float",
        "bytes",
        "the drafter's own weights per GPU (included in weights_bytes)",
    ),
    _c("prefix_caching", "bool", "flag", "--enable-prefix-caching (Mamba/GDN groups keep one more block)"),
    _c("no_flashinfer", "bool", "flag", "the install lacks FlashInfer, so V1's sampler sorts (before 0.17)"),
)
"""Columns only ``estimate`` frames carry (the published matrix runs without speculation)."""

THROUGHPUT = (
    _c("workload", "str", "id", "catalog/workloads.yaml entry (or 'custom' for a CLI request)"),
    _c("input_len", "int", "tokens", "--random-input-len: prompt tokens per request"),
    _c("output_len", "int", "tokens", "--random-output-len: output tokens per request (--ignore-eos)"),
    _c("concurrency", "int", "count", "--max-concurrency: clients in a closed loop, whole server"),
    _c(
        "tp_class",
        "str",
        "text",
        "architecture class the constants were fitted for: dense, moe, mla-moe, hybrid",
    ),
    _c("calibrated", "bool", "", "the class has fitted constants and a band (else the roofline bound only)"),
    _c("refused", "str", "text", "why the row cannot be estimated (empty when it can)"),
    _c("running", "float", "count", "sequences running at once, whole server"),
    _c("output_tps", "float", "tokens/s", "output tokens per second, whole server"),
    _c("output_tps_low", "float", "tokens/s", "cautious end of the output-throughput band"),
    _c("output_tps_high", "float", "tokens/s", "optimistic end of the output-throughput band"),
    _c("user_tps", "float", "tokens/s", "output tokens per second one user sees (1 / TPOT)"),
    _c("tpot_s", "float", "s", "mean time per output token after the first (vllm bench serve's TPOT)"),
    _c("tpot_s_low", "float", "s", "optimistic end of the TPOT band"),
    _c("tpot_s_high", "float", "s", "cautious end of the TPOT band"),
    _c("ttft_s", "float", "s", "mean time to first token, waiting for a slot included"),
    _c("ttft_s_low", "float", "s", "optimistic end of the TTFT band"),
    _c("ttft_s_high", "float", "s", "cautious end of the TTFT band"),
    _c("request_rate", "float", "requests/s", "completed requests per second, whole server"),
    _c("total_tps", "float", "tokens/s", "prompt plus output tokens per second, whole server"),
    _c("limited_by", "str", "text", "bandwidth, compute, interconnect, host, kv-pool or max-num-seqs"),
    _c(
        "usd_per_mtok",
        "float",
        "money",
        "price per million output tokens at output_tps (NaN without a price)",
    ),
    _c("usd_per_mtok_low", "float", "money", "optimistic end of the cost band (at output_tps_high)"),
    _c("usd_per_mtok_high", "float", "money", "cautious end of the cost band (at output_tps_low)"),
    _c(
        "within_target",
        "bool",
        "",
        "cautious TPOT and TTFT meet the speed target (assumption speed_target_ms)",
    ),
)
"""Columns of a throughput frame (:func:`sizing.engine.throughput_frame.ladder`): one row per evaluated row
× workload × concurrency, next to the evaluated row's id columns (model, checkpoint, server, plan)."""

PER_CLASS_ONLY = frozenset(
    {
        "vocab_size",
        "la_key_heads",
        "la_key_dim",
        "la_value_dim",
        "la_conv_kernel",
        "la_ssm_bytes",
        "la_widen_groups",
        "inter_per_token",
        "w_rank_buffers",
        "model_dtype_bytes",
        "fp16_refused",
        "index_head_dim",
        *CSA_COLUMNS,
        "full_kv_heads",
        "full_head_dim",
        "dense_inter",
        "moe_top_k",
        "moe_inter",
        "mla_nope_plus_v",
        "la_profile_units",
        "vision_hidden",
        "vision_inter",
        "vision_merge",
        "vision_out",
        "active_share",
        "w_layer_sharded",
        "w_layer_replicated",
        "w_embeddings",
        "w_lm_head",
        "w_experts",
        "w_tensor_bytes",
        "w_vision",
        "is_a100",
        "arch_sm",
        "min_sm",
        "max_capture_size",
        "nvswitch",
        "rocm",
        "expert_matrices",
        "expert_in_dim",
        "block_size_override",
        "block_size_attention",
    }
)
"""Inputs of the memory arithmetic that :func:`sizing.engine.evaluate.evaluate` reads once per compute class
and does not repeat on every matrix row (the model's, checkpoint's or GPU's own figures, and the block-size
settings the KV columns already resolve). Single estimates carry them, for ``explain``."""

BY_NAME = {c.name: c for c in (*COLUMNS, *REQUEST_ONLY, *THROUGHPUT)}
"""The declarations by name (per-context ones under their ``<ctx>`` pattern)."""


def declaration(name: str) -> Column | None:
    """The declaration of column ``name`` (``concurrency_4096`` -> ``concurrency_<ctx>``); None if
    undeclared."""
    prefix, _, ctx = name.rpartition("_")
    if ctx.isdigit():
        return BY_NAME.get(f"{prefix}_<ctx>")
    return BY_NAME.get(name)


def expected_columns(contexts: list[int]) -> list[str]:
    """The column names of the matrix evaluated at the published ``contexts`` (tokens), declaration order
    (without :data:`PER_CLASS_ONLY`, which only single estimates carry)."""
    names: list[str] = []
    for c in (c for c in COLUMNS if c.name not in PER_CLASS_ONLY):
        names += [c.name.replace("<ctx>", str(ctx)) for ctx in contexts] if "<ctx>" in c.name else [c.name]
    return names
