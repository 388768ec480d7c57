"""Speculative decoding: the drafter's weights, KV layers and GDN state, hand-computed and against real
logs."""

from __future__ import annotations

from dataclasses import replace

import pytest

from sizing.catalog.settings import Settings
from sizing.engine import speculative as sp
from sizing.engine.estimate import estimate
from sizing.errors import UsageError
from sizing.launch.commands import vllm_command
from sizing.units import GiB

MTP3 = sp.SpecConfig("mtp", 3)
QWEN36 = "Qwen/Qwen3.6-27B"


def qwen36_rtx3090(catalog, kv_bytes: int, spec: sp.SpecConfig | None) -> object:
    """The club-3090 launches: TP 2 on RTX 3090s, 262144 tokens, fp8_e5m2, 2 sequences, prefix caching."""
    return estimate(
        catalog,
        Settings(
            model=QWEN36,
            gpu="rtx-3090",
            tensor_parallel_size=2,
            vllm_version="0.20.0",
            max_model_len=262144,
            kv_cache_dtype="fp8_e5m2",
            max_num_seqs=2,
            max_num_batched_tokens=8192,
            enable_prefix_caching=True,
            kv_cache_memory_bytes=kv_bytes,
            speculative_config=spec,
        ),
    )


def test_parse_reads_vllms_json_and_folds_model_specific_mtp_names():
    assert sp.parse_speculative_config('{"method": "mtp", "num_speculative_tokens": 1}') == sp.SpecConfig(
        "mtp", 1
    )
    assert sp.parse_speculative_config('{"method": "qwen3_next_mtp"}') == sp.SpecConfig("mtp", None)
    eagle = sp.parse_speculative_config(
        '{"method": "eagle3", "model": "org/head", "num_speculative_tokens": 2}'
    )
    assert eagle == sp.SpecConfig("eagle3", 2, "org/head")


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("{", "not a JSON object"),
        ('["mtp"]', 'with a "method"'),
        ('{"method": "magic"}', "unknown method"),
        ('{"method": "draft_model"}', "does not model"),
        ('{"method": "mtp", "num_speculative_tokens": 0}', "from 1 to 64"),
    ],
)
def test_parse_refuses_bad_values_with_one_line(text, says):
    with pytest.raises(ValueError, match=says) as info:
        sp.parse_speculative_config(text)
    assert "\n" not in str(info.value)


def test_flag_value_is_the_json_vllm_parses():
    assert sp.flag_value(sp.SpecConfig("mtp", 3)) == '\'{"method": "mtp", "num_speculative_tokens": 3}\''


def test_qwen36_mtp_layer_parameters_by_hand(catalog):
    """fc 2h x h; q (doubled by the gate), k, v, o; the dense gated MLP; five norms."""
    h = 5120
    attention = h * (2 * 24 * 256 + 24 * 256 + 2 * 4 * 256)  # q_proj with gate + o_proj + k/v
    assert sp.mtp_layer_params(catalog.models[QWEN36]) == (2 * h * h + attention + 3 * h * 17408, 5 * h)
    assert 2 * h * h + attention + 3 * h * 17408 == 424_673_280


def test_mtp_adds_the_layer_weights_and_one_latent_layer_to_deepseek_r1(catalog):
    base = Settings(
        model="deepseek-ai/DeepSeek-R1", server="ref-8x-h200", tensor_parallel_size=8, max_model_len=32768
    )
    off = estimate(catalog, base)
    on = estimate(catalog, Settings(**{**base.__dict__, "speculative_config": sp.SpecConfig("mtp", None)}))
    assert (off["kv_bytes_per_token"], on["kv_bytes_per_token"]) == (61 * 576 * 2, 62 * 576 * 2)
    assert on["spec_tokens"] == 1  # vLLM's default: one draft token per MTP layer
    assert 1.2 < (on["weights_bytes"] - off["weights_bytes"]) / GiB < 1.5  # ~11.6B fp8 params over 8 ranks


