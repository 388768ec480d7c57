"""Whether vLLM has a kernel for a weight format on a GPU: its compute capability against the format's
minimum.

vLLM refuses to load a quantised checkpoint on a GPU below the format's minimum capability
(``QuantizationConfig.get_min_capability``, checked in ``vllm/model_executor/model_loader/utils.py``
``_verify_quantization`` -> "The quantization method ... is not supported for the current GPU. Minimum
capability: ..."). The minimum of each format is the catalog's ``min_sm`` (``catalog/precisions.yaml``,
each with its vLLM source); the GPU's capability is the ``sm_NN`` of its ``architecture``.
BF16 has no minimum: below sm_80 vLLM loads a BF16 checkpoint in FP16 (``vllm/config/model.py``
``_resolve_auto_dtype``: the platform's supported dtypes exclude bfloat16), the same two bytes a weight.

An FP8 KV cache needs sm_80: below it no attention backend takes one (``vllm/v1/attention/backends/``:
FlashInfer's floor is sm_80, and the Triton backend raises "FP8 KV cache is not supported by the Triton
attention backend" without native FP8, sm_89; summarised in the survey precisions.yaml cites,
code-index id 68975552808).
"""

from __future__ import annotations

from typing import Any

import numpy as np

FP8_KV_MIN_SM = 80
"""The lowest compute capability (x 10) with an attention backend for an FP8 KV cache."""


def unsupported(arch_sm: Any, min_sm: Any, kv_fp8: Any = False) -> np.ndarray:
    """Per row: the GPU's capability ``arch_sm`` (x 10; 0 = unknown, e.g. a described GPU) is below the
    weight format's ``min_sm`` (0 = any GPU), or below :data:`FP8_KV_MIN_SM` with an FP8 KV cache
    (``kv_fp8``). Unknown capabilities are never refused."""
    sm, need = np.asarray(arch_sm, dtype=np.int64), np.asarray(min_sm, dtype=np.int64)
    need = np.where(np.asarray(kv_fp8, dtype=bool), np.maximum(need, FP8_KV_MIN_SM), need)
    return (sm > 0) & (sm < need)
