"""The memory-accounting rules of each vLLM release line.

Source: ``shared/reference/vllm-memory-model.md`` §0.1, (a), (b.4), (f). Each release line is a
:class:`Rules` value; :func:`rules_for` maps a version string such as ``"0.34.0"`` onto it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

from sizing.errors import UsageError

TokenRule = Literal["blocks", "groups", "concurrency"]


@dataclass(frozen=True)
class Rules:
    """What one vLLM release line counts, and how it prints the KV-cache figures.

    * ``token_rule``: ``blocks`` -> tokens = num_blocks × block_size (V0, V1 ≤ 0.9);
      ``groups`` -> num_blocks // n_groups × block_size (0.10–0.19);
      ``concurrency`` -> int(max_concurrency × max_model_len) (≥ 0.20).
    * ``concurrency_rule``: ``tokens`` -> blocks × block_size / max_model_len (V0, early V1);
      ``requests`` -> num_blocks / blocks per request (≥ 0.10).
    * ``mla_block_size_sm100`` / ``mla_min_block_size_sm90``: the KV block size of MLA attention on
      Blackwell (SM 10.0) and its floor on Hopper (SM 9.0), tokens (the attention backends' block sizes).
    * ``extensible_activation_share``: with an extensible KV cache, the headroom kept besides the
      KV cache is at least this share of the activation peak (or ``extensible_margin_gib``).
    """

    line: str
    engine: Literal["v0", "v1"]
    block_size: int
    default_gmu: float
    cudagraphs_budgeted: bool
    extensible_kv_cache: bool
    chunked_prefill: bool
    token_rule: TokenRule
    concurrency_rule: Literal["tokens", "requests"]
    mla_block_size_sm100: int = 128
    mla_min_block_size_sm90: int = 64
    extensible_activation_share: float = 0.75
    minor: int = 0

    @property
    def scoped_weight_split(self) -> bool:
        """Whether the worker loads weights with ``max_split_size_mb`` set (V1 from 0.21,
        :data:`SCOPED_SPLIT_MINOR`)."""
        return self.engine == "v1" and self.minor >= SCOPED_SPLIT_MINOR


RULES: dict[str, Rules] = {
    "v0": Rules("V0 0.6.4–0.7", "v0", 16, 0.90, False, False, False, "blocks", "tokens"),
    "v1-early": Rules("V1 0.8–0.9", "v1", 16, 0.90, False, False, True, "blocks", "tokens"),
    "v1-hybrid": Rules("V1 0.10–0.19", "v1", 16, 0.90, False, False, True, "groups", "requests"),
    "v1-cudagraph": Rules("V1 0.20–0.33", "v1", 16, 0.92, True, False, True, "concurrency", "requests"),
    "v1-extensible": Rules("V1 ≥ 0.34", "v1", 64, 0.92, True, True, True, "concurrency", "requests"),
}
_BOUNDS = ((8, "v0"), (10, "v1-early"), (20, "v1-hybrid"), (34, "v1-cudagraph"))

SUPPORTED = "0.34.0"
"""The vLLM release the site models: commands are checked against its flag lists
(``sizing/launch/data/vllm_flags-<SUPPORTED>.txt``), and ``catalog/assumptions.yaml`` ``vllm_version``
names it too (``tests/engine/test_versions.py`` ties them)."""

# Release cut-offs inside the 0.x line (minor version numbers); the engine modules cite the sources.
SORT_SAMPLER_MINORS = range(12, 17)
"""The releases whose V1 dummy sampler run takes the PyTorch sort path (FlashInfer opt-in, no Triton
kernel yet)."""
SNAPSHOT_AFTER_DISTRIBUTED_MINOR = 11
"""From vLLM 0.11 the V1 worker takes its memory snapshot after initialising the distributed environment."""
MXFP4_HOPPER_TRITON_MINOR = 12
"""From vLLM 0.12 an MXFP4 MoE on Hopper takes the Triton-kernels path, not Marlin
(:data:`sizing.engine.weights.MXFP4_TRITON`)."""
PLATFORM_HYBRID_ALIGN_MINOR = 19
"""From vLLM 0.19 a hybrid model's attention block is aligned by ``Platform._align_hybrid_block_size`` to the
backend's smallest kernel block; before it ``HybridAttentionMambaModelConfig`` aligned an MLA hybrid to 64
tokens (:data:`sizing.engine.kvcache.MLA_HYBRID_ALIGN`)."""
SCOPED_SPLIT_MINOR = 21
"""From vLLM 0.21 the worker loads the weights with the allocator's ``max_split_size_mb`` set to 20."""
FREE_MEMORY_PROFILER_MINOR = 27
"""From vLLM 0.27 the profiler charges the drop in free device memory, not the growth of non-torch memory."""
V2_DENSE_MINOR, V2_ALL_MINOR = 27, 29
"""Model Runner V2 is modelled for dense (non-MoE) models from 0.27 and for every model from 0.29."""
V2_SAMPLER_WARMUP_MINOR = 34
"""From 0.34 Model Runner V2's dummy sampler run also warms up the fp32 logits pipeline."""


@dataclass(frozen=True)
class BatchDefaults:
    """vLLM's default (max_num_batched_tokens, max_num_seqs) by device memory (``get_batch_defaults``).

    Memory thresholds in GiB; tokens for ``vllm serve`` and for the ``LLM`` class.
    """

    big_gib: float = 160
    big_from_minor: int = 28
    large_gib: float = 70
    big_tokens: int = 16384
    large_tokens: int = 8192
    large_tokens_llm: int = 16384
    small_tokens: int = 2048
    small_tokens_llm: int = 8192
    large_seqs: int = 1024
    small_seqs: int = 256


BATCH_DEFAULTS = BatchDefaults()
"""The batch defaults of the supported release lines (≥ 0.8). The ≥ 160 GiB tier (``big_*``) exists from
0.28.0 only (``vllm/engine/arg_utils.py`` ``EngineArgs.get_batch_defaults`` at tag v0.28.0 adds the
``device_memory >= 160 * GiB_bytes`` branch; v0.27.0 has none), so a B200 or MI300X on 0.27 or older gets
the ≥ 70 GiB defaults."""

CAPTURE_SIZE_LIMITS: dict[int, int] = {10: 1024}
"""The largest CUDA-graph capture size by SM major version (``max_cudagraph_capture_size``); others 512."""


def max_capture_size(sm: int) -> int:
    """The largest batch size vLLM captures a CUDA graph for, on a GPU of compute capability ``sm`` (90)."""
    return CAPTURE_SIZE_LIMITS.get(sm // 10, 512)


def parse_version(version: str) -> tuple[int, int]:
    """``"0.34.0"`` -> ``(0, 34)``; raises UsageError for anything else."""
    match = re.fullmatch(r"(\d+)\.(\d+)(?:\.\d+)?(?:[.+\-][\w.+\-]*)?", version.strip())
    if not match:
        raise UsageError(f"--vllm-version: expected X.Y or X.Y.Z, got {version!r}")
    return int(match[1]), int(match[2])


OLDEST, NEWEST = (0, 6, 4), parse_version(SUPPORTED)
"""The releases modelled: from 0.6.4 (PR #9352's profiler) to the supported release's line."""


def refusal(version: str) -> str | None:
    """One line saying why ``version`` is not modelled, or None when it is."""
    major, minor = parse_version(version)
    patch = re.match(r"\d+\.\d+\.(\d+)", version.strip())
    if (major, minor, int(patch[1]) if patch else 0) < OLDEST:
        return (
            f"--vllm-version {version}: releases before 0.6.4 profiled memory without the non-torch "
            "term (PR #9352) and are not modelled; use 0.6.4 or newer"
        )
    if (major, minor) > NEWEST:
        return (
            f"--vllm-version {version}: newer than the newest release line modelled "
            f"({NEWEST[0]}.{NEWEST[1]}); its memory accounting is unknown"
        )
    return None


def rules_for(version: str) -> Rules:
    """The accounting rules of the release line that ``version`` belongs to (UsageError if not modelled)."""
    reason = refusal(version)
    if reason:
        raise UsageError(reason)
    major, minor = parse_version(version)
    key = next((key for upper, key in _BOUNDS if minor < upper), "v1-extensible")
    return replace(RULES[key], minor=minor)
