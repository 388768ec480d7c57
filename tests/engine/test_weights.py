"""Parameter counts from the architecture and checkpoint bytes by placement."""

from __future__ import annotations

import numpy as np
import pytest

from sizing.catalog.schema import Checkpoint
from sizing.catalog.settings import Settings
from sizing.engine.estimate import estimate
from sizing.engine.weights import (
    attention_params,
    model_parts,
    mxfp4_alignment,
    padded_expert_factor,
    part_bytes,
    rocm_moe_padding,
    rope_cache_bytes,
    total_params,
    weight_split,
)
from sizing.units import GiB


@pytest.mark.parametrize(
    "model_id",
    [
        "Qwen/Qwen3-14B",
        "Qwen/Qwen3-32B",
        "meta-llama/Llama-3.3-70B-Instruct",
        "meta-llama/Llama-3.1-8B-Instruct",
        "deepseek-ai/DeepSeek-V3",
        "openai/gpt-oss-120b",
        "Qwen/Qwen3-30B-A3B",
        "Qwen/Qwen3-235B-A22B",
        "mistralai/Mixtral-8x7B-Instruct-v0.1",
        "Qwen/Qwen3-Next-80B-A3B-Instruct",
        "moonshotai/Kimi-K2-Instruct",
        "moonshotai/Kimi-Linear-48B-A3B-Instruct",
        "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
        "ibm-granite/granite-4.0-h-tiny",
    ],
)
def test_derived_parameter_count_matches_the_model_card(catalog, model_id):
    model = catalog.models[model_id]
    assert total_params(model) / 1e9 == pytest.approx(model.total_params_b, rel=0.04)


def test_qwen3_14b_layer_arithmetic(catalog):
    model = catalog.models["Qwen/Qwen3-14B"]
    # q and o: 5120 x 40 heads x 128; k and v: 5120 x 8 x 128 each
    assert attention_params(model) == (5120 * 5120 * 2 + 5120 * 1024 * 2, 0)
    expected = (
        151936 * 5120 * 2 + 40 * (5120 * 5120 * 2 + 5120 * 1024 * 2 + 3 * 5120 * 17408 + 2 * 5120) + 5120
    )
    assert total_params(model) == expected


def test_mla_keeps_down_projections_replicated(catalog):
    model = catalog.models["deepseek-ai/DeepSeek-V3"]
    sharded, replicated = attention_params(model)
    assert replicated == 7168 * 1536 + 7168 * (512 + 64)
    assert sharded == 1536 * 128 * 192 + 512 * 128 * (128 + 128) + 128 * 128 * 7168


def test_fp8_checkpoint_keeps_embeddings_and_lm_head_in_bf16(catalog):
    model = catalog.models["Qwen/Qwen3-14B"]
    ckpt = next(c for c in model.checkpoints if c.id == "Qwen/Qwen3-14B-FP8")
    split = weight_split(model, ckpt, catalog.precisions["fp8"])
    assert split.embeddings == split.lm_head == 151936 * 5120 * 2
    # 13.2 B parameters at ~1 byte plus 1.56 B embedding parameters at 2 bytes
    assert 14.8 <= split.total / GiB <= 15.7


# ---------------------------------------------------------------------------------------------
# MXFP4 padding at every TP size, int4 group-32 MoE, online fp8
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sm", "minor", "expected"),
    [(80, 19, (128, 256)), (90, 10, (128, 256)), (90, 14, (256, 1)), (100, 20, (256, 256))],
)
def test_mxfp4_backend_alignment_by_gpu_and_release(sm, minor, expected):
    align_i, align_h = mxfp4_alignment(np.array([sm]), minor)
    assert (int(align_i[0]), int(align_h[0])) == expected


@pytest.mark.parametrize(("tp", "padded_i"), [(1, 2944), (2, 1536), (4, 768), (8, 384)])
def test_marlin_pads_the_per_rank_intermediate_and_the_hidden_size(tp, padded_i):
    # gpt-oss: intermediate 2880, hidden 2880; Marlin rounds 2880/TP up to 128 and 2880 up to 256 (3072).
    got = padded_expert_factor(np.array([2880]), np.array([2880]), np.array([tp]), 128, 256)[0]
    assert got == pytest.approx(padded_i * 3072 / (2880 / tp * 2880))


