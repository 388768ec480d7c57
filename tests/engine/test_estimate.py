"""Single estimates: the issue's acceptance figures and the seeds' facts, from first principles."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from sizing.catalog.settings import Settings, SpecConfig
from sizing.engine.estimate import estimate, settled
from sizing.errors import UsageError
from sizing.units import GiB, KiB


def test_qwen3_14b_fp8_on_one_l40s(catalog):
    row = estimate(
        catalog,
        Settings(
            model="Qwen/Qwen3-14B-FP8",
            gpu="l40s",
            gpu_memory_utilization=0.90,
            kv_cache_dtype="fp8",
            max_model_len=32768,
        ),
    )
    assert row["kv_bytes_per_token"] == 40 * 2 * 8 * 128 * 1 == 80 * KiB
    assert 14.8 <= row["weights_bytes"] / GiB <= 15.7
    assert row["fits"]


def test_llama_70b_bf16_tp2_on_two_rtx_pro(catalog):
    row = estimate(
        catalog,
        Settings(
            model="meta-llama/Llama-3.3-70B-Instruct",
            server="gpu-rtx-pro",
            tensor_parallel_size=2,
            kv_cache_dtype="fp8",
            max_model_len=32768,
        ),
    )
    assert row["kv_bytes_per_token"] == 80 * 2 * (8 // 2) * 128 * 1 == 81920
    # the seed's hand arithmetic left 11.5 GB; vLLM's accounting in bytes leaves far more
    assert row["available_kv_bytes"] / GiB > 15


def test_llama_70b_per_token_kv_is_160_kib_on_one_gpu(catalog):
    row = estimate(
        catalog,
        Settings(
            model="meta-llama/Llama-3.3-70B-Instruct",
            gpu_memory_mib=10**6,
            kv_cache_dtype="fp8",
            max_model_len=32768,
        ),
    )
    assert row["kv_bytes_per_token"] == 160 * KiB


@pytest.mark.parametrize("tp", [1, 8])
def test_deepseek_v3_mla_bytes_per_token_on_every_rank(catalog, tp):
    row = estimate(
        catalog,
        Settings(
            model="deepseek-ai/DeepSeek-V3",
            gpu="h200",
            gpus=8,
            tensor_parallel_size=tp,
            kv_cache_dtype="auto",
            max_model_len=32768,
        ),
    )
    assert row["kv_bytes_per_token"] == 61 * 576 * 2


def test_gpt_oss_120b_sliding_layers_hold_a_bounded_number_of_blocks(catalog):
    short = estimate(catalog, Settings(model="openai/gpt-oss-120b", gpu="h100-80gb", max_model_len=32768))
    long = estimate(catalog, Settings(model="openai/gpt-oss-120b", gpu="h100-80gb", max_model_len=131072))
    bs, mnbt = int(long["block_size"]), int(long["max_num_batched_tokens"])
    sliding = -(-min(128 - 1 + mnbt, 131072) // bs) + 1
    assert long["blocks_per_request"] == -(-131072 // bs) + sliding
    # the sliding group's share does not grow with the context
    assert long["blocks_per_request"] - short["blocks_per_request"] == -(-131072 // bs) - -(-32768 // bs)


def test_decode_ceiling_of_14b_fp8_on_l40s_is_about_54_tokens_per_second(catalog):
    row = estimate(
        catalog, Settings(model="Qwen/Qwen3-14B-FP8", gpu="l40s", kv_cache_dtype="fp8", max_model_len=32768)
    )
    assert row["decode_tps_ceiling"] == pytest.approx(864e9 / row["weights_bytes"])
    assert row["decode_tps_ceiling"] == pytest.approx(54, rel=0.03)


def test_kv_cache_memory_bytes_skips_the_budget(catalog):
    given = 10 * GiB
    row = estimate(
        catalog,
        Settings(
            model="Qwen/Qwen3-14B",
            gpu="l40s",
            kv_cache_memory_bytes=given,
            max_model_len=32768,
            vllm_version="0.10.2",
        ),
    )
    blocks = given // (16 * 40 * 2 * 8 * 128 * 2)
    assert row["num_gpu_blocks"] == blocks
    assert row["max_concurrency"] == pytest.approx(blocks / (32768 / 16))


def test_unknown_ids_and_impossible_lengths_are_usage_errors(catalog):
    with pytest.raises(UsageError, match="--model"):
        estimate(catalog, Settings(model="nobody/nothing", gpu="l40s"))
    with pytest.raises(UsageError, match="--max-model-len"):
        estimate(catalog, Settings(model="Qwen/Qwen3-14B", gpu="l40s", max_model_len=10**7))


def test_an_explicit_plan_vllm_would_refuse_is_a_usage_error(catalog):
    with pytest.raises(UsageError, match="--tensor-parallel-size 3"):
        estimate(catalog, Settings(model="Qwen/Qwen3-14B", server="gpu-l40s", tensor_parallel_size=3))
    with pytest.raises(UsageError, match="= 2 GPUs, but"):
        estimate(catalog, Settings(model="Qwen/Qwen3-14B", server="gpu-l40s", tensor_parallel_size=2))


def test_a_bare_gpu_type_gets_as_many_gpus_as_the_plan(catalog):
    row = estimate(
        catalog,
        Settings(model="deepseek-ai/DeepSeek-V3", gpu="h200", tensor_parallel_size=8, max_model_len=32768),
    )
    assert (row["server_gpus"], row["tp"]) == (8, 8)


def test_memory_estimate_agrees_with_the_full_estimate(catalog):
    from sizing.engine.estimate import memory_estimate

    req = Settings(
        model="Qwen/Qwen3-14B-FP8",
        gpu="l40s",
        tensor_parallel_size=1,
        kv_cache_dtype="fp8",
        max_model_len=32768,
    )
    light, full = memory_estimate(catalog, req), estimate(catalog, req)
    for column in (
        "weights_bytes",
        "available_kv_bytes",
        "num_gpu_blocks",
        "kv_cache_tokens",
        "max_concurrency",
    ):
        assert light[column] == full[column]


def test_a_local_config_json_is_served_from_its_folder(catalog, tmp_path):
    folder = tmp_path / "my-model"
    folder.mkdir()
    source = Path(__file__).parents[1] / "data" / "hf_configs" / "Qwen--Qwen3-14B.json"
    (folder / "config.json").write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    row = estimate(catalog, Settings(model=str(folder / "config.json"), gpu="l40s", max_model_len=8192))
    assert row["checkpoint"] == str(folder)
    assert row["kv_bytes_per_token"] == 40 * 2 * 8 * 128 * 2


def test_blocks_use_the_cautious_end_of_the_band_unless_kv_bytes_are_given(catalog):
    from sizing.engine.estimate import memory_estimate

    base = dict(
        model="Qwen/Qwen3-14B",
        gpu="h100-80gb",
        tensor_parallel_size=1,
        vllm_version="0.20.0",
        max_model_len=32768,
    )
    row = memory_estimate(catalog, Settings(**base))
    band = catalog.assumptions  # a dense model: the dense class's band
    assert row["available_kv_low_bytes"] == pytest.approx(
        row["available_kv_bytes"] / (1 + band["kv_band_optimistic_dense"].value)
    )
    assert row["available_kv_high_bytes"] == pytest.approx(
        row["available_kv_bytes"] / (1 + band["kv_band_pessimistic_dense"].value)
    )
    assert row["kv_cache_bytes"] == pytest.approx(row["available_kv_low_bytes"])
    given = memory_estimate(catalog, Settings(**base, kv_cache_memory_bytes=20 * GiB))
    ends = (given["available_kv_low_bytes"], given["available_kv_high_bytes"], given["kv_cache_bytes"])
    assert ends == (20 * GiB,) * 3


@pytest.mark.parametrize(("context", "tokens"), [(20000, 20000), (131072, 2048)])
def test_v0_profiles_the_whole_context_unless_chunked_prefill_turns_on_above_32k(catalog, context, tokens):
    from sizing.engine.estimate import memory_estimate

    req = Settings(
        model="meta-llama/Llama-3.1-8B-Instruct",
        gpu="rtx-3090",
        tensor_parallel_size=1,
        vllm_version="0.7.3",
        max_model_len=context,
    )
    row = memory_estimate(catalog, req)
    assert (int(row["profile_tokens"]), int(row["max_num_batched_tokens"])) == (tokens, max(tokens, 2048))


def test_float16_is_refused_for_the_model_types_vllm_refuses_it_for(catalog) -> None:
    """vLLM's ``_check_valid_dtype``: "The model type 'gemma3' does not support float16"."""
    with pytest.raises(UsageError, match=r"--dtype half: vLLM refuses float16 for google/gemma-3-27b-it"):
        estimate(catalog, Settings(model="google/gemma-3-27b-it", gpu="a10", gpus=4, dtype="half"))
    row = estimate(catalog, Settings(model="Qwen/Qwen3-8B", gpu="a10", dtype="half", max_model_len=4096))
    assert not row["fp16_refused"] and row["fits"]


