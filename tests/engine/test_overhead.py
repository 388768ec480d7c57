"""Each overhead term of sizing/overhead.py on a hand-computed case from the vLLM source it cites."""

from __future__ import annotations

import numpy as np

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
    # V1 _dummy_sampler_run: 256 rows x 151936 logits x (2 B model dtype + 4 B fp32 copy + 4 B fp32
    # probabilities + 4 B fp32 exponential noise of random_sample).
    assert oh.sampler_peak(np.array([256]), np.array([2048]), np.array([151936]))[0] == 256 * 151936 * 14
    # With fewer tokens than max_num_seqs, _dummy_run schedules one request per token.
    assert oh.sampler_peak(np.array([1024]), np.array([512]), np.array([1000]))[0] == 512 * 1000 * 14
    # Model Runner V2 samples the bf16 logits directly: 2 B a logit.
    assert oh.sampler_peak(np.array([256]), np.array([2048]), np.array([151936]), 2)[0] == 256 * 151936 * 2


def test_sampler_bytes_per_logit_by_release_and_runner():
    v1, v2 = np.array([False]), np.array([True])
    assert [oh.sampler_bytes_per_logit(minor, v1)[0] for minor in (10, 11, 12, 16, 17, 27)] == [
        14,
        14,
        38,
        38,
        14,
        14,
    ]
    assert [oh.sampler_bytes_per_logit(minor, v2)[0] for minor in (27, 30, 33, 34)] == [2, 2, 2, 6]


def test_runner_v2_for_dense_models_from_027_and_every_model_from_029():
    moe, linear = np.array([False, True, False]), np.array([0, 0, 24])
    assert oh.runner_v2("v1", 26, moe, linear).tolist() == [False, False, False]
    assert oh.runner_v2("v1", 27, moe, linear).tolist() == [True, False, False]
    assert oh.runner_v2("v1", 29, moe, linear).tolist() == [True, True, True]
    assert oh.runner_v2("v0", 34, moe, linear).tolist() == [False, False, False]


def test_runner_buffers_are_penalties_bitmasks_and_fixed_tables_per_request():
    # Qwen2.5 (vocab 151936), 256 requests: output_bin_counts 256 x 151936 x 4 B, prompt_bin_mask and the
    # grammar bitmask 256 x 4748 x 4 B each, and the 17,924 B of logit-bias, bad-word and logprob tables.
    got = oh.runner_buffers(np.array([256, 256]), np.array([151936, 151936]), np.array([True, False]))
    assert got.tolist() == [256 * (151936 * 4 + 2 * 4748 * 4 + 17924), 0]
    assert oh.V2_BUFFER_BYTES_PER_ROW == 17924


def test_cudagraph_estimate_is_subtracted_by_v1_from_020_and_by_v2_from_029():
    v2 = np.array([False, True])
    assert oh.cudagraphs_estimated(True, 27, v2).tolist() == [True, False]  # V2's estimate returns 0 to 0.28
    assert oh.cudagraphs_estimated(True, 29, v2).tolist() == [True, True]
    assert oh.cudagraphs_estimated(False, 19, v2).tolist() == [False, False]


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
    # Two A100s at TP 2 under 0.11+: NCCL and custom all-reduce buffers predate the snapshot; NVLS does not
    # apply.
    bases = oh.nontorch_basis(np.array([2, 8]), np.array([False, True]), init_charged=False)
    assert bases["nccl_mib"].tolist() == [0, 0]
    assert bases["nvls_mib"].tolist() == [0, MiB]


def test_capture_sizes_follow_the_default_list():
    # [1, 2, 4] + 8..248 step 8 (31) + 256..512 step 16 (17) = 51 sizes for 256 seqs (cap 2 x 256 = 512).
    assert oh.capture_sizes(np.array([256]), np.array([2048]), np.array([512]))[0] == 51
    assert oh.capture_sizes(np.array([1]), np.array([2048]), np.array([512]))[0] == 2


def test_cudagraph_basis_is_the_captured_sizes_and_nothing_when_eager():
    # 256 sequences: [1, 2, 4] + 8..248 step 8 + 256..512 step 16 = 3 + 31 + 17 sizes, whatever the layers
    captures = oh.capture_sizes(np.array([256, 256]), np.array([2048, 2048]), np.array([512, 512]))
    got = oh.cudagraph_basis(captures, np.array([False, True]))
    assert got.tolist() == [51 * MiB, 0]


