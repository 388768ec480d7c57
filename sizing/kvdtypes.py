"""The KV-cache dtype vocabulary: one home for every ``--kv-cache-dtype`` value we accept.

:data:`KV_CACHE_DTYPE_BYTES` maps each value our command line accepts onto the bytes one cached
element takes (``auto`` is the model's own bf16, as vLLM's ``kv_cache_dtype="auto"`` resolves it for
the bf16 checkpoints of the catalog). Every key is one of the choices of vLLM's ``--kv-cache-dtype``
(``vllm/config/cache.py`` ``CacheDType``; the extracted list is ``sizing/launch/data/vllm_choices-*.json``,
checked by the tests). :data:`CATALOG_KV_DTYPES` is the subset a catalog may evaluate and publish.
"""

from __future__ import annotations

from typing import Literal, get_args

KV_CACHE_DTYPE_BYTES: dict[str, int] = {
    "auto": 2,
    "bfloat16": 2,
    "float16": 2,
    "fp8": 1,
    "fp8_e4m3": 1,
    "fp8_e5m2": 1,
}
"""Bytes per cached K or V element, by ``--kv-cache-dtype`` value."""

CatalogKvDtype = Literal["auto", "fp8"]
"""The KV-cache types a catalog's ``kv_cache_dtypes`` and examples may name."""

CATALOG_KV_DTYPES: tuple[str, ...] = get_args(CatalogKvDtype)
"""The values of :data:`CatalogKvDtype`, in order."""
