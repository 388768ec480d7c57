"""Tests for sizing.views.policy: the page policy names real catalog rows."""

from __future__ import annotations

from sizing.views import policy


def test_every_representative_is_a_catalog_model(catalog) -> None:
    """Assert no representative model id is missing from catalog/models.yaml (a rename would empty a table)."""
    assert policy.missing_models(catalog.models) == []
    assert policy.missing_models(["Qwen/Qwen3-32B"]) == [
        "meta-llama/Llama-3.3-70B-Instruct", "meta-llama/Llama-3.1-405B-Instruct", "deepseek-ai/DeepSeek-V3",
        "deepseek-ai/DeepSeek-R1"]


def test_summary_kv_falls_back_to_the_first_evaluated_type() -> None:
    """Assert fp8 is shown when the catalog evaluates it, else the catalog's first KV type."""
    assert policy.summary_kv(["auto", "fp8"]) == "fp8"
    assert policy.summary_kv(["auto"]) == "auto"
