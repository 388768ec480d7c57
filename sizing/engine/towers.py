"""Multimodal towers: the vision encoder's weights and its share of vLLM's profile run. Units: params, bytes.

vLLM loads the tower with the text model (unless ``--language-model-only``) and keeps it in the
checkpoint's BF16. Before the KV cache is sized, the profile run encodes dummy items of the largest
feature size: as many as the encoder cache budget (``max(max_num_batched_tokens, largest item)``
tokens) holds, capped by ``--limit-mm-per-prompt`` (source: ``vllm/v1/worker/gpu_model_runner.py:
GpuModelRunner.profile_run`` and ``_get_mm_dummy_batch``; ``vllm/v1/core/encoder_cache_manager.py:
compute_encoder_budget``). A zero limit for every modality skips that pass.
"""

from __future__ import annotations

import json

import numpy as np

from sizing import safeio
from sizing.catalog.schema import VisionTower
from sizing.errors import CatalogError

ArrayLike = np.ndarray | int | float
ACTIVATION_BYTES = 2
PROFILE_FACTOR = 1.0
"""Live (hidden + intermediate) activations per patch at the encoder's peak, in units of one BF16 copy."""


def image_limit(text: str) -> int | None:
    """Images per prompt from vLLM's ``--limit-mm-per-prompt`` JSON (``'{"image": 0}'``); ValueError
    otherwise.

    The profile run encodes the modality with the largest items, images for the towers modelled here;
    a limit given for other modalities only is no image limit (None).
    """
    try:
        limits = safeio.parse_json(text, "--limit-mm-per-prompt")
    except CatalogError:
        raise ValueError(f"not a JSON object such as '{{\"image\": 1}}': {text!r}") from None
    if not isinstance(limits, dict) or not all(isinstance(v, int) and v >= 0 for v in limits.values()):
        raise ValueError(f"expected modality counts >= 0 such as '{{\"image\": 1}}', got {text!r}")
    return int(limits["image"]) if "image" in limits else None


def limit_flag(limit: int) -> str:
    """The ``--limit-mm-per-prompt`` value of an image limit, as vLLM parses it."""
    return "'" + json.dumps({"image": int(limit)}) + "'"


def vision_params(v: VisionTower) -> int:
    """Parameters of the tower: blocks (q, k, v, o and a 2- or 3-matrix MLP), patch embedding, projectors."""
    mlp = (3 if v.gated_mlp else 2) * v.hidden_size * v.intermediate_size
    blocks = v.layers * (4 * v.hidden_size**2 + mlp)
    patch = 3 * 2 * v.patch_size**2 * v.hidden_size  # RGB, two temporal frames per patch (video-ready)
    merged = v.hidden_size * v.merge_size**2
    projector = v.mergers * (merged * merged + merged * v.out_hidden_size)
    return blocks + patch + projector


def profiled_items(
    budget_tokens: ArrayLike, item_tokens: ArrayLike, limit: ArrayLike, limited: ArrayLike
) -> np.ndarray:
    """How many dummy items the profile run encodes: the budget's worth of largest items, at most ``limit``.

    ``limit`` applies where ``limited`` (a ``--limit-mm-per-prompt`` was given); 0 skips the encoder
    profile (text-only serving).
    """
    fits = np.maximum(np.asarray(budget_tokens) // np.maximum(np.asarray(item_tokens), 1), 1)
    return np.where(np.asarray(limited, dtype=bool), np.minimum(fits, limit), fits).astype(np.int64)


def encoder_profile_bytes(
    items: ArrayLike,
    item_tokens: ArrayLike,
    merge: ArrayLike,
    hidden: ArrayLike,
    inter: ArrayLike,
    out_hidden: ArrayLike,
    factor: float,
) -> np.ndarray:
    """Peak memory of the encoder's profile pass above the weights, bytes (0 for 0 items or no tower).

    The items' patches (``tokens × merge²``) run through one tower block at a time: ``factor`` ×
    (hidden + intermediate) activations per patch, plus the encoder outputs the cache holds
    (``tokens × out_hidden``), both in BF16.
    """
    tokens = np.asarray(items) * np.asarray(item_tokens)
    patches = tokens * np.asarray(merge) ** 2
    block = factor * patches * (np.asarray(hidden) + np.asarray(inter)) * ACTIVATION_BYTES
    outputs = tokens * np.asarray(out_hidden) * ACTIVATION_BYTES
    return np.where(tokens > 0, block + outputs, 0.0)
