"""The vision tower of a multimodal config.json (``vision_config``), for the importer.

The tower's size comes from its own keys (Qwen-VL ``depth``/``out_hidden_size``, SigLIP-style
``num_hidden_layers``); the encoder tokens of the largest image, which vLLM profiles with, from the
config where it states them, else from the processor rule of the tower's model type. A tower of
another type, whose largest image the config does not state, is refused by name rather than guessed.
"""

from __future__ import annotations

from typing import Any

from sizing.engine.hf_config import as_count, as_fraction, as_list, plain
from sizing.errors import UsageError

QWEN_VL_MAX_IMAGE_TOKENS = 16384
"""Qwen-VL's processor limit on one image's encoder tokens (their configs do not state it)."""

LLAMA4_MAX_TILES = 16
"""``Llama4ImageProcessor.max_patches``'s default: the tiles of the largest image vLLM profiles with."""


def vision(raw: dict[str, Any], text_hidden: int, label: str) -> dict[str, Any] | None:
    """The vision tower entry from ``vision_config``, or None when the config has none."""
    v = raw.get("vision_config")
    if not v:
        return None
    if not isinstance(v, dict) or not v.get("hidden_size"):
        raise UsageError(f"{label}: vision_config: a vision tower without hidden_size is not modelled")

    def count(key: str, value: Any) -> int:
        return as_count(value, label, f"vision_config.{key}")

    deepstack = as_list(v.get("deepstack_visual_indexes"), label, "vision_config.deepstack_visual_indexes")
    merge = count("spatial_merge_size", v.get("spatial_merge_size") or raw.get("spatial_merge_size") or 1)
    if v.get("model_type") == "llama4_vision_model":
        merge = count("pixel_shuffle_ratio", round(1 / shuffle_ratio(v, label)))
    return {
        "layers": count(depth := "depth" if v.get("depth") else "num_hidden_layers", v.get(depth)),
        "hidden_size": count("hidden_size", v["hidden_size"]),
        "intermediate_size": count("intermediate_size", v.get("intermediate_size")),
        "patch_size": count("patch_size", v.get("patch_size", 14)),
        "out_hidden_size": count("out_hidden_size", v.get("out_hidden_size") or text_hidden),
        "merge_size": merge,
        "mergers": 1 + len(deepstack),
        "gated_mlp": v.get("model_type") == "pixtral",
        "max_tokens_per_item": max_image_tokens(raw, v, merge, label),
    }


def shuffle_ratio(v: dict[str, Any], label: str) -> float:
    """Llama 4's ``pixel_shuffle_ratio`` (1 when absent), a finite fraction."""
    ratio = v.get("pixel_shuffle_ratio")
    return 1.0 if ratio is None else as_fraction(ratio, label, "vision_config.pixel_shuffle_ratio")


def llama4_image_tokens(v: dict[str, Any], label: str) -> int:
    """Llama 4's largest image: 16 tiles and a global tile of ``(image_size / patch_size)² / merge²`` tokens.

    Source: ``vllm-project/vllm:vllm/model_executor/models/mllama4.py`` ``Mllama4ProcessingInfo``:
    ``get_patch_per_chunk`` (``(image_size // patch_size)**2 // round(1 / pixel_shuffle_ratio**2)``),
    ``get_max_num_tiles`` (the processor's ``max_patches``) and ``get_image_size_with_most_features``
    (a 16 x 1 tile image); a multi-tile image also carries one global tile.
    """
    side = as_count(v.get("image_size"), label, "vision_config.image_size") // as_count(
        v.get("patch_size"), label, "vision_config.patch_size"
    )
    shuffle = round(1 / shuffle_ratio(v, label) ** 2)
    return (LLAMA4_MAX_TILES + 1) * (side**2 // shuffle)


def max_image_tokens(raw: dict[str, Any], v: dict[str, Any], merge: int, label: str) -> int:
    """Encoder output tokens of the largest image: the config's own count, else the rule of the tower's type.

    Pixtral (Mistral Small 3.x) encodes images up to ``image_size`` pixels a side in ``patch_size``
    patches merged ``merge`` x ``merge``: ``(image_size // (patch_size * merge))²`` tokens (the
    ``[IMG_BREAK]`` row markers are text tokens, not encoder outputs). Qwen-VL towers take the
    processor's limit (:data:`QWEN_VL_MAX_IMAGE_TOKENS`); Llama 4's, :func:`llama4_image_tokens`.
    """
    stated = raw.get("vision_soft_tokens_per_image") or v.get("image_seq_length")
    kind = str(v.get("model_type") or "")
    if stated:
        return as_count(stated, label, "vision_soft_tokens_per_image")
    if kind == "pixtral" and v.get("image_size"):
        return (
            as_count(v["image_size"], label, "vision_config.image_size")
            // (int(v.get("patch_size", 14)) * merge)
        ) ** 2
    if kind == "llama4_vision_model":
        return llama4_image_tokens(v, label)
    if kind.startswith("qwen"):
        return QWEN_VL_MAX_IMAGE_TOKENS
    raise UsageError(
        f"{label}: vision_config.model_type: a {plain(kind) if kind else 'untyped'} vision tower whose "
        "largest image "
        f"the config does not state is not modelled"
    )