def test_qwen36_without_drafter_reproduces_the_club3090_gmu088_log(catalog):
    """Log qwen36-27b-int4-rtx3090-tp2-gmu088: 9.84 GiB, 619,202 tokens, 2.36x."""
    row = qwen36_rtx3090(catalog, round(9.84 * GiB), None)
    # GDN state per rank: conv (5120 ch x 3) x 2 B + temporal 24 x 128 x 128 x 4 B = 1,603,584 B -> block 1568
    assert row["linear_state_bytes"] == 5120 * 3 * 2 + 24 * 128 * 128 * 4 == 1_603_584
    assert (row["block_size"], row["group_size"], row["num_gpu_blocks"]) == (1568, 16, 411)
    assert (
        row["blocks_per_request"] == 168 + 3 * 2
    )  # cdiv(262144, 1568) + 3 GDN groups x (2 with prefix caching)
    assert row["kv_cache_tokens"] == 619_202


def test_qwen36_mtp3_layout_matches_the_club3090_default_log(catalog):
    """Logs #294/#295 (MTP, 3 draft tokens): 622,408 and 620,944 tokens = int(425|424 / 179 x 262144)."""
    page = 1600 * 2 * 2 * 256  # block size 1600 x (2 KV heads per rank x 256 x K and V x 1 B)
    row = qwen36_rtx3090(catalog, 425 * 17 * page, MTP3)
    assert (
        row["linear_state_bytes"] == 5120 * 6 * 2 + 24 * 128 * 128 * 4
    )  # conv widened by the 3 draft tokens
    assert (row["block_size"], row["group_size"], row["num_gpu_blocks"]) == (1600, 17, 425)
    assert row["blocks_per_request"] == 164 + 3 * 5 == 179  # Mamba blocks: 2 + 3 draft tokens per group
    assert row["kv_cache_tokens"] == 622_408


def test_the_command_carries_the_speculative_config(catalog):
    row = qwen36_rtx3090(catalog, 12 * GiB, MTP3)
    command = vllm_command(row, catalog)
    assert '--speculative-config \'{"method": "mtp", "num_speculative_tokens": 3}\'' in command
    assert "--enable-prefix-caching" in command


def test_a_model_without_mtp_layers_is_a_usage_error(catalog):
    with pytest.raises(UsageError, match="ships no MTP layers"):
        estimate(catalog, Settings(model="Qwen/Qwen3-14B", gpu="l40s", speculative_config=MTP3))


def test_eagle3_head_of_llama31_8b_by_hand(catalog):
    """q/k/v over 2h inputs + o, the 14336-wide MLP, the 3h -> h fusion, a 32000-token LM head, 4 norms."""
    h, q, kv = 4096, 32 * 128, 2 * 8 * 128
    params = 2 * h * (q + kv) + q * h + 3 * h * 14336 + 3 * h * h + 32000 * h + 4 * h
    assert sp.eagle3_params(catalog.models["meta-llama/Llama-3.1-8B-Instruct"]) == params == 424_689_664
    base = Settings(model="meta-llama/Llama-3.1-8B-Instruct", gpu="l40s", max_model_len=32768)
    off = estimate(catalog, base)
    on = estimate(catalog, Settings(**{**base.__dict__, "speculative_config": sp.SpecConfig("eagle3", 3)}))
    assert on["weights_bytes"] - off["weights_bytes"] == pytest.approx(params * 2)
    assert (off["kv_bytes_per_token"], on["kv_bytes_per_token"]) == (
        32 * 2 * 8 * 128 * 2,
        33 * 2 * 8 * 128 * 2,
    )
    assert "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B" in vllm_command(on, catalog)


def test_the_longest_context_counts_the_drafters_extra_state_blocks(catalog):
    """Assert the advised shorter context starts with MTP on (each request holds 1 + k blocks per GDN group),
    and that a context one block longer does not: the advice is the true edge."""
    req = Settings(model="Qwen/Qwen3.6-27B", gpu="h100-80gb", speculative_config=sp.SpecConfig("mtp", 3))
    row = estimate(catalog, req)
    assert not bool(row["fits"])
    longest = int(row["longest_context"])
    assert bool(estimate(catalog, replace(req, max_model_len=longest))["fits"])
    assert not bool(
        estimate(catalog, replace(req, max_model_len=longest + int(row["block_size_full"])))["fits"]
    )