def test_expert_parallelism_pads_whole_experts():
    got = padded_expert_factor(np.array([2880]), np.array([2880]), np.array([1]), 256, 1)[0]
    assert got == pytest.approx(3072 / 2880)


def test_gpt_oss_120b_weights_per_rank_grow_with_tp_padding(catalog):
    from sizing.catalog.settings import Settings
    from sizing.engine.estimate import memory_estimate

    def weights(tp: int, gpu: str, version: str) -> float:
        req = Settings(
            model="openai/gpt-oss-120b", gpu=gpu, gpus=tp, tensor_parallel_size=tp, vllm_version=version
        )
        return float(memory_estimate(catalog, req)["weights_bytes"])

    model = catalog.models["openai/gpt-oss-120b"]
    ckpt = model.checkpoints[0]
    spec = catalog.precisions[ckpt.precision]
    experts = sum(part_bytes(p, ckpt, spec, model) for p in model_parts(model) if p.name == "experts")
    # Triton (Hopper, 0.14): TP 1 pads 2880 -> 3072; TP 4 pads 720 -> 768, the same share.
    assert weights(1, "h100-80gb", "0.14.1") - weights(1, "h100-80gb", "0.11.0") == pytest.approx(
        experts * (3072 / 2880 - 2944 * 3072 / 2880**2)
    )
    # Blackwell's FlashInfer pads the hidden size too: at TP 4 the experts grow by 768 x 3072 / (720 x 2880).
    base = weights(4, "b200", "0.20.0") - experts / 4 * (768 * 3072 / (720 * 2880) - 1)
    assert base == pytest.approx(weights(4, "h100-80gb", "0.14.1") - experts / 4 * (768 / 720 - 1))


@pytest.mark.parametrize(
    ("in_dim", "inter_part", "want"),
    [
        (4096, 384, 2 / 3 * 256 / 8192),  # Qwen3-235B-A22B at TP 4: w13 rows of 8192 B padded, w2's 768 B not
        (4096, 1536, 2 / 3 * 256 / 8192 + 1 / 3 * 256 / 3072),  # at TP 1 both rows are 512-byte aligned
        (2880, 2880, 0.0),  # gpt-oss: rows of 5760 B are not 512-byte aligned
    ],
)
def test_rocm_pads_512_byte_aligned_expert_rows_by_256_bytes(in_dim, inter_part, want):
    got = rocm_moe_padding(np.array([3]), np.array([in_dim]), np.array([inter_part]))[0]
    assert got == pytest.approx(want)


def test_qwen3_235b_on_mi300x_loads_its_padded_experts(catalog):
    """The MI300X log vdb-qwen3-235b-a22b-instruct-2507-mi300x-tp4 took 112.61 GiB (109.61 unpadded)."""
    from pathlib import Path

    from sizing.engine.estimate import memory_estimate
    from sizing.engine.importer import model_from_config_file

    path = Path(__file__).parents[1] / "data" / "hf_configs" / "Qwen--Qwen3-235B-A22B-Instruct-2507.json"

    def weights(gpu: str) -> float:
        req = Settings(model=str(path), gpu=gpu, gpus=4, tensor_parallel_size=4, vllm_version="0.11.2")
        return float(memory_estimate(catalog, req)["weights_bytes"])

    model = model_from_config_file(path)
    ckpt = model.checkpoints[0]
    spec = catalog.precisions[ckpt.precision]
    experts = sum(part_bytes(p, ckpt, spec, model) for p in model_parts(model) if p.name == "experts")
    assert weights("mi300x") - weights("h200") == pytest.approx(experts / 4 * 2 / 3 * 256 / 8192)
    assert weights("mi300x") / GiB == pytest.approx(111.81, abs=0.01)


def test_int4_group32_moe_checkpoint_keeps_everything_but_routed_experts_in_bf16(catalog):
    model = catalog.models["moonshotai/Kimi-K2-Instruct"]
    keeps = ["embeddings", "lm_head", "router", "attention", "shared_experts", "dense_mlp"]
    ckpt = Checkpoint(id="moonshotai/Kimi-K2-Thinking", precision="int4-ct-g32", keeps_bf16=keeps)
    spec = catalog.precisions["int4-ct-g32"]
    assert spec.bytes_per_param == (4 + 16 / 32) / 8
    experts = 3 * 7168 * 2048 * 384 * (61 - 1)
    split = weight_split(model, ckpt, spec)
    assert split.total == pytest.approx(experts * 0.5625 + (total_params(model) - experts) * 2)


