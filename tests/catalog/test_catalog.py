"""The real catalog: complete, cross-referenced, and covering what the guide promises."""

from __future__ import annotations

import ast
import dataclasses
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from sizing.catalog.loader import ASSUMPTION_TYPES, BAND_CLASSES, load_catalog, read_yaml
from sizing.engine.overhead import Coefficients
from sizing.errors import CatalogError

GPU_IDS = {
    "l40s",
    "rtx-pro-6000-blackwell",
    "h100-80gb",
    "h200",
    "a100-40gb",
    "a100-80gb",
    "rtx-4090",
    "rtx-5090",
    "rtx-6000-ada",
    "l4",
    "a10g",
    "h100-nvl",
    "b200",
    "gh200",
}
ARCHITECTURES = {
    "dense": [
        "Qwen/Qwen3-8B",
        "Qwen/Qwen3-14B",
        "Qwen/Qwen3-32B",
        "meta-llama/Llama-3.1-8B-Instruct",
        "meta-llama/Llama-3.3-70B-Instruct",
        "meta-llama/Llama-3.1-405B-Instruct",
        "microsoft/phi-4",
        "Qwen/Qwen2.5-72B-Instruct",
    ],
    "moe": [
        "Qwen/Qwen3-30B-A3B",
        "Qwen/Qwen3-235B-A22B",
        "mistralai/Mixtral-8x7B-Instruct-v0.1",
        "zai-org/GLM-4.5-Air",
        "meta-llama/Llama-4-Scout-17B-16E-Instruct",
    ],
    "mla": ["deepseek-ai/DeepSeek-V3", "deepseek-ai/DeepSeek-R1", "moonshotai/Kimi-K2-Instruct"],
    "sliding": ["openai/gpt-oss-20b", "openai/gpt-oss-120b", "google/gemma-3-27b-it"],
    "linear": ["Qwen/Qwen3-Next-80B-A3B-Instruct"],
}


def test_catalog_covers_the_promised_gpus_servers_and_models(catalog):
    assert GPU_IDS <= set(catalog.gpus)
    assert {"gpu-l40s", "gpu-rtx-pro"} <= set(catalog.servers)
    assert len(catalog.models) >= 25
    for ids in ARCHITECTURES.values():
        assert set(ids) <= set(catalog.models)


def test_architecture_features_are_declared(catalog):
    assert all(catalog.models[m].moe for m in ARCHITECTURES["moe"] + ARCHITECTURES["mla"])
    assert all(catalog.models[m].mla for m in ARCHITECTURES["mla"])
    assert all(catalog.models[m].sliding_window for m in ARCHITECTURES["sliding"])
    assert all(catalog.models[m].linear_attention for m in ARCHITECTURES["linear"])


def test_the_seed_servers(catalog):
    l40s, rtx = catalog.servers["gpu-l40s"], catalog.servers["gpu-rtx-pro"]
    assert (l40s.gpu, l40s.gpus_per_node, l40s.price.monthly) == ("l40s", 1, 979)
    assert (rtx.gpu, rtx.gpus_per_node, rtx.price.monthly) == ("rtx-pro-6000-blackwell", 2, 2199)
    assert l40s.network_gbps == rtx.network_gbps == 25


def test_duplicate_keys_are_errors_not_merged():
    with pytest.raises(CatalogError, match="duplicate key 'l40s'"):
        read_yaml("l40s: {a: 1}\nl40s: {a: 2}\n", "catalog/gpus.yaml")


def test_loading_twice_gives_equal_catalogs(catalog):
    assert load_catalog() == catalog


def _assumptions_read_by_code() -> set[str]:
    """Every ``cat.assume("key")`` key written in ``sizing/``, plus the overhead coefficients read by name."""
    root = Path(__file__).resolve().parents[2] / "sizing"
    keys = {f.name for f in dataclasses.fields(Coefficients)} - {"class_bands"}
    keys |= {f"kv_band_{end}_{name}" for end in ("optimistic", "pessimistic") for name in BAND_CLASSES}
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "assume"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                keys.add(node.args[0].value)
    return keys


def test_every_assumption_the_code_reads_is_validated():
    """Assert each assumption key the engine reads has a type in ASSUMPTION_TYPES (so it is required)."""
    read = _assumptions_read_by_code()
    assert {"dp_min_capacity_share", "gpu_memory_utilization", "serve_port"} <= read
    assert read <= set(ASSUMPTION_TYPES)


