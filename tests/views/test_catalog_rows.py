"""Tests for sizing.views.catalog_rows: the rows of the hardware and catalog tables (test and real
catalogs)."""

from __future__ import annotations

import math

import pytest

from sizing.site import context as site
from sizing.units import GB
from sizing.views import catalog_rows as tr


def test_cpu_cores_are_two_plus_n_and_the_assumed_range(ctx: site.SiteContext) -> None:
    """Assert the minimum is vLLM's 2 + N and the range is the catalog's assumption."""
    rows = tr.cpu_core_rows(ctx)
    assert list(rows["cores_min"]) == [n + 2 for n in rows["gpus"]]
    assert rows[["gpus", "cores_low", "cores_high"]].values.tolist() == ctx.catalog.assume(
        "cpu_cores_recommended"
    )


def test_host_ram_compares_ram_with_gpu_memory(ctx: site.SiteContext) -> None:
    """Assert RAM ÷ GPU memory is computed from the catalog, and blank where RAM is not stated."""
    rows = tr.host_ram_rows(ctx).set_index("server")
    s = ctx.catalog.servers["gpu-rtx-pro"]
    vram = ctx.catalog.gpus[s.gpu].memory_gb * s.gpus_per_node
    assert rows.loc["gpu-rtx-pro", "ram_ratio"] == pytest.approx(s.ram_gb / vram)
    assert rows.loc["gpu-rtx-pro", "ram_covers_vram"] == (s.ram_gb >= vram)
    assert (
        math.isnan(rows.loc["ref-8x-h100", "ram_bytes"])
        and rows.loc["ref-8x-h100", "ram_covers_vram"] is None
    )


def test_disk_load_time_uses_the_server_read_speed_or_the_assumption(ctx: site.SiteContext) -> None:
    """Assert load time = published file size ÷ NVMe read speed (assumption when the server states none)."""
    rows = tr.disk_rows(ctx).set_index("checkpoint")
    size_gb = next(
        c.file_gb for c in ctx.catalog.models["Qwen/Qwen3-32B"].checkpoints if c.id == "Qwen/Qwen3-32B"
    )
    l40s = ctx.catalog.servers["gpu-l40s"].nvme.read_gbs
    assert ctx.catalog.servers["gpu-rtx-pro"].nvme is None
    assert rows.loc["Qwen/Qwen3-32B", "load_gpu-l40s"] == pytest.approx(size_gb / l40s)
    assert rows.loc["Qwen/Qwen3-32B", "load_gpu-rtx-pro"] == pytest.approx(
        size_gb / ctx.catalog.assume("nvme_read_gbs")
    )
    assert not rows["online_quantization"].any()


def test_weights_rows_mark_online_quantisation_as_fileless(ctx: site.SiteContext) -> None:
    """Assert a load-time quantised checkpoint has weights but no file size, published ones a size."""
    rows = tr.weights_rows(ctx)
    online = rows[rows["online_quantization"]]
    assert len(online) and online["file_bytes"].isna().all()
    bf16 = rows[rows["checkpoint"] == "Qwen/Qwen3-32B"].iloc[0]
    assert bf16["file_bytes"] == 65.5 * GB and bf16["published_size"]
    assert list(dict.fromkeys(rows["model"])) == [
        "Qwen/Qwen3-32B",
        "meta-llama/Llama-3.3-70B-Instruct",
        "deepseek-ai/DeepSeek-V3",
    ]


def test_largest_single_gpu_model_fits_one_gpu(real: site.SiteContext) -> None:
    """Assert the named model fits one GPU at fp8 KV and no model with more parameters does, whatever
    plan the planner prefers for the server (gpt-oss-120b on an RTX PRO 6000, Qwen3-235B on a B200)."""
    m = real.frame
    params = {mid: model.total_params_b for mid, model in real.catalog.models.items()}
    names = tr.gpu_class_rows(real).set_index("gpu")["largest_single_gpu"]
    for gpu in ("l40s", "rtx-pro-6000-blackwell", "b200"):
        one_gpu = m[
            m["fits"]
            & (m["gpu"] == gpu)
            & (m["tp"] == 1)
            & (m["pp"] == 1)
            & ~m["expert_parallel"]
            & (m["kv_cache_dtype"] == "fp8")
        ]
        best = max(one_gpu["model"], key=params.get)
        assert names[gpu].startswith(real.catalog.models[best].name + " ("), gpu
    assert names["rtx-pro-6000-blackwell"].startswith("gpt-oss-120b")


def test_card_memory_as_sold_is_binary(real: site.SiteContext) -> None:
    """Assert the nominal capacity (GiB) is never below what nvidia-smi shows: "48 GB" cards are 48 GiB."""
    rows = tr.gpu_class_rows(real)
    assert (rows["memory_bytes"] >= rows["total_bytes"]).all()


def test_labels() -> None:
    """Assert interconnect labels do not repeat the link name and assumption values read as in YAML."""
    assert tr.interconnect_label("nvlink", "4 (NVSwitch, HGX)") == "NVLink 4 (NVSwitch, HGX)"
    assert tr.interconnect_label("nvlink", "NVLink-C2C to the CPU") == "NVLink-C2C to the CPU"
    assert tr.assumption_value([[1, 8, 16], [2, 16, 32]]) == "[[1, 8, 16], [2, 16, 32]]"
    assert tr.assumption_value(True) == "true" and tr.assumption_value("0.34.0") == "0.34.0"


def test_attention_labels(ctx: site.SiteContext) -> None:
    """Assert MLA, GQA and sliding-window models are described as such."""
    assert tr.attention_label(ctx.catalog, "deepseek-ai/DeepSeek-V3") == "MLA"
    assert tr.attention_label(ctx.catalog, "Qwen/Qwen3-14B") == "GQA"
    window = ctx.catalog.models["openai/gpt-oss-120b"].sliding_window.window
    assert tr.attention_label(ctx.catalog, "openai/gpt-oss-120b") == f"GQA + sliding window {window}"


def test_linear_attention_labels_name_the_layer_kind(catalog) -> None:
    """Assert each hybrid says which linear layers it has (the words are translated in catalog.yaml)."""
    assert tr.attention_label(catalog, "Qwen/Qwen3-Next-80B-A3B-Instruct") == "GQA + Gated DeltaNet"
    assert tr.attention_label(catalog, "moonshotai/Kimi-Linear-48B-A3B-Instruct") == "MLA + KDA"
    assert tr.attention_label(catalog, "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16") == "GQA + Mamba-2"
