"""Every ``vision_config`` key the importer knows: read into the tower entry, or known not to change memory.

The top level and ``text_config`` are checked by :mod:`sizing.engine.config_keys`; this module does the
same for the vision tower's own sub-config (``audio_config`` must be empty there, so its keys never
count). A sub-key in no list stops the import with one line naming ``vision_config.<key>`` and the file.
Keys the top level also knows (dropout, norm epsilon, activation, token ids, transformers bookkeeping)
keep the reason :data:`sizing.engine.config_keys.NO_MEMORY` gives them.
"""

from __future__ import annotations

from typing import Any, Callable

from sizing.engine.config_keys import NO_MEMORY, check_neutral
from sizing.engine.hf_config import plain
from sizing.errors import UsageError

VISION_MODELLED = frozenset(
    {
        # the tower's shape (sizing/engine/hf_vision.py)
        "model_type",
        "hidden_size",
        "vt_hidden_size",
        "depth",
        "num_hidden_layers",
        "vt_num_hidden_layers",
        "intermediate_size",
        "vt_intermediate_size",
        "patch_size",
        "out_hidden_size",
        "text_hidden_size",
        "spatial_merge_size",
        "merge_kernel_size",
        "pooling_kernel_size",
        "deepstack_visual_indexes",
        # attention shape: q, k, v and o are hidden x hidden when heads x head_dim = hidden (checked)
        "num_attention_heads",
        "num_heads",
        "vt_num_attention_heads",
        "num_key_value_heads",
        "head_dim",
        "global_head_dim",
        # the largest image vLLM profiles with
        "image_size",
        "pixel_shuffle_ratio",
        "image_seq_length",
        "mm_hidden_size",
    }
)
"""Sub-keys :func:`sizing.engine.hf_vision.vision` reads or checks."""

_POSITIONS = (
    "a learned position table (Qwen3-VL 2304 x hidden, Gemma 4 2 x 10240 x hidden, MoonViT 64 x 64 x hidden: "
    "3 to 24 million parameters, under 0.1 % of the model's weights), not counted"
)
_PATCH = "the patch embedding's input frames, costed as two (under 0.2 % of the tower's weights)"
_PROJECTOR = (
    "Llama 4's adapter widths: the projector is costed as a patch merger (merged² + merged x text hidden), "
    "within 1 % of Llama 4's adapter at its published widths"
)

VISION_NO_MEMORY: dict[str, str] = {
    **dict.fromkeys(("num_position_embeddings", "position_embedding_size"), _POSITIONS),
    **dict.fromkeys(("init_pos_emb_height", "init_pos_emb_width", "init_pos_emb_time"), _POSITIONS),
    "pos_emb_type": "how the position table is interpolated: no tensor shape depends on it",
    "temporal_patch_size": _PATCH,
    **dict.fromkeys(("projector_input_dim", "projector_output_dim", "vision_output_dim"), _PROJECTOR),
    "default_output_length": "Gemma 4's default soft tokens per image: image_seq_length sizes the profile",
    "video_seq_length": "soft tokens per video frame, below the image's: the profile runs the image",
    "merge_type": "how MoonViT pools a video chunk's frames: an image, which vLLM profiles, has one frame",
    "video_attn_type": "MoonViT's attention pattern over video frames: no tensor shape depends on it",
    "vision_feature_select_strategy": "which encoder outputs are kept (with or without CLS): same tensors",
    "standardize": "Gemma 4's input standardisation: two hidden-sized vectors",
    "use_clipped_linears": "Gemma 4's activation clipping bounds: scalars per linear layer",
    "projector_ln_eps": "norm epsilon or a numerical constant: no tensor shape depends on it",
    "projector_dropout": "dropout: a training setting, no tensor",
    "_attn_implementation": "transformers' attention kernel choice; vLLM picks its own",
    **dict.fromkeys(
        ("multi_modal_projector_bias", "attention_bias"),
        "bias vectors: one value per output channel, below 0.01 % of the weights",
    ),
    "rope_parameters": "the tower's 2D rotary positions, computed per image: no table vLLM sizes by it",
    "max_position_embeddings": "the tower's rotary position limit: no table vLLM sizes by it",
    **dict.fromkeys(("dtype", "torch_dtype"), "the tower loads in the model's dtype (vLLM's --dtype)"),
    "architectures": "the tower's transformers class; vLLM builds the tower of the top-level architecture",
}
"""Sub-keys of ``vision_config`` only, known not to change what vLLM allocates (or costed within the stated
share), each with the reason."""


def _rgb(value: Any) -> bool:
    return value in (None, 3)


VISION_NEUTRAL: dict[str, tuple[Callable[[Any], bool], str]] = {
    "in_channels": (
        _rgb,
        "a patch embedding over other than 3 (RGB) channels, which the engine does not model",
    ),
    "num_channels": (
        _rgb,
        "a patch embedding over other than 3 (RGB) channels, which the engine does not model",
    ),
    "vision_feature_layer": (
        lambda v: v in (None, -1),
        "a vision tower cut below its last layer (vLLM then builds fewer layers), which the engine does "
        "not model",
    ),
    "mm_projector_type": (
        lambda v: v in (None, "patchmerger"),
        "a projector other than MoonViT's patch merger, which the engine does not model",
    ),
}
"""Sub-keys that change memory unless they hold their neutral value: (is neutral, what the value asks for)."""


def unknown_vision_key(v: dict[str, Any]) -> str | None:
    """The first ``vision_config`` key (sorted) the importer does not know, or None."""
    known = VISION_MODELLED | VISION_NO_MEMORY.keys() | VISION_NEUTRAL.keys() | NO_MEMORY.keys()
    return next((key for key in sorted(v) if key not in known), None)


def check_vision_keys(v: Any, label: str) -> None:
    """Refuse, with one line naming ``vision_config.<key>`` and the file, a sub-key the importer does not know
    or a neutral one set to a value that changes memory. A missing or empty ``vision_config`` passes."""
    if not isinstance(v, dict):
        return
    key = unknown_vision_key(v)
    if key is not None:
        raise UsageError(
            f"{label}: vision_config.{plain(key)}: a vision_config key the sizing engine does not know; "
            f"it may change memory, so the config is not imported"
        )
    check_neutral(v, VISION_NEUTRAL, label, "vision_config.")
