"""DeepSeek-V4's weights per GPU, with figures worked out by hand from DeepSeek-V4-Flash's config.json.

The config (tests/data/hf_configs/deepseek-ai--DeepSeek-V4-Flash.json): hidden 4096, 43 layers (2 sliding,
21 ratio-4, 20 ratio-128), 64 heads of 512, q/o low rank 1024 in 8 output groups, indexer 64 x 128,
256 routed experts of width 2048 (top 6) plus one shared, hc_mult 4, 3 hash layers, vocabulary 129280,
MXFP4 experts (expert_dtype fp4) in an FP8 128 x 128 block-scaled checkpoint.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sizing.engine import dsv4_weights as w

CONFIG = Path(__file__).parents[1] / "data" / "hf_configs" / "deepseek-ai--DeepSeek-V4-Flash.json"


@pytest.fixture(scope="module")
def flash() -> w.Shape:
    return w.shape(json.loads(CONFIG.read_text()))


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
        "embeddings": 264765440,  # 2 x 16160 rows x 4096 x 2 B
        "attention": 811658368,  # 43 x (6291840 + 3 x 4194560 + 64 x 4 B sink)
        "indexer": 187181568,  # 21 x (8192 x 1024 + 64 x 8 scales + 4096 x 64 x 2 B)
        "compressors": 613847040,  # 21 x (16 MiB + 16 KiB + 4 MiB + 4 KiB) + 20 x (8 MiB + 256 KiB)
        "router": 99526656,  # 43 bf16 gates + 40 fp32 biases + 3 int32 tables of 129280 x 6
        "shared_experts": 135274560,  # 43 x (512 x 4096 + 4096 x 256, scales 4 x 32 + 32 x 2)
        "routed_experts": 18396217344,  # 43 x 256 x (1114112 + 557056)
        "hyper_connections": 135537756,  # (43 x 2 x (24 x 16384 + 27) + 65541) x 4 B
        "norms": 892160,
    }
    assert w.weight_bytes(flash, 8) == 20644900892  # 19.23 GiB


def test_replicated_terms_do_not_shrink_with_tp(flash):
    one, eight = ({t.name: t.gpu_bytes for t in w.terms(flash, tp)} for tp in (1, 8))
    for name in ("indexer", "compressors", "router", "hyper_connections", "norms"):
        assert one[name] == eight[name]
    assert one["routed_experts"] == 8 * eight["routed_experts"]  # no padding: width 2048 / tp is 128-aligned
    assert one["embeddings"] == 8 * eight["embeddings"]


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


def test_fp8_experts_keep_fp32_scales(flash):
    base = w.Shape(**{**flash.__dict__, "fp4_experts": False})
    experts = next(t for t in w.terms(base, 8) if t.name == "routed_experts")
    # w13 512 x 4096 + 4 x 32 fp32 scales; w2 4096 x 256 + 32 x 2 fp32 scales; 256 experts, 43 layers
    assert experts.gpu_bytes == 43 * 256 * (2097152 + 512 + 1048576 + 256)


def test_buffers_two_fp32_rope_tables_and_topk_indices(flash):
    assert w.buffer_bytes(flash, 8192) == 2 * 1048576 * 64 * 4 + 8192 * 512 * 4  # 528 MiB
