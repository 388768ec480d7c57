"""What vLLM charges besides weights and KV cache, term by term, vectorised, in bytes.

Each term is a small function whose docstring names the released vLLM source it follows
(``vllm-project/vllm``; file and function, never copied code). Shapes come from the source; the
few things the source cannot tell us (how many hidden-sized activations the compiled graph keeps
live, what NCCL allocates, how much one captured CUDA-graph batch size costs) are *residual
coefficients* in ``catalog/assumptions.yaml``, fitted by ``scripts/calibrate.py`` on the
reproducible start-up logs and checked out of sample (leave one out).

The profile run's charge (``determine_available_memory``) is::

    max(forward peak (max_num_batched_tokens tokens), sampler dummy run (max_num_seqs rows × vocab)
        + the forward's output hidden states)              (one after the other: :func:`profile_peak`)
    + persistent fused-MoE workspaces + encoder profile + non-torch growth
    (+ Model Runner V2's sampler buffers and the rest of the free-memory drop from 0.27 on)
    (+ the CUDA-graph estimate: V1 from 0.20, Model Runner V2 from 0.29)

Which model runner runs a model (:func:`runner_v2`) decides the sampler's bytes per logit, the buffers
and when graphs are estimated; the release decides what the profiler measures.

A term is linear in its coefficient, so each is computed as ``coefficient × basis``; the bases
(:func:`sizing.engine.memory.overhead_bases`, one per name in :data:`FITTED`) are what the calibration fits.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from sizing.catalog.loader import BAND_CLASSES, FITTED_RESIDUALS
from sizing.engine.versions import (
    BATCH_DEFAULTS,
    FREE_MEMORY_PROFILER_MINOR,
    SNAPSHOT_AFTER_DISTRIBUTED_MINOR,
    SORT_SAMPLER_MINORS,
    V2_ALL_MINOR,
    V2_DENSE_MINOR,
    V2_SAMPLER_WARMUP_MINOR,
)
from sizing.units import GiB, MiB

ACT_BYTES = 2
"""Bytes per activation element: the bf16/fp16 compute dtype of every profiled forward pass."""
MOE_CHUNK_TOKENS = 32768
"""``VLLM_FUSED_MOE_CHUNK_SIZE`` default (``vllm/envs.py``): fused MoE processes at most this many tokens."""
SAMPLER_BYTES_PER_LOGIT = 2 + 4 + 4 + 4
"""Live bytes per logit in the V1 sampler's dummy run: model-dtype logits, fp32 copy, fp32 probabilities, fp32
noise."""
SORT_SAMPLER_BYTES_PER_LOGIT = 2 + 4 + (4 + 8) + (8 + 4 + 8)
"""The same with 0.12–0.16's sort-based top-k/top-p, at the sort itself: the model-dtype and fp32 logits,
the sorted fp32 values and int64 indices, and what the sort allocates (:func:`sampler_bytes_per_logit`)."""
V2_SAMPLER_BYTES_PER_LOGIT = 2
"""Model Runner V2's dummy sampler run samples on the model-dtype logits alone (up to 0.33)."""
V2_SAMPLER_WARMUP_BYTES_PER_LOGIT = 2 + 4
"""From :data:`~sizing.engine.versions.V2_SAMPLER_WARMUP_MINOR` it also runs a warm-up pass through the fp32
logits pipeline: the logits and their fp32 copy."""
ROCM_SORT_BEFORE_MINOR = SORT_SAMPLER_MINORS.stop
"""From this release V1's native top-k/top-p takes the Triton kernel on ROCm too
(:func:`sampler_bytes_per_logit`)."""
V0_LONG_CONTEXT = 32768
"""Above this max_model_len the V0 OpenAI server enables chunked prefill by default (``use_long_context``)."""
FITTED = FITTED_RESIDUALS
"""The residual coefficients ``scripts/calibrate.py`` fits on the logged available KV memory; each multiplies
one basis of its term."""
FORWARD_FITTED = ("act_hidden_factor", "act_mlp_factor")
"""The fitted terms that are activations of the forward pass: they compete with the sampler phase
(:func:`profile_peak`) instead of adding to it."""
GRAPH_FITTED = "cudagraph_mib_per_capture"
"""The CUDA-graph coefficient, fitted on the graph memory the logs print, not on their available KV memory."""


