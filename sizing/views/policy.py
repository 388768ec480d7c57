"""Page policy: which catalog rows the summary pages and charts show (one declared place).

These are editorial choices of the guide, not facts of vLLM or of the hardware, so they live
neither in the engine nor in the renderers. Every id here must name a catalog model;
:func:`missing_models` lists the ones that do not (checked by the tests against ``catalog/``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from sizing.catalog.schema import Gpu
from sizing.engine.capability import FP8_KV_MIN_SM
from sizing.engine.cases import sm_version

REPRESENTATIVES: Mapping[str, str] = {
    "32b": "Qwen/Qwen3-32B",
    "70b": "meta-llama/Llama-3.3-70B-Instruct",
    "405b": "meta-llama/Llama-3.1-405B-Instruct",
    "671b": "deepseek-ai/DeepSeek-V3",
}
"""The model each size class of the deployment guide is shown with (ids in catalog/models.yaml)."""

SIBLINGS = {"671b": ("deepseek-ai/DeepSeek-R1",)}
"""Models of the same architecture that add precisions a representative lacks (DeepSeek-R1 NVFP4)."""

QUICK_REFERENCE: tuple[tuple[str, str, str, str], ...] = (
    ("local", "32b", "int4-awq", "ref-1x-rtx-4090"),
    ("small_service", "32b", "fp8", "ref-1x-rtx-6000-ada"),
    ("small_service", "32b", "bf16", "ref-1x-h100"),
    ("production", "32b", "bf16", "ref-2x-h100"),
    ("production", "32b", "bf16", "ref-2x-h200"),
    ("local", "70b", "int4-awq", "ref-2x-rtx-4090"),
    ("small_service", "70b", "int4-awq", "ref-1x-rtx-6000-ada"),
    ("production", "70b", "bf16", "ref-2x-h100"),
    ("production", "70b", "fp8", "ref-2x-h100"),
    ("production", "405b", "fp8", "ref-8x-h100"),
    ("production", "405b", "fp8", "ref-8x-h200"),
    ("small_service", "671b", "nvfp4", "ref-8x-h100"),
    ("small_service", "671b", "nvfp4", "ref-4x-h200"),
    ("production", "671b", "fp8", "ref-8x-h200"),
    ("production", "671b", "fp8", "ref-2n-8x-h100"),
    ("production", "671b", "bf16", "ref-2n-8x-h200"),
)
"""The deployment guide's quick reference: (tier, size class, precision, server), the hardware the
deployment seed names for each target; the verdict, plan and capacity of each row are computed.
Tiers are message keys ``tier_<tier>``: local experiment, small service, production."""

FIT_TABLE_REFERENCES = ("ref-1x-rtx-4090", "ref-1x-h100", "ref-2x-h100", "ref-8x-h200")
"""Reference servers whose whole fit table the fit-tables page shows besides the offer servers: a
consumer card, one, two and eight data-centre GPUs (the deployment guide links ``ref-2x-h100``).
Every other server gets one summary row there, linking to the explorer, which holds all of them;
so the page grows with the models, not with models × servers."""


CHARTED_KINDS = ("offer",)
"""Kinds of server whose fit section carries a concurrency chart (the explorer covers the others)."""


def fit_table_servers(kinds: Mapping[str, str]) -> list[str]:
    """The servers with a whole fit table on the fit-tables page, in catalog order: the offer
    servers and the :data:`FIT_TABLE_REFERENCES` the catalog has (``kinds``: server id -> kind)."""
    return [sid for sid, kind in kinds.items() if kind == "offer" or sid in FIT_TABLE_REFERENCES]


PLAN_COMPARISONS = {
    "671b-8xh200": ("deepseek-ai/DeepSeek-R1", "deepseek-ai/DeepSeek-R1", "ref-8x-h200", "auto")
}
"""Published plan comparisons (``plans-<id>`` tables, every plan side by side): id -> (model, checkpoint,
server, KV cache type)."""

EXPLORER_CONTEXT = 32768
"""The context, tokens, the explorer opens at and its static heatmap shows."""

SUMMARY_KV = "fp8"
"""The KV-cache type the summary tables and the concurrency charts show (the guide's recommendation)."""

SHORT_CONTEXT, LONG_CONTEXT = 4096, 32768
"""The two context lengths, tokens, the summary tables show (when the catalog publishes them)."""


def summary_kv(dtypes: Iterable[str]) -> str:
    """:data:`SUMMARY_KV` if the catalog evaluates it (``dtypes``), else the catalog's first KV type."""
    listed = list(dtypes)
    return SUMMARY_KV if SUMMARY_KV in listed else listed[0]


def summary_kv_on(kv: str, gpu: Gpu | None) -> str:
    """The KV type a summary shows on ``gpu`` (None: a GPU outside the catalog): ``kv``, or ``auto`` where
    ``kv`` is an FP8 type the GPU has no attention backend for (compute capability below
    :data:`sizing.engine.capability.FP8_KV_MIN_SM`: T4, V100), so their tables show what vLLM runs."""
    arch_sm = sm_version(gpu) if gpu is not None else 0
    fp8_missing = kv.startswith("fp8") and 0 < arch_sm < FP8_KV_MIN_SM
    return "auto" if fp8_missing else kv


def missing_models(models: Iterable[str]) -> list[str]:
    """The :data:`REPRESENTATIVES` ids that are not among ``models`` (catalog model ids)."""
    known = set(models)
    wanted = [*REPRESENTATIVES.values(), *(mid for ids in SIBLINGS.values() for mid in ids)]
    return [mid for mid in wanted if mid not in known]
