"""What vLLM charges besides weights and KV cache, vectorised, in bytes.

* activation peak of the profile run: a forward pass of ``max_num_batched_tokens`` tokens plus
  the sampler over ``max_num_seqs`` rows of fp32 logits (memory model §(a), §(g));
* non-torch growth after the initial snapshot (NCCL and workspaces, larger with TP);
* CUDA-graph memory, estimated per captured batch size per layer (budgeted from 0.20 on).

The coefficients come from ``catalog/assumptions.yaml`` and are calibrated against
``shared/calibration/vllm_logs.yaml`` (see ``scripts/calibrate.py`` and the methodology page).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from sizing.units import GiB, MiB
from sizing.engine.versions import BATCH_DEFAULTS


@dataclass(frozen=True)
class Coefficients:
    """Calibrated overhead constants (see catalog/assumptions.yaml for each one's reason)."""

    act_hidden_factor: float
    act_intermediate_factor: float
    sampler_bytes_per_logit: float
    profile_base_mib: float
    nontorch_mib: float
    nontorch_tp_mib: float
    cudagraph_mib_per_capture_layer: float
    cuda_context_mib: float
    extensible_margin_gib: float

    @classmethod
    def from_assumptions(cls, values: dict[str, float]) -> "Coefficients":
        """Pick this class's fields out of the catalog's assumption values."""
        return cls(**{f.name: float(values[f.name]) for f in fields(cls)})


def default_batch(total_bytes: np.ndarray, is_a100: np.ndarray, llm_class: bool) -> tuple[np.ndarray, np.ndarray]:
    """vLLM's default (max_num_batched_tokens, max_num_seqs) by device memory (``get_batch_defaults``).

    ≥ 160 GiB: 16384 tokens, 1024 seqs; ≥ 70 GiB and not an A100: 8192 (serve) or 16384
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


def capture_sizes(max_num_seqs: np.ndarray, mnbt: np.ndarray, max_capture: np.ndarray) -> np.ndarray:
    """How many CUDA-graph batch sizes vLLM captures: [1,2,4] + 8..248 step 8 + 256..max step 16."""
    top = np.minimum(np.minimum(2 * np.asarray(max_num_seqs), max_capture), mnbt)
    small = np.minimum(top, 4)
    count_small = np.where(small >= 4, 3, np.where(small >= 2, 2, 1))
    count_mid = np.clip(np.minimum(top, 248) // 8, 0, 31)
    count_big = np.where(top >= 256, (top - 256) // 16 + 1, 0)
    return count_small + count_mid + count_big


def activation_peak(c: Coefficients, tokens: np.ndarray, hidden: np.ndarray, inter_per_rank: np.ndarray,
                    vocab: np.ndarray, max_num_seqs: np.ndarray) -> np.ndarray:
    """Peak torch memory of the profile run above the weights, bytes.

    ``tokens × 2 B × (a_h × hidden + a_i × intermediate per rank)`` for the forward pass, plus
    ``max_num_seqs × vocab × sampler bytes`` for the sampler, plus a fixed base.
    """
    per_token = 2 * (c.act_hidden_factor * np.asarray(hidden) + c.act_intermediate_factor * inter_per_rank)
    sampler = np.asarray(max_num_seqs) * np.asarray(vocab) * c.sampler_bytes_per_logit
    return np.asarray(tokens) * per_token + sampler + c.profile_base_mib * MiB


def nontorch(c: Coefficients, world: np.ndarray) -> np.ndarray:
    """Non-torch memory growth after the initial snapshot, bytes; grows with the TP×PP world size."""
    return (c.nontorch_mib + c.nontorch_tp_mib * (np.asarray(world) > 1)) * MiB


def cudagraph_memory(c: Coefficients, captures: np.ndarray, layers_on_stage: np.ndarray,
                     eager: np.ndarray) -> np.ndarray:
    """Estimated CUDA-graph memory, bytes: captured sizes × layers × a calibrated per-layer cost."""
    estimate = np.asarray(captures) * np.asarray(layers_on_stage) * c.cudagraph_mib_per_capture_layer * MiB
    return np.where(np.asarray(eager, dtype=bool), 0.0, estimate)
