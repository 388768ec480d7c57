"""Tests for sizing.engine.capability: vLLM's minimum compute capability per weight format."""

from __future__ import annotations

import numpy as np
import pytest

from sizing.engine.capability import unsupported
from sizing.engine.estimate import Request, estimate
from sizing.errors import UsageError


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
        estimate(catalog, Request(model=model, gpu=gpu, max_model_len=4096))
    assert words in str(err.value) and "\n" not in str(err.value)


def test_estimate_refuses_an_fp8_kv_cache_below_ampere(catalog) -> None:
    with pytest.raises(
        UsageError, match=r"--kv-cache-dtype fp8 is not supported on GPU t4: .* \(this GPU: 7\.5\)"
    ):
        estimate(
            catalog, Request(model="Qwen/Qwen3-8B-AWQ", gpu="t4", kv_cache_dtype="fp8", max_model_len=4096)
        )
    row = estimate(
        catalog, Request(model="Qwen/Qwen3-8B", gpu="a10", kv_cache_dtype="fp8", max_model_len=4096)
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
    row = estimate(catalog, Request(model=model, gpu=gpu, max_model_len=4096))
    assert not row["unsupported"] and row["fits"] == fits