def test_settled_keeps_every_flag_and_fills_the_catalogs_memory_fraction(catalog) -> None:
    """Assert the settings the engine sizes with are the flags given, with an unset
    --gpu-memory-utilization at the catalog's value and a given one kept."""
    req = Settings(
        model="Qwen/Qwen3-14B",
        gpu="l40s",
        max_model_len=8192,
        max_num_seqs=64,
        block_size=32,
        enforce_eager=True,
        kv_cache_memory_bytes=1 << 30,
        llm_class=True,
        limit_mm_per_prompt=2,
        language_model_only=True,
        max_num_batched_tokens=4096,
    )
    gmu = float(catalog.assume("gpu_memory_utilization"))
    assert settled(catalog, req) == dataclasses.replace(req, gpu_memory_utilization=gmu)
    assert settled(catalog, Settings(model="x", gpu_memory_utilization=0.8)).gpu_memory_utilization == 0.8


DSV4 = str(Path(__file__).parents[1] / "data" / "hf_configs" / "deepseek-ai--DeepSeek-V4-Flash.json")


def dsv4_row(catalog, **knobs):
    base = {"model": DSV4, "gpu": "h200", "gpus": 8, "tensor_parallel_size": 8, "max_model_len": 131072}
    return estimate(catalog, Settings(**{**base, **knobs}))


