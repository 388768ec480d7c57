"""import-config: catalog entries from real Hugging Face config.json files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from sizing.catalog.settings import Settings
from sizing.engine.estimate import estimate
from sizing.engine.importer import model_from_config, model_from_config_file
from sizing.engine.weights import total_params
from sizing.errors import UsageError

DATA = Path(__file__).parents[1] / "data" / "hf_configs"


def test_qwen3_14b_config(tmp_path):
    model = model_from_config_file(DATA / "Qwen--Qwen3-14B.json", model_id="Qwen/Qwen3-14B")
    assert (model.layers, model.kv_heads, model.head_dim, model.vocab_size) == (40, 8, 128, 151936)
    assert model.total_params_b == pytest.approx(14.77, abs=0.01)
    assert model.checkpoints[0].precision == "bf16"


def test_fp8_quantization_config_keeps_lm_head(tmp_path):
    model = model_from_config_file(DATA / "Qwen--Qwen3-32B-FP8.json", model_id="Qwen/Qwen3-32B-FP8")
    ckpt = model.checkpoints[0]
    assert ckpt.precision == "fp8" and {"embeddings", "lm_head"} <= set(ckpt.keeps_bf16)


def test_deepseek_v3_mla_and_moe():
    model = model_from_config_file(DATA / "deepseek-ai--DeepSeek-V3.json", model_id="deepseek-ai/DeepSeek-V3")
    assert model.mla.kv_lora_rank + model.mla.qk_rope_head_dim == 576
    assert (model.moe.experts, model.moe.dense_layers) == (256, 3)
    assert model.total_params_b == pytest.approx(671, rel=0.01)


def test_gpt_oss_sliding_layers_and_mxfp4():
    model = model_from_config_file(DATA / "openai--gpt-oss-120b.json", model_id="openai/gpt-oss-120b")
    assert (model.sliding_window.window, model.sliding_window.layers) == (128, 18)
    assert model.checkpoints[0].precision == "mxfp4"
    assert "attention" in model.checkpoints[0].keeps_bf16


def test_multimodal_text_config_is_read():
    model = model_from_config_file(
        DATA / "meta-llama--Llama-4-Scout-17B-16E-Instruct.json", model_id="x/scout"
    )
    assert (model.layers, model.hidden_size, model.moe.experts) == (48, 5120, 16)


def test_missing_key_is_a_clear_error():
    raw = json.loads((DATA / "Qwen--Qwen3-14B.json").read_text())
    del raw["num_hidden_layers"]
    with pytest.raises(UsageError, match="num_hidden_layers"):
        model_from_config(raw, "Qwen/Qwen3-14B", "config.json")


def test_cli_prints_a_loadable_entry(tmp_path):
    import contextlib
    import io

    from sizing.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert (
            main(["import-config", str(DATA / "Qwen--Qwen3-30B-A3B.json"), "--id", "Qwen/Qwen3-30B-A3B"]) == 0
        )
    entry = yaml.safe_load(out.getvalue())
    assert entry["Qwen/Qwen3-30B-A3B"]["moe"]["experts"] == 128


def test_deepseek_v32_sparse_mla_indexer_is_read():
    model = model_from_config_file(DATA / "deepseek-ai--DeepSeek-V3.2.json")
    assert (model.mla.index_head_dim, model.mla.index_topk) == (128, 2048)
    assert (model.layers, model.moe.experts, model.checkpoints[0].precision) == (61, 256, "fp8")


def test_gemma4_global_layers_and_sliding_pattern_are_read():
    model = model_from_config_file(DATA / "google--gemma-4-31B-it.json")
    assert (model.layers, model.sliding_window.layers, model.sliding_window.window) == (60, 50, 1024)
    assert (
        model.global_attention.kv_heads,
        model.global_attention.head_dim,
        model.global_attention.k_eq_v,
    ) == (4, 512, True)
    assert model.kv_sharing is None and model.tie_embeddings
    assert model.total_params_b == pytest.approx(
        31.1, abs=0.1
    )  # 30.7B text stack plus the vision tower (card: 31B)
    assert (model.vision.layers, model.vision.max_tokens_per_item, model.vision.out_hidden_size) == (
        27,
        280,
        5376,
    )


def test_gemma4_kv_shared_layers_and_moe_block(tmp_path):
    raw = json.loads((DATA / "google--gemma-4-31B-it.json").read_text(encoding="utf-8"))
    text = raw["text_config"]
    text.update(
        num_kv_shared_layers=12,
        enable_moe_block=True,
        num_experts=128,
        top_k_experts=8,
        moe_intermediate_size=704,
    )
    model = model_from_config(raw, "local/gemma4-variant", "variant")
    assert (model.kv_sharing.layers, model.kv_sharing.sliding_layers) == (
        12,
        10,
    )  # the last 12 of 5:1 layer_types
    assert (model.moe.experts, model.moe.shared_experts, model.moe.shared_intermediate_size) == (
        128,
        1,
        21504,
    )


def test_qwen3_vl_vision_config_is_read():
    model = model_from_config_file(DATA / "Qwen--Qwen3-VL-30B-A3B-Instruct.json")
    v = model.vision
    assert (v.layers, v.hidden_size, v.intermediate_size, v.merge_size, v.mergers) == (27, 1152, 4304, 2, 4)
    assert (v.out_hidden_size, v.max_tokens_per_item, model.moe.experts) == (2048, 16384, 128)
    assert model.total_params_b == pytest.approx(31.1, abs=0.1)


ARCHITECTURE_FIELDS = (
    "architecture",
    "layers",
    "hidden_size",
    "intermediate_size",
    "attention_heads",
    "kv_heads",
    "head_dim",
    "vocab_size",
    "tie_embeddings",
    "max_context",
    "attention_bias",
    "mla",
    "moe",
    "sliding_window",
    "global_attention",
    "kv_sharing",
    "linear_attention",
    "vision",
    "mtp_layers",
    "rotary_dim",
)

# December 2026 catalog additions: (fixture, catalog entry, index of the checkpoint the fixture describes).
REPRODUCED = [
    ("moonshotai--Kimi-K2.5.json", "moonshotai/Kimi-K2.5", 0),
    ("zai-org--GLM-5.1.json", "zai-org/GLM-5.1", 0),
    ("zai-org--GLM-5.1-FP8.json", "zai-org/GLM-5.1", 1),
    ("Qwen--Qwen3-Coder-30B-A3B-Instruct.json", "Qwen/Qwen3-Coder-30B-A3B-Instruct", 0),
    (
        "mistralai--Mistral-Small-3.1-24B-Instruct-2503.json",
        "mistralai/Mistral-Small-3.2-24B-Instruct-2506",
        0,
    ),
    ("google--gemma-4-26B-A4B.json", "google/gemma-4-26B-A4B-it", 0),
]


def _imported(fixture: str, model_id: str | None = None):
    return model_from_config_file(DATA / fixture, model_id=model_id)


def test_a_vision_tower_the_engine_cannot_size_is_refused():
    raw = json.loads((DATA / "moonshotai--Kimi-K2.5.json").read_text(encoding="utf-8"))
    raw["vision_config"].pop("vt_hidden_size")
    with pytest.raises(UsageError, match="vision_config: a vision tower without hidden_size is not modelled"):
        model_from_config(raw, "m/x", "cfg")


def test_kimi_k25_imports_its_moonvit_tower():
    """MoonViT's vt_* shape, a 2x2 patch merger to the text width, 4225 tokens for vLLM's 3000 px image."""
    vision = _imported("moonshotai--Kimi-K2.5.json").vision
    assert vision is not None
    assert (vision.layers, vision.hidden_size, vision.intermediate_size, vision.patch_size) == (
        27,
        1152,
        4304,
        14,
    )
    assert (vision.out_hidden_size, vision.merge_size, vision.max_tokens_per_item) == (7168, 2, 4225)


def test_an_unknown_vision_key_is_refused_by_name(tmp_path, capsys):
    from sizing.cli import main

    raw = json.loads((DATA / "Qwen--Qwen3-VL-30B-A3B-Instruct.json").read_text(encoding="utf-8"))
    raw["vision_config"]["num_experts"] = 8
    path = tmp_path / "config.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    assert main(["import-config", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "vision_config.num_experts: a vision_config key the sizing engine" in err


@pytest.mark.parametrize(("fixture", "entry", "index"), REPRODUCED)
def test_import_config_reproduces_the_catalog_entry(catalog, fixture, entry, index):
    cataloged = catalog.models[entry]
    imported = _imported(fixture, model_id=cataloged.checkpoints[index].id)
    assert {f: getattr(imported, f) for f in ARCHITECTURE_FIELDS} == {
        f: getattr(cataloged, f) for f in ARCHITECTURE_FIELDS
    }
    ckpt, want = imported.checkpoints[0], cataloged.checkpoints[index]
    assert (ckpt.precision, sorted(ckpt.keeps_bf16)) == (want.precision, sorted(want.keeps_bf16))


def test_kimi_k25_int4_experts_keep_the_ignored_parts_in_bf16():
    model = _imported("moonshotai--Kimi-K2.5.json")
    ckpt = model.checkpoints[0]
    # the class vLLM loads is the wrapper's, not the text_config's DeepseekV3ForCausalLM
    assert model.architecture == "KimiK25ForConditionalGeneration"
    # ignore: lm_head, self_attn, shared_experts and the dense layer's mlp.(gate|up|down)_proj
    assert ckpt.precision == "int4-ct-g32"
    assert set(ckpt.keeps_bf16) == {
        "attention",
        "dense_mlp",
        "embeddings",
        "lm_head",
        "router",
        "shared_experts",
    }


def test_norms_and_indexer_projections_in_an_exclude_list_keep_no_part():
    model = model_from_config_file(DATA / "zai-org--GLM-5.1-FP8.json")
    # self_attn.indexers_proj and *_layernorm are listed, the attention projections are FP8
    assert model.checkpoints[0].keeps_bf16 == ["embeddings", "lm_head", "router"]
    assert (model.mtp_layers, model.mla.index_head_dim, model.mla.v_head_dim, model.head_dim) == (
        1,
        128,
        256,
        256,
    )


def test_pixtral_tower_is_gated_and_its_largest_image_fills_the_square():
    v = model_from_config_file(DATA / "mistralai--Mistral-Small-3.1-24B-Instruct-2503.json").vision
    assert (v.layers, v.hidden_size, v.merge_size, v.gated_mlp) == (24, 1024, 2, True)
    assert v.max_tokens_per_item == (1540 // (14 * 2)) ** 2 == 3025


@pytest.mark.parametrize(
    ("name", "linear", "full", "params_b"),
    [("Qwen--Qwen3.6-27B", 48, 16, 27.35), ("Qwen--Qwen3.5-35B-A3B", 30, 10, 35.1)],
)
def test_qwen35_family_layer_types_mtp_and_tower_are_read(name, linear, full, params_b):
    """layer_types give the GDN layers, mtp_num_hidden_layers the MTP layer, mamba_ssm_dtype the FP32
    state."""
    model = model_from_config_file(DATA / f"{name}.json")
    la = model.linear_attention
    assert (la.layers, model.layers - la.layers, la.ssm_dtype_bytes) == (linear, full, 4)
    assert (model.mtp_layers, model.attention_output_gate, model.vision.layers) == (1, True, 27)
    assert model.total_params_b == pytest.approx(params_b, abs=0.01)


def test_nextn_layers_are_read_as_mtp_layers():
    assert model_from_config_file(DATA / "deepseek-ai--DeepSeek-V3.json").mtp_layers == 1


def test_kimi_linear_kda_and_mla_layers_are_read():
    model = model_from_config_file(DATA / "moonshotai--Kimi-Linear-48B-A3B-Instruct.json")
    la, moe = model.linear_attention, model.moe
    assert la is not None and moe is not None and model.mla is not None
    assert (la.kind, la.layers, la.num_value_heads, la.value_head_dim, la.conv_kernel) == (
        "kda",
        20,
        32,
        128,
        4,
    )
    assert (model.layers - la.layers, model.mla.kv_lora_rank, model.mla.q_lora_rank) == (7, 512, None)
    assert (moe.experts, moe.experts_per_token, moe.shared_experts, moe.dense_layers) == (256, 8, 1, 1)
    assert model.max_context == 1048576  # model_max_length: the config has no max_position_embeddings
    assert model.rotary_dim == 0  # mla_use_nope: no RoPE, so no cos/sin cache


def test_nemotron_h_pattern_gives_mamba_attention_and_moe_blocks():
    model = model_from_config_file(DATA / "nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.json")
    la, moe = model.linear_attention, model.moe
    assert la is not None and moe is not None
    assert (la.kind, la.layers, model.mlp_only_layers, model.layers - la.layers - model.mlp_only_layers) == (
        "mamba2",
        23,
        23,
        6,
    )
    assert (la.num_key_heads, la.num_value_heads, la.key_head_dim, la.value_head_dim) == (8, 64, 128, 64)
    assert la.ssm_dtype_bytes == 4 and not model.gated_mlp
    assert (moe.experts, moe.experts_per_token, moe.shared_intermediate_size) == (128, 6, 3712)


def test_granite_4_h_layer_types_give_mamba2_layers_with_moe_on_every_layer():
    # granite-4.0-h-tiny's keys as quoted at code-index id 65865534003 (no verbatim config.json was found)
    raw = {
        "model_type": "granitemoehybrid",
        "architectures": ["GraniteMoeHybridForCausalLM"],
        "hidden_size": 1536,
        "num_hidden_layers": 40,
        "num_attention_heads": 12,
        "num_key_value_heads": 4,
        "intermediate_size": 512,
        "shared_intermediate_size": 1024,
        "num_local_experts": 64,
        "num_experts_per_tok": 6,
        "vocab_size": 100352,
        "tie_word_embeddings": True,
        "mamba_d_state": 128,
        "mamba_n_groups": 1,
        "mamba_n_heads": 48,
        "mamba_d_head": 64,
        "mamba_d_conv": 4,
        "max_position_embeddings": 131072,
        "layer_types": ["mamba"] * 5
        + ["attention"]
        + ["mamba"] * 9
        + ["attention"]
        + ["mamba"] * 9
        + ["attention"]
        + ["mamba"] * 9
        + ["attention"]
        + ["mamba"] * 4,
    }
    model = model_from_config(raw, "ibm-granite/granite-4.0-h-tiny", "test")
    la, moe = model.linear_attention, model.moe
    assert la is not None and moe is not None
    assert (la.kind, la.layers, la.num_key_heads, model.mlp_only_layers, model.gated_mlp) == (
        "mamba2",
        36,
        1,
        0,
        True,
    )
    assert (moe.experts, moe.shared_experts, moe.shared_intermediate_size) == (64, 1, 1024)


@pytest.mark.parametrize(
    ("fixture", "rotary"),
    [
        (
            "Qwen--Qwen3.6-27B.json",
            64,
        ),  # head_dim 256 x partial_rotary_factor 0.25 (top level and rope_parameters)
        ("Qwen--Qwen3.5-35B-A3B.json", 64),  # 0.25 inside rope_parameters only
        ("MiniMaxAI--MiniMax-M2.5.json", 64),  # its own rotary_dim key
        (
            "google--gemma-4-31B-it.json",
            None,
        ),  # per-layer-type rope_parameters: proportional RoPE spans the head
        ("nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.json", 0),  # Nemotron-H attention has no RoPE in vLLM
    ],
)
def test_rotary_dim_follows_get_rope(fixture, rotary):
    assert model_from_config_file(DATA / fixture).rotary_dim == rotary


def test_nope_position_embeddings_give_no_rotary_dims():
    raw = {
        "model_type": "granitemoehybrid",
        "hidden_size": 2048,
        "num_hidden_layers": 4,
        "num_attention_heads": 16,
        "intermediate_size": 8192,
        "vocab_size": 49152,
        "max_position_embeddings": 4096,
        "tie_word_embeddings": True,
        "position_embedding_type": "nope",
    }
    assert model_from_config(raw, "test/nope", "test").rotary_dim == 0


MAVERICK = "meta-llama--Llama-4-Maverick-17B-128E-Instruct.json"
SUPER = "nvidia--NVIDIA-Nemotron-3-Super-120B-A12B-FP8.json"


def test_llama4_maverick_interleaves_moe_and_dense_layers():
    """interleave_moe_layer_step 2: layers 1, 3, ... are MoE, the other 24 dense (intermediate_size_mlp)."""
    model = model_from_config_file(DATA / MAVERICK)
    moe = model.moe
    assert (moe.dense_layers, model.intermediate_size, moe.expert_intermediate_size) == (24, 16384, 8192)
    assert (model.moe.experts, model.moe.shared_experts, model.vision.max_tokens_per_item) == (128, 1, 2448)
    # card: 400B total; the text stack computes to 400.71B and the vision tower adds 0.87B
    assert model.total_params_b == pytest.approx(401.58, abs=0.01)


def test_llama4_scout_is_moe_in_every_layer():
    model = model_from_config_file(DATA / "meta-llama--Llama-4-Scout-17B-16E-Instruct.json")
    assert (model.moe.dense_layers, model.intermediate_size) == (0, 8192)


def test_maverick_fits_the_8x_h200_it_ran_on(catalog, tmp_path):
    row = estimate(catalog, Settings(model=str(DATA / MAVERICK), server="ref-8x-h200", max_model_len=32768))
    assert bool(row["fits"]) and row["w_total"] == 2 * total_params(model_from_config_file(DATA / MAVERICK))
    # costed as MoE in every layer (the old reading), the weights alone outgrow the server
    raw = json.loads((DATA / MAVERICK).read_text(encoding="utf-8"))
    raw["text_config"]["interleave_moe_layer_step"] = 1
    (tmp_path / "config.json").write_text(json.dumps(raw), encoding="utf-8")
    every = estimate(
        catalog, Settings(model=str(tmp_path / "config.json"), server="ref-8x-h200", max_model_len=32768)
    )
    assert not bool(every["fits"]) and every["w_total"] > 1.9 * row["w_total"]


@pytest.mark.parametrize(
    ("change", "dense"),
    [
        ({"decoder_sparse_step": 2}, 24),  # Qwen3-MoE: MoE where (layer + 1) % step == 0
        ({"mlp_only_layers": [0, 5, 47]}, 3),
        ({"decoder_sparse_step": 2, "mlp_only_layers": [1, 2]}, 25),
    ],
)
def test_qwen_moe_dense_layers_follow_vllm(change, dense):
    raw = json.loads((DATA / "Qwen--Qwen3-30B-A3B.json").read_text(encoding="utf-8"))
    assert model_from_config({**raw, **change}, "Qwen/Qwen3-30B-A3B", "cfg").moe.dense_layers == dense


def test_deepseek_moe_layer_frequency_and_leading_dense_layers():
    raw = json.loads((DATA / "deepseek-ai--DeepSeek-V3.json").read_text(encoding="utf-8"))
    # 61 layers, first 3 dense, then MoE where layer % 2 == 0: layers 4, 6, ..., 60 (29 of them)
    model = model_from_config({**raw, "moe_layer_freq": 2}, "deepseek-ai/DeepSeek-V3", "cfg")
    assert model.moe.dense_layers == 32


def test_nemotron_3_super_latent_moe():
    """moe_latent_size 1024: 512 routed experts of 1024 -> 2688 -> 1024 (ReLU², no gate) per MoE block."""
    model = model_from_config_file(DATA / SUPER)
    moe = model.moe
    assert (moe.latent_size, moe.experts, moe.experts_per_token, moe.dense_layers) == (1024, 512, 22, 0)
    assert (model.mlp_only_layers, model.linear_attention.layers, model.mtp_layers, model.gated_mlp) == (
        40,
        40,
        1,
        False,
    )
    assert model.total_params_b == pytest.approx(120.67, abs=0.01)  # card: 120B total


def test_nemotron_pattern_dense_blocks_are_not_moe():
    raw = json.loads((DATA / "nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.json").read_text(encoding="utf-8"))
    raw["hybrid_override_pattern"] = raw["hybrid_override_pattern"].replace("E", "-", 3)
    model = model_from_config(raw, "nvidia/x", "cfg")
    assert (model.mlp_only_layers, model.moe.dense_layers) == (23, 3)


def test_deepseek_v4_imports_its_compressed_attention():
    model = model_from_config_file(DATA / "deepseek-ai--DeepSeek-V4-Flash.json")
    ca = model.compressed_attention
    assert (model.sliding_window, model.mla, model.total_params_b) == (None, None, 284.33)
    assert (ca.compress_ratios.count(0), ca.compress_ratios.count(4), ca.compress_ratios.count(128)) == (
        2,
        21,
        20,
    )
    assert (ca.window, ca.compressed_rope_positions, ca.o_groups, ca.hash_layers, ca.fp4_experts) == (
        128,
        65536 * 16,
        8,
        3,
        True,
    )
    assert (model.moe.experts, model.moe.shared_experts, model.checkpoints[0].precision) == (256, 1, "fp8")


def test_deepseek_v4_ratios_are_checked():
    raw = json.loads((DATA / "deepseek-ai--DeepSeek-V4-Flash.json").read_text())
    with pytest.raises(UsageError, match="compress_ratios: must give 0, 4 or 128 for each of the 43 layers"):
        model_from_config({**raw, "compress_ratios": [0, 2] * 22}, "x/y", "cfg")
    with pytest.raises(UsageError, match="compress_ratios"):
        model_from_config({**raw, "compress_ratios": [0] * 40}, "x/y", "cfg")


def test_a_window_on_unnamed_layers_is_refused_unless_it_spans_the_context():
    raw = json.loads((DATA / "mistralai--Mixtral-8x7B-v0.1.json").read_text(encoding="utf-8"))
    with pytest.raises(UsageError, match="sliding_window: a 4096-token window without layer_types"):
        model_from_config({**raw, "sliding_window": 4096}, "m/x", "cfg")
    assert model_from_config({**raw, "sliding_window": 32768}, "m/x", "cfg").sliding_window is None


def test_a_literal_1e309_is_refused_by_field(tmp_path, capsys):
    from sizing.cli import main

    text = (DATA / "Qwen--Qwen3-14B.json").read_text(encoding="utf-8")
    path = tmp_path / "config.json"
    path.write_text(text.replace('"hidden_size": 5120', '"hidden_size": 1e309'), encoding="utf-8")
    assert main(["import-config", str(path)]) == 2
    assert capsys.readouterr().err == f"error: {path}: hidden_size: must be a finite number, got Infinity\n"


@pytest.mark.parametrize("version", ["0.15.0", "0.34.0"])
def test_nemotron_3_super_prints_vllms_own_token_line(catalog, version):
    """A hybrid (Mamba) model's 'GPU KV cache size' as the release computes it: num_blocks // groups ×
    block size up to 0.19 (kv_cache_utils._report_kv_cache_config), int(max_concurrency × max_model_len)
    from 0.20."""
    row = estimate(
        catalog,
        Settings(model=str(DATA / SUPER), server="ref-4x-h200", max_model_len=32768, vllm_version=version),
    )
    if version == "0.15.0":
        want = row["num_gpu_blocks"] // row["kv_groups"] * row["block_size"]
    else:
        want = int(row["max_concurrency"] * row["max_model_len"])
    assert row["kv_groups"] > 1 and row["kv_cache_tokens"] == want


def test_mla_qk_head_dim_must_be_nope_plus_rope():
    raw = json.loads((DATA / "zai-org--GLM-5.1.json").read_text(encoding="utf-8"))
    assert model_from_config(raw, "zai-org/GLM-5.1", "cfg").head_dim == 256  # its qk_head_dim: 192 + 64
    with pytest.raises(
        UsageError, match=r"qk_head_dim: must be qk_nope_head_dim \+ qk_rope_head_dim \(256\)"
    ):
        model_from_config({**raw, "qk_head_dim": 320}, "zai-org/GLM-5.1", "cfg")


def test_deepseek_v4_rope_scaling_and_experts_are_checked():
    raw = json.loads((DATA / "deepseek-ai--DeepSeek-V4-Flash.json").read_text())
    with pytest.raises(UsageError, match="rope_scaling.factor: must be a number of at least 1"):
        model_from_config({**raw, "rope_scaling": {**raw["rope_scaling"], "factor": "16"}}, "x/y", "cfg")
    plain = model_from_config({**raw, "rope_scaling": None}, "x/y", "cfg")
    assert plain.compressed_attention.compressed_rope_positions == 1048576  # max_position_embeddings
    with pytest.raises(UsageError, match="without routed experts"):
        model_from_config({**raw, "n_routed_experts": None}, "x/y", "cfg")
