"""Tests for sizing.render.table_rows: the language-neutral rows of each published table (test catalog)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from sizing.site import context as site
from sizing.render import table_rows as tr
from sizing.units import GB

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "site_catalog"


@pytest.fixture(scope="module")
def ctx() -> site.SiteContext:
    """The test catalog's context."""
    return site.context(FIXTURE)


def precisions_of(ctx: site.SiteContext, model: str) -> set[str]:
    """Published precisions plus those vLLM can quantise to at load time from the native one."""
    m = ctx.catalog.models[model]
    published = {c.precision for c in m.checkpoints}
    native = m.checkpoints[0].precision
    online = {p for p, spec in ctx.catalog.precisions.items()
              if spec.online_from == native and spec.vllm_quantization and p not in published}
    return published | online


def test_what_fits_covers_models_precisions_and_offers(ctx: site.SiteContext) -> None:
    """Assert one row per model × precision × offer server, all at fp8 KV cache."""
    rows = tr.what_fits_rows(ctx)
    offers = [s for s, server in ctx.catalog.servers.items() if server.kind == "offer"]
    expected = {(m, p, s) for m in ctx.catalog.models for p in precisions_of(ctx, m) for s in offers}
    assert set(zip(rows["model"], rows["precision"], rows["server"])) == expected
    assert len(rows) == len(expected)
    assert set(rows["kv_cache_dtype"]) == {"fp8"}


def test_sequences_beyond_the_model_context_are_missing(ctx: site.SiteContext) -> None:
    """Assert a context longer than the model's own has no sequence count (not zero)."""
    rows = tr.fit_rows(ctx, "gpu-rtx-pro")
    qwen = rows[rows["model"] == "Qwen/Qwen3-14B"]
    assert ctx.catalog.models["Qwen/Qwen3-14B"].max_context < 131072
    assert qwen["seq_131072"].isna().all() and qwen["seq_4096"].notna().all()


def test_fit_rows_clip_negative_kv_cache(ctx: site.SiteContext) -> None:
    """Assert rows whose weights overflow the budget show 0 KV cache, never a negative amount."""
    rows = tr.fit_rows(ctx, "gpu-l40s")
    assert (rows["kv_cache_bytes"] >= 0).all()
    assert (~rows["fits"]).any()


def test_recommendations_only_list_fitting_servers(ctx: site.SiteContext) -> None:
    """Assert the 32B recommendations are fitting rows of Qwen3-32B, largest weights first."""
    rows = tr.recommendation_rows(ctx, "Qwen/Qwen3-32B")
    assert rows["fits"].all() and set(rows["model"]) == {"Qwen/Qwen3-32B"}
    assert list(rows["w_total"]) == sorted(rows["w_total"], reverse=True)


def test_quick_reference_picks_the_smallest_fitting_server(ctx: site.SiteContext) -> None:
    """Assert each row's server has the least total GPU memory among the servers that fit."""
    rows = tr.quick_reference_rows(ctx)
    matrix = ctx.frame[ctx.frame["chosen"] & (ctx.frame["kv_cache_dtype"] == "fp8") & ctx.frame["fits"]]
    for r in rows.itertuples():
        options = matrix[(matrix["checkpoint"] == r.checkpoint) & (matrix["precision"] == r.precision)]
        vram = {s: ctx.catalog.gpus[ctx.catalog.servers[s].gpu].memory_gb * ctx.catalog.servers[s].gpus_per_node
                * ctx.catalog.servers[s].nodes for s in options["server"]}
        assert vram[r.server] == min(vram.values())


def test_cpu_cores_are_two_plus_n_and_the_assumed_range(ctx: site.SiteContext) -> None:
    """Assert the minimum is vLLM's 2 + N and the range is the catalog's assumption."""
    rows = tr.cpu_core_rows(ctx)
    assert list(rows["cores_min"]) == [n + 2 for n in rows["gpus"]]
    assert rows[["gpus", "cores_low", "cores_high"]].values.tolist() == ctx.catalog.assume("cpu_cores_recommended")


