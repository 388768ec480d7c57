"""The checkpoint's weight formats from its ``quantization_config`` (and modelopt's ``hf_quant_config.json``).

A checkpoint entry says one format (``precision``) and the parts kept wider: ``keeps_bf16`` and, for
modelopt ``MIXED_PRECISION`` checkpoints, ``keeps_fp8``. Such a checkpoint names a format per layer
(``quantized_layers``: ``{"model.layers.0.mlp.experts": {"quant_algo": "NVFP4"}, …}``); vLLM loads each
layer with that layer's own method (``vllm-project/vllm:vllm/model_executor/layers/quantization/
modelopt.py`` ``ModelOptMixedPrecisionConfig.get_quant_method``) and leaves a layer it does not list
unquantized. The importer maps each listed layer to a part of the model (:data:`PART_PATTERNS`);
the part of most parameters (routed experts, else the dense MLP) gives ``precision``, and a part
whose layers use several formats is costed at the widest of them (stated in the entry's notes).
"""

from __future__ import annotations

import json
import re
from typing import Any

from sizing.catalog.ids import shown
from sizing.engine.hf_config import as_list, plain
from sizing.errors import UsageError

KEEP_PATTERNS = (
    ("lm_head", "lm_head"),
    ("embed", "embeddings"),
    ("self_attn", "attention"),
    ("attn", "attention"),
    ("router", "router"),
    ("gate", "router"),
    ("shared_expert", "shared_experts"),
    ("mlp.gate_proj", "dense_mlp"),
    ("mlp.down_proj", "dense_mlp"),
    ("mlp\\.(gate|up", "dense_mlp"),
)
SKIPPED_NAMES = ("norm", "indexer")
"""Excluded modules that are not linear weights of a part (norms, the sparse-MLA indexer's projections)."""

PART_PATTERNS = (
    ("lm_head", "lm_head"),
    ("embed", "embeddings"),
    ("mtp", "mtp"),
    ("shared_expert", "shared_experts"),
    ("experts", "experts"),
    (r"(self_attn|linear_attn|\.attn\.|mixer\.(in_proj|out_proj|conv1d|[qkvo]_proj))", "attention"),
    (r"(mlp|mixer)\.(gate|router)$", "router"),
    (r"(mlp|feed_forward|mixer)\.", "dense_mlp"),
)
"""(regular expression on a layer name, part), first match wins: modelopt's layer names in
``quantized_layers`` (``model.layers.N.…``, Nemotron-H's ``backbone.layers.N.mixer.…``)."""

MODELOPT_ALGOS = {
    "NVFP4": "nvfp4",
    "W4A16_NVFP4": "nvfp4",
    "FP8": "fp8",
    "FP8_PER_CHANNEL_PER_TOKEN": "fp8",
    "FP8_PB_WO": "fp8",
}
"""modelopt ``quant_algo`` of a whole checkpoint -> catalog format (``modelopt.py``: the FP8 and NVFP4
configs' algorithms)."""

MIXED_ALGOS = {"NVFP4": "nvfp4", "W4A16_NVFP4": "nvfp4", "FP8": "fp8"}
"""Per-layer formats of a MIXED_PRECISION table the catalog has a format for: the sub-configs of
``ModelOptMixedPrecisionConfig.get_quant_method`` (``FP8``, ``NVFP4``, ``W4A16_NVFP4``; its ``MXFP8``,
one E8M0 scale per 32 weights, has no catalog format and is refused)."""

WIDTH = {"nvfp4": 4, "fp8": 8, "bf16": 16}


def excluded_parts(qc: dict[str, Any], label: str = "config") -> list[str]:
    """Parts a checkpoint keeps in BF16: its exclude list mapped to parts, plus embeddings and LM head."""
    key = next((k for k in ("modules_to_not_convert", "ignore", "exclude_modules") if qc.get(k)), "ignore")
    names = as_list(qc.get(key), label, f"quantization_config.{key}")
    kept = [str(name) for name in names if not any(skip in str(name) for skip in SKIPPED_NAMES)]
    keeps = {part for name in kept for part in kept_parts(name)}
    return sorted(keeps | {"embeddings", "lm_head"})


def kept_parts(name: str) -> set[str]:
    """The parts an excluded module name keeps in BF16: :data:`KEEP_PATTERNS`, else the layer-name rules
    of :data:`PART_PATTERNS` (modelopt's ``backbone.layers.N.mixer.in_proj``); none for a module outside
    the text stack (a vision tower, which the engine keeps in BF16 anyway).

    A part excluded in some layers only is costed in BF16 in all of them: the cautious end.
    """
    parts = {part for pattern, part in KEEP_PATTERNS if pattern in name}
    if parts:
        return parts
    try:
        return {part_of(name)}
    except UsageError:
        return set()


def compressed_tensors_precision(groups: dict[str, Any]) -> str:
    """fp8, int4 with symmetric group-32 bf16 scales (Kimi-K2.5-style experts), else group-128 int4."""
    if "float" in json.dumps(groups):
        return "fp8"
    first: dict[str, Any] = next(iter(groups.values()), {}) if groups else {}
    weights = first.get("weights", {})
    if weights.get("num_bits") == 4 and weights.get("group_size") == 32 and weights.get("symmetric", True):
        return "int4-ct-g32"
    return "int4-gptq"


