"""Parameter counts from the architecture and checkpoint bytes by placement."""

from __future__ import annotations

import pytest

from sizing.units import GiB
from sizing.engine.weights import attention_params, total_params, weight_split


@pytest.mark.parametrize(
    "model_id",
    ["Qwen/Qwen3-14B", "Qwen/Qwen3-32B", "meta-llama/Llama-3.3-70B-Instruct", "meta-llama/Llama-3.1-8B-Instruct",
     "deepseek-ai/DeepSeek-V3", "openai/gpt-oss-120b", "Qwen/Qwen3-30B-A3B", "Qwen/Qwen3-235B-A22B",
     "mistralai/Mixtral-8x7B-Instruct-v0.1", "Qwen/Qwen3-Next-80B-A3B-Instruct", "moonshotai/Kimi-K2-Instruct"],
)
def test_derived_parameter_count_matches_the_model_card(catalog, model_id):
    model = catalog.models[model_id]
    assert total_params(model) / 1e9 == pytest.approx(model.total_params_b, rel=0.04)


def test_qwen3_14b_layer_arithmetic(catalog):
    model = catalog.models["Qwen/Qwen3-14B"]
    # q and o: 5120 x 40 heads x 128; k and v: 5120 x 8 x 128 each
    assert attention_params(model) == (5120 * 5120 * 2 + 5120 * 1024 * 2, 0)
    expected = 151936 * 5120 * 2 + 40 * (5120 * 5120 * 2 + 5120 * 1024 * 2 + 3 * 5120 * 17408 + 2 * 5120) + 5120
    assert total_params(model) == expected


def test_mla_keeps_down_projections_replicated(catalog):
    model = catalog.models["deepseek-ai/DeepSeek-V3"]
    sharded, replicated = attention_params(model)
    assert replicated == 7168 * 1536 + 7168 * (512 + 64)
    assert sharded == 1536 * 128 * 192 + 512 * 128 * (128 + 128) + 128 * 128 * 7168


def test_fp8_checkpoint_keeps_embeddings_and_lm_head_in_bf16(catalog):
    model = catalog.models["Qwen/Qwen3-14B"]
    ckpt = next(c for c in model.checkpoints if c.id == "Qwen/Qwen3-14B-FP8")
    split = weight_split(model, ckpt, catalog.precisions["fp8"])
    assert split.embeddings == split.lm_head == 151936 * 5120 * 2
    # 13.2 B parameters at ~1 byte plus 1.56 B embedding parameters at 2 bytes
    assert 14.8 <= split.total / GiB <= 15.7
