"""Tests for sizing.catalog.settings: one settings type for the command line, the engine and the examples."""

from __future__ import annotations

import argparse
import dataclasses

import pytest

from sizing.catalog.loader import load_section
from sizing.catalog.schema import Example
from sizing.catalog.settings import FLAGS, Settings, SpecConfig, settings_of
from sizing.errors import CatalogError

EXAMPLE = """
ex:
  model: Qwen/Qwen3-14B
  checkpoint: Qwen/Qwen3-14B-FP8
  server: gpu-l40s
  kv_cache_dtype: fp8
  max_model_len: 32768
"""


def test_settings_of_takes_the_flags_and_leaves_the_rest() -> None:
    """Assert the parsed flags become Settings and the command's own arguments are left out."""
    ns = argparse.Namespace(model="Qwen/Qwen3-14B", max_model_len=4096, json=True, command="estimate")
    assert settings_of(vars(ns)) == Settings(model="Qwen/Qwen3-14B", max_model_len=4096)
    assert {"model", "speculative_config", "enable_prefix_caching"} <= FLAGS and "json" not in FLAGS


def test_a_catalog_example_is_settings_with_its_limits() -> None:
    """Assert an example loads as Settings (plans default to 1), takes any other estimate flag, and its
    ``speculative`` key fills ``speculative_config``."""
    ex = load_section("examples", EXAMPLE, "catalog/examples.yaml")["ex"]
    assert isinstance(ex, Settings) and isinstance(ex, Example)
    assert (ex.tensor_parallel_size, ex.checkpoint, ex.gpu_memory_utilization) == (
        1,
        "Qwen/Qwen3-14B-FP8",
        None,
    )
    text = (
        EXAMPLE + "  gpu_memory_utilization: 0.8\n  speculative: {method: mtp, num_speculative_tokens: 2}\n"
    )
    ex = load_section("examples", text, "catalog/examples.yaml")["ex"]
    assert ex.gpu_memory_utilization == 0.8
    assert dataclasses.astuple(ex.speculative_config) == dataclasses.astuple(SpecConfig("mtp", 2))


@pytest.mark.parametrize(
    ("extra", "field", "problem"),
    [
        ("  block_size: '16'\n", "block_size", "valid integer"),
        ("  enforce_eager: 1\n", "enforce_eager", "valid boolean"),
        ("  tensor_parallel_size: 0\n", "tensor_parallel_size", "greater than 0"),
        ("  speculative: {method: mtp, num_speculative_tokens: 2, model: x}\n", "speculative.model", "none"),
        ("  colour: red\n", "colour", "unknown field"),
    ],
)
def test_an_example_refuses_values_of_another_type(extra: str, field: str, problem: str) -> None:
    """Assert a flag of the wrong type, a bad plan size, a draft model or an unknown key is refused by
    name."""
    with pytest.raises(CatalogError) as info:
        load_section("examples", EXAMPLE + extra, "catalog/examples.yaml")
    assert info.value.field == field and problem in info.value.problem.lower()


def test_a_missing_required_field_is_named() -> None:
    """Assert an example without its checkpoint is refused naming the field."""
    text = EXAMPLE.replace("  checkpoint: Qwen/Qwen3-14B-FP8\n", "")
    with pytest.raises(CatalogError, match="checkpoint"):
        load_section("examples", text, "catalog/examples.yaml")