def test_host_ram_compares_ram_with_gpu_memory(ctx: site.SiteContext) -> None:
    """Assert RAM ÷ GPU memory is computed from the catalog, and blank where RAM is not stated."""
    rows = tr.host_ram_rows(ctx).set_index("server")
    s = ctx.catalog.servers["gpu-rtx-pro"]
    vram = ctx.catalog.gpus[s.gpu].memory_gb * s.gpus_per_node
    assert rows.loc["gpu-rtx-pro", "ram_ratio"] == pytest.approx(s.ram_gb / vram)
    assert rows.loc["gpu-rtx-pro", "ram_covers_vram"] == (s.ram_gb >= vram)
    assert math.isnan(rows.loc["ref-8x-h100", "ram_bytes"]) and rows.loc["ref-8x-h100", "ram_covers_vram"] is None


def test_disk_load_time_uses_the_server_read_speed_or_the_assumption(ctx: site.SiteContext) -> None:
    """Assert load time = published file size ÷ NVMe read speed (assumption when the server states none)."""
    rows = tr.disk_rows(ctx).set_index("checkpoint")
    size_gb = next(c.file_gb for c in ctx.catalog.models["Qwen/Qwen3-32B"].checkpoints if c.id == "Qwen/Qwen3-32B")
    l40s = ctx.catalog.servers["gpu-l40s"].nvme.read_gbs
    assert ctx.catalog.servers["gpu-rtx-pro"].nvme is None
    assert rows.loc["Qwen/Qwen3-32B", "load_gpu-l40s"] == pytest.approx(size_gb / l40s)
    assert rows.loc["Qwen/Qwen3-32B", "load_gpu-rtx-pro"] == pytest.approx(size_gb / ctx.catalog.assume("nvme_read_gbs"))
    assert not rows["online_quantization"].any()


def test_weights_rows_mark_online_quantisation_as_fileless(ctx: site.SiteContext) -> None:
    """Assert a load-time quantised checkpoint has weights but no file size, published ones a size."""
    rows = tr.weights_rows(ctx)
    online = rows[rows["online_quantization"]]
    assert len(online) and online["file_bytes"].isna().all()
    bf16 = rows[rows["checkpoint"] == "Qwen/Qwen3-32B"].iloc[0]
    assert bf16["file_bytes"] == 65.5 * GB and bf16["published_size"]
    assert list(dict.fromkeys(rows["model"])) == ["Qwen/Qwen3-32B", "meta-llama/Llama-3.3-70B-Instruct",
                                                  "deepseek-ai/DeepSeek-V3"]


def test_price_per_gb_is_monthly_price_over_nominal_memory(ctx: site.SiteContext) -> None:
    """Assert the price per GB per month is the offer's price over its GPUs' nominal GB."""
    rows = tr.price_rows(ctx).set_index("server")
    s = ctx.catalog.servers["gpu-l40s"]
    assert set(rows.index) == {"gpu-l40s", "gpu-rtx-pro"}
    assert rows.loc["gpu-l40s", "price_per_gb_month"] == pytest.approx(
        s.price.monthly / (ctx.catalog.gpus[s.gpu].memory_gb * s.gpus_per_node))


def test_largest_single_gpu_model_fits_one_gpu(ctx: site.SiteContext) -> None:
    """Assert the named model fits one L40S at fp8 KV and no model with more parameters does."""
    name = tr.gpu_class_rows(ctx).set_index("gpu").loc["l40s", "largest_single_gpu"]
    m = ctx.frame
    one_gpu = m[m["chosen"] & m["fits"] & (m["gpu"] == "l40s") & (m["tp"] == 1) & (m["pp"] == 1)
                & (m["kv_cache_dtype"] == "fp8")]
    params = {mid: model.total_params_b for mid, model in ctx.catalog.models.items()}
    best = max(one_gpu["model"], key=params.get)
    assert name.startswith(ctx.catalog.models[best].name + ", ")


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


def test_main_models_are_examples_and_representatives(ctx: site.SiteContext) -> None:
    """Assert the throughput table's models are the examples' and the size classes' that exist."""
    expected = {ex.model for ex in ctx.catalog.examples.values()} | (
        set(tr.REPRESENTATIVES.values()) & set(ctx.catalog.models))
    assert set(tr.main_models(ctx)) == expected