def test_deepseek_v4_flash_weights_and_kv_pool_on_8_h200(catalog):
    row = dsv4_row(catalog)
    # dsv4_weights at TP 8, two fp32 RoPE tables (512 MiB), the top-k buffer (8192 x 512 x 4 B) and the
    # loader's rounding of the embedding and LM head slices (2 x 0.875 x 2 MiB; the rest are whole 2 MiB)
    assert row["weights_bytes"] == 20644900892 + 512 * 2**20 + 8192 * 2048 + 2 * 1835008
    assert (row["bytes_per_block"], row["kv_groups"], row["kv_bytes_per_token"]) == (1002240, 5, 3915)
    assert row["blocks_per_request"] == 3866  # dsv4_kv: 262 sliding + 512 full + 2051 + 1041 states
    assert row["num_gpu_blocks"] == row["kv_cache_bytes"] // 1002240
    assert row["max_concurrency"] == pytest.approx(row["num_gpu_blocks"] / 3866)
    assert row["kv_cache_tokens"] == int(row["max_concurrency"] * 131072)
    assert row["fits"]


def test_deepseek_v4_windows_widen_with_the_tokens_in_flight(catalog):
    row = dsv4_row(catalog, max_num_batched_tokens=16384)
    # 2 x (cdiv(127 + 16384, 64) + 1) + 512 + (cdiv(7 + 16384, 4) + 1) + (cdiv(127 + 16384, 8) + 1)
    assert row["blocks_per_request"] == 518 + 512 + 4099 + 2065


@pytest.mark.parametrize(
    ("knobs", "named"),
    [
        ({"gpu": "rtx-pro-6000-blackwell"}, "compute capability 12.0"),
        ({"gpu": "mi300x"}, "AMD GPU mi300x"),
        ({"gpu": "a100-80gb"}, "compute capability 8.0"),
        ({"kv_cache_dtype": "bfloat16"}, "--kv-cache-dtype bfloat16"),
        ({"pipeline_parallel_size": 2, "tensor_parallel_size": 4}, "--pipeline-parallel-size above 1"),
        ({"enable_expert_parallel": True}, "expert parallelism"),
        ({"block_size": 64}, "--block-size"),
        ({"data_parallel_size": 2, "tensor_parallel_size": 4}, "--data-parallel-size above 1"),
        ({"tensor_parallel_size": 16, "gpus": 16}, "tensor parallel 16 does not divide"),  # o_groups 8
        ({"speculative_config": SpecConfig("mtp", 1)}, "speculative decoding"),
    ],
)
def test_deepseek_v4_refuses_what_is_not_modelled_by_name(catalog, knobs, named):
    with pytest.raises(UsageError, match="DeepSeek-V4 is modelled on NVIDIA") as err:
        dsv4_row(catalog, **knobs)
    assert named in str(err.value) and "\n" not in str(err.value)


def test_deepseek_v4_plans_are_tensor_parallel_when_none_is_asked(catalog):
    row = estimate(catalog, Settings(model=DSV4, gpu="b200", gpus=8, max_model_len=131072))
    assert (int(row["tp"]), int(row["pp"]), int(row["dp"]), bool(row["expert_parallel"])) == (8, 1, 1, False)
