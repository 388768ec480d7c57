"""The importer knows every key of a config.json: modelled, listed as not changing memory, or refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sizing.engine.config_keys import MODELLED, NEUTRAL, NO_MEMORY, QUANT_KEYS, check_keys, quant_notes
from sizing.engine.importer import model_from_config, model_from_config_file
from sizing.errors import UsageError

DATA = Path(__file__).parents[1] / "data" / "hf_configs"
FIXTURES = sorted(DATA.glob("*.json"))


def _raw(name: str) -> dict:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def test_the_lists_are_disjoint_and_every_unmodelled_key_has_its_reason():
    assert (
        not MODELLED & NO_MEMORY.keys()
        and not MODELLED & NEUTRAL.keys()
        and not NO_MEMORY.keys() & NEUTRAL.keys()
    )
    assert all(len(reason) > 20 for reason in NO_MEMORY.values())
    assert {"time_step_limit", "bos_token_id", "rope_theta", "transformers_version"} <= NO_MEMORY.keys()


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_every_real_config_uses_known_keys_only(path):
    raw = json.loads(path.read_text(encoding="utf-8"))
    text = raw.get("text_config") or {}
    check_keys({**raw, **text}, raw.get("quantization_config") or text.get("quantization_config"), path.name)


@pytest.mark.parametrize("key", sorted(NO_MEMORY))
def test_a_key_listed_as_not_changing_memory_changes_nothing(key):
    """Setting any listed key, to any value, leaves the imported entry as it was."""
    base = model_from_config(_raw("Qwen--Qwen3-30B-A3B.json"), "Qwen/Qwen3-30B-A3B", "cfg.json")
    raw = _raw("Qwen--Qwen3-30B-A3B.json")
    raw[key] = {"any": ["value", 3.5]}
    assert model_from_config(raw, "Qwen/Qwen3-30B-A3B", "cfg.json") == base


def test_an_unknown_key_stops_the_import_naming_key_and_file():
    raw = _raw("Qwen--Qwen3-14B.json")
    raw["text_config"] = {"expert_shape_multiplier": 2}
    with pytest.raises(
        UsageError,
        match=r"^cfg\.json: expert_shape_multiplier: a config key the sizing engine "
        r"does not know; it may change memory, so the config is not imported$",
    ):
        model_from_config(raw, "Qwen/Qwen3-14B", "cfg.json")


def test_an_unknown_quantization_key_is_named_with_its_section():
    raw = _raw("Qwen--Qwen3-32B-FP8.json")
    raw["quantization_config"]["sparsity_pattern"] = "2:4"
    with pytest.raises(UsageError, match="quantization_config.sparsity_pattern: a config key"):
        model_from_config(raw, "Qwen/Qwen3-32B-FP8", "cfg.json")
    assert "sparsity_pattern" not in QUANT_KEYS


@pytest.mark.parametrize(
    ("key", "value", "asks"),
    [
        ("audio_config", {"hidden_size": 1024}, "an audio tower"),
        ("hidden_size_per_layer_input", 256, "per-layer input embeddings"),
        ("use_double_wide_mlp", True, "double-width MLPs"),
        ("vision_feature_layer", -2, "a vision tower cut below its last layer"),
    ],
)
def test_a_key_away_from_its_neutral_value_is_refused_by_name(key, value, asks):
    raw = _raw("google--gemma-4-31B-it.json")
    model_from_config(raw, "google/gemma-4-31B-it", "cfg.json")  # the neutral values the real file holds
    raw["text_config"][key] = value
    with pytest.raises(UsageError, match=f"^cfg.json: {key}: asks for {asks}"):
        model_from_config(raw, "google/gemma-4-31B-it", "cfg.json")


def test_a_checkpoint_that_asks_for_an_fp8_kv_cache_says_so_in_its_notes():
    model = model_from_config_file(DATA / "nvidia--Qwen3.6-27B-NVFP4.json")
    assert (
        model.notes is not None and "kv_cache_scheme" in model.notes and "--kv-cache-dtype fp8" in model.notes
    )
    assert quant_notes({"kv_cache_scheme": None}) == []


def test_a_key_with_a_newline_cannot_break_the_one_line():
    raw = _raw("Qwen--Qwen3-14B.json")
    raw["evil\nkey" + "x" * 500] = 1
    with pytest.raises(UsageError) as caught:
        model_from_config(raw, "Qwen/Qwen3-14B", "cfg.json")
    assert (
        "\n" not in str(caught.value) and len(str(caught.value)) < 250 and "'evil\\nkey" in str(caught.value)
    )