@dataclass(frozen=True)
class Coefficients:
    """Overhead constants (see catalog/assumptions.yaml for each one's reason)."""

    act_hidden_factor: float
    act_mlp_factor: float
    nontorch_mib: float
    nccl_mib: float
    nvls_mib: float
    consumed_mib: float
    cudagraph_mib_per_capture: float
    cuda_context_mib: float
    extensible_margin_gib: float
    kv_band_optimistic: float
    kv_band_pessimistic: float
    class_bands: tuple[tuple[float, float], ...] = ()
    """(optimistic, pessimistic) per class of :data:`BAND_CLASSES`; empty: the scalar band for every class."""
    rocm_mib: float = 0.0
    v0_profile_mib: float = 0.0

    @classmethod
    def from_assumptions(cls, values: dict[str, float]) -> "Coefficients":
        """Pick this class's fields out of the catalog's assumption values (``kv_band_<end>_<class>``)."""
        scalars = {f.name: float(values[f.name]) for f in fields(cls) if f.name != "class_bands"}
        bands = tuple(
            (float(values[f"kv_band_optimistic_{name}"]), float(values[f"kv_band_pessimistic_{name}"]))
            for name in BAND_CLASSES
        )
        return cls(**scalars, class_bands=bands)


def default_batch(
    total_bytes: np.ndarray, is_a100: np.ndarray, llm_class: bool, minor: int = BATCH_DEFAULTS.big_from_minor
) -> tuple[np.ndarray, np.ndarray]:
    """vLLM's default (max_num_batched_tokens, max_num_seqs) by device memory under release 0.``minor``.

    Source: ``vllm/engine/arg_utils.py`` ``EngineArgs.get_batch_defaults`` (``_set_default_args`` before
    0.11). ≥ 160 GiB, from 0.28 (:data:`sizing.engine.versions.BATCH_DEFAULTS`): 16384 tokens, 1024 seqs;
    ≥ 70 GiB and not an A100: 8192 (serve) or 16384 (LLM class), 1024 seqs; otherwise 2048 (serve) or
    8192 (LLM class), 256 seqs.
    """
    b = BATCH_DEFAULTS
    total = np.asarray(total_bytes, dtype=np.float64)
    big = (total >= b.big_gib * GiB) & (minor >= b.big_from_minor)
    large = (total >= b.large_gib * GiB) & ~np.asarray(is_a100, dtype=bool)
    tokens = np.where(
        big,
        b.big_tokens,
        np.where(
            large,
            b.large_tokens_llm if llm_class else b.large_tokens,
            b.small_tokens_llm if llm_class else b.small_tokens,
        ),
    )
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


