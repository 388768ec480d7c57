"""The site's build context: evaluated once, shared with every language build through a saved file."""

from __future__ import annotations

import shutil

import pandas as pd

from sizing.site import context as site


def test_a_saved_context_is_loaded_instead_of_evaluating_again(tmp_path, monkeypatch):
    ctx = site.build_context(site.load_catalog(site.DEFAULT_DIR), site.DEFAULT_DIR.resolve())
    site.save_context(ctx, tmp_path / "ctx.pickle")
    monkeypatch.setenv(site.SNAPSHOT_VAR, str(tmp_path / "ctx.pickle"))
    loaded = site._saved(str(site.DEFAULT_DIR.resolve()))
    assert loaded is not None
    pd.testing.assert_frame_equal(loaded.frame, ctx.frame)
    assert dict(loaded.examples).keys() == dict(ctx.examples).keys()
    assert loaded.calibration == () and loaded.series == {}


def test_prepare_fills_the_build_time_views_once():
    """Assert prepare computes calibration checks, their summary and every server's series, and keeps them."""
    from sizing.review import calibration, calibration_stats

    ctx = site.build_context(site.load_catalog(site.DEFAULT_DIR), site.DEFAULT_DIR.resolve())
    ready = site.prepare(ctx)
    assert list(ready.calibration) == calibration.results(ctx.catalog)
    assert dict(ready.calibration_summary) == calibration_stats.summary(list(ready.calibration))
    quantiles = ctx.catalog.assume("kv_band_quantiles")
    coverage = calibration_stats.coverage(list(ready.calibration), quantiles)
    assert ready.calibration_groups["coverage"]["all"] == coverage
    assert set(ready.series) == set(ctx.catalog.servers)
    assert site.prepare(ready).series is ready.series


def test_a_saved_context_of_another_catalog_state_is_ignored(tmp_path, monkeypatch):
    catalog = tmp_path / "catalog"
    shutil.copytree(site.DEFAULT_DIR, catalog)
    ctx = site.build_context(site.load_catalog(catalog), catalog)
    site.save_context(ctx, tmp_path / "ctx.pickle")
    monkeypatch.setenv(site.SNAPSHOT_VAR, str(tmp_path / "ctx.pickle"))
    gpus = catalog / "gpus.yaml"
    gpus.write_text(gpus.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert site._saved(str(catalog)) is None
    assert site._saved(str(site.DEFAULT_DIR.resolve())) is None


def test_saved_chart_series_equal_the_ones_computed_on_demand(tmp_path, monkeypatch):
    from sizing.views import series

    ctx = site.prepare(site.build_context(site.load_catalog(site.DEFAULT_DIR), site.DEFAULT_DIR.resolve()))
    site.save_context(ctx, tmp_path / "ctx.pickle")
    monkeypatch.setenv(site.SNAPSHOT_VAR, str(tmp_path / "ctx.pickle"))
    loaded = site._saved(str(site.DEFAULT_DIR.resolve()))
    for server in ("gpu-l40s", "gpu-rtx-pro"):
        assert list(loaded.series[server]) == series.concurrency_series(ctx.catalog, ctx.frame, server)
