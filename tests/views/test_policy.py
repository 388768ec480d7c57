"""Tests for sizing.views.policy: the page policy names real catalog rows."""

from __future__ import annotations

from sizing.views import policy


def test_every_representative_is_a_catalog_model(catalog) -> None:
    """Assert no representative model id is missing from catalog/models.yaml (a rename would empty a
    table)."""
    assert policy.missing_models(catalog.models) == []
    assert policy.missing_models(["Qwen/Qwen3-32B"]) == [
        "meta-llama/Llama-3.3-70B-Instruct",
        "meta-llama/Llama-3.1-405B-Instruct",
        "deepseek-ai/DeepSeek-V3",
        "deepseek-ai/DeepSeek-R1",
    ]


def test_summary_kv_falls_back_to_the_first_evaluated_type() -> None:
    """Assert fp8 is shown when the catalog evaluates it, else the catalog's first KV type."""
    assert policy.summary_kv(["auto", "fp8"]) == "fp8"
    assert policy.summary_kv(["auto"]) == "auto"


def test_summaries_show_auto_kv_where_the_gpu_has_no_fp8_kv_cache(catalog) -> None:
    """T4 (sm_75) and V100 (sm_70) have no attention backend for an FP8 KV cache; A10 (sm_86) has."""
    from sizing.views.policy import summary_kv_on

    shown = {g: summary_kv_on("fp8", catalog.gpus[g]) for g in ("t4", "v100-16gb", "a10", "h100-80gb")}
    assert shown == {"t4": "auto", "v100-16gb": "auto", "a10": "fp8", "h100-80gb": "fp8"}
    assert summary_kv_on("auto", catalog.gpus["t4"]) == "auto" and summary_kv_on("fp8", None) == "fp8"
