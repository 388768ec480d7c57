"""Gemma 4's global layers: their own attention geometry, without a value projection in the checkpoint
(the value slots vLLM still allocates counted apart)."""

from __future__ import annotations

from sizing.engine.layer_kinds import (
    attention_layer_params,
    global_attention_delta,
    global_layers,
    value_slot_params,
)


def test_attention_layer_params_with_and_without_a_value_projection():
    assert attention_layer_params(5376, 32, 16, 256) == 5376 * (2 * 8192 + 8192)
    assert attention_layer_params(5376, 32, 4, 512, k_eq_v=True) == 5376 * (2 * 16384 + 2048)


def test_gemma4_31b_global_layers_add_their_difference_ten_times(catalog):
    gemma = catalog.models["google/gemma-4-31B-it"]
    per_layer = attention_layer_params(5376, 32, 4, 512, True) - attention_layer_params(5376, 32, 16, 256)
    assert global_attention_delta(gemma) == 10 * per_layer
    assert global_attention_delta(catalog.models["Qwen/Qwen3-14B"]) == 0


def test_value_slots_of_k_eq_v_global_layers(catalog):
    """vLLM's QKVParallelLinear keeps a value slot per KV head in the 10 (31B) and 5 (26B-A4B) global
    layers."""
    assert global_layers(catalog.models["google/gemma-4-31B-it"]) == 10
    assert value_slot_params(catalog.models["google/gemma-4-31B-it"]) == 5376 * 4 * 512 * 10
    assert value_slot_params(catalog.models["google/gemma-4-26B-A4B-it"]) == 2816 * 2 * 512 * 5
    assert value_slot_params(catalog.models["Qwen/Qwen3-14B"]) == 0
