"""vLLM's ``--quantization`` names mapped to the catalog's weight formats (``catalog/precisions.yaml``).

vLLM names a quantization method by its kernel family (``awq``, ``awq_marlin``, ``gptq``, ``fp8``,
``modelopt_fp4``…; the list of the catalog's release (``vllm_version``, the supported release
``versions.SUPPORTED``) is ``--quantization``'s choices in ``sizing/launch/data/vllm_choices-<release>.json``,
from ``vllm/model_executor/layers/quantization/__init__.py`` ``QUANTIZATION_METHODS``); the catalog names
a format by what it stores (``int4-awq``). Both spellings are accepted, in any case; a method the catalog
has no format for is refused with the valid names.
"""

from __future__ import annotations

from sizing.catalog.ids import did_you_mean, shown
from sizing.catalog.loader import Catalog
from sizing.errors import UsageError
from sizing.flaglists import FlagListMissing, quantization_methods

VLLM_METHODS: dict[str, tuple[str, ...]] = {
    "awq": ("int4-awq",),
    "awq_marlin": ("int4-awq",),
    "auto_awq": ("int4-awq",),
    "gptq": ("int4-gptq",),
    "gptq_marlin": ("int4-gptq",),
    "auto_gptq": ("int4-gptq",),
    "fp8": ("fp8",),
    "fbgemm_fp8": ("fp8",),
    "fp8_per_block": ("fp8",),
    "fp8_per_channel": ("fp8",),
    "fp8_per_tensor": ("fp8",),
    "modelopt": ("fp8",),
    "modelopt_fp4": ("nvfp4",),
    "modelopt_mixed": ("nvfp4", "fp8"),
    "mxfp4": ("mxfp4",),
    "gpt_oss_mxfp4": ("mxfp4",),
    "compressed-tensors": ("int8", "fp8", "int4-gptq", "nvfp4"),
}
"""vLLM method -> catalog formats it loads, in the order a checkpoint is preferred.

``modelopt_mixed`` (``ModelOptMixedPrecisionConfig``) loads per-layer formats; the catalog names such a
checkpoint by its main format (NVFP4 experts or MLP) with the FP8 parts in ``keeps_fp8``."""


def vllm_methods(cat: Catalog) -> list[str]:
    """Every ``--quantization`` value of the catalog's vLLM release (``vllm_version``); none without a
    list."""
    try:
        return quantization_methods(str(cat.assume("vllm_version")))
    except FlagListMissing:
        return []


def formats_for(cat: Catalog, name: str) -> tuple[str, ...]:
    """The catalog formats ``--quantization name`` can mean; UsageError for a name neither side knows."""
    key = name.strip().lower()
    by_lower = {p.lower(): p for p in cat.precisions}
    if key in by_lower:
        return (by_lower[key],)
    if key in VLLM_METHODS:
        return tuple(p for p in VLLM_METHODS[key] if p in cat.precisions)
    own = tuple(p for p, spec in cat.precisions.items() if spec.vllm_quantization == key)
    if own:
        return own
    known = [*VLLM_METHODS, *cat.precisions]
    if key in vllm_methods(cat):
        raise UsageError(
            f"--quantization {shown(name)}: the catalog models no checkpoint of this method; "
            f"it models {', '.join(sorted(VLLM_METHODS))}"
        )
    raise UsageError(f"--quantization: unknown method {shown(name)}{did_you_mean(name, known)}")


def missing_message(name: str, model_id: str, have: list[str]) -> str:
    """The refusal when the model has no checkpoint of the format asked for: what it does have."""
    return (
        f"--quantization {shown(name)}: the catalog has no such checkpoint of {model_id}; "
        f"it has {', '.join(have)}"
    )