def test_online_fp8_halves_the_linear_layers_only(catalog):
    from sizing.engine.cases import checkpoints_of

    model = catalog.models["microsoft/phi-4"]  # a BF16 checkpoint with no published FP8 one
    ckpt, online = next((c, o) for c, o in checkpoints_of(catalog, model) if o)
    assert online and ckpt.precision == "fp8" and ckpt.id == model.checkpoints[0].id
    split = weight_split(model, ckpt, catalog.precisions["fp8"])
    ends = model.vocab_size * model.hidden_size * (1 if model.tie_embeddings else 2)
    norms = (2 * model.layers + 1) * model.hidden_size
    linear = total_params(model) - ends - norms
    fp8 = catalog.precisions["fp8"].bytes_per_param
    assert split.total == pytest.approx(linear * fp8 + (ends + norms) * 2)


def test_kimi_linear_parameters_match_its_checkpoints_tensors(catalog):
    # 49,122,681,728 in the checkpoint's tensor list (code-index id 62691149540); the 26 x 256 router
    # score biases and 7 x 512 kv_a_layernorm weights (10,240) are not modelled
    model = catalog.models["moonshotai/Kimi-Linear-48B-A3B-Instruct"]
    assert total_params(model) == 49_122_681_728 - 26 * 256 - 7 * 512


def test_kda_layer_parameters_follow_the_checkpoints_tensor_shapes(catalog):
    from sizing.engine.weights import linear_attention_params

    model = catalog.models["moonshotai/Kimi-Linear-48B-A3B-Instruct"]
    h, p = 2304, 4096  # hidden; 32 heads x 128
    tensors = (
        3 * p * h
        + 32 * h
        + 2 * (128 * h + p * 128)
        + h * p  # q/k/v, beta, f_a/f_b, g_a/g_b, o
        + 3 * p * 4
        + 32
        + p
        + 128
    )  # q/k/v conv, A_log, dt_bias, o_norm
    assert linear_attention_params(model) == tensors


def test_nemotron_h_blocks_hold_one_mixer_or_one_non_gated_moe(catalog):
    from sizing.engine.weights import linear_attention_params

    model = catalog.models["nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"]
    h, inner, conv = 2688, 64 * 64, 64 * 64 + 2 * 8 * 128
    assert linear_attention_params(model) == h * (inner + conv + 64) + conv * 5 + 3 * 64 + inner + inner * h
    parts = {p.name: p.params for p in model_parts(model)}
    assert parts["experts"] == 2 * h * 1856 * 128 * 23  # up and down only, 23 MoE blocks
    assert parts["attention"] == 6 * h * (2 * 32 * 128 + 2 * 2 * 128) + 23 * linear_attention_params(model)


@pytest.mark.parametrize(
    ("model_id", "expected"),
    [
        ("meta-llama/Llama-3.1-8B-Instruct", 131072 * 128 * 2),  # [max_position, head_dim] in bf16
        ("google/gemma-4-31B-it", 262144 * (256 + 512) * 2),  # sliding and global geometry: two caches
        ("MiniMaxAI/MiniMax-M2.5", 196608 * 64 * 2),  # rotary_dim 64 of a 128 head
        ("deepseek-ai/DeepSeek-V3", 163840 * 64 * 2),  # MLA: qk_rope_head_dim
        ("moonshotai/Kimi-Linear-48B-A3B-Instruct", 0),  # NoPE MLA
    ],
)
def test_rope_cache_is_max_position_by_rotary_dims_per_distinct_rope(catalog, model_id, expected):
    assert rope_cache_bytes(catalog.models[model_id]) == expected


def test_llama31_8b_loads_what_vllm_logs(catalog):
    """ "Model loading took 14.99 GiB" (calibration logs llama31-8b-*): 8.03 B bf16 parameters are 14.96 GiB,
    the 32 MiB RoPE cache makes up the rest, on each rank whole."""
    for tp in (1, 2):
        row = estimate(
            catalog,
            Settings(model="meta-llama/Llama-3.1-8B-Instruct", gpu="h100-80gb", tensor_parallel_size=tp),
        )
        params = weight_split(
            catalog.models["meta-llama/Llama-3.1-8B-Instruct"],
            catalog.models["meta-llama/Llama-3.1-8B-Instruct"].checkpoints[0],
            catalog.precisions["bf16"],
        ).total
        assert float(row["weights_bytes"]) == pytest.approx(params / tp + 131072 * 128 * 2, rel=1e-3)
    assert round(params / GiB + 131072 * 128 * 2 / GiB, 2) == 14.99