def test_a_catalog_without_dp_min_capacity_share_stops_with_one_line(tmp_path):
    """Assert the missing assumption is the one-line CatalogError with exit status 2, not a traceback."""

    root = Path(__file__).resolve().parents[2]
    copy = tmp_path / "catalog"
    shutil.copytree(root / "catalog", copy)
    data = yaml.safe_load((copy / "assumptions.yaml").read_text(encoding="utf-8"))
    del data["dp_min_capacity_share"]
    (copy / "assumptions.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "sizing",
            "--catalog",
            str(copy),
            "estimate",
            "--model",
            "Qwen/Qwen3-14B",
            "--gpu",
            "l40s",
        ],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "assumptions.yaml" in result.stderr and "dp_min_capacity_share" in result.stderr


NEW_GPUS_MIB = {
    "h20": 97871,
    "l20": 46068,
    "a800-80gb": 81920,
    "h800": 81559,
    "rtx-4090d": 24564,
    "b300": 275040,
    "rtx-pro-6000-blackwell-ws": 97887,
}


def test_the_2026_gpus_carry_nvidia_smi_totals_and_say_no_log_backs_them(catalog):
    for gpu_id, mib in NEW_GPUS_MIB.items():
        gpu = catalog.gpus[gpu_id]
        assert gpu.memory_mib == mib
        assert "no vLLM log in calibration/" in gpu.source
    assert (
        catalog.gpus["rtx-pro-6000-blackwell-ws"].bandwidth_gbs
        > catalog.gpus["rtx-pro-6000-blackwell"].bandwidth_gbs
    )
    assert "A100" not in catalog.gpus["a800-80gb"].name  # vLLM's A100 defaults key on the device name


ROOT = Path(__file__).resolve().parents[2]
PRIMARY_GPU_HOSTS = (
    "https://www.nvidia.com/",
    "https://www.nvidia.cn/",
    "https://docs.nvidia.com/",
    "https://www.amd.com/",
)
"""Where a GPU's primary source may live: the vendor's own datasheets, product pages and documentation."""
SECONDARY_ONLY = ("hf.qhduan.com", "ai-nexus", "amallo.ai", "apxml.com", "b-lab.team")
"""Mirrors and aggregators a review found among the sources: never a source of a catalog entry."""


def test_every_model_has_its_repositorys_config_or_card_as_primary_source():
    """Assert each model names a primary source on the Hub: its own repository's config.json or card (or
    one of its checkpoints'), so a reader can check every architecture figure where vLLM reads it."""
    cat = load_catalog(ROOT / "catalog")
    missing = [mid for mid, m in cat.models.items() if not m.primary_source]
    assert missing == []
    for mid, m in cat.models.items():
        repos = {mid, *(c.id for c in m.checkpoints)}
        assert any(
            str(m.primary_source).startswith(f"https://huggingface.co/{repo}/")
            or str(m.primary_source) == f"https://huggingface.co/{repo}"
            for repo in repos
        ), mid


def test_every_gpu_has_a_vendor_document_as_primary_source():
    """Assert each GPU names a vendor datasheet, product page or document as its primary source."""
    cat = load_catalog(ROOT / "catalog")
    bad = [
        gid for gid, g in cat.gpus.items() if not str(g.primary_source or "").startswith(PRIMARY_GPU_HOSTS)
    ]
    assert bad == []


def test_no_source_is_a_mirror_or_an_aggregator():
    """Assert the catalog cites no mirror or aggregator the review found."""
    text = "".join(
        (ROOT / "catalog" / f"{stem}.yaml").read_text(encoding="utf-8") for stem in ("models", "gpus")
    )
    assert [host for host in SECONDARY_ONLY if host in text] == []


def test_a800_and_h800_bandwidths_are_nvidias():
    """Assert the A800 SXM (the A100 80GB SXM's HBM2e) and the H800 SXM (the H100 SXM's HBM3): 2,039 and
    3,350 GB/s."""
    cat = load_catalog(ROOT / "catalog")
    assert (cat.gpus["a800-80gb"].bandwidth_gbs, cat.gpus["h800"].bandwidth_gbs) == (2039, 3350)


def test_a_primary_source_must_be_one_url(tmp_path):
    """Assert a primary source that is not one https URL stops with one line naming file, entry and field."""
    copy = tmp_path / "catalog"
    shutil.copytree(ROOT / "catalog", copy)
    data = yaml.safe_load((copy / "gpus.yaml").read_text(encoding="utf-8"))
    data["l40s"]["primary_source"] = "NVIDIA datasheet"
    (copy / "gpus.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "sizing", "--catalog", str(copy), "list", "gpus"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 2 and "gpus.yaml" in result.stderr and "primary_source" in result.stderr
    assert "Traceback" not in result.stderr
