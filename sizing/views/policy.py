"""Page policy: which catalog rows the summary pages and charts show (one declared place).

These are editorial choices of the guide, not facts of vLLM or of the hardware, so they live
neither in the engine nor in the renderers. Every id here must name a catalog model;
:func:`missing_models` lists the ones that do not (checked by the tests against ``catalog/``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

REPRESENTATIVES: Mapping[str, str] = {
    "32b": "Qwen/Qwen3-32B",
    "70b": "meta-llama/Llama-3.3-70B-Instruct",
    "405b": "meta-llama/Llama-3.1-405B-Instruct",
    "671b": "deepseek-ai/DeepSeek-V3",
}
"""The model each size class of the deployment guide is shown with (ids in catalog/models.yaml)."""

SUMMARY_KV = "fp8"
"""The KV-cache type the summary tables and the concurrency charts show (the guide's recommendation)."""

SHORT_CONTEXT, LONG_CONTEXT = 4096, 32768
"""The two context lengths, tokens, the summary tables show (when the catalog publishes them)."""


def summary_kv(dtypes: Iterable[str]) -> str:
    """:data:`SUMMARY_KV` if the catalog evaluates it (``dtypes``), else the catalog's first KV type."""
    listed = list(dtypes)
    return SUMMARY_KV if SUMMARY_KV in listed else listed[0]


def missing_models(models: Iterable[str]) -> list[str]:
    """The :data:`REPRESENTATIVES` ids that are not among ``models`` (catalog model ids)."""
    known = set(models)
    return [mid for mid in REPRESENTATIVES.values() if mid not in known]