def test_full_graphs_cover_the_decode_batches_and_the_estimate_counts_both_modes():
    # FULL_AND_PIECEWISE: piecewise up to 2 x 256 = 512 (51 sizes), FULL up to the 256 decode rows (35 sizes).
    assert oh.full_graph_sizes(
        np.array([256, 1024, 16]), np.array([2048, 8192, 8192]), np.array([512, 512, 512])
    ).tolist() == [35, 51, 5]
    assert oh.sizes_up_to(np.array([1, 2, 3, 4, 8, 248, 256, 272])).tolist() == [1, 2, 2, 3, 4, 34, 35, 36]
    got = oh.cudagraph_estimate_basis(np.array([51, 51]), np.array([35, 35]), np.array([False, True]))
    assert got.tolist() == [86 * MiB, 0]


def test_free_memory_drop_is_charged_from_027_on_v1_only():
    assert [oh.free_memory_charged("v1", minor) for minor in (10, 26, 27, 34)] == [False, False, True, True]
    assert not oh.free_memory_charged("v0", 27)
    basis = oh.nontorch_basis(np.array([1, 8]), np.array([False, True]), False, True)
    assert basis["consumed_mib"].tolist() == [MiB, MiB] and basis["nccl_mib"].tolist() == [0, 0]
    assert oh.nontorch_basis(np.array([1]), np.array([False]))["consumed_mib"].tolist() == [0]


def test_v0_defaults_turn_chunked_prefill_on_above_32k():
    tokens, seqs = oh.v0_batch(np.array([20000, 32768, 131072, 1024]))
    assert tokens.tolist() == [20000, 32768, 2048, 2048] and seqs.tolist() == [256] * 4


def test_v1_batch_defaults_by_device_memory():
    tokens, seqs = oh.default_batch(
        np.array([80 * GiB, 80 * GiB, 180 * GiB, 24 * GiB]),
        np.array([False, True, False, False]),
        llm_class=False,
    )
    assert tokens.tolist() == [8192, 2048, 16384, 2048] and seqs.tolist() == [1024, 256, 1024, 256]


def test_the_160_gib_tier_starts_with_0_28():
    """A B200 (179 GiB) on 0.27 gets the ≥ 70 GiB serve default of 8192 tokens, 16384 from 0.28."""
    for minor, want in ((18, 8192), (27, 8192), (28, 16384)):
        tokens, seqs = oh.default_batch(
            np.array([179 * GiB]), np.array([False]), llm_class=False, minor=minor
        )
        assert (tokens.tolist(), seqs.tolist()) == ([want], [1024])


def test_the_profile_peak_is_the_larger_phase_not_their_sum():
    """A 1 GiB forward against a sampler of 0.5 GiB plus 8192 x 4096 x 2 B = 64 MiB of hidden states: the
    forward wins; against a 2 GiB sampler the sampler phase (2 GiB + 64 MiB) wins."""
    phase, peak = oh.profile_peak(
        np.array([1.0, 1.0]) * GiB, np.array([0.5, 2.0]) * GiB, np.array([8192, 8192]), np.array([4096, 4096])
    )
    assert (phase / MiB).tolist() == [512 + 64, 2048 + 64]
    assert (peak / MiB).tolist() == [1024, 2048 + 64]


def test_nvls_buffers_only_above_two_ranks():
    """NCCL enables NVLS only for more than two ranks on an NVSwitch node (vllm-project/vllm#9699)."""
    bases = oh.nontorch_basis(np.array([1, 2, 4, 8, 4]), np.array([True, True, True, True, False]))
    assert (bases["nvls_mib"] / MiB).tolist() == [0, 0, 1, 1, 0]


def test_linear_profile_is_tokens_times_projection_per_rank_times_units():
    # Kimi-Linear at TP 2 with a 64,000-token profile: 16 heads x 128 per rank, 7 bf16 units = 1.71 GiB
    got = oh.linear_profile(np.array([64000]), np.array([16]), np.array([128]), np.array([7]))
    assert got[0] == 64000 * 16 * 128 * 7 * 2
    assert oh.linear_profile(np.array([64000]), np.array([16]), np.array([128]), np.array([0]))[0] == 0


def test_the_sort_sampler_peaks_inside_the_sort():
    # bf16 + fp32 logits (6 B), the sorted fp32 values and int64 indices (12 B), PyTorch's int64 reverse
    # indices and CUB's alternate fp32 key and int64 value buffers (20 B): 1024 rows of Qwen3's vocabulary.
    assert oh.SORT_SAMPLER_BYTES_PER_LOGIT == 38
    per_logit = oh.sampler_bytes_per_logit(14, np.array([False]))
    got = oh.sampler_peak(np.array([1024]), np.array([8192]), np.array([151936]), per_logit)
    assert got[0] == 1024 * 151936 * 38  # 5.57 GiB


