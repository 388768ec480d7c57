"""Every vision_config key is known: modelled, listed with a reason, or refused by name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sizing.engine.config_keys import MODELLED, NO_MEMORY
from sizing.engine.vision_keys import (
    VISION_MODELLED,
    VISION_NEUTRAL,
    VISION_NO_MEMORY,
    check_vision_keys,
    unknown_vision_key,
)
from sizing.errors import UsageError

DATA = Path(__file__).parents[1] / "data" / "hf_configs"
TOWERS = sorted(p.name for p in DATA.glob("*.json") if "vision_config" in p.read_text(encoding="utf-8"))


@pytest.mark.parametrize("fixture", TOWERS)
def test_every_vision_key_of_the_fixtures_is_known(fixture):
    raw = json.loads((DATA / fixture).read_text(encoding="utf-8"))
    assert unknown_vision_key(raw["vision_config"]) is None


def test_the_lists_do_not_overlap_and_every_reason_is_a_sentence():
    assert not VISION_MODELLED & VISION_NO_MEMORY.keys()
    assert not (VISION_MODELLED | VISION_NO_MEMORY.keys()) & VISION_NEUTRAL.keys()
    assert not VISION_NO_MEMORY.keys() & NO_MEMORY.keys()
    assert all(len(reason) > 20 for reason in VISION_NO_MEMORY.values())
    assert "rope_parameters" in MODELLED and "rope_parameters" in VISION_NO_MEMORY  # the top level reads it


def test_an_unknown_vision_key_names_the_sub_config_and_the_file():
    with pytest.raises(UsageError, match=r"^cfg.json: vision_config.num_experts: a vision_config key"):
        check_vision_keys({"hidden_size": 1152, "num_experts": 8}, "cfg.json")


@pytest.mark.parametrize(
    ("key", "value"), [("in_channels", 4), ("vision_feature_layer", -2), ("mm_projector_type", "mlp2x")]
)
def test_a_neutral_key_with_a_memory_changing_value_is_refused(key, value):
    with pytest.raises(UsageError, match=f"vision_config.{key}: asks for"):
        check_vision_keys({key: value}, "cfg.json")
    check_vision_keys({key: None}, "cfg.json")


def test_no_vision_config_passes():
    check_vision_keys(None, "cfg.json")
    check_vision_keys({}, "cfg.json")
