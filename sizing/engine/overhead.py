"""What vLLM charges besides weights and KV cache, term by term, vectorised, in bytes.

Each term is a small function whose docstring names the released vLLM source it follows
(``vllm-project/vllm``; file and function, never copied code). Shapes come from the source; the
few things the source cannot tell us (how many hidden-sized activations the compiled graph keeps
live, what NCCL allocates, how much one captured CUDA graph costs per layer) are *residual
coefficients* in ``catalog/assumptions.yaml``, fitted by ``scripts/calibrate.py`` on the
reproducible start-up logs and checked out of sample (leave one out).

The profile run's charge (``determine_available_memory``) is::

    forward peak (max_num_batched_tokens tokens) + sampler dummy run (max_num_seqs rows × vocab)
    + persistent fused-MoE workspaces + non-torch growth (+ CUDA graphs from 0.20 on)

A term is linear in its coefficient, so each is computed as ``coefficient × basis``; the bases
(:func:`sizing.engine.memory.overhead_bases`, one per name in :data:`FITTED`) are what the calibration fits.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from sizing.units import GiB, MiB
from sizing.engine.versions import BATCH_DEFAULTS

ACT_BYTES = 2
"""Bytes per activation element: the bf16/fp16 compute dtype of every profiled forward pass."""
MOE_CHUNK_TOKENS = 32768
"""``VLLM_FUSED_MOE_CHUNK_SIZE`` default (``vllm/envs.py``): fused MoE processes at most this many tokens."""
SAMPLER_BYTES_PER_LOGIT = 2 + 4 + 8
"""Live bytes per logit in the sampler's dummy run: model-dtype logits, fp32 copy, int64 sort indices."""
V0_LONG_CONTEXT = 32768
"""Above this max_model_len the V0 OpenAI server enables chunked prefill by default (``use_long_context``)."""
FITTED = ("act_hidden_factor", "act_mlp_factor", "nontorch_mib", "nccl_mib", "nvls_mib",
          "cudagraph_mib_per_capture_layer")
"""The residual coefficients ``scripts/calibrate.py`` fits; each multiplies one basis of its term."""


@dataclass(frozen=True)
class Coefficients:
    """Overhead constants (see catalog/assumptions.yaml for each one's reason)."""

    act_hidden_factor: float
    act_mlp_factor: float
    nontorch_mib: float
    nccl_mib: float
    nvls_mib: float
    cudagraph_mib_per_capture_layer: float
    cuda_context_mib: float
    extensible_margin_gib: float
    kv_band_optimistic: float
    kv_band_pessimistic: float

    @classmethod
    def from_assumptions(cls, values: dict[str, float]) -> "Coefficients":
        """Pick this class's fields out of the catalog's assumption values."""
        return cls(**{f.name: float(values[f.name]) for f in fields(cls)})


def default_batch(total_bytes: np.ndarray, is_a100: np.ndarray, llm_class: bool) -> tuple[np.ndarray, np.ndarray]:
    """vLLM's default (max_num_batched_tokens, max_num_seqs) by device memory.

    Source: ``vllm/engine/arg_utils.py`` ``EngineArgs.get_batch_defaults`` (``_set_default_args`` before
    0.11). ≥ 160 GiB: 16384 tokens, 1024 seqs; ≥ 70 GiB and not an A100: 8192 (serve) or 16384
    (LLM class), 1024 seqs; otherwise 2048 (serve) or 8192 (LLM class), 256 seqs.
    """
    b = BATCH_DEFAULTS
    total = np.asarray(total_bytes, dtype=np.float64)
    big = total >= b.big_gib * GiB
    large = (total >= b.large_gib * GiB) & ~np.asarray(is_a100, dtype=bool)
    tokens = np.where(big, b.big_tokens, np.where(large, b.large_tokens_llm if llm_class else b.large_tokens,
                                                   b.small_tokens_llm if llm_class else b.small_tokens))
    seqs = np.where(big | large, b.large_seqs, b.small_seqs)
    return tokens.astype(np.int64), seqs.astype(np.int64)


