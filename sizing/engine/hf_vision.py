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


def _first(v: dict[str, Any], *keys: str) -> str:
    """The first of ``keys`` that ``v`` sets (the last one when none is set, so the error names it)."""
    return next((k for k in keys if v.get(k)), keys[-1])


def vision(raw: dict[str, Any], text_hidden: int, label: str) -> dict[str, Any] | None:
    """The vision tower entry from ``vision_config``, or None when the config has none.

    MoonViT (Kimi-K2.5) spells its shape ``vt_*`` and its projector's output ``text_hidden_size``; every
    tower must have square attention (:func:`check_attention`).
    """
    v = raw.get("vision_config")
    if not v:
        return None
    if not isinstance(v, dict) or not v.get(hidden := _first(v, "hidden_size", "vt_hidden_size")):
        raise UsageError(f"{label}: vision_config: a vision tower without hidden_size is not modelled")

    def count(key: str, value: Any) -> int:
        return as_count(value, label, f"vision_config.{key}")

    check_attention(v, count(hidden, v[hidden]), label)
    deepstack = as_list(v.get("deepstack_visual_indexes"), label, "vision_config.deepstack_visual_indexes")
    merge = merge_size(raw, v, label)
    inter, out = (
        _first(v, "intermediate_size", "vt_intermediate_size"),
        _first(v, "out_hidden_size", "text_hidden_size"),
    )
    return {
        "layers": count(
            depth := _first(v, "depth", "num_hidden_layers", "vt_num_hidden_layers"), v.get(depth)
        ),
        "hidden_size": count(hidden, v[hidden]),
        "intermediate_size": count(inter, v.get(inter)),
        "patch_size": count("patch_size", v.get("patch_size", 14)),
        "out_hidden_size": count(out, v.get(out) or text_hidden),
        "merge_size": merge,
        "pooling_size": count("pooling_kernel_size", v.get("pooling_kernel_size") or 1),
        "mergers": 1 + len(deepstack),
        "gated_mlp": v.get("model_type") == "pixtral",
        "max_tokens_per_item": max_image_tokens(raw, v, merge, label),
    }


def merge_size(raw: dict[str, Any], v: dict[str, Any], label: str) -> int:
    """Patches merged per side into one token: ``spatial_merge_size``, MoonViT's square ``merge_kernel_size``,
    or Llama 4's ``1 / pixel_shuffle_ratio``; 1 when none is set."""
    if v.get("model_type") == "llama4_vision_model":
        return as_count(round(1 / shuffle_ratio(v, label)), label, "vision_config.pixel_shuffle_ratio")
    kernel = v.get("merge_kernel_size")
    if kernel is not None:
        sides = as_list(kernel, label, "vision_config.merge_kernel_size")
        if len(set(sides)) != 1:
            raise UsageError(f"{label}: vision_config.merge_kernel_size: a non-square merge is not modelled")
        return as_count(sides[0], label, "vision_config.merge_kernel_size")
    return as_count(
        v.get("spatial_merge_size") or raw.get("spatial_merge_size") or 1, label, "spatial_merge_size"
    )


def check_attention(v: dict[str, Any], hidden: int, label: str) -> None:
    """The tower's q, k, v and o must be hidden x hidden, as the weights formula counts them: as many KV heads
    as heads, and heads x ``head_dim`` (and ``global_head_dim``) equal to the hidden size where stated."""
    heads = v.get(_first(v, "num_attention_heads", "num_heads", "vt_num_attention_heads"))
    kv = v.get("num_key_value_heads")
    if heads is not None and kv is not None and kv != heads:
        raise UsageError(
            f"{label}: vision_config.num_key_value_heads: a grouped-query vision tower is not modelled"
        )
    for key in ("head_dim", "global_head_dim"):
        if (
            heads is not None
            and v.get(key) is not None
            and as_count(heads, label, "heads") * v[key] != hidden
        ):
            raise UsageError(f"{label}: vision_config.{key}: heads x {key} must equal hidden_size ({hidden})")
    mm = v.get("mm_hidden_size")
    if mm is not None and mm != hidden:
        raise UsageError(
            f"{label}: vision_config.mm_hidden_size: a projector input other than the tower's width"
        )


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


KIMI_K25_PROFILE_SIDE = 3000
"""The square dummy image Kimi-K2.5's profile run encodes (``vllm-project/vllm:vllm/model_executor/models/
kimi_k25.py`` ``MaxImageTokenMeta``; a 4-frame video chunk at that size gives fewer tokens)."""
KIMI_K25_PATCH_LIMIT, KIMI_K25_SIDE_LIMIT = 16384, 512
"""``media_proc_cfg`` ``in_patch_limit`` and ``patch_limit_on_one_side`` of Kimi-K2.5's
``preprocessor_config.json`` (not in config.json; the same values in every public reimplementation found:
code-index ids 54589287414, 54661532838, 57858465447)."""


def moonvit_image_tokens(patch: int, merge: int, side: int = KIMI_K25_PROFILE_SIDE) -> int:
    """Tokens of a ``side`` x ``side`` image after Kimi-K2.5's NaViT resize: scaled to at most
    :data:`KIMI_K25_PATCH_LIMIT` patches (and :data:`KIMI_K25_SIDE_LIMIT` a side), then padded up to whole
    ``merge`` x ``merge`` groups: ``media_utils.py`` ``navit_resize_image`` (4225 for 3000 px and 14-px
    patches)."""
    cells = max(1, side // patch)
    scale = min(1.0, (KIMI_K25_PATCH_LIMIT / cells**2) ** 0.5, KIMI_K25_SIDE_LIMIT * patch / side)
    pixels = min(max(1, int(side * scale)), KIMI_K25_SIDE_LIMIT * patch)
    tokens_per_side = -(-pixels // (merge * patch))
    return tokens_per_side**2


def max_image_tokens(raw: dict[str, Any], v: dict[str, Any], merge: int, label: str) -> int:
    """Encoder output tokens of the largest image: the config's own count, else the rule of the tower's type.

    Pixtral (Mistral Small 3.x) encodes images up to ``image_size`` pixels a side in ``patch_size``
    patches merged ``merge`` x ``merge``: ``(image_size // (patch_size * merge))²`` tokens (the
    ``[IMG_BREAK]`` row markers are text tokens, not encoder outputs). Qwen-VL towers take the
    processor's limit (:data:`QWEN_VL_MAX_IMAGE_TOKENS`); Llama 4's, :func:`llama4_image_tokens`; MoonViT's,
    :func:`moonvit_image_tokens`.
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
    if "vt_hidden_size" in v:
        return moonvit_image_tokens(
            as_count(v.get("patch_size", 14), label, "vision_config.patch_size"), merge
        )
    raise UsageError(
        f"{label}: vision_config.model_type: a {plain(kind) if kind else 'untyped'} vision tower whose "
        "largest image "
        f"the config does not state is not modelled"
    )