def test_k_eq_v_value_slots_are_loaded_but_not_in_the_checkpoint(catalog):
    """Gemma 4 31B's 10 global layers: 5376 x 4 KV heads x 512 value slots each, filled from the keys."""
    model = catalog.models["google/gemma-4-31B-it"]
    slots = next(p for p in model_parts(model) if p.name == "attention_value_slots")
    assert slots.params == 5376 * 4 * 512 * 10 and not slots.in_checkpoint
    assert total_params(model) == sum(p.params for p in model_parts(model)) - slots.params


def test_split_rounding_rounds_unsplit_tensors_up_to_2_mib():
    from sizing.engine.weights import split_rounding
    from sizing.units import MiB

    # Qwen2.5-1.5B in bf16: gate_up [2 x 8960, 1536] is 52.5 MiB in a 54 MiB block, down [1536, 8960] 26.25
    # MiB
    # in 28 MiB; a 16.6 MiB gate_up (Qwen2.5-0.5B) is below max_split_size_mb=20 and is split, so counted as
    # is.
    got = split_rounding(np.array([2 * 8960 * 1536 * 2, 8960 * 1536 * 2, 2 * 4864 * 896 * 2, 64 * MiB]))
    assert got.tolist() == [1.5 * MiB, 1.75 * MiB, 0, 0]


def test_loading_line_of_021_and_later_counts_the_rounded_blocks(catalog):
    # "Model loading took 2.98 GiB" (vLLM 0.30, Qwen2.5-1.5B): 28 layers x (1.5 + 1.75) MiB for the MLP, the
    # fused QKV [1536 + 2 x 256, 1536] (6 MiB) and o_proj (4.5 MiB) split normally, and the embedding
    # [151936, 1536] 445.125 MiB in 446 MiB (tied, one tensor): 91.875 MiB over the 0.20 figure.
    config = "tests/data/hf_configs/Qwen--Qwen2.5-1.5B-Instruct.json"
    old = estimate(catalog, Settings(model=config, gpu="rtx-4090", vllm_version="0.20.0"))
    new = estimate(catalog, Settings(model=config, gpu="rtx-4090", vllm_version="0.30.0"))
    assert new.weights_bytes - old.weights_bytes == pytest.approx(91.875 * 2**20)
    assert new.weights_bytes / GiB == pytest.approx(2.98, abs=0.01)  # printed to 0.01 GiB


def test_latent_moe_experts_work_in_the_latent_width_between_replicated_projections():
    """vLLM nemotron_h.py NemotronHMoE: SharedFusedMoE(hidden_size=moe_latent_size), fc1/fc2_latent_proj."""
    from pathlib import Path

    from sizing.engine.importer import model_from_config_file

    model = model_from_config_file(
        Path(__file__).parents[1]
        / "data"
        / "hf_configs"
        / "nvidia--NVIDIA-Nemotron-3-Super-120B-A12B-FP8.json"
    )
    parts = {p.name: p for p in model_parts(model)}
    assert parts["experts"].params == 2 * 1024 * 2688 * 512 * 40  # up and down (ReLU²), 40 MoE blocks
    assert parts["shared_experts"].params == 2 * 4096 * 5376 * 40  # the shared expert keeps the hidden width
    latent = parts["latent_projections"]
    assert (latent.params, latent.sharded) == (2 * 4096 * 1024 * 40, False)


def test_fp8_parts_of_a_mixed_checkpoint_cost_one_byte(catalog):
    model = catalog.models["Qwen/Qwen3-14B"]
    spec = catalog.precisions["nvfp4"]
    attention = next(p for p in model_parts(model) if p.name == "attention")
    mixed = Checkpoint(id="x/y", precision="nvfp4", keeps_fp8=["attention"])
    assert part_bytes(attention, mixed, spec, model) == attention.params
    assert part_bytes(attention, Checkpoint(id="x/y", precision="nvfp4"), spec, model) == (
        attention.params * spec.bytes_per_param
    )
