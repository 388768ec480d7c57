"""Checkpoint formats from quantization_config: a modelopt MIXED_PRECISION checkpoint is read per layer."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sizing.catalog.settings import Settings
from sizing.engine.estimate import estimate
from sizing.engine.hf_quant import checkpoint_formats, mixed_checkpoint, part_of, precision_of
from sizing.engine.importer import model_from_config_file
from sizing.engine.weights import model_parts, total_params, weight_split
from sizing.errors import UsageError

DATA = Path(__file__).parents[1] / "data" / "hf_configs"
MIXED = DATA / "nvidia--Qwen3.6-27B-NVFP4.json"


def test_qwen36_nvfp4_mixed_checkpoint_is_nvfp4_with_fp8_attention():
    """nvidia/Qwen3.6-27B-NVFP4: MLP and LM head W4A16_NVFP4, every attention and GDN projection FP8."""
    ckpt = model_from_config_file(MIXED).checkpoints[0]
    assert (ckpt.precision, ckpt.keeps_fp8, ckpt.keeps_bf16) == ("nvfp4", ["attention"], ["embeddings"])


def test_mixed_checkpoint_weighs_what_its_formats_say(catalog):
    """MLP at NVFP4's 4.5 bits, attention at 1 byte, embeddings at 2: far below the FP8 reading."""
    model = model_from_config_file(MIXED)
    spec = catalog.precisions["nvfp4"]
    split = weight_split(model, model.checkpoints[0], spec)
    as_fp8 = weight_split(
        model,
        model.checkpoints[0].model_copy(update={"precision": "fp8", "keeps_fp8": []}),
        catalog.precisions["fp8"],
    )
    assert split.embeddings == model.vocab_size * model.hidden_size * 2
    assert split.lm_head == model.vocab_size * model.hidden_size * spec.bytes_per_param
    parts = {p.name: p.params for p in model_parts(model)}
    linear = parts["attention"] * 1.0 + parts["dense_mlp"] * spec.bytes_per_param + parts["vision_tower"] * 2
    assert split.layer_sharded == pytest.approx(linear)
    assert split.total / as_fp8.total == pytest.approx(0.72, abs=0.01)  # 21.04 GB against 29.09 GB
    assert total_params(model) / 1e9 == pytest.approx(27.35, abs=0.01)


def test_the_nvfp4_mixed_checkpoint_fits_the_rtx_5090_it_ran_on(catalog):
    row = estimate(catalog, Settings(model=str(MIXED), server="ref-1x-rtx-5090", max_model_len=8192))
    assert row["precision"] == "nvfp4" and bool(row["fits"])
    assert row["w_total"] < 21 * 2**30  # an FP8 reading (about 30 GiB) would not fit 32 GiB


def test_a_layer_table_listing_a_part_in_some_layers_keeps_the_rest_in_bf16():
    layers = {f"model.layers.{i}.mlp.experts": {"quant_algo": "NVFP4"} for i in range(4)}
    layers.update({f"model.layers.{i}.self_attn.q_proj": {"quant_algo": "FP8"} for i in range(3)})
    got = mixed_checkpoint(layers, {"attention": 4, "experts": 4, "router": 4}, "f")
    assert (got["precision"], got["keeps_fp8"]) == ("nvfp4", [])
    assert got["keeps_bf16"] == ["embeddings", "lm_head", "attention", "router"]
    assert "attention mix formats by layer" in got["note"]


@pytest.mark.parametrize(
    ("name", "part"),
    [
        ("backbone.layers.1.mixer.experts.0.up_proj", "experts"),
        ("model.layers.0.mlp.shared_expert.gate_proj", "shared_experts"),
        ("backbone.layers.0.mixer.in_proj", "attention"),
        ("model.layers.3.linear_attn.in_proj_qkv", "attention"),
        ("model.layers.0.mlp.gate", "router"),
        ("model.layers.0.mlp.gate_proj", "dense_mlp"),
        ("lm_head", "lm_head"),
        ("backbone.layers.5.mixer.up_proj", "dense_mlp"),
    ],
)
def test_layer_names_map_to_parts(name, part):
    assert part_of(name) == part


