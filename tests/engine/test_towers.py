"""Vision towers: parameters from vision_config, the profile run's items and bytes, the CLI's limit."""

from __future__ import annotations

import numpy as np
import pytest

from sizing.catalog.schema import VisionTower
from sizing.engine.towers import encoder_profile_bytes, image_limit, limit_flag, profiled_items, vision_params

QWEN3_VL = VisionTower(
    layers=27,
    hidden_size=1152,
    intermediate_size=4304,
    patch_size=16,
    out_hidden_size=2048,
    merge_size=2,
    mergers=4,
    max_tokens_per_item=16384,
)


def test_qwen3_vl_tower_is_about_half_a_billion_parameters():
    blocks = 27 * (4 * 1152**2 + 2 * 1152 * 4304)
    mergers = 4 * (4608 * 4608 + 4608 * 2048)
    assert vision_params(QWEN3_VL) == blocks + 3 * 2 * 16 * 16 * 1152 + mergers
    assert 0.5e9 < vision_params(QWEN3_VL) < 0.56e9


def test_profiled_items_fill_the_budget_within_the_limit():
    # budget max(8192, 16384) holds one 16384-token image; 280-token images: 29 fit 8192, limit 2 caps
    assert profiled_items(
        np.array([16384, 8192, 8192, 8192]),
        np.array([16384, 280, 280, 280]),
        np.array([0, 0, 2, 0]),
        np.array([False, False, True, True]),
    ).tolist() == [1, 29, 2, 0]


def test_encoder_bytes_scale_with_patches_and_vanish_without_items():
    one = encoder_profile_bytes(1, 16384, 2, 1152, 4304, 2048, 1.0)
    assert float(one) == pytest.approx(65536 * 5456 * 2 + 16384 * 2048 * 2)
    assert float(encoder_profile_bytes(0, 16384, 2, 1152, 4304, 2048, 1.0)) == 0


def test_limit_flag_round_trips_vllms_json():
    assert image_limit('{"image": 0, "video": 1}') == 0
    assert image_limit('{"video": 0}') is None
    assert limit_flag(2) == """'{"image": 2}'"""
    for bad in ("image=2", '{"image": -1}', "[1]"):
        with pytest.raises(ValueError):
            image_limit(bad)
