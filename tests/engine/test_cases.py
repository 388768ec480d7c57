"""Tests for sizing.engine.cases: catalog entries as case columns, plan templates."""

from __future__ import annotations

from sizing.engine import cases, dsv4_kv


def test_gpu_columns_of_the_l40s(catalog) -> None:
    """Assert 46068 MiB = 48305799168 bytes, SM 8.9, a 512 capture limit and PCIe."""
    cols = cases.gpu_columns("l40s", catalog.gpus["l40s"])
    assert (cols["total_bytes"], cols["arch_sm"], cols["max_capture_size"]) == (48305799168, 89, 512)
    assert (cols["interconnect"], cols["is_a100"], cols["hw_fp8"]) == ("pcie", False, True)
    assert cases.gpu_columns("b200", catalog.gpus["b200"])["max_capture_size"] == 1024


def test_plan_templates() -> None:
    """Assert 8 GPUs per node over 2 nodes give dp, tp2, tp4, tp8, dp-ep and tp-pp, ranked in that order.

    Only dp-ep sets --enable-expert-parallel; one GPU gives dp alone, one node of 2 has no tp-pp.
    """
    plans = cases.plan_frame(8, 2)
    assert list(zip(plans["plan"], plans["tp"], plans["rank"], plans["expert_parallel"])) == [
        ("dp", 1, 0, False),
        ("tp", 2, 1, False),
        ("tp", 4, 2, False),
        ("tp", 8, 3, False),
        ("dp-ep", 1, 4, True),
        ("tp-pp", 0, 5, False),
    ]
    assert cases.plan_frame(1, 1)["plan"].tolist() == ["dp"]
    assert cases.plan_frame(2, 1)["plan"].tolist() == ["dp", "tp", "dp-ep"]


def test_checkpoints_of_a_model_include_online_quantisation(catalog) -> None:
    """Assert a model lists its published checkpoints, each with whether vLLM quantises it at load time."""
    listed = cases.checkpoints_of(catalog, catalog.models["Qwen/Qwen3-14B"])
    ids = [c.id for c, _ in listed]
    assert "Qwen/Qwen3-14B" in ids and "Qwen/Qwen3-14B-FP8" in ids
    assert all(isinstance(online, bool) for _, online in listed)


def test_compressed_columns_are_zero_but_for_deepseek_v4(catalog) -> None:
    from pathlib import Path

    from sizing.engine.importer import model_from_config_file

    llama = next(iter(catalog.models.values()))
    assert cases.compressed_columns(llama) == dict.fromkeys(dsv4_kv.CSA_COLUMNS, 0)
    path = Path(__file__).parents[1] / "data" / "hf_configs" / "deepseek-ai--DeepSeek-V4-Flash.json"
    flash = cases.compressed_columns(model_from_config_file(path))
    assert (flash["csa_bytes_per_block"], flash["csa_window"], flash["csa_topk_bytes_per_token"]) == (
        1_002_240,
        128,
        512 * 4,
    )
    assert sorted(flash) == sorted(dsv4_kv.CSA_COLUMNS)
