"""Vision towers: the largest image's encoder tokens by the tower's own rule, or a refusal by name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sizing.engine.hf_vision import llama4_image_tokens, moonvit_image_tokens, vision
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


def _tower(fixture: str) -> dict:
    return json.loads((DATA / fixture).read_text(encoding="utf-8"))


def test_moonvit_resizes_vllms_3000_px_dummy_image_to_4225_tokens():
    # 214 patches a side scaled by sqrt(16384) / 214 -> 1794 px, padded to 1820 = 65 groups of 2 x 14 px
    assert moonvit_image_tokens(14, 2) == 65**2 == 4225
    assert moonvit_image_tokens(14, 2, side=448) == 16**2  # a small image is not scaled up


def test_gemma4_pools_3x3_patches_into_each_token():
    tower = vision(_tower("google--gemma-4-31B-it.json"), 5376, "f")
    assert tower is not None
    assert (tower["merge_size"], tower["pooling_size"], tower["max_tokens_per_item"]) == (1, 3, 280)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"num_key_value_heads": 4}, "vision_config.num_key_value_heads: a grouped-query vision tower"),
        ({"head_dim": 64}, "vision_config.head_dim: heads x head_dim must equal hidden_size \\(1152\\)"),
    ],
)
def test_a_tower_whose_attention_is_not_square_is_refused(change, message):
    raw = _tower("google--gemma-4-31B-it.json")
    raw["vision_config"].update(change)
    with pytest.raises(UsageError, match=message):
        vision(raw, 5376, "f")


def test_a_non_square_merge_kernel_is_refused():
    raw = _tower("moonshotai--Kimi-K2.5.json")
    raw["vision_config"]["merge_kernel_size"] = [2, 1]
    with pytest.raises(UsageError, match="vision_config.merge_kernel_size: a non-square merge"):
        vision(raw, 7168, "f")
