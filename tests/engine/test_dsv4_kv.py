"""DeepSeek-V4's KV cache layout, with figures worked out by hand from DeepSeek-V4-Flash's config.json.

The config (tests/data/hf_configs/deepseek-ai--DeepSeek-V4-Flash.json): 43 decoder layers whose
``compress_ratios`` are 0, 0, then 4 and 128 alternating twenty times, then 4 (the 44th entry is the MTP
layer's); ``sliding_window`` 128, ``head_dim`` 512, ``index_head_dim`` 128.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sizing.engine import dsv4_kv as d

CONFIG = Path(__file__).parents[1] / "data" / "hf_configs" / "deepseek-ai--DeepSeek-V4-Flash.json"


@pytest.fixture(scope="module")
def flash() -> list[d.CacheKind]:
    cfg = json.loads(CONFIG.read_text())
    ratios = cfg["compress_ratios"][: cfg["num_hidden_layers"]]
    return d.cache_kinds(ratios, cfg["sliding_window"], cfg["index_head_dim"])


def test_page_bytes_are_rows_rounded_up_to_576():
    assert d.page(64, 584) == 37440  # 37376 -> 65 x 576
    assert d.page(2, 584) == 1728  # 1168 -> 3 x 576
    assert d.page(64, 132) == 8640  # 8448 -> 15 x 576
    assert d.page(1, 576) == 576


def test_indexer_row_is_fp8_key_plus_a_scale_per_128():
    assert d.indexer_row_bytes(128) == 132
    assert d.indexer_row_bytes(256) == 264


def test_flash_cache_kinds(flash):
    assert [(k.name, k.layers, k.block_size, k.window, k.page_bytes) for k in flash] == [
        ("swa", 43, 64, 128, 37440),  # 64 tokens x 584 B = 37376 -> 37440
        ("c4_kv", 21, 256, 0, 37440),  # 256 / 4 = 64 entries x 584 B
        ("c128_kv", 20, 256, 0, 1728),  # 256 / 128 = 2 entries x 584 B = 1168 -> 1728
        ("c4_index", 21, 256, 0, 8640),  # 64 entries x 132 B = 8448 -> 8640
        ("c4_state", 21, 4, 8, 32832),  # 4 tokens x 2 x 2 x 512 x 4 B = 32768 -> 57 x 576
        ("c4_index_state", 21, 4, 8, 8640),  # 4 tokens x 2 x 2 x 128 x 4 B = 8192 -> 8640
        ("c128_state", 20, 8, 128, 32832),  # 8 tokens x 2 x 1 x 512 x 4 B = 32768 -> 32832
    ]


def test_approximate_gcd_pads_least_and_prefers_the_larger_on_ties():
    # Flash: 43 sliding layers, 21 C4-state pairs, 20 C128 states, at least 21: d = 22 pads 1 + 1 + 2
    assert d.approximate_gcd([43, 21, 20], 21) == 22
    assert d.approximate_gcd([4, 6], 1) == 2  # d = 1 and d = 2 both pad nothing
    assert d.approximate_gcd([3], 5) == 5


def test_flash_groups(flash):
    groups = d.kv_groups(flash)
    assert [(g.block_size, g.window, g.page_bytes) for g in groups] == [
        (64, 128, 22 * 37440),  # 43 sliding layers in groups of 22 repeats: 22 + 21
        (64, 128, 21 * 37440),
        (256, 0, 21 * 37440 + 20 * 1728 + 21 * 8640),  # 21:20:21 is no pattern: one group
        (4, 8, 21 * (32832 + 8640)),  # the C4 states, 21 pairs <= 22
        (8, 128, 20 * 32832),
    ]
    assert d.bytes_per_block(groups) == 1_002_240


def test_flash_blocks_per_request(flash):
    groups = d.kv_groups(flash)
    # 128K tokens, 8192 in flight: 2 x (cdiv(127 + 8192, 64) + 1) + 131072 / 256
    #   + (cdiv(7 + 8192, 4) + 1) + (cdiv(127 + 8192, 8) + 1) = 262 + 512 + 2051 + 1041
    assert d.blocks_per_request(groups, 131072, 8192) == 3866
    # 100 tokens: the windows stop at the context: 2 x (2 + 1) + 1 + (25 + 1) + (13 + 1)
    assert d.blocks_per_request(groups, 100, 8192) == 47


def test_flash_concurrency(flash):
    groups = d.kv_groups(flash)
    available = 10 * 2**30  # 10 GiB: 10713 blocks of 1,002,240 B
    assert available // d.bytes_per_block(groups) == 10713
    assert d.max_concurrency(available, groups, 131072, 8192) == pytest.approx(10713 / 3866)


def test_without_a_pattern_sliding_buckets_split_to_the_anchor_block():
    # Layers 0, 128, 128: no C4 layer, so no balanced bucket mixes pages and every sliding bucket is split
    # until each group fits the widest block (37440 B): three sliding groups and two C128-state groups.
    groups = d.kv_groups(d.cache_kinds([0, 128, 128], 128, 128))
    assert [(g.block_size, g.page_bytes) for g in groups] == [
        (64, 37440),
        (64, 37440),
        (64, 37440),
        (256, 2 * 1728),
        (8, 32832),
        (8, 32832),
    ]
    assert d.bytes_per_block(groups) == 37440


def test_other_compress_ratios_are_refused():
    with pytest.raises(ValueError, match=r"\[2\]"):
        d.cache_kinds([0, 2, 4], 128, 128)


def test_flash_layout_columns(flash):
    cfg = json.loads(CONFIG.read_text())
    columns = d.layout_columns(cfg["compress_ratios"][:43], 128, 128)
    assert columns == {
        "csa_bytes_per_block": 1_002_240,
        "csa_full_page_bytes": 21 * 37440 + 20 * 1728 + 21 * 8640,  # = 1,002,240: the widest group
        "csa_full_groups": 1,
        "csa_swa_groups": 2,
        "csa_c4_state_groups": 1,
        "csa_c128_state_groups": 1,
    }


def test_column_blocks_agree_with_the_groups(flash):
    cfg = json.loads(CONFIG.read_text())
    columns = d.layout_columns(cfg["compress_ratios"][:43], 128, 128)
    groups = d.kv_groups(flash)
    contexts, flights = [100, 4096, 131072, 1048576], [8192, 2048, 16384, 8192]
    got = d.column_blocks(contexts, flights, 128, columns)
    assert list(got) == [d.blocks_per_request(groups, c, f) for c, f in zip(contexts, flights)]
    assert list(got[:1]) == [47]
