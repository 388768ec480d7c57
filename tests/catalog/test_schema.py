"""Tests for sizing.catalog.schema: field types, limits and cross-field checks of the catalog models."""

from __future__ import annotations

import math

import pytest
from pydantic import TypeAdapter, ValidationError

from sizing.catalog.schema import Example, FieldProblem, Fraction, Gpu, Model, PosInt, Slug

GPU = {
    "name": "NVIDIA L40S",
    "architecture": "Ada Lovelace (sm_89)",
    "memory_gb": 48.0,
    "memory_mib": 46068,
    "bandwidth_gbs": 864.0,
    "fp8": True,
    "fp4": False,
    "interconnect": {"kind": "pcie", "generation": "PCIe 4.0", "bandwidth_gbs": 32.0},
    "source": "hand-made",
}
MODEL = {
    "name": "Tiny",
    "family": "tiny",
    "architecture": "TinyForCausalLM",
    "total_params_b": 0.5,
    "layers": 4,
    "hidden_size": 64,
    "intermediate_size": 128,
    "attention_heads": 4,
    "kv_heads": 2,
    "head_dim": 16,
    "vocab_size": 1000,
    "tie_embeddings": True,
    "max_context": 4096,
    "checkpoints": [{"id": "org/tiny", "precision": "bf16"}],
    "source": "hand-made",
}


@pytest.mark.parametrize(
    ("value", "ok"), [(0.9, True), (1.0, True), (0.0, False), (1.01, False), (math.nan, False), (-0.5, False)]
)
def test_fraction_is_in_zero_one(value: float, ok: bool) -> None:
    """Assert a fraction is finite, above 0 and at most 1."""
    adapter = TypeAdapter(Fraction)
    if ok:
        assert adapter.validate_python(value) == value
    else:
        with pytest.raises(ValidationError):
            adapter.validate_python(value)


def test_positive_int_is_strict_and_slugs_are_lower_case() -> None:
    """Assert PosInt refuses 0, '5' and True-like coercions; a slug refuses capitals and spaces."""
    assert TypeAdapter(PosInt).validate_python(5) == 5
    for bad in (0, "5", 2.5):
        with pytest.raises(ValidationError):
            TypeAdapter(PosInt).validate_python(bad)
    assert TypeAdapter(Slug).validate_python("gpu-l40s") == "gpu-l40s"
    with pytest.raises(ValidationError):
        TypeAdapter(Slug).validate_python("GPU L40S")


def test_unknown_keys_are_errors_and_values_are_not_coerced() -> None:
    """Assert a misspelt key and a string where a number belongs are both refused."""
    assert Gpu.model_validate(GPU).memory_mib == 46068
    with pytest.raises(ValidationError, match="memory_mb"):
        Gpu.model_validate({**GPU, "memory_mb": 46068})
    with pytest.raises(ValidationError, match="memory_mib"):
        Gpu.model_validate({**GPU, "memory_mib": "46068"})


def test_special_layers_must_leave_a_full_attention_layer() -> None:
    """Assert 4 sliding layers of 4 are refused, naming sliding_window.layers; 3 are fine."""
    assert Model.model_validate({**MODEL, "sliding_window": {"layers": 3, "window": 128}}).layers == 4
    with pytest.raises(ValidationError) as info:
        Model.model_validate({**MODEL, "sliding_window": {"layers": 4, "window": 128}})
    cause = info.value.errors()[0]["ctx"]["error"]
    assert isinstance(cause, FieldProblem) and cause.field == "sliding_window.layers"


def test_examples_name_a_catalog_kv_type() -> None:
    """Assert an example's KV type is one of the catalog's vocabulary (auto, fp8), plans default to 1."""
    ex = TypeAdapter(Example).validate_python(
        {
            "model": "m",
            "checkpoint": "c",
            "server": "gpu-l40s",
            "kv_cache_dtype": "fp8",
            "max_model_len": 4096,
        }
    )
    assert (ex.tensor_parallel_size, ex.pipeline_parallel_size, ex.data_parallel_size) == (1, 1, 1)
    with pytest.raises(ValidationError, match="kv_cache_dtype"):
        TypeAdapter(Example).validate_python(
            {
                "model": "m",
                "checkpoint": "c",
                "server": "gpu-l40s",
                "kv_cache_dtype": "fp4",
                "max_model_len": 4096,
            }
        )
