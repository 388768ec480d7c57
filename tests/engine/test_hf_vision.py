"""Vision towers: the largest image's encoder tokens by the tower's own rule, or a refusal by name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sizing.engine.hf_vision import llama4_image_tokens, vision
from sizing.errors import UsageError

DATA = Path(__file__).parents[1] / "data" / "hf_configs"
MAVERICK = DATA / "meta-llama--Llama-4-Maverick-17B-128E-Instruct.json"


def test_llama4_largest_image_is_sixteen_tiles_and_the_global_tile():
    raw = json.loads(MAVERICK.read_text(encoding="utf-8"))
    # 336 px tiles of 14 px patches: 24 x 24 = 576 patches, pixel shuffle 0.5 keeps 144 tokens a tile
    assert llama4_image_tokens(raw["vision_config"], "f") == 17 * 144
    tower = vision(raw, 5120, "f")
    assert tower is not None
    assert (tower["layers"], tower["hidden_size"], tower["merge_size"], tower["gated_mlp"]) == (
        34,
        1408,
        2,
        False,
    )


def test_a_tower_whose_largest_image_is_unknown_is_refused_by_name():
    raw = {
        "vision_config": {
            "model_type": "siglip_vision_model",
            "hidden_size": 1152,
            "num_hidden_layers": 27,
            "intermediate_size": 4304,
            "patch_size": 14,
        }
    }
    with pytest.raises(UsageError, match="^f: vision_config.model_type: a siglip_vision_model vision tower"):
        vision(raw, 2048, "f")
    raw["vision_soft_tokens_per_image"] = 256
    assert vision(raw, 2048, "f")["max_tokens_per_item"] == 256  # type: ignore[index]


def test_tower_sizes_are_integers():
    raw = json.loads(MAVERICK.read_text(encoding="utf-8"))
    raw["vision_config"]["num_hidden_layers"] = 34.5
    with pytest.raises(UsageError, match="vision_config.num_hidden_layers: must be an integer, got 34.5"):
        vision(raw, 5120, "f")