def precision_of(qc: dict[str, Any] | None, label: str = "config") -> str:
    """The catalog precision id of a uniform ``quantization_config`` (bf16 when there is none)."""
    if not qc:
        return "bf16"
    method = str(qc.get("quant_method", "")).lower()
    algo = str(qc.get("quant_algo", "")).upper()
    bits = qc.get("bits", qc.get("w_bit", 4))
    table = {"fp8": "fp8", "mxfp4": "mxfp4", "awq": "int4-awq", "gptq": "int4-gptq" if bits == 4 else "int8"}
    if method in table:
        return table[method]
    if method == "modelopt" and algo in MODELOPT_ALGOS:
        return MODELOPT_ALGOS[algo]
    if method == "compressed-tensors":
        return compressed_tensors_precision(qc.get("config_groups", {}))
    what = f"quant_method {shown(method)}" + (
        f" with quant_algo {shown(algo)}" if method == "modelopt" else ""
    )
    raise UsageError(f"{label}: quantization_config: unsupported {what}")


def part_of(layer: str) -> str:
    """The model part a modelopt layer name belongs to; UsageError for a name no pattern places."""
    for pattern, part in PART_PATTERNS:
        if re.search(pattern, layer):
            return part
    raise UsageError(
        f"quantization_config.quantized_layers: layer {shown(layer)} belongs to no part the engine models"
    )


LAYER_INDEX = re.compile(r"layers\.(\d+)\.")


def layer_formats(layers: dict[str, Any], label: str) -> tuple[dict[str, set[str]], dict[str, set[int]]]:
    """Formats per part of a ``quantized_layers`` table, and the decoder layers each part is listed in."""
    formats: dict[str, set[str]] = {}
    listed: dict[str, set[int]] = {}
    for name, spec in layers.items():
        algo = str(spec.get("quant_algo", "")).upper() if isinstance(spec, dict) else ""
        if algo not in MIXED_ALGOS:
            raise UsageError(
                f"{label}: quantization_config.quantized_layers.{plain(str(name))}: quant_algo "
                f"{plain(algo) if algo else '(none)'} "
                f"is not a format the engine models ({', '.join(sorted(MIXED_ALGOS))})"
            )
        part = part_of(str(name))
        formats.setdefault(part, set()).add(MIXED_ALGOS[algo])
        index = LAYER_INDEX.search(str(name))
        if index:
            listed.setdefault(part, set()).add(int(index[1]))
    return formats, listed


def mixed_checkpoint(layers: dict[str, Any], carriers: dict[str, int], label: str) -> dict[str, Any]:
    """``precision``, ``keeps_bf16``, ``keeps_fp8`` and a note from a MIXED_PRECISION layer table.

    ``carriers`` gives how many decoder layers hold each part; a part listed in fewer of them keeps
    the rest unquantized (vLLM's mixed config quantizes only listed layers), so BF16 joins its formats.
    """
    formats, listed = layer_formats(layers, label)
    for part, indices in listed.items():
        if len(indices) < carriers.get(part, 0):
            formats[part].add("bf16")
    main_part = "experts" if "experts" in formats else "dense_mlp"
    if main_part not in formats:
        raise UsageError(
            f"{label}: quantization_config.quantized_layers: neither the routed experts nor the "
            f"MLP are listed, so the checkpoint's main format is unknown"
        )
    widest = {part: max(fmts, key=WIDTH.__getitem__) for part, fmts in formats.items()}
    precision = widest[main_part]
    parts = ("embeddings", "lm_head", "attention", "router", "shared_experts", "dense_mlp")
    present = {p for p in parts if p in ("embeddings", "lm_head") or carriers.get(p, 0) > 0}
    keeps_bf16 = [p for p in parts if p in present and widest.get(p, "bf16") == "bf16" and p != main_part]
    keeps_fp8 = [p for p in parts if widest.get(p) == "fp8" and precision != "fp8"]
    mixed = sorted(p for p, fmts in formats.items() if len(fmts) > 1)
    note = (
        f"MIXED_PRECISION: {', '.join(mixed)} mix formats by layer and are costed at the widest"
        if mixed
        else None
    )
    return {"precision": precision, "keeps_bf16": keeps_bf16, "keeps_fp8": keeps_fp8, "note": note}


def quant_layers(qc: dict[str, Any], sidecar: dict[str, Any] | None, label: str) -> dict[str, Any]:
    """The ``quantized_layers`` of a MIXED_PRECISION checkpoint: from ``quantization_config``, else from
    ``hf_quant_config.json`` next to the config (``{"quantization": {"quantized_layers": …}}``)."""
    layers = qc.get("quantized_layers")
    if not layers and sidecar:
        layers = (sidecar.get("quantization") or {}).get("quantized_layers")
    if not isinstance(layers, dict) or not layers:
        raise UsageError(
            f"{label}: quantization_config: MIXED_PRECISION without quantized_layers; put the "
            f"checkpoint's hf_quant_config.json next to config.json"
        )
    return layers


def is_mixed(qc: dict[str, Any] | None) -> bool:
    """True for a modelopt ``MIXED_PRECISION`` quantization_config."""
    return isinstance(qc, dict) and str(qc.get("quant_algo", "")).upper() == "MIXED_PRECISION"


def checkpoint_formats(
    qc: dict[str, Any] | None, sidecar: dict[str, Any] | None, carriers: dict[str, int], label: str
) -> dict[str, Any]:
    """The checkpoint fields (``precision``, ``keeps_bf16``, ``keeps_fp8``) and an optional ``note``;
    ``carriers``: decoder layers holding each part (for MIXED_PRECISION tables, :func:`mixed_checkpoint`)."""
    if not qc:
        return {"precision": "bf16"}
    if is_mixed(qc):
        return mixed_checkpoint(quant_layers(qc, sidecar, label), carriers, label)
    return {"precision": precision_of(qc, label), "keeps_bf16": excluded_parts(qc, label)}
