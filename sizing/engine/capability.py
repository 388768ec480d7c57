"""Whether vLLM has a kernel for a weight format on a GPU: its compute capability against the format's
minimum.

vLLM refuses to load a quantised checkpoint on a GPU below the format's minimum capability
(``QuantizationConfig.get_min_capability``, checked in ``vllm/model_executor/model_loader/utils.py``
``_verify_quantization`` -> "The quantization method ... is not supported for the current GPU. Minimum
capability: ..."). The minimum of each format is the catalog's ``min_sm`` (``catalog/precisions.yaml``,
each with its vLLM source); the GPU's capability is the ``sm_NN`` of its ``architecture``.
BF16 has no minimum: below sm_80 vLLM loads a BF16 checkpoint in FP16 (``vllm/config/model.py``
``_resolve_auto_dtype``: the platform's supported dtypes exclude bfloat16), the same two bytes a weight.
Except for the model types vLLM refuses to run in float16 (``_FLOAT16_NOT_SUPPORTED_MODELS`` in
``vllm/config/model.py``: gemma2, gemma3, gemma3_text, plamo2, glm4, "Numerical instability"): below
sm_80 (``CudaPlatformBase.supported_dtypes`` in ``vllm/platforms/cuda.py`` is float16 and float32 there)
``--dtype auto`` falls back to float32, so a BF16 checkpoint of these models runs with 4-byte weights,
activations and (``--kv-cache-dtype auto``) KV cache; the Triton attention backend takes float32 on any
GPU (``TritonAttentionBackend.supported_dtypes``). A quantised checkpoint of these models does not start
there: no quantisation method lists float32 among its activation dtypes (``get_supported_act_dtypes``,
checked in ``VllmConfig._get_quantization_config``: "torch.float32 is not supported for quantization
method ...").

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
BF16_MIN_SM = 80
"""The lowest compute capability (x 10) vLLM runs bfloat16 on (``CudaPlatformBase.supported_dtypes``)."""
FP32_BYTES = 4
"""Bytes of one float32 element: weights, activations and KV cache of a model run in float32."""

FLOAT16_REFUSED = {
    "Gemma2ForCausalLM": "gemma2",
    "Gemma3ForCausalLM": "gemma3_text",
    "Gemma3ForConditionalGeneration": "gemma3",
    "Plamo2ForCausalLM": "plamo2",
    "Glm4ForCausalLM": "glm4",
}
"""Architectures whose HF ``model_type`` vLLM refuses in float16 (``_FLOAT16_NOT_SUPPORTED_MODELS``,
``vllm/config/model.py``), by architecture name -> model type. GLM-4.5 (``glm4_moe``) and Gemma 4 are
not in vLLM's table."""


def refuses_float16(architecture: str) -> bool:
    """Whether vLLM refuses float16 for a model of this ``architecture`` (:data:`FLOAT16_REFUSED`)."""
    return architecture in FLOAT16_REFUSED


def runs_float32(arch_sm: Any, fp16_refused: Any) -> np.ndarray:
    """Per row: ``--dtype auto`` runs the model in float32, its type refusing float16 (``fp16_refused``)
    on a GPU of known capability ``arch_sm`` (x 10) below :data:`BF16_MIN_SM`."""
    sm = np.asarray(arch_sm, dtype=np.int64)
    return (sm > 0) & (sm < BF16_MIN_SM) & np.asarray(fp16_refused, dtype=bool)


def unsupported(arch_sm: Any, min_sm: Any, kv_fp8: Any = False, float32_quantized: Any = False) -> np.ndarray:
    """Per row: the GPU's capability ``arch_sm`` (x 10; 0 = unknown, e.g. a described GPU) is below the
    weight format's ``min_sm`` (0 = any GPU), or below :data:`FP8_KV_MIN_SM` with an FP8 KV cache
    (``kv_fp8``), or the row is a quantised checkpoint that would run in float32 (``float32_quantized``).
    Unknown capabilities are never refused."""
    sm, need = np.asarray(arch_sm, dtype=np.int64), np.asarray(min_sm, dtype=np.int64)
    need = np.where(np.asarray(kv_fp8, dtype=bool), np.maximum(need, FP8_KV_MIN_SM), need)
    return ((sm > 0) & (sm < need)) | np.asarray(float32_quantized, dtype=bool)
