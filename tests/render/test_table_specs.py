"""Tests for sizing.render.table_specs: the registry of published tables, their row keys and notes."""

from __future__ import annotations

from pathlib import Path

import pytest

from sizing.errors import UsageError
from sizing.render import table_specs, tables
from sizing.site import context as site

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "site_catalog"


@pytest.fixture(scope="module")
def ctx() -> site.SiteContext:
    """The test catalog's context."""
    return site.context(FIXTURE)


# --- the registry ----------------------------------------------------------------------------


def test_registry_has_every_published_table(ctx: site.SiteContext) -> None:
    """Assert the fixed table ids plus one fit table per catalog server."""
    fixed = {
        "what-fits",
        "weights-by-precision",
        "gpu-classes",
        "recommendations-32b",
        "recommendations-671b",
        "cpu-cores",
        "host-ram",
        "disk",
        "quick-reference",
        "price-per-gb",
        "throughput",
        "catalog-models",
        "catalog-gpus",
        "catalog-servers",
        "catalog-precisions",
        "assumptions",
    }
    assert set(table_specs.table_specs(ctx)) == fixed | {f"fit-{s}" for s in ctx.catalog.servers}


def test_row_keys_are_unique_and_present(ctx: site.SiteContext) -> None:
    """Assert each table's key columns exist and identify its rows (what the diff report relies on)."""
    for spec in table_specs.table_specs(ctx).values():
        rows = spec.rows(ctx)
        assert set(spec.key) <= set(rows.fields), spec.id
        keys = [tuple(r[k] for k in spec.key) for r in rows.records]
        assert len(set(keys)) == len(keys), spec.id


def test_unknown_table_names_the_known_ones(ctx: site.SiteContext) -> None:
    """Assert a misspelt table id fails with the list of ids."""
    with pytest.raises(UsageError, match="what-fits"):
        table_specs.get_spec(ctx, "what-fit")


def test_summary_tables_state_their_settings(ctx: site.SiteContext) -> None:
    """Assert the what-fits note names the KV type, memory utilisation and max model length."""
    md = tables.to_markdown(table_specs.get_spec(ctx, "what-fits"), "en", ctx)
    assert "<code>--kv-cache-dtype fp8</code>" in md and "<code>--gpu-memory-utilization 0.90</code>" in md
    assert f"<code>--max-model-len {ctx.catalog.assume('max_model_len')}</code>" in md
    ru = tables.to_markdown(table_specs.get_spec(ctx, "what-fits"), "ru", ctx)
    assert (
        f"<code>--max-model-len {ctx.catalog.assume('max_model_len')}</code>" in ru
        and "0,90</code>" not in ru
    )


def test_fit_table_note_names_the_kv_type_its_server_shows(real_ctx: site.SiteContext) -> None:
    """Assert a fit table's settings line says fp8 on an L4 and auto on a T4 (no FP8 KV backend below
    sm_80)."""
    specs = table_specs.table_specs(real_ctx)
    assert "--kv-cache-dtype fp8" in specs["fit-ref-1x-l4"].note(real_ctx, "en")
    assert "--kv-cache-dtype auto" in specs["fit-ref-1x-t4"].note(real_ctx, "ru")
