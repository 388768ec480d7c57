"""Fields that size memory are integers vLLM can use, consistent, and finite; each refusal is one line."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from sizing.cli import main
from sizing.engine.hf_config import Config, as_count, as_fraction, check_heads
from sizing.engine.importer import model_from_config, model_from_config_file
from sizing.errors import UsageError

DATA = Path(__file__).parents[1] / "data" / "hf_configs"
QWEN = "Qwen--Qwen3-14B.json"
SUPER = "nvidia--NVIDIA-Nemotron-3-Super-120B-A12B-FP8.json"


def _raw(name: str = QWEN) -> dict:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (36.5, "36.5"),
        (True, "true"),
        (36.0, "36.0"),
        ("36", "str"),
        (math.inf, "Infinity"),
        (math.nan, "NaN"),
        (None, "NoneType"),
    ],
)
def test_a_count_must_be_a_json_integer(value, shown):
    with pytest.raises(UsageError, match=rf"^f: num_hidden_layers: must be an integer, got {shown}$"):
        as_count(value, "f", "num_hidden_layers")


def test_a_count_has_bounds():
    assert as_count(0, "f", "k", minimum=0) == 0
    with pytest.raises(UsageError, match="must be between 1 and"):
        as_count(0, "f", "k")
    with pytest.raises(UsageError, match="got 1000000000001"):
        as_count(10**12 + 1, "f", "k")


def test_a_fraction_must_be_finite_and_at_most_one():
    assert as_fraction(0.25, "f", "partial_rotary_factor") == 0.25
    for bad in (math.inf, math.nan, True, 0, 1.5):
        with pytest.raises(UsageError, match="partial_rotary_factor"):
            as_fraction(bad, "f", "partial_rotary_factor")


@pytest.mark.parametrize(
    ("kv", "problem"),
    [
        (48, "must be at most num_attention_heads \\(40\\), got 48"),
        (6, "must divide num_attention_heads \\(40\\), got 6"),
    ],
)
def test_kv_heads_must_divide_the_heads(kv, problem):
    raw = _raw()
    raw["num_key_value_heads"] = kv
    with pytest.raises(UsageError, match=f"^cfg.json: num_key_value_heads: {problem}$"):
        check_heads(Config(raw, "cfg.json"))


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("num_hidden_layers", 36.5),
        ("num_hidden_layers", True),
        ("hidden_size", 1e309),
        ("vocab_size", -1),
        ("head_dim", "128"),
        ("max_position_embeddings", math.nan),
        ("num_attention_heads", False),
        ("intermediate_size", 17408.5),
    ],
)
def test_every_field_that_sizes_memory_is_refused_by_name(field, value):
    raw = _raw()
    raw[field] = value
    with pytest.raises(UsageError, match=f"^cfg.json: {field}: "):
        model_from_config(raw, "Qwen/Qwen3-14B", "cfg.json")


def test_a_flag_must_be_a_boolean():
    raw = _raw()
    raw["tie_word_embeddings"] = 1
    with pytest.raises(UsageError, match="tie_word_embeddings: must be true or false, got 1"):
        model_from_config(raw, "Qwen/Qwen3-14B", "cfg.json")


def test_infinity_is_read_where_vllm_reads_it_and_refused_where_it_sizes_memory(tmp_path):
    """Nemotron-3-Super's config.json holds ``"time_step_limit": [0.0, Infinity]``; Python's json loads it."""
    assert "Infinity" in (DATA / SUPER).read_text(encoding="utf-8")
    assert model_from_config_file(DATA / SUPER).layers == 88
    text = (
        (DATA / SUPER)
        .read_text(encoding="utf-8")
        .replace('"num_hidden_layers": 88', '"num_hidden_layers": Infinity')
    )
    (tmp_path / "config.json").write_text(text, encoding="utf-8")
    with pytest.raises(UsageError, match="num_hidden_layers: must be a finite number, got Infinity"):
        model_from_config_file(tmp_path / "config.json")


REFUSALS = [
    ({"num_hidden_layers": 36.5}, "num_hidden_layers: must be an integer, got 36.5"),
    ({"num_hidden_layers": True}, "num_hidden_layers: must be an integer, got true"),
    ({"num_key_value_heads": 64}, "num_key_value_heads: must be at most num_attention_heads (40), got 64"),
    ({"hidden_size": 1e309}, "hidden_size: must be a finite number, got Infinity"),
    ({"head_dim": math.nan}, "head_dim: must be a finite number, got NaN"),
    ({"layer_types": ["full_attention"] * 3}, "layer_types: must name num_hidden_layers (40) layers, got 3"),
    ({"mystery_width": 4096}, "mystery_width: a config key the sizing engine does not know"),
]


@pytest.mark.parametrize(("change", "message"), REFUSALS)
def test_import_config_exits_2_with_one_line_naming_file_and_field(tmp_path, capsys, change, message):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**_raw(), **change}), encoding="utf-8")
    assert main(["import-config", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and str(path) in err and message in err


HOSTILE = [  # (fixture, path to the value, value, the field the one line names)
    ("Qwen--Qwen3-30B-A3B.json", ("layer_types",), 36.5, "layer_types"),
    ("Qwen--Qwen3-30B-A3B.json", ("architectures",), True, "architectures"),
    (
        "moonshotai--Kimi-Linear-48B-A3B-Instruct.json",
        ("linear_attn_config", "kda_layers"),
        1.5,
        "linear_attn_config.kda_layers",
    ),
    (
        "Qwen--Qwen3-32B-FP8.json",
        ("quantization_config", "modules_to_not_convert"),
        True,
        "quantization_config.modules_to_not_convert",
    ),
    (
        "Qwen--Qwen3-VL-30B-A3B-Instruct.json",
        ("vision_config", "deepstack_visual_indexes"),
        1,
        "vision_config.deepstack_visual_indexes",
    ),
    (
        "meta-llama--Llama-4-Maverick-17B-128E-Instruct.json",
        ("vision_config", "pixel_shuffle_ratio"),
        math.nan,
        "vision_config.pixel_shuffle_ratio",
    ),
    (
        "meta-llama--Llama-4-Maverick-17B-128E-Instruct.json",
        ("vision_config", "pixel_shuffle_ratio"),
        "x",
        "vision_config.pixel_shuffle_ratio",
    ),
]


@pytest.mark.parametrize(("fixture", "path", "value", "field"), HOSTILE)
def test_a_hostile_value_in_any_field_read_is_one_line_naming_it(fixture, path, value, field):
    """Values a fuzz over every read field found ending in a traceback (AttributeError, TypeError)."""
    raw = _raw(fixture)
    node = raw
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    with pytest.raises(UsageError, match=rf"^cfg\.json: {re.escape(field)}: ") as caught:
        model_from_config(raw, "a/b", "cfg.json")
    assert "\n" not in str(caught.value)
