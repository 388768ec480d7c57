"""DeepSeek-V4's weights per GPU, with figures worked out by hand from DeepSeek-V4-Flash's config.json.

The config (tests/data/hf_configs/deepseek-ai--DeepSeek-V4-Flash.json): hidden 4096, 43 layers (2 sliding,
21 ratio-4, 20 ratio-128), 64 heads of 512, q/o low rank 1024 in 8 output groups, indexer 64 x 128,
256 routed experts of width 2048 (top 6) plus one shared, hc_mult 4, 3 hash layers, vocabulary 129280,
MXFP4 experts (expert_dtype fp4) in an FP8 128 x 128 block-scaled checkpoint.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sizing.engine import dsv4_weights as w
from sizing.engine import weights as wt
from sizing.engine.importer import model_from_config_file
from sizing.units import MiB

CONFIG = Path(__file__).parents[1] / "data" / "hf_configs" / "deepseek-ai--DeepSeek-V4-Flash.json"


@pytest.fixture(scope="module")
def flash() -> w.Shape:
    return w.shape_of(model_from_config_file(CONFIG))


def test_shape_reads_the_layers_and_both_rope_lengths(flash):
    assert (flash.ratios.count(0), flash.ratios.count(4), flash.ratios.count(128)) == (2, 21, 20)
    assert flash.rope_positions == (1048576, 1048576)  # 1M x factor 1; 65536 x YaRN factor 16
    assert flash.fp4_experts


def test_fp8_linear_and_mxfp4_bytes():
    assert w.fp8_linear(1536, 4096, 1) == 6291456 + 12 * 32  # a byte a weight, a UE8M0 byte a block
    assert w.fp8_linear(4096, 1024, 4) == 4194304 + 32 * 8 * 4  # fp32 scales (fp8-expert checkpoints)
    assert w.mxfp4(512, 4096) == 1048576 + 512 * 128  # half a byte a value, a byte per 32


def test_total_params_match_the_model_card(flash):
    # The card says 284B; MTP layer excluded (the loader drops "mtp." without speculative decoding).
    assert w.total_params(flash) == 284334567511


def test_flash_terms_at_tp8(flash):
    got = {t.name: t.gpu_bytes for t in w.terms(flash, 8)}
    assert got == {
        "embeddings": 132382720,  # 16160 rows x 4096 x 2 B
        "lm_head": 132382720,
        "attention": 541098240,  # 43 x 3 x 4194560 (wq_b, wo_a, wo_b slices with their scales)
        "attention_replicated": 270560128,  # 43 x (6291840 + 64 x 4 B sink)
        "indexer": 187181568,  # 21 x (8192 x 1024 + 64 x 8 scales + 4096 x 64 x 2 B)
        "compressors": 613847040,  # 21 x (16 MiB + 16 KiB + 4 MiB + 4 KiB) + 20 x (8 MiB + 256 KiB)
        "router": 99526656,  # 43 bf16 gates + 40 fp32 biases + 3 int32 tables of 129280 x 6
        "shared_experts": 135274560,  # 43 x (512 x 4096 + 4096 x 256, scales 4 x 32 + 32 x 2)
        "experts": 18396217344,  # 43 x 256 x (1114112 + 557056)
        "hyper_connections": 135537756,  # (43 x 2 x (24 x 16384 + 27) + 65541) x 4 B
        "norms": 892160,
    }
    assert w.weight_bytes(flash, 8) == 20644900892  # 19.23 GiB


def test_split_terms_hold_exactly_one_tp_th_and_the_rest_is_whole(flash):
    one = w.terms(flash, 1)
    for tp in (2, 4, 8):
        for whole, part in zip(one, w.terms(flash, tp)):
            assert part.gpu_bytes * (tp if whole.sharded else 1) == whole.gpu_bytes, (tp, whole.name)
    assert [t.name for t in one if t.sharded] == [
        "embeddings",
        "lm_head",
        "attention",
        "shared_experts",
        "experts",
    ]


def test_the_split_tensors_are_whole_2_mib_segments_so_the_loader_rounds_none(flash):
    # memory.split_rounding leaves DeepSeek-V4's attention and expert tensors out on this ground
    for tp in (1, 2, 4, 8):
        sizes = [
            256 * 2 * 2048 // tp * 4096 // 2,  # w13 of one layer's 256 experts
            256 * 4096 * 2048 // tp // 2,  # w2
            256 * 2 * 2048 // tp * 4096 // 32,  # w13 scales
            32768 // tp * 1024,  # wq_b (wo_a, wo_b the same)
        ]
        assert float(np.sum(wt.split_rounding(np.array(sizes)))) == 0.0
    assert wt.split_rounding(np.array([129280 * 4096 * 2 / 8]))[0] == 2 * MiB - 0.125 * 2 * MiB


def test_weight_bytes_by_tp(flash):
    assert [w.weight_bytes(flash, tp) for tp in (1, 2, 4, 8)] == [
        156006389980,  # 145.29 GiB: the checkpoint's tensors without its MTP layer
        78656967644,
        39982256476,
        20644900892,
    ]


def test_tp_that_does_not_divide_heads_or_groups_is_refused(flash):
    with pytest.raises(ValueError, match="tensor parallel 3"):
        w.terms(flash, 3)
    with pytest.raises(ValueError, match="tensor parallel 16"):
        w.terms(flash, 16)  # o_groups 8
    assert w.tp_problem(flash, 8) is None
    narrow = w.Shape(**{**flash.__dict__, "expert_width": 1536})  # 1536 / 8 = 192: pads to 256
    assert "pads" in w.tp_problem(narrow, 8)


def test_fp8_experts_keep_fp32_scales(flash):
    base = w.Shape(**{**flash.__dict__, "fp4_experts": False})
    experts = next(t for t in w.terms(base, 8) if t.name == "experts")
    # w13 512 x 4096 + 4 x 32 fp32 scales; w2 4096 x 256 + 32 x 2 fp32 scales; 256 experts, 43 layers
    assert experts.gpu_bytes == 43 * 256 * (2097152 + 512 + 1048576 + 256)


def test_buffers_two_fp32_rope_tables_and_topk_indices(flash):
    assert w.rope_bytes(flash) == 2 * 1048576 * 64 * 4  # 512 MiB
    assert w.topk_bytes_per_token(flash) == 512 * 4
    assert w.buffer_bytes(flash, 8192) == w.rope_bytes(flash) + 8192 * 2048  # 528 MiB
    assert w.rope_bytes(w.Shape(**{**flash.__dict__, "ratios": (4, 128)})) == 1048576 * 64 * 4


def test_the_catalog_weights_take_the_terms_at_tp_1(flash):
    model = model_from_config_file(CONFIG)
    assert wt.total_params(model) == 284334567511
    assert model.total_params_b == 284.33
    split = wt.weight_split(model, model.checkpoints[0], None)
    assert split.total == w.weight_bytes(flash, 1) == 156006389980
    assert (split.embeddings, split.lm_head) == (1059061760, 1059061760)
    assert wt.rope_cache_bytes(model) == w.rope_bytes(flash)
