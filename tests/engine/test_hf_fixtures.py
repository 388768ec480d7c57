"""The Hugging Face config.json fixtures parse and carry the fields tests rely on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "data" / "hf_configs"
FILES = sorted(FIXTURES.glob("*.json"))


def _load(name: str) -> dict:
    """Parse one fixture by file stem."""
    return json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))


def test_fixture_set_is_complete() -> None:
    assert len(FILES) == 31
    sources = (FIXTURES / "SOURCES.md").read_text(encoding="utf-8")
    for path in FILES:
        assert f"`{path.name}`" in sources, f"{path.name} has no entry in SOURCES.md"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_fixture_parses_with_architectures(path: Path) -> None:
    config = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(config["architectures"], list) and config["architectures"]
    assert all(isinstance(arch, str) for arch in config["architectures"])


def test_quantized_fixtures_carry_quantization_config() -> None:
    assert _load("openai--gpt-oss-120b")["quantization_config"]["quant_method"] == "mxfp4"
    assert _load("openai--gpt-oss-20b")["quantization_config"]["quant_method"] == "mxfp4"
    fp8 = _load("Qwen--Qwen3-32B-FP8")["quantization_config"]
    assert (fp8["quant_method"], fp8["weight_block_size"]) == ("fp8", [128, 128])
    assert _load("deepseek-ai--DeepSeek-V3")["quantization_config"]["quant_method"] == "fp8"
    kimi = _load("moonshotai--Kimi-K2.5")["text_config"]["quantization_config"]
    assert (kimi["quant_method"], kimi["config_groups"]["group_0"]["weights"]["group_size"]) == (
        "compressed-tensors",
        32,
    )


def test_shapes_the_sizing_engine_reads() -> None:
    qwen14 = _load("Qwen--Qwen3-14B")
    assert (qwen14["num_hidden_layers"], qwen14["num_key_value_heads"], qwen14["head_dim"]) == (40, 8, 128)
    assert _load("deepseek-ai--DeepSeek-V3")["kv_lora_rank"] == 512
    scout = _load("meta-llama--Llama-4-Scout-17B-16E-Instruct")["text_config"]
    assert (scout["num_local_experts"], scout["num_hidden_layers"]) == (16, 48)
    hybrid = _load("Qwen--Qwen3.5-35B-A3B")["text_config"]
    assert hybrid["layer_types"].count("full_attention") == hybrid["num_hidden_layers"] // 4


def test_linear_attention_hybrid_layouts() -> None:
    kimi = _load("moonshotai--Kimi-Linear-48B-A3B-Instruct")["linear_attn_config"]
    assert sorted(kimi["kda_layers"] + kimi["full_attn_layers"]) == list(range(1, 28))
    pattern = _load("nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16")["hybrid_override_pattern"]
    assert (len(pattern), pattern.count("M"), pattern.count("*"), pattern.count("E")) == (52, 23, 6, 23)
