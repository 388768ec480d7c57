"""Inputs of the throughput engine from evaluated rows: classes, compute dtype, peaks, weights, refusals."""

from __future__ import annotations

import pandas as pd
import pytest

from sizing.catalog.settings import Settings
from sizing.catalog.workloads import load_constants
from sizing.engine.estimate import estimate
from sizing.engine.throughput_inputs import CLASSES, DTYPES, ROOFLINE, inputs, inputs_with_reasons


def rows(catalog, *requests: Settings) -> pd.DataFrame:
    return pd.DataFrame([estimate(catalog, r) for r in requests])


def test_classes_dtypes_and_peaks(catalog) -> None:
    df = rows(
        catalog,
        Settings(model="Qwen/Qwen3-14B-FP8", gpu="l40s"),
        Settings(model="openai/gpt-oss-20b", gpu="h100-80gb"),
        Settings(model="Qwen/Qwen3-14B-FP8", gpu="a100-80gb"),
        Settings(model="Qwen/Qwen3-Next-80B-A3B-Instruct", gpu="h200"),
    )
    x = inputs(df, catalog, load_constants())
    assert [CLASSES[c] for c in x["class"]] == ["dense", "moe", "dense", "hybrid"]
    # FP8 on Ampere runs as weight-only (bf16 GEMMs)
    assert [DTYPES[c] for c in x["compute_dtype"]] == ["fp8", "bf16", "bf16", "bf16"]
    assert list(x["peak_flops"]) == [733e12, 989e12, 312e12, 989e12]
    assert list(x["calibrated"]) == [True, True, True, False]
    assert x["eta_bw"][3] == ROOFLINE["eta_bw"] and x["tau_layer_s"][3] == 0


def test_expert_bytes_and_active_parameters(catalog) -> None:
    x = inputs(rows(catalog, Settings(model="openai/gpt-oss-20b", gpu="h100-80gb")), catalog, {})
    model = catalog.models["openai/gpt-oss-20b"]
    assert x["hit_share"][0] == pytest.approx(model.moe.experts_per_token / model.moe.experts)
    assert x["expert_bytes"][0] > 2 * x["dense_bytes"][0] > 0
    assert x["active_params"][0] == pytest.approx(model.active_params_b * 1e9)
    assert x["head_params"][0] == model.vocab_size * 2880  # the LM head: vocab × hidden, TP 1
    matrix_like = rows(catalog, Settings(model="openai/gpt-oss-20b", gpu="h100-80gb")).drop(
        columns="vocab_size"
    )
    assert (
        inputs(matrix_like, catalog, {})["head_params"][0] == x["head_params"][0]
    )  # the matrix has no vocab


def test_mxfp4_expert_padding_counts_with_the_experts(catalog) -> None:
    """gpt-oss-120b: MXFP4 experts padded by the MoE kernels; every weight byte a rank holds is either a
    routed expert, read by the steps, or the input embedding, which no step reads whole."""
    row = rows(catalog, Settings(model="openai/gpt-oss-120b", gpu="h200", max_model_len=8192))
    x = inputs(row, catalog, {})
    model_experts = 60.9e9  # 36 layers × 128 experts × 3 × 2880 × 2880 MXFP4 parameters, scales included
    assert x["expert_bytes"][0] > model_experts
    embedding = catalog.models["openai/gpt-oss-120b"].vocab_size * 2880 * 2
    assert x["dense_bytes"][0] + x["expert_bytes"][0] + embedding == pytest.approx(row["weights_bytes"][0])


def test_experts_behind_data_parallel_ranks(catalog) -> None:
    request = Settings(
        model="MiniMaxAI/MiniMax-M2.5",
        gpu="h200",
        gpus=8,
        tensor_parallel_size=2,
        data_parallel_size=4,
        enable_expert_parallel=True,
        max_model_len=8192,
    )
    x = inputs(rows(catalog, request), catalog, {})
    assert x["expert_group"][0] == 4 and x["experts_on_rank"][0] == 256 / 8


def test_a_gpu_without_peaks_is_refused_by_name(catalog) -> None:
    df = rows(
        catalog,
        Settings(model="Qwen/Qwen3-8B", gpu="rtx-3090", max_model_len=8192),
        Settings(model="Qwen/Qwen3-8B", gpu="l40s"),
    )
    x, texts = inputs_with_reasons(df, catalog, {})
    assert "rtx-3090" in texts[x["refused"][0]] and "bf16" in texts[x["refused"][0]]
    assert texts[x["refused"][1]] == ""


def test_an_engine_that_does_not_start_keeps_code_zero_for_the_rows_that_can(catalog) -> None:
    """A row without KV cache next to one that starts: code 0 stays "the row can be estimated" (a regression:
    the no-start key once sorted first and took code 0, so every estimable row came out NaN)."""
    df = rows(
        catalog, Settings(model="Qwen/Qwen3-8B", gpu="l40s"), Settings(model="Qwen/Qwen3-8B", gpu="l40s")
    )
    df = df.reset_index(drop=True)
    df.loc[0, "kv_cache_tokens"] = 0
    x, texts = inputs_with_reasons(df, catalog, {})
    assert x["kv_tokens"][0] <= 0 < x["kv_tokens"][1]
    assert texts[x["refused"][0]] == "the engine does not start: no KV cache"
    assert x["refused"][1] == 0 and texts[0] == ""


def test_deepseek_v4_is_refused_by_name_next_to_a_row_that_can(catalog) -> None:
    from pathlib import Path

    flash = str(Path(__file__).parents[1] / "data" / "hf_configs" / "deepseek-ai--DeepSeek-V4-Flash.json")
    df = rows(
        catalog,
        Settings(model="Qwen/Qwen3-8B", gpu="h200"),
        Settings(model=flash, gpu="h200", gpus=8, tensor_parallel_size=8, max_model_len=131072),
    ).reset_index(drop=True)
    x, texts = inputs_with_reasons(df, catalog, {})
    assert x["refused"][0] == 0 and texts[0] == ""
    assert (
        texts[x["refused"][1]]
        == "DeepSeek-V4's compressed sparse attention is not modelled by the throughput engine"
    )


def test_weight_only_experts_are_dequantised_except_mxfp4_on_blackwell(catalog) -> None:
    """MXFP4 runs Triton or Marlin (dequantised) on Hopper, FlashInfer's MXFP4 kernels on B200; INT4 W4A16
    is Marlin everywhere; FP8 on a GPU with FP8 is not weight-only, on Ampere it is."""
    df = rows(
        catalog,
        Settings(model="openai/gpt-oss-120b", gpu="h200", max_model_len=8192),
        Settings(model="openai/gpt-oss-120b", gpu="b200", max_model_len=8192),
        Settings(model="moonshotai/Kimi-K2.5", gpu="b200", gpus=8, max_model_len=8192),
        Settings(model="Qwen/Qwen3-14B-FP8", gpu="h100-80gb", max_model_len=8192),
        Settings(model="Qwen/Qwen3-14B-FP8", gpu="a100-80gb", max_model_len=8192),
    )
    x = inputs(df, catalog, {})
    assert list(x["dequant"]) == [1, 0, 1, 0, 1]
    assert x["expert_weight_bytes"][0] == pytest.approx(catalog.precisions["mxfp4"].bytes_per_param)
