"""Each overhead term of sizing/overhead.py on a hand-computed case from the vLLM source it cites."""

from __future__ import annotations

import numpy as np
import pytest

from sizing.engine import overhead as oh
from sizing.units import GiB, MiB


def test_dense_mlp_holds_gate_up_and_activation_outputs():
    # LlamaMLP.forward: gate_up [8192, 2 x 14336 / 2] + SiluAndMul [8192, 14336 / 2], bf16, TP 2.
    assert oh.dense_mlp_basis(np.array([8192]), np.array([14336 / 2]))[0] == 8192 * (2 * 7168 + 7168) * 2


def test_hidden_activation_is_one_bf16_hidden_vector_per_token():
    assert oh.hidden_activation_basis(np.array([2048]), np.array([4096]))[0] == 2048 * 4096 * 2


def test_moe_workspace_follows_the_triton_experts_shapes():
    # DeepSeek-R1 at TP 8: M = 8192, top-8, N = 2048 / 8 = 256, K = 7168:
    # workspace13 8192 x 8 x max(512, 7168) + workspace2 8192 x 8 x 256 + output 8192 x 7168, 2 B each.
    got = oh.moe_workspace(*map(np.array, ([8192], [8], [2048], [7168], [8])))[0]
    assert got == (8192 * 8 * 7168 + 8192 * 8 * 256 + 8192 * 7168) * 2


def test_moe_workspace_with_expert_parallelism_uses_whole_experts_and_is_chunked():
    # MiniMax-M2.5 with EP: N = 1536 (not / TP), K = 3072; 65536 tokens are chunked to 32768.
    got = oh.moe_workspace(*map(np.array, ([65536], [8], [1536], [3072], [1])))[0]
    assert got == 32768 * (8 * (max(2 * 1536, 3072) + 1536) + 3072) * 2


def test_dense_models_have_no_moe_workspace():
    assert oh.moe_workspace(*map(np.array, ([8192], [0], [0], [4096], [1])))[0] == 0


def test_mla_prefill_decompresses_heads_per_rank_only_where_attention_is_profiled():
    # DeepSeek-V2-Lite: 16 heads, TP 2 -> 8 per rank, qk_nope 128 + v 128, 4096 tokens, bf16.
    tokens, heads, width = np.array([4096]), np.array([8]), np.array([256])
    assert oh.mla_prefill(tokens, heads, width, attention_profiled=True)[0] == 4096 * 8 * 256 * 2
    assert oh.mla_prefill(tokens, heads, width, attention_profiled=False)[0] == 0


def test_sampler_peak_counts_min_seqs_tokens_rows_of_the_vocabulary():
    # _dummy_sampler_run: 256 rows x 151936 logits x (2 B model dtype + 4 B fp32 + 8 B int64 sort indices).
    assert oh.sampler_peak(np.array([256]), np.array([2048]), np.array([151936]))[0] == 256 * 151936 * 14
    # With fewer tokens than max_num_seqs, _dummy_run schedules one request per token.
    assert oh.sampler_peak(np.array([1024]), np.array([512]), np.array([1000]))[0] == 512 * 1000 * 14


def test_nontorch_bases_by_world_size_and_nvswitch():
    bases = oh.nontorch_basis(np.array([1, 4, 4]), np.array([True, False, True]))
    assert bases["nontorch_mib"].tolist() == [MiB] * 3
    assert bases["nccl_mib"].tolist() == [0, MiB, MiB]
    assert bases["nvls_mib"].tolist() == [0, 0, MiB]


def test_distributed_init_is_charged_only_where_the_snapshot_precedes_it():
    # gpu_worker.py Worker.init_device: 0.10.2 snapshots before init_worker_distributed_environment,
    # 0.11.2 after it; the V0 worker's baseline snapshot also precedes it.
    assert oh.distributed_init_charged("v1", 10) and oh.distributed_init_charged("v0", 6)
    assert not oh.distributed_init_charged("v1", 11) and not oh.distributed_init_charged("v1", 34)


def test_nccl_basis_is_zero_once_distributed_init_is_outside_the_budget():
    # Two A100s at TP 2 under 0.11+: NCCL and custom all-reduce buffers predate the snapshot; NVLS does not apply.
    bases = oh.nontorch_basis(np.array([2, 8]), np.array([False, True]), init_charged=False)
    assert bases["nccl_mib"].tolist() == [0, 0]
    assert bases["nvls_mib"].tolist() == [0, MiB]


def test_capture_sizes_follow_the_default_list():
    # [1, 2, 4] + 8..248 step 8 (31) + 256..512 step 16 (17) = 51 sizes for 256 seqs (cap 2 x 256 = 512).
    assert oh.capture_sizes(np.array([256]), np.array([2048]), np.array([512]))[0] == 51
    assert oh.capture_sizes(np.array([1]), np.array([2048]), np.array([512]))[0] == 2


def test_cudagraph_basis_is_sizes_times_layers_and_nothing_when_eager():
    got = oh.cudagraph_basis(np.array([51, 51]), np.array([32, 32]), np.array([False, True]))
    assert got.tolist() == [51 * 32 * MiB, 0]


def test_v0_defaults_turn_chunked_prefill_on_above_32k():
    tokens, seqs = oh.v0_batch(np.array([20000, 32768, 131072, 1024]))
    assert tokens.tolist() == [20000, 32768, 2048, 2048] and seqs.tolist() == [256] * 4


def test_v1_batch_defaults_by_device_memory():
    tokens, seqs = oh.default_batch(np.array([80 * GiB, 80 * GiB, 180 * GiB, 24 * GiB]),
                                    np.array([False, True, False, False]), llm_class=False)
    assert tokens.tolist() == [8192, 2048, 16384, 2048] and seqs.tolist() == [1024, 256, 1024, 256]


def _coef(optimistic: float, pessimistic: float) -> oh.Coefficients:
    return oh.Coefficients(0, 0, 0, 0, 0, 0, 0, 0, optimistic, pessimistic)


@pytest.mark.parametrize("printed", [10 * GiB, -2 * GiB])
def test_kv_band_divides_by_the_error_quantiles(printed):
    low, high = oh.kv_band(np.array([printed]), _coef(0.25, -0.2))
    ends = sorted([printed / 1.25, printed / 0.8])
    assert (low[0], high[0]) == pytest.approx(ends)


def test_linear_profile_is_tokens_times_projection_per_rank_times_units():
    # Kimi-Linear at TP 2 with a 64,000-token profile: 16 heads x 128 per rank, 7 bf16 units = 1.71 GiB
    got = oh.linear_profile(np.array([64000]), np.array([16]), np.array([128]), np.array([7]))
    assert got[0] == 64000 * 16 * 128 * 7 * 2
    assert oh.linear_profile(np.array([64000]), np.array([16]), np.array([128]), np.array([0]))[0] == 0