def v0_batch(max_model_len: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The V0 engine's default (max_num_batched_tokens, max_num_seqs), 0.6.4 – 0.7.x.

    Source: ``vllm/engine/arg_utils.py`` ``EngineArgs.create_engine_config`` turns chunked prefill on
    for contexts over 32K (``use_long_context``) on the OpenAI server; ``vllm/config.py``
    ``SchedulerConfig.__post_init__`` then uses 2048 tokens, else ``max(max_model_len, 2048)``.
    ``max_num_seqs`` defaults to 256.
    """
    mml = np.asarray(max_model_len, dtype=np.int64)
    tokens = np.where(mml > V0_LONG_CONTEXT, 2048, np.maximum(mml, 2048))
    return tokens.astype(np.int64), np.full(mml.shape, 256, dtype=np.int64)


def capture_sizes(max_num_seqs: np.ndarray, mnbt: np.ndarray, max_capture: np.ndarray) -> np.ndarray:
    """How many CUDA-graph batch sizes vLLM captures: [1,2,4] + 8..248 step 8 + 256..max step 16.

    Source: ``vllm/config/compilation.py`` ``CompilationConfig`` default ``cudagraph_capture_sizes``,
    capped at ``min(2 × max_num_seqs, max_cudagraph_capture_size, max_num_batched_tokens)``.
    """
    top = np.minimum(np.minimum(2 * np.asarray(max_num_seqs), max_capture), mnbt)
    small = np.minimum(top, 4)
    count_small = np.where(small >= 4, 3, np.where(small >= 2, 2, 1))
    count_mid = np.clip(np.minimum(top, 248) // 8, 0, 31)
    count_big = np.where(top >= 256, (top - 256) // 16 + 1, 0)
    return count_small + count_mid + count_big


def hidden_activation_basis(tokens: np.ndarray, hidden: np.ndarray) -> np.ndarray:
    """Bytes of ONE hidden-sized activation for the profiled tokens: ``tokens × hidden × 2 B``.

    Source: ``vllm/v1/worker/gpu_model_runner.py`` ``GPUModelRunner._dummy_run`` runs the model on
    ``max_num_tokens`` tokens; each decoder layer (e.g. ``vllm/model_executor/models/llama.py``
    ``LlamaDecoderLayer.forward``) keeps the residual, the normed input and the attention output,
    each ``[tokens, hidden]``. ``act_hidden_factor`` is how many stay live at the peak.
    """
    return np.asarray(tokens, dtype=np.float64) * np.asarray(hidden) * ACT_BYTES


def dense_mlp_basis(tokens: np.ndarray, inter_per_rank: np.ndarray) -> np.ndarray:
    """Bytes of a dense gated MLP's intermediates: ``tokens × (2 I + I) / TP × 2 B``.

    Source: ``vllm/model_executor/models/llama.py`` ``LlamaMLP.forward``: the merged column-parallel
    ``gate_up_proj`` output ``[tokens, 2 I/TP]`` and the ``SiluAndMul`` output ``[tokens, I/TP]`` are
    live together before ``down_proj``. MoE models count their dense or shared-expert MLP here.
    """
    return np.asarray(tokens, dtype=np.float64) * 3 * np.asarray(inter_per_rank) * ACT_BYTES


def moe_workspace(tokens: np.ndarray, top_k: np.ndarray, expert_inter: np.ndarray, hidden: np.ndarray,
                  experts_split: np.ndarray) -> np.ndarray:
    """Persistent fused-MoE workspaces of the largest profiled batch, bytes (0 for dense models).

    Source: ``vllm/model_executor/layers/fused_moe/modular_kernel.py``
    ``FusedMoEModularKernel.forward`` with ``fused_moe.py`` ``TritonExperts.workspace_shapes``:
    ``workspace13 = M × top_k × max(2 N, K)``, ``workspace2 = M × top_k × N`` and the output
    ``M × K``, in the activation dtype, with ``M = min(tokens, VLLM_FUSED_MOE_CHUNK_SIZE)``,
    ``K = hidden`` and ``N`` the expert intermediate per rank (full with expert parallelism, where
    ``experts_split`` is 1). The buffers are shared across layers and outlive the forward pass.
    """
    m = np.minimum(np.asarray(tokens, dtype=np.float64), MOE_CHUNK_TOKENS)
    k, n = np.asarray(hidden, dtype=np.float64), np.asarray(expert_inter) / np.asarray(experts_split)
    per_token = np.asarray(top_k) * (np.maximum(2 * n, k) + n) + k
    return np.where(np.asarray(top_k) > 0, m * per_token * ACT_BYTES, 0.0)


def mla_prefill(tokens: np.ndarray, heads_per_rank: np.ndarray, nope_plus_v: np.ndarray,
                attention_profiled: bool) -> np.ndarray:
    """MLA's decompressed prefill K/V for the profiled tokens, bytes (0 where attention is skipped).

    Source: ``vllm/attention/backends/mla/common.py`` ``MLACommonImpl._forward_prefill``:
    ``kv_b_proj`` expands the latent to ``[tokens, heads/TP, qk_nope_head_dim + v_head_dim]``.
    The V1 profile run skips attention (``GPUModelRunner.profile_run`` calls ``_dummy_run`` with
    ``skip_attn``), so only the V0 profile (``vllm/worker/model_runner.py`` ``profile_run``) pays it.
    """
    if not attention_profiled:
        return np.zeros(np.shape(tokens))
    width = np.asarray(heads_per_rank) * np.asarray(nope_plus_v)
    return np.asarray(tokens, dtype=np.float64) * width * ACT_BYTES


def linear_profile(tokens: np.ndarray, heads_per_rank: np.ndarray, head_dim: np.ndarray,
                   units: np.ndarray) -> np.ndarray:
    """Linear-attention projections live in the profile run, bytes: ``tokens x heads/TP x head_dim x units x 2 B``.

    ``units`` comes from :func:`sizing.engine.profile_columns.linear_profile_units` (7 for KDA, whose
    projections vLLM computes before the skipped kernel; 0 where not modelled). Counted on top of the
    fitted hidden-sized activations, so the estimate errs on the side of less KV memory.
    """
    width = np.asarray(heads_per_rank, dtype=np.float64) * np.asarray(head_dim)
    return np.asarray(tokens, dtype=np.float64) * width * np.asarray(units) * ACT_BYTES


def sampler_peak(max_num_seqs: np.ndarray, tokens: np.ndarray, vocab: np.ndarray) -> np.ndarray:
    """The sampler dummy run's live buffers, bytes: ``min(max_num_seqs, tokens) × vocab × 14 B``.

    Source: ``vllm/v1/worker/gpu_model_runner.py`` ``GPUModelRunner._dummy_sampler_run``: one row per
    dummy request (``_dummy_run`` schedules ``min(max_num_seqs, tokens)`` requests), full-vocabulary
    logits from ``compute_logits`` in the model dtype (2 B), top-k = vocab − 1 and top-p = 0.9 so
    ``vllm/v1/sample/sampler.py`` ``Sampler.forward`` keeps an fp32 copy (4 B) and
    ``vllm/v1/sample/ops/topk_topp_sampler.py`` ``apply_top_k_top_p`` sorts it (int64 indices, 8 B).
    """
    rows = np.minimum(np.asarray(max_num_seqs), np.asarray(tokens))
    return rows.astype(np.float64) * np.asarray(vocab) * SAMPLER_BYTES_PER_LOGIT


SNAPSHOT_AFTER_DISTRIBUTED_MINOR = 11
"""From vLLM 0.11 the V1 worker takes its memory snapshot after initialising the distributed environment."""


def distributed_init_charged(engine: str, minor: int) -> bool:
    """Whether the profiler charges the buffers that distributed initialisation allocates.

    Source: ``vllm-project/vllm@v0.10.2:vllm/v1/worker/gpu_worker.py:Worker.init_device`` takes
    ``init_snapshot = MemorySnapshot()`` *before* ``init_worker_distributed_environment`` (NCCL
    communicators, the warm-up all-reduce, ``custom_all_reduce.py`` ``CustomAllreduce`` IPC buffers),
    so their memory shows up as non-torch growth in ``determine_available_memory``; the V0 worker
    (``vllm/worker/worker.py:Worker.init_device``, ``baseline_snapshot``) does the same.
    ``vllm-project/vllm@v0.11.2:vllm/v1/worker/gpu_worker.py:Worker.init_device`` initialises the
    distributed environment first and snapshots after it, so from 0.11 these buffers are outside the budget.
    """
    return engine == "v0" or minor < SNAPSHOT_AFTER_DISTRIBUTED_MINOR


def nontorch_basis(world: np.ndarray, nvls: np.ndarray, init_charged: bool = True) -> dict[str, np.ndarray]:
    """Bases (bytes per coefficient MiB) of the non-torch growth during the profile run.

    Source: ``vllm/v1/worker/gpu_worker.py`` ``Worker.determine_available_memory`` charges the growth
    of (CUDA used − torch reserved) since the initial snapshot (``vllm/utils/mem_utils.py``
    ``memory_profiling``): cuBLAS/attention workspaces on every GPU (``nontorch_mib``); NCCL and
    custom all-reduce buffers once ranks talk (``vllm/distributed/device_communicators/``
    ``pynccl.py``, ``custom_all_reduce.py``; ``nccl_mib``), only where the snapshot precedes
    distributed initialisation (``init_charged``, :func:`distributed_init_charged`); and NCCL's
    NVLink-SHARP buffers on Hopper or newer NVSwitch nodes (``nvls_mib``), charged in every release:
    the 0.11+ H200 logs, whose snapshot follows distributed initialisation, still pay them, so they
    are set up by the first large all-reduce of the profiled forward pass, not at communicator init.
    """
    multi = np.asarray(world) > 1
    return {"nontorch_mib": np.full(np.shape(world), float(MiB)),
            "nccl_mib": np.where(multi & init_charged, float(MiB), 0.0),
            "nvls_mib": np.where(multi & np.asarray(nvls, dtype=bool), float(MiB), 0.0)}


def cudagraph_basis(captures: np.ndarray, layers_on_stage: np.ndarray, eager: np.ndarray) -> np.ndarray:
    """CUDA-graph memory basis, bytes per MiB of coefficient: captured sizes × layers (0 when eager).

    Source: ``vllm/v1/worker/gpu_model_runner.py`` ``GPUModelRunner.profile_cudagraph_memory`` (0.20+,
    ``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS``) captures one graph per size; its pool grows with
    the number of sizes and of captured layer pieces. ``--enforce-eager`` captures nothing.
    """
    estimate = np.asarray(captures, dtype=np.float64) * np.asarray(layers_on_stage) * MiB
    return np.where(np.asarray(eager, dtype=bool), 0.0, estimate)


def kv_band(printed: np.ndarray, c: Coefficients) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of the printed available KV memory from the leave-one-out error quantiles.

    An error ``e = (predicted − logged) / logged`` means vLLM logs ``predicted / (1 + e)``: the low
    end divides by the optimistic quantile, the high end by the pessimistic one.
    """
    p = np.asarray(printed, dtype=np.float64)
    low, high = p / (1 + c.kv_band_optimistic), p / (1 + c.kv_band_pessimistic)
    return np.minimum(low, high), np.maximum(low, high)
