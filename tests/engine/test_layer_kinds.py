"""Gemma 4's global layers: their own attention geometry, without a value projection."""

from __future__ import annotations

from sizing.engine.layer_kinds import attention_layer_params, global_attention_delta


def test_attention_layer_params_with_and_without_a_value_projection():
    assert attention_layer_params(5376, 32, 16, 256) == 5376 * (2 * 8192 + 8192)
    assert attention_layer_params(5376, 32, 4, 512, k_eq_v=True) == 5376 * (2 * 16384 + 2048)


def test_gemma4_31b_global_layers_add_their_difference_ten_times(catalog):
    gemma = catalog.models["google/gemma-4-31B-it"]
    per_layer = attention_layer_params(5376, 32, 4, 512, True) - attention_layer_params(5376, 32, 16, 256)
    assert global_attention_delta(gemma) == 10 * per_layer
    assert global_attention_delta(catalog.models["Qwen/Qwen3-14B"]) == 0
