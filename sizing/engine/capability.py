"""Whether vLLM has a kernel for a weight format on a GPU: its compute capability against the format's minimum.

vLLM refuses to load a quantised checkpoint on a GPU below the format's minimum capability
(``QuantizationConfig.get_min_capability``, checked in ``vllm/model_executor/model_loader/utils.py``
``_verify_quantization`` -> "The quantization method ... is not supported for the current GPU. Minimum
capability: ..."). The minimum of each format is the catalog's ``min_sm`` (``catalog/precisions.yaml``,
each with its vLLM source); the GPU's capability is the ``sm_NN`` of its ``architecture``.
BF16 has no minimum: below sm_80 vLLM loads a BF16 checkpoint in FP16 (``vllm/config/model.py``
``_resolve_auto_dtype``: the platform's supported dtypes exclude bfloat16), the same two bytes a weight.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def unsupported(arch_sm: Any, min_sm: Any) -> np.ndarray:
    """Per row: the GPU's capability ``arch_sm`` (x 10; 0 = unknown, e.g. a described GPU) is below the
    format's ``min_sm`` (0 = any GPU). Unknown capabilities are never refused."""
    sm, need = np.asarray(arch_sm, dtype=np.int64), np.asarray(min_sm, dtype=np.int64)
    return (sm > 0) & (sm < need)
