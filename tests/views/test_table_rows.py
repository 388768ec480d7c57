"""Tests for sizing.views.table_rows: the language-neutral rows of each published table (test catalog)."""

from __future__ import annotations

import pytest

from sizing.site import context as site
from sizing.views import catalog_rows as cr
from sizing.views import table_rows as tr


def precisions_of(ctx: site.SiteContext, model: str) -> set[str]:
    """Published precisions plus those vLLM can quantise to at load time from the native one."""
    m = ctx.catalog.models[model]
    published = {c.precision for c in m.checkpoints}
    native = m.checkpoints[0].precision
    online = {
        p
        for p, spec in ctx.catalog.precisions.items()
        if spec.online_from == native and spec.vllm_quantization and p not in published
    }
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
    rows = tr.recommendation_rows(ctx, "32b")
    assert rows["fits"].all() and set(rows["model"]) == {"Qwen/Qwen3-32B"}
    assert list(rows["w_total"]) == sorted(rows["w_total"], reverse=True)


def test_quick_reference_keeps_the_seeds_targets(real: site.SiteContext) -> None:
    """Assert every target of the deployment seed is a row, on its server, with the matrix's verdict."""
    rows = tr.quick_reference_rows(real)
    assert len(rows) == len(tr.QUICK_REFERENCE)
    assert set(rows["tier"]) == {"local", "small_service", "production"}
    matrix = real.frame[real.frame["chosen"] & (real.frame["kv_cache_dtype"] == "fp8")]
    for r, (_, size, precision, server) in zip(rows.itertuples(), tr.QUICK_REFERENCE):
        assert (r.server, r.precision) == (server, precision)
        assert r.model in tr.size_class_models(real, size)
        same = matrix[(matrix["checkpoint"] == r.checkpoint) & (matrix["server"] == server)]
        assert bool(same["fits"].iloc[0]) == bool(r.fits)


def test_671b_is_computed_in_4_bit_fp8_and_bf16(real: site.SiteContext) -> None:
    """Assert the 671B table, weights table and quick reference carry 4-bit, FP8 and BF16 rows."""
    wanted = {"nvfp4", "fp8", "bf16"}
    assert wanted <= set(tr.recommendation_rows(real, "671b")["precision"])
    weights = cr.weights_rows(real)
    assert wanted <= set(weights[weights["model"].isin(tr.size_class_models(real, "671b"))]["precision"])
    quick = tr.quick_reference_rows(real)
    assert wanted <= set(quick[quick["model"].isin(tr.size_class_models(real, "671b"))]["precision"])


def test_rows_without_the_formats_tensor_cores_say_weight_only(real: site.SiteContext) -> None:
    """Assert NVFP4 on an A100 or H100 is marked weight-only, and on Blackwell it is not."""
    rows = tr.chosen(real, "fp8")
    nvfp4 = rows[rows["precision"] == "nvfp4"]
    assert set(nvfp4[nvfp4["gpu"].isin(["a100-80gb", "h100-80gb"])]["weight_only"]) == {"fp4"}
    assert set(nvfp4[nvfp4["gpu"] == "b200"]["weight_only"]) == {""}


def test_price_per_gb_is_monthly_price_over_nominal_memory(ctx: site.SiteContext) -> None:
    """Assert the price per GB per month is the offer's price over its GPUs' nominal GB."""
    rows = tr.price_rows(ctx).set_index("server")
    s = ctx.catalog.servers["gpu-l40s"]
    assert set(rows.index) == {"gpu-l40s", "gpu-rtx-pro"}
    assert rows.loc["gpu-l40s", "price_per_gb_month"] == pytest.approx(
        s.price.monthly / (ctx.catalog.gpus[s.gpu].memory_gb * s.gpus_per_node)
    )


def test_main_models_are_examples_and_representatives(ctx: site.SiteContext) -> None:
    """Assert the throughput table's models are the examples' and the size classes' that exist."""
    expected = {ex.model for ex in ctx.catalog.examples.values()} | (
        set(tr.REPRESENTATIVES.values()) & set(ctx.catalog.models)
    )
    assert set(tr.main_models(ctx)) == expected


def test_example_table_row_is_the_recommended_row_of_its_case(real: site.SiteContext) -> None:
    """Assert an example's table row is a chosen matrix row of its checkpoint, server and KV type."""
    ex, row = real.example("example-1"), tr.example_table_row(real, "example-1")
    assert row["chosen"] and not row["online_quantization"]
    assert [row[k] for k in ("checkpoint", "server", "kv_cache_dtype")] == [
        ex["checkpoint"],
        ex["server"],
        ex["kv_cache_dtype"],
    ]
