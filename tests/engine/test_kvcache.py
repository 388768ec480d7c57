"""KV-cache arithmetic: bytes per token, groups, blocks per request."""

from __future__ import annotations

import numpy as np

from sizing.engine import kvcache as kv


def test_gqa_bytes_per_token_and_replication_past_kv_heads():
    per_layer = kv.attention_bytes_per_token_layer(False, 8, 128, 0, np.array([1, 2, 4, 8, 16]), 2)
    assert per_layer.tolist() == [4096, 2048, 1024, 512, 512]


def test_mla_bytes_per_token_ignore_tp():
    per_layer = kv.attention_bytes_per_token_layer(True, 128, 192, 576, np.array([1, 8]), 2)
    assert per_layer.tolist() == [1152, 1152]


def test_group_size_rule():
    # gpt-oss-120b: 18 full + 18 sliding -> groups of 18; Gemma-3 27B: 10 full + 52 sliding -> 10
    assert kv.group_size(np.array([18, 10, 62]), np.array([18, 52, 0]), np.array([0, 0, 0])).tolist() == [
        18,
        10,
        62,
    ]
    # 12 full + 36 linear (Qwen3-Next): smallest bucket; 13 vs 11: largest (13 < 1.5 x 11)
    assert kv.group_size(np.array([12, 13]), np.array([0, 11]), np.array([36, 0])).tolist() == [12, 13]


def test_gpt_oss_120b_blocks_per_request_matches_the_reference_case():
    # memory model c.3: 8,192 full blocks + cdiv(127 + 1024, 16) + 1 = 73 sliding blocks
    needed = kv.blocks_per_request(131072, 16, 1, 1, 0, 128, 1024)
    assert int(needed) == 8192 + 73


def test_hybrid_block_size_covers_the_mamba_state():
    state = kv.gdn_state_bytes(16, 32, 128, 128, 4, 1, 2)
    assert int(state) == ((2 * 16 * 128 + 32 * 128) * 3 + 32 * 128 * 128) * 2
    bs = kv.hybrid_block_size(16, state, 2048)
    assert int(bs) * 2048 >= int(state) and int(bs) % 16 == 0


def test_num_blocks_is_floor_and_never_negative():
    assert kv.num_blocks(np.array([-5.0, 10.0, 9.99]), 5).tolist() == [0, 2, 1]


def test_sparse_mla_indexer_keys_cost_132_bytes_per_token_and_layer():
    # DeepSeek-V3.2: 128 FP8 key bytes + one FP32 scale per 128; no indexer -> nothing
    assert kv.indexer_bytes_per_token_layer(np.array([128, 0])).tolist() == [132, 0]


def test_pages_of_different_layer_kinds_are_unified_by_raising_the_smaller_kinds_block():
    # Gemma 4 31B: sliding 2 x 16 x 256 x 2 B = 16 KiB per token, full 2 x 4 x 512 x 2 B = 8 KiB
    page = kv.page_bytes_per_token(8192, 16384, 50)
    full, sliding = kv.unified_block_sizes(16, page, 8192, 16384)
    assert (int(page), int(full), int(sliding)) == (16384, 32, 16)
    # no sliding layers: the full layers keep the block size
    assert kv.unified_block_sizes(16, kv.page_bytes_per_token(8192, 16384, 0), 8192, 16384)[0] == 16


def test_blocks_per_request_counts_each_kind_in_its_own_block_size():
    # Gemma 4 31B at 8192 tokens, 8192 batched: 1 full group x 256 + 5 sliding groups x 513
    assert int(kv.blocks_per_request(8192, 32, 1, 5, 0, 1024, 8192, bs_sliding=16)) == 256 + 5 * 513


def test_kda_state_of_kimi_linear_at_tp2_keeps_the_temporal_state_in_fp32():
    # conv: (2 x 32 x 128 + 32 x 128) / 2 = 6144 channels x 3 x 2 B; temporal: 16 x 128 x 128 x 4 B
    state = kv.recurrent_state_bytes(32, 32, 128, 128, 4, 2, 2, 4)
    assert int(state) == 6144 * 3 * 2 + 16 * 128 * 128 * 4 == 1_085_440


def test_mamba2_state_of_nemotron_3_nano_matches_vllms_shapes():
    # conv: 4096 inner + 2 x 8 groups x 128 state = 6144 channels x 3 x 2 B; ssm: 64 x 64 x 128 x 4 B (fp32)
    state = kv.recurrent_state_bytes(kv.mamba2_groups(8, 1), 64, 128, 64, 4, 1, 2, 4)
    assert int(state) == 6144 * 3 * 2 + 64 * 64 * 128 * 4 == 2_134_016


def test_mamba2_groups_are_widened_to_the_tp_size_when_they_do_not_divide():
    assert kv.mamba2_groups(np.array([1, 1, 8, 8]), np.array([1, 2, 2, 8])).tolist() == [1, 2, 8, 8]
    # one group at TP 2 becomes two: conv (3072 + 2 x 2 x 128) / 2 = 1792 channels
    assert (
        int(kv.recurrent_state_bytes(kv.mamba2_groups(1, 2), 48, 128, 64, 4, 2, 2, 2))
        == 1792 * 3 * 2 + 24 * 64 * 128 * 2
    )


def test_gdn_state_is_the_general_form_with_one_dtype():
    assert (
        int(kv.gdn_state_bytes(16, 32, 128, 128, 4, 2, 2))
        == int(kv.recurrent_state_bytes(16, 32, 128, 128, 4, 2, 2, 2))
        == (8192 // 2 * 3 + 16 * 128 * 128) * 2
    )


def test_kimi_linear_block_size_makes_one_mla_page_cover_a_kda_state():
    # MLA page per token: 576 x 2 B; 1,085,440 B of state -> 16 x cdiv(1085440, 16 x 1152) = 944 tokens
    assert int(kv.hybrid_block_size(16, 1_085_440, 1152)) == 944


def test_an_mla_hybrid_aligns_its_block_to_64_tokens():
    # vllm-project/vllm#28228 (Kimi-Linear AWQ, TP2, 0.11.x): 64 x cdiv(1,085,440, 64 x 1,152) = 960 tokens,
    # which its log's 75,840 tokens (79 x 960) and 2.48x (318 / (125 + 3) blocks) confirm
    assert int(kv.hybrid_block_size(16, 1_085_440, 1152, kv.MLA_HYBRID_ALIGN)) == 960


def test_hybrid_block_is_a_multiple_of_the_block_size_already_set():
    # Granite-4.0-H-Tiny at TP1: (3328 x 3 + 48 x 64 x 128) x 2 B = 806,400 B of state, 2,048 B per token:
    # 16-aligned 400 tokens with a 16-token default, 64-aligned 448 with 0.34's 64
    state = kv.recurrent_state_bytes(1, 48, 128, 64, 4, 1, 2, 2)
    assert int(state) == 806_400
    assert kv.hybrid_block_size(np.array([16, 64]), state, 2048).tolist() == [400, 448]