def sizes_up_to(top: np.ndarray) -> np.ndarray:
    """How many sizes of vLLM's default capture list [1,2,4] + 8..248 step 8 + 256..max step 16 are ≤ ``top``.

    Source: ``vllm/config/compilation.py`` ``CompilationConfig`` default ``cudagraph_capture_sizes``.
    """
    top = np.asarray(top)
    small = np.minimum(top, 4)
    count_small = np.where(small >= 4, 3, np.where(small >= 2, 2, 1))
    count_mid = np.clip(np.minimum(top, 248) // 8, 0, 31)
    count_big = np.where(top >= 256, (top - 256) // 16 + 1, 0)
    return count_small + count_mid + count_big


def capture_sizes(max_num_seqs: np.ndarray, mnbt: np.ndarray, max_capture: np.ndarray) -> np.ndarray:
    """How many batch sizes vLLM captures piecewise CUDA graphs for.

    Source: ``vllm/config/vllm.py`` ``VllmConfig._set_cudagraph_sizes`` caps the default list at
    ``min(2 × max_num_seqs, max_cudagraph_capture_size, max_num_batched_tokens)``.
    """
    return sizes_up_to(np.minimum(np.minimum(2 * np.asarray(max_num_seqs), max_capture), mnbt))


def full_graph_sizes(decode_rows: np.ndarray, mnbt: np.ndarray, max_capture: np.ndarray) -> np.ndarray:
    """How many batch sizes vLLM also captures whole-model (FULL) graphs for: the uniform decode batches.

    Source: ``vllm/config/vllm.py`` makes ``FULL_AND_PIECEWISE`` the default ``cudagraph_mode``;
    ``vllm/v1/cudagraph_dispatcher.py`` captures FULL graphs for the sizes of the list up to
    ``max_num_seqs × (1 + num_speculative_tokens)`` (35 of the 51 sizes at 256 sequences).
    """
    return sizes_up_to(np.minimum(np.minimum(np.asarray(decode_rows), max_capture), mnbt))


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


def eager_forward(tokens: np.ndarray, hidden: np.ndarray, inter_per_rank: np.ndarray) -> np.ndarray:
    """The V0 engine's eager forward peak, bytes: ``tokens x (3 hidden + 3 I/TP) x 2 B``.

    Source: the V0 profile run (``vllm-project/vllm@v0.6.5:vllm/worker/model_runner.py``
    ``GPUModelRunnerBase.profile_run``) runs the model eagerly (no ``torch.compile``). In
    ``vllm/model_executor/models/llama.py`` ``LlamaDecoderLayer.forward`` the residual and the normed hidden
    states (``fused_add_rms_norm`` works in place) stay referenced while ``LlamaMLP.forward`` holds its local
    ``gate_up`` ``[tokens, 2 I/TP]`` and the ``SiluAndMul`` output ``[tokens, I/TP]`` as ``down_proj``
    writes ``[tokens, hidden]``. Both V0 logs of Llama 3.1 8B (vllm#10517) print this torch peak to within
    0.01 GiB: 17.06 - 14.99 = 2.07 GiB at 20,000 tokens, 17.98 - 14.99 = 2.99 GiB at 29,000.
    """
    width = 3 * np.asarray(hidden, dtype=np.float64) + 3 * np.asarray(inter_per_rank)
    return np.asarray(tokens, dtype=np.float64) * width * ACT_BYTES


def moe_workspace(
    tokens: np.ndarray,
    top_k: np.ndarray,
    expert_inter: np.ndarray,
    hidden: np.ndarray,
    experts_split: np.ndarray,
) -> np.ndarray:
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


def mla_prefill(
    tokens: np.ndarray, heads_per_rank: np.ndarray, nope_plus_v: np.ndarray, attention_profiled: bool
) -> np.ndarray:
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


def linear_profile(
    tokens: np.ndarray, heads_per_rank: np.ndarray, head_dim: np.ndarray, units: np.ndarray
) -> np.ndarray:
    """Linear-attention projections live in the profile run, bytes: ``tokens x heads/TP x head_dim x units x 2
    B``.

    ``units`` comes from :func:`sizing.engine.profile_columns.linear_profile_units` (7 for KDA, whose
    projections vLLM computes before the skipped kernel; 0 where not modelled). Counted on top of the
    fitted hidden-sized activations, so the estimate errs on the side of less KV memory.
    """
    width = np.asarray(heads_per_rank, dtype=np.float64) * np.asarray(head_dim)
    return np.asarray(tokens, dtype=np.float64) * width * np.asarray(units) * ACT_BYTES


def runner_v2(engine: str, minor: int, is_moe: np.ndarray, linear_layers: np.ndarray) -> np.ndarray:
    """Whether vLLM runs the model with Model Runner V2 (``vllm/v1/worker/gpu/model_runner.py``).

    Source: ``vllm/config/vllm.py`` ``VllmConfig.use_v2_model_runner``: from 0.25.0
    (``_is_default_v2_model_runner_model``) every model that is not MoE, and from 0.29.0 every model,
    unless ``VLLM_USE_V2_MODEL_RUNNER`` or an unsupported feature says otherwise; 0.22–0.24 took it for a
    few named architectures. The logs disagree for 0.25–0.26: the 0.26.0 A40 log of Llama-3.1-8B charges
    1.6 GiB besides weights, which V1's sampler and CUDA-graph estimate explain and V2's profile (about
    0.35 GiB) does not, while the 0.27.1 log of Qwen2.5-0.5B charges exactly what V2 does. So V2 is
    modelled for dense models from 0.27; before that V1, which charges more (the cautious side).
    Linear-attention hybrids are counted with V1 until 0.29.
    """
    moe = np.asarray(is_moe, dtype=bool) | (np.asarray(linear_layers) > 0)
    if engine != "v1" or minor < V2_DENSE_MINOR:
        return np.zeros(moe.shape, dtype=bool)
    return ~moe if minor < V2_ALL_MINOR else np.ones(moe.shape, dtype=bool)


def sampler_bytes_per_logit(
    minor: int, v2: np.ndarray, no_flashinfer: np.ndarray | bool = False
) -> np.ndarray:
    """Bytes per logit live at the sampler dummy run's peak, by release and model runner.

    Source, V1: ``vllm/v1/worker/gpu_model_runner.py`` ``GPUModelRunner._dummy_sampler_run`` asks for
    top-k = vocab − 1 and top-p = 0.9; ``vllm/v1/sample/sampler.py`` ``Sampler.forward`` makes an fp32 copy
    of the logits, and ``vllm/v1/sample/ops/topk_topp_sampler.py`` either sorts them (0.12–0.16,
    ``apply_top_k_top_p_pytorch``: ``logits.sort(dim=-1)``) or, with the
    FlashInfer sampler (default when installed in 0.10–0.11 and again from 0.21) or the Triton kernel
    (0.17+), filters in place before the fp32 softmax and the fp32 exponential noise of ``random_sample``
    (14 B). V2: ``vllm/v1/worker/gpu/model_runner.py`` ``_dummy_sampler_run`` samples a dummy batch
    without sampling parameters, so ``vllm/v1/worker/gpu/sample/sampler.py`` Gumbel-samples the
    model-dtype logits directly (2 B, read in the 0.30.0 source); :data:`V2_SAMPLER_WARMUP_MINOR` adds a
    second pass through the fp32 logits pipeline (``shared/reference/vllm-memory-model.md`` a.1), where
    top-k/top-p filter the fp32 copy in place (6 B). 0.31–0.33 are taken as 0.30.

    The sort path peaks inside the sort (38 B), above its later masks and scatter (28 B): PyTorch sorts a
    ``[rows, vocab]`` tensor of at least 128 rows with ``segmented_sort_pairs``
    (``pytorch/pytorch:aten/src/ATen/native/cuda/Sort.cu``, ``launch_stable_sort_kernel``), which allocates
    an int64 index per logit (``reverse_indices``) and calls CUB's ``DeviceSegmentedRadixSort::SortPairs``
    through ``aten/src/ATen/cuda/cub.cuh``; that non-double-buffer form takes its alternate key (fp32) and
    value (int64) buffers from the temporary storage, both from PyTorch's caching allocator, so the
    profiler's torch peak counts them: 8 + 4 + 8 B on top of the 18 B of logits and sort outputs.

    Without a FlashInfer sampler (``no_flashinfer``) V1 sorts in every release before the Triton kernel
    (:data:`ROCM_SORT_BEFORE_MINOR`): ``TopKTopPSampler.__init__`` takes ``forward_cuda`` only on CUDA with
    FlashInfer installed, else ``forward_native`` ("FlashInfer is not available. Falling back to the
    PyTorch-native implementation"): on ROCm (the aiter sampler needs ``VLLM_ROCM_USE_AITER``, off by
    default) and in a pip install of 0.10.1–0.11.0 (vllm-project/vllm#21959 moved ``flashinfer-python`` to
    the ``vllm[flashinfer]`` extra, #26443 made it a dependency again; the Docker images ship it). The
    Qwen3-8B-FP8 DEBUG log (0.10.2, ``vllm serve``) prints this peak: 256 x 151,936 x 38 B + 2,048 hidden
    states = 1.39 GiB for "torch peak memory increase: 1.40GiB".
    """
    no_fi = np.asarray(no_flashinfer, dtype=bool)
    sort = (minor in SORT_SAMPLER_MINORS) | (no_fi & (minor < ROCM_SORT_BEFORE_MINOR))
    v1 = np.where(sort, SORT_SAMPLER_BYTES_PER_LOGIT, SAMPLER_BYTES_PER_LOGIT)
    v2_bytes = (
        V2_SAMPLER_WARMUP_BYTES_PER_LOGIT if minor >= V2_SAMPLER_WARMUP_MINOR else V2_SAMPLER_BYTES_PER_LOGIT
    )
    return np.where(np.asarray(v2, dtype=bool), v2_bytes, v1)


def sampler_peak(
    max_num_seqs: np.ndarray,
    tokens: np.ndarray,
    vocab: np.ndarray,
    bytes_per_logit: np.ndarray | int = SAMPLER_BYTES_PER_LOGIT,
) -> np.ndarray:
    """The sampler dummy run's live buffers, bytes: ``min(max_num_seqs, tokens) × vocab × bytes per logit``.

    Source: ``vllm/v1/worker/gpu_model_runner.py`` ``GPUModelRunner._dummy_run`` schedules
    ``min(max_num_seqs, tokens)`` dummy requests, and ``_dummy_sampler_run`` computes full-vocabulary
    logits for one row each; :func:`sampler_bytes_per_logit` gives what each logit costs.
    """
    rows = np.minimum(np.asarray(max_num_seqs), np.asarray(tokens))
    return rows.astype(np.float64) * np.asarray(vocab) * np.asarray(bytes_per_logit)


def profile_peak(
    forward: np.ndarray, sampler: np.ndarray, tokens: np.ndarray, hidden: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(sampler phase, the larger of the two phases), bytes: ``max(forward, sampler + output hidden states)``.

    Source: ``vllm/v1/worker/gpu_model_runner.py`` ``GPUModelRunner.profile_run`` calls ``_dummy_run`` (the
    forward pass over ``max_num_tokens``, whose intermediates are freed when it returns; only its output
    ``hidden_states`` ``[tokens, hidden]`` stays referenced) and then ``_dummy_sampler_run`` on those hidden
    states. The two peaks come one after the other, so the torch peak the profiler reads is the larger one,
    not their sum.
    """
    phase = np.asarray(sampler, dtype=np.float64) + hidden_activation_basis(tokens, hidden)
    return phase, np.maximum(np.asarray(forward, dtype=np.float64), phase)


V2_BUFFER_BYTES_PER_ROW = 2 * 1024 * 4 + 1024 * 4 + 128 * 4 + 1024 * 4 + 129 * 4 + 128 * 4
"""Model Runner V2's fixed-width sampler tables per request row: logit-bias token ids and values
(1024 each, plus 1024 int32 and 128 allowed-token ids), bad-word tokens (1024) and offsets (129), and
128 logprob token ids, all 4-byte (``vllm/v1/worker/gpu/sample/logit_bias.py``, ``bad_words.py``,
``logprob.py``)."""


def runner_buffers(max_num_seqs: np.ndarray, vocab: np.ndarray, v2: np.ndarray) -> np.ndarray:
    """Model Runner V2's persistent per-request sampler buffers, bytes (0 under V1).

    Source: ``vllm/v1/worker/gpu/model_runner.py`` ``GPUModelRunner.load_model`` builds, after the weights:
    ``vllm/v1/worker/gpu/sample/penalties.py`` ``PenaltiesState`` (``output_bin_counts``
    ``[max_num_reqs, vocab]`` int32 and ``prompt_bin_mask`` ``[max_num_reqs, ⌈vocab/32⌉]`` int32), the
    structured-output ``grammar_bitmask`` of the same shape, and the fixed tables of
    :data:`V2_BUFFER_BYTES_PER_ROW`. ``RequestState.all_token_ids`` is pinned host memory on Linux and
    is not counted. They are charged where the free-memory drop is (:func:`free_memory_charged`).
    """
    rows = np.asarray(max_num_seqs, dtype=np.float64)
    vocab = np.asarray(vocab, dtype=np.float64)
    per_row = 4 * vocab + 2 * 4 * np.ceil(vocab / 32) + V2_BUFFER_BYTES_PER_ROW
    return np.where(np.asarray(v2, dtype=bool), rows * per_row, 0.0)


def cudagraphs_estimated(rules_budgeted: bool, minor: int, v2: np.ndarray) -> np.ndarray:
    """Whether the profiler subtracts a CUDA-graph estimate before it prints the available KV memory.

    Source: V1 ``vllm/v1/worker/gpu_model_runner.py`` ``GPUModelRunner.profile_cudagraph_memory``
    (applied by default from 0.20, ``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS``); Model Runner V2's
    ``profile_cudagraph_memory`` returns 0 up to 0.28 and measures a profiling capture from 0.29
    (``vllm/v1/worker/gpu/cudagraph_utils.py``). Where it is 0 the graphs are captured after the KV cache.
    """
    v2 = np.asarray(v2, dtype=bool)
    return np.full(v2.shape, rules_budgeted) & ~(v2 & (minor < V2_ALL_MINOR))


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


def free_memory_charged(engine: str, minor: int) -> bool:
    """Whether the profiler charges everything that left the free device memory since its first snapshot.

    Source: from ``vllm-project/vllm@v0.27.0`` ``vllm/utils/mem_utils.py`` ``memory_profiling`` reports
    ``total_consumed`` = the worker's initial free memory − the free memory after the profile run and
    ``empty_cache`` (weights, persistent buffers, kernel modules loaded on first use), and
    ``vllm/v1/worker/gpu_worker.py`` ``Worker.determine_available_memory`` charges it plus the
    transient torch peak (peak − allocated after the run); up to 0.26 it charged the "Model loading
    took" figure, the torch peak increase and the growth of (CUDA used − torch reserved) only.
    """
    return engine == "v1" and minor >= FREE_MEMORY_PROFILER_MINOR


NVLS_MIN_RANKS = 3
"""NCCL sets up NVLink-SHARP only for more than two ranks on an NVSwitch node: ``NVIDIA/nccl``
``src/transport/nvls.cc`` ``ncclNvlsInit`` leaves ``nvlsSupport`` off when ``localRanks <= 2``; vLLM issue
vllm-project/vllm#9699 measured the NVLS buffers on H100 NVSwitch nodes at TP 4 and 8, and none at TP 2."""


def nontorch_basis(
    world: np.ndarray,
    nvls: np.ndarray,
    init_charged: bool = True,
    free_charged: bool = False,
    rocm: np.ndarray | bool = False,
    v0: bool = False,
) -> dict[str, np.ndarray]:
    """Bases (bytes per coefficient MiB) of the non-torch growth during the profile run.

    Source: ``vllm/v1/worker/gpu_worker.py`` ``Worker.determine_available_memory`` charges the growth
    of (CUDA used − torch reserved) since the initial snapshot (``vllm/utils/mem_utils.py``
    ``memory_profiling``): cuBLAS/attention workspaces on every GPU (``nontorch_mib``); NCCL and
    custom all-reduce buffers once ranks talk (``vllm/distributed/device_communicators/``
    ``pynccl.py``, ``custom_all_reduce.py``; ``nccl_mib``), only where the snapshot precedes
    distributed initialisation (``init_charged``, :func:`distributed_init_charged`); and NCCL's
    NVLink-SHARP buffers on Hopper or newer NVSwitch nodes with more than two ranks (``nvls_mib``,
    :data:`NVLS_MIN_RANKS`), charged in every release:
    the 0.11+ H200 logs, whose snapshot follows distributed initialisation, still pay them, so they
    are set up by the first large all-reduce of the profiled forward pass, not at communicator init.
    Where the drop in free memory is charged (``free_charged``, :func:`free_memory_charged`), what it
    counts beyond those is ``consumed_mib`` on every GPU.

    vLLM's ROCm build (``rocm``) charges more besides the weights and the activation peak (``rocm_mib``):
    its "Model loading took" is the drop in free memory (``vllm/platforms/rocm.py``
    ``RocmPlatform.get_current_memory_usage``), so it holds the slack of the weights' post-load copies, and
    hipBLASLt and RCCL workspaces are not torch's; the MI300X logs size them. The V0 engine (``v0``,
    ``v0_profile_mib``) runs attention in its profile run (V1 skips it), so the attention kernels and
    workspaces load there: vllm#10517 prints "non_torch_memory=0.35GiB" at 20,000 and at 29,000 tokens.
    """
    multi = np.asarray(world) > 1
    nvls_on = np.asarray(world) > NVLS_MIN_RANKS - 1
    return {
        "nontorch_mib": np.full(np.shape(world), float(MiB)),
        "nccl_mib": np.where(multi & init_charged, float(MiB), 0.0),
        "nvls_mib": np.where(nvls_on & np.asarray(nvls, dtype=bool), float(MiB), 0.0),
        "consumed_mib": np.full(np.shape(world), float(MiB) if free_charged else 0.0),
        "rocm_mib": np.where(np.asarray(rocm, dtype=bool), float(MiB), 0.0) * np.ones(np.shape(world)),
        "v0_profile_mib": np.full(np.shape(world), float(MiB) if v0 else 0.0),
    }


def cudagraph_basis(captures: np.ndarray, eager: np.ndarray) -> np.ndarray:
    """CUDA-graph memory basis, bytes per MiB of coefficient: the number of captured sizes (0 when eager).

    Source: ``vllm/v1/worker/gpu_model_runner.py`` ``GPUModelRunner.capture_model`` captures one graph per
    size of the capture list. All graphs allocate from one shared pool (``vllm/compilation/cuda_graph.py``
    ``CUDAGraphWrapper``, ``current_platform.get_global_graph_pool``), so their memory does not add up
    layer by layer: the graph figures the calibration logs print (``Graph capturing finished … took X GiB``)
    stay between 0.28 and 1.8 GiB for 24 to 94 layers, with no trend in layers or hidden size. The
    basis of the captured graphs is therefore the number of piecewise sizes alone; ``--enforce-eager``
    captures nothing.
    """
    estimate = np.asarray(captures, dtype=np.float64) * MiB
    return np.where(np.asarray(eager, dtype=bool), 0.0, estimate)


def cudagraph_estimate_basis(captures: np.ndarray, full_sizes: np.ndarray, eager: np.ndarray) -> np.ndarray:
    """Basis of the CUDA-graph *estimate* the profiler subtracts (0.20+), bytes per MiB of coefficient.

    Source: ``vllm/v1/worker/gpu_model_runner.py`` ``GPUModelRunner.profile_cudagraph_memory`` (V1) and
    ``vllm/v1/worker/gpu/cudagraph_utils.py`` ``profile_cudagraph_memory`` (Model Runner V2, 0.29+)
    capture the largest sizes of each mode into a throw-away pool and extrapolate: the first capture
    plus ``(n − 1) ×`` the second one's growth, per mode, summed over the piecewise and the FULL graphs.
    Where the real capture shares one pool, the estimate charges every graph of both modes, so its
    basis is the piecewise plus the FULL sizes.
    """
    return cudagraph_basis(np.asarray(captures) + np.asarray(full_sizes), eager)
