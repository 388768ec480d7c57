"""Linear-attention layers from real hybrid configs, and the checks on their layouts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sizing.engine.hf_config import Config
from sizing.engine.hf_linear import block_counts, linear_attention
from sizing.errors import UsageError

DATA = Path(__file__).parents[1] / "data" / "hf_configs"
SUPER = "nvidia--NVIDIA-Nemotron-3-Super-120B-A12B-FP8.json"


def _cfg(name: str, **change: object) -> Config:
    raw = json.loads((DATA / name).read_text(encoding="utf-8"))
    return Config({**raw, **change}, "cfg.json")


def test_nemotron_3_super_pattern_counts_its_blocks():
    counts = block_counts(_cfg(SUPER), 88)
    assert counts == {"mamba": 40, "attention": 8, "mlp_only": 40, "moe": 40}
    la = linear_attention(_cfg(SUPER), 88)
    assert la is not None
    assert (la["kind"], la["layers"], la["num_key_heads"], la["num_value_heads"], la["ssm_dtype_bytes"]) == (
        "mamba2",
        40,
        8,
        128,
        4,
    )


@pytest.mark.parametrize("pattern", ["MEME", "MEMX" * 22])
def test_a_pattern_that_does_not_name_every_layer_is_refused(pattern):
    with pytest.raises(
        UsageError,
        match="^cfg.json: hybrid_override_pattern: must give one of 'M\\*-E' for each "
        "of the num_hidden_layers \\(88\\) layers$",
    ):
        block_counts(_cfg(SUPER, hybrid_override_pattern=pattern), 88)


def test_kda_sizes_are_integers():
    raw = json.loads((DATA / "moonshotai--Kimi-Linear-48B-A3B-Instruct.json").read_text(encoding="utf-8"))
    raw["linear_attn_config"]["num_heads"] = 32.5
    with pytest.raises(UsageError, match="linear_attn_config.num_heads: must be an integer, got 32.5"):
        linear_attention(Config(raw, "cfg.json"), 27)


@pytest.mark.parametrize(
    ("fixture", "change", "message"),
    [
        (SUPER, {"mamba_num_heads": 100}, "mamba_num_heads: must be a multiple of n_groups \\(8\\), got 100"),
        (
            "Qwen--Qwen3.6-27B.json",
            {"linear_num_value_heads": 40},
            "linear_num_value_heads: must be a multiple of linear_num_key_heads \\(16\\), got 40",
        ),
    ],
)
def test_heads_must_split_evenly_into_groups(fixture, change, message):
    raw = json.loads((DATA / fixture).read_text(encoding="utf-8"))
    (raw.get("text_config") or raw).update(change)
    with pytest.raises(UsageError, match=f"^cfg.json: {message}$"):
        linear_attention(Config(raw, "cfg.json"), 88 if fixture == SUPER else 64)