def test_an_install_without_flashinfer_sorts_until_the_triton_kernel():
    """A pip install of 0.10.1-0.11.0 lacks FlashInfer (vllm#21959): its sampler sorts, 38 B a logit. The
    Qwen3-8B-FP8 DEBUG log (0.10.2, vllm serve, 256 sequences) prints the 1.40 GiB torch peak this gives."""
    v1 = np.array([False, False])
    assert oh.sampler_bytes_per_logit(10, v1, np.array([False, True])).tolist() == [14, 38]
    assert oh.sampler_bytes_per_logit(17, v1, np.array([False, True])).tolist() == [14, 14]
    per_logit = oh.sampler_bytes_per_logit(10, np.array([False]), True)
    peak = oh.sampler_peak(np.array([256]), np.array([2048]), np.array([151936]), per_logit)
    phase, _ = oh.profile_peak(np.array([0.0]), peak, np.array([2048]), np.array([4096]))
    assert round(phase[0] / GiB, 2) == 1.39  # 256 x 151,936 x 38 B + 2,048 x 4,096 x 2 B


def test_the_v0_eager_forward_holds_three_hidden_and_three_intermediate_tensors():
    """Llama 3.1 8B on V0 (vllm#10517): 20,000 and 29,000 profiled tokens x (3 x 4,096 + 3 x 14,336) x 2 B
    = 2.06 and 2.99 GiB; the logs print torch peaks of 17.06 and 17.98 GiB over 14.99 GiB of weights."""
    got = oh.eager_forward(np.array([20000, 29000]), np.array([4096, 4096]), np.array([14336, 14336]))
    assert got.tolist() == [20000 * 110592 * 1.0, 29000 * 110592 * 1.0]
    assert [round(g / GiB, 2) for g in got] == [2.06, 2.99]


def test_v0_profile_term_is_charged_on_the_v0_engine_only():
    assert oh.nontorch_basis(np.array([1, 2]), np.array([False, False]), v0=True)[
        "v0_profile_mib"
    ].tolist() == [
        MiB,
        MiB,
    ]
    assert oh.nontorch_basis(np.array([1]), np.array([False]))["v0_profile_mib"].tolist() == [0]


def test_rocm_samples_by_sorting_until_the_triton_kernel():
    """ROCm has no FlashInfer sampler (topk_topp_sampler.py: forward_cuda on CUDA only): V1 sorts to 0.16."""
    v2, rocm = np.array([False, False]), np.array([False, True])
    assert oh.sampler_bytes_per_logit(11, v2, rocm).tolist() == [14, 38]
    assert oh.sampler_bytes_per_logit(13, v2, rocm).tolist() == [38, 38]
    assert oh.sampler_bytes_per_logit(18, v2, rocm).tolist() == [14, 14]


def test_rocm_term_is_charged_on_amd_gpus_only():
    bases = oh.nontorch_basis(
        np.array([1, 8]), np.array([False, False]), False, False, np.array([True, False])
    )
    assert (bases["rocm_mib"] / MiB).tolist() == [1, 0]
    assert (oh.nontorch_basis(np.array([4]), np.array([True]))["rocm_mib"] / MiB).tolist() == [0]


def test_tp2_on_an_nvswitch_h100_pays_nccl_buffers_but_no_nvls():
    """At TP 2 on an NVSwitch node the non-torch terms are the per-GPU and NCCL ones, never NVLS.

    vllm-project/vllm#10511's H100 printout (Llama-3-8B, V0) shows non_torch_memory 1.79 GiB at TP 1 and
    3.58 GiB at TP 2. That release measured non-torch memory against torch's *allocated* bytes, so it counted
    the allocator's cached blocks too (vllm-project/vllm#11809, which switched to ``memory_reserved``; #12126
    then prints 0.16 GiB for a TP-1 run on an H100): the 1.79 GiB step is not a buffer size, and the fitted
    ``nccl_mib`` (tens of MiB) is what the corrected profiler charges.
    """
    bases = oh.nontorch_basis(np.array([1, 2]), np.array([True, True]), init_charged=True)
    assert (bases["nccl_mib"] / MiB).tolist() == [0, 1]
    assert (bases["nvls_mib"] / MiB).tolist() == [0, 0]
    assert (bases["nontorch_mib"] / MiB).tolist() == [1, 1]