def test_an_unknown_layer_format_or_a_table_without_the_mlp_is_refused():
    for algo in ("W4A8_AWQ", "MXFP8"):
        with pytest.raises(UsageError, match=rf"layers.0.mlp.experts: quant_algo {algo} is not a format"):
            mixed_checkpoint({"model.layers.0.mlp.experts": {"quant_algo": algo}}, {}, "f")
    with pytest.raises(UsageError, match="neither the routed experts nor the MLP are listed"):
        mixed_checkpoint({"model.layers.0.self_attn.q_proj": {"quant_algo": "FP8"}}, {}, "f")


def test_mixed_precision_without_layers_reads_hf_quant_config_beside_the_config(tmp_path):
    raw = json.loads(MIXED.read_text(encoding="utf-8"))
    layers = raw["quantization_config"].pop("quantized_layers")
    (tmp_path / "config.json").write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(
        UsageError,
        match="MIXED_PRECISION without quantized_layers; put the checkpoint's "
        "hf_quant_config.json next to config.json",
    ):
        model_from_config_file(tmp_path / "config.json")
    sidecar = {
        "producer": {"name": "modelopt"},
        "quantization": {"quant_algo": "MIXED_PRECISION", "quantized_layers": layers},
    }
    (tmp_path / "hf_quant_config.json").write_text(json.dumps(sidecar), encoding="utf-8")
    assert model_from_config_file(tmp_path / "config.json").checkpoints[0].keeps_fp8 == ["attention"]


def test_uniform_modelopt_formats_and_refusals():
    assert precision_of({"quant_method": "modelopt", "quant_algo": "NVFP4"}) == "nvfp4"
    assert precision_of({"quant_method": "modelopt", "quant_algo": "FP8"}) == "fp8"
    with pytest.raises(UsageError, match="unsupported quant_method 'modelopt' with quant_algo 'W4A8_AWQ'"):
        precision_of({"quant_method": "modelopt", "quant_algo": "W4A8_AWQ"})
    assert checkpoint_formats(None, None, {}, "f") == {"precision": "bf16"}


def test_a_folder_copy_keeps_working(tmp_path):
    shutil.copy(MIXED, tmp_path / "config.json")
    assert model_from_config_file(tmp_path / "config.json").checkpoints[0].precision == "nvfp4"


NANO_NVFP4 = DATA / "nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4"


def test_hf_quant_config_beside_a_config_without_one_is_the_quantization_config(catalog):
    """vLLM's get_config loads hf_quant_config.json when config.json holds no quantization_config."""
    assert "quantization_config" not in json.loads((NANO_NVFP4 / "config.json").read_text(encoding="utf-8"))
    ckpt = model_from_config_file(NANO_NVFP4 / "config.json").checkpoints[0]
    # the exclude list names mixer projections of some layers: attention (Mamba and GQA) is costed in BF16
    assert (ckpt.precision, ckpt.keeps_bf16) == ("nvfp4", ["attention", "embeddings", "lm_head"])
    row = estimate(catalog, Settings(model=str(NANO_NVFP4), server="ref-1x-rtx-5090", max_model_len=8192))
    bf16 = estimate(
        catalog,
        Settings(
            model="nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", server="ref-1x-rtx-5090", max_model_len=8192
        ),
    )
    assert bool(row["fits"]) and not bool(bf16["fits"]) and row["w_total"] < 0.35 * bf16["w_total"]


def test_a_sidecar_without_a_quantization_object_is_refused(tmp_path):
    shutil.copy(NANO_NVFP4 / "config.json", tmp_path / "config.json")
    (tmp_path / "hf_quant_config.json").write_text('{"producer": {"name": "modelopt"}}', encoding="utf-8")
    with pytest.raises(UsageError, match="hf_quant_config.json beside it has no quantization object"):
        model_from_config_file(tmp_path / "config.json")
