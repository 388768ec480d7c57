"""Tests for sizing.engine.capability: vLLM's minimum compute capability per weight format."""

from __future__ import annotations

import numpy as np
import pytest

from sizing.catalog.settings import Settings
from sizing.engine.capability import FLOAT16_REFUSED, refuses_float16, runs_float32, unsupported
from sizing.engine.estimate import estimate
from sizing.errors import UsageError
from sizing.launch.commands import vllm_command


def test_a_gpu_below_the_formats_minimum_is_refused_and_unknown_ones_are_not() -> None:
    arch = np.array([70, 75, 80, 0, 70])
    need = np.array([75, 75, 80, 75, 0])
    assert unsupported(arch, need).tolist() == [True, False, False, False, False]
    kv_fp8 = np.array([False, True, True, True, True])
    assert unsupported(arch, need, kv_fp8).tolist() == [True, True, False, False, True]


def test_the_catalog_minimums_follow_vllm(catalog) -> None:
    p = catalog.precisions
    assert {
        k: p[k].min_sm for k in ("fp8", "int8", "int4-awq", "int4-gptq", "int4-ct-g32", "nvfp4", "mxfp4")
    } == {"fp8": 75, "int8": 75, "int4-awq": 75, "int4-gptq": 60, "int4-ct-g32": 75, "nvfp4": 75, "mxfp4": 80}
    assert p["bf16"].min_sm is None and p["fp16"].min_sm is None


@pytest.mark.parametrize(
    ("model", "gpu", "words"),
    [
        ("Qwen/Qwen3-8B-AWQ", "v100-16gb", "int4-awq below compute capability 7.5 (this GPU: 7.0)"),
        ("Qwen/Qwen3-14B-FP8", "v100-32gb", "fp8 below compute capability 7.5 (this GPU: 7.0)"),
        ("openai/gpt-oss-20b", "t4", "mxfp4 below compute capability 8.0 (this GPU: 7.5)"),
    ],
)
def test_estimate_refuses_a_format_the_gpu_has_no_kernel_for(
    catalog, model: str, gpu: str, words: str
) -> None:
    with pytest.raises(UsageError, match="not supported on GPU " + gpu) as err:
        estimate(catalog, Settings(model=model, gpu=gpu, max_model_len=4096))
    assert words in str(err.value) and "\n" not in str(err.value)


def test_estimate_refuses_an_fp8_kv_cache_below_ampere(catalog) -> None:
    with pytest.raises(
        UsageError, match=r"--kv-cache-dtype fp8 is not supported on GPU t4: .* \(this GPU: 7\.5\)"
    ):
        estimate(
            catalog, Settings(model="Qwen/Qwen3-8B-AWQ", gpu="t4", kv_cache_dtype="fp8", max_model_len=4096)
        )
    row = estimate(
        catalog, Settings(model="Qwen/Qwen3-8B", gpu="a10", kv_cache_dtype="fp8", max_model_len=4096)
    )
    assert not row["unsupported"]


@pytest.mark.parametrize(
    ("model", "gpu", "fits"),
    [
        ("Qwen/Qwen3-8B-AWQ", "t4", True),
        ("TheBloke/Mistral-7B-Instruct-v0.2-GPTQ", "v100-16gb", True),
        ("Qwen/Qwen3-8B", "v100-32gb", True),
        ("Qwen/Qwen3-14B-FP8", "t4", False),
    ],
)
def test_formats_with_a_kernel_are_sized_on_turing_and_volta(
    catalog, model: str, gpu: str, fits: bool
) -> None:
    """GPTQ (ExLlama, sm_60) and BF16 (run as FP16) on Volta, Marlin formats on Turing: judged by memory."""
    row = estimate(catalog, Settings(model=model, gpu=gpu, max_model_len=4096))
    assert not row["unsupported"] and row["fits"] == fits


def test_the_model_types_vllm_refuses_in_float16_run_in_float32_below_ampere() -> None:
    """``_FLOAT16_NOT_SUPPORTED_MODELS`` (vllm/config/model.py): gemma2, gemma3, gemma3_text, plamo2, glm4."""
    assert sorted(FLOAT16_REFUSED.values()) == ["gemma2", "gemma3", "gemma3_text", "glm4", "plamo2"]
    assert refuses_float16("Gemma3ForConditionalGeneration") and not refuses_float16("Glm4MoeForCausalLM")
    arch, refused = np.array([70, 75, 80, 0, 75]), np.array([True, True, True, True, False])
    assert runs_float32(arch, refused).tolist() == [True, True, False, False, False]
    assert unsupported(np.array([75, 75]), np.array([75, 0]), False, np.array([True, False])).tolist() == [
        True,
        False,
    ]


def test_gemma_3_bf16_on_volta_is_sized_in_float32_and_the_command_says_so(catalog) -> None:
    """4 bytes a weight and a KV element: on 4 × V100 32GB at TP 4 the weights take twice the A10's
    (same TP, BF16), the KV cache 248 KiB a token instead of 124 KiB; the command carries --dtype float32."""
    args = dict(model="google/gemma-3-27b-it", gpus=4, tensor_parallel_size=4, max_model_len=8192)
    v100 = estimate(catalog, Settings(gpu="v100-32gb", **args))  # type: ignore[arg-type]
    a10 = estimate(catalog, Settings(gpu="a10", **args))  # type: ignore[arg-type]
    assert v100["float32"] and not a10["float32"] and v100["model_dtype_bytes"] == 4
    assert v100["kv_bytes_per_token"] == 253952 == 2 * a10["kv_bytes_per_token"]
    assert v100["weights_bytes"] == pytest.approx(2 * a10["weights_bytes"], rel=0.01)
    assert "--dtype float32" in vllm_command(v100, catalog)
    assert "--dtype" not in vllm_command(a10, catalog)


def test_gemma_3_quantised_is_refused_below_ampere(catalog) -> None:
    with pytest.raises(UsageError, match=r"runs in float32, which no quantisation method takes") as err:
        estimate(catalog, Settings(model="RedHatAI/gemma-3-27b-it-FP8-dynamic", gpu="t4", gpus=4))
    assert "\n" not in str(err.value)
