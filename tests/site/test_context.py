"""The site's build context: evaluated once, shared with every language build through a saved file.

Saving and loading run on the small catalog of ``tests/data/site_catalog``; the prepare step needs the
repository catalog (calibration names its models), prepared once per run (``prepared_ctx``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd

from sizing.site import context as site

SMALL = (Path(__file__).resolve().parents[1] / "data" / "site_catalog").resolve()


def small_context() -> site.SiteContext:
    """A fresh (unprepared) context of the small catalog."""
    return site.build_context(site.load_catalog(SMALL), SMALL)


def test_a_saved_context_is_loaded_instead_of_evaluating_again(tmp_path, monkeypatch):
    ctx = small_context()
    site.save_context(ctx, tmp_path / "ctx.pickle")
    monkeypatch.setenv(site.SNAPSHOT_VAR, str(tmp_path / "ctx.pickle"))
    loaded = site._saved(str(SMALL))
    assert loaded is not None
    pd.testing.assert_frame_equal(loaded.frame, ctx.frame)
    assert dict(loaded.examples).keys() == dict(ctx.examples).keys()
    assert loaded.calibration == () and loaded.series == {}


def test_prepare_fills_the_build_time_views_once(real_ctx, prepared_ctx):
    """Assert prepare computes calibration checks, their summary and every server's series, and keeps them."""
    from sizing.review import calibration, calibration_stats

    ctx, ready = real_ctx, prepared_ctx
    assert list(ready.calibration) == calibration.results(ctx.catalog)
    assert dict(ready.calibration_summary) == calibration_stats.summary(list(ready.calibration))
    quantiles = ctx.catalog.assume("kv_band_quantiles")
    coverage = calibration_stats.coverage(list(ready.calibration), quantiles)
    assert ready.calibration_groups["coverage"]["all"] == coverage
    assert set(ready.series) == set(ctx.catalog.servers)
    assert site.prepare(ready).series is ready.series


def test_a_saved_context_of_another_catalog_state_is_ignored(tmp_path, monkeypatch):
    catalog = tmp_path / "catalog"
    shutil.copytree(SMALL, catalog)
    ctx = site.build_context(site.load_catalog(catalog), catalog)
    site.save_context(ctx, tmp_path / "ctx.pickle")
    monkeypatch.setenv(site.SNAPSHOT_VAR, str(tmp_path / "ctx.pickle"))
    gpus = catalog / "gpus.yaml"
    gpus.write_text(gpus.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert site._saved(str(catalog)) is None
    assert site._saved(str(SMALL)) is not None  # the files it was computed from, in another folder


def test_a_saved_context_serves_a_copy_of_its_catalog_in_another_folder(tmp_path):
    """Assert a context saved from one folder is loaded for a byte-identical copy of its catalog elsewhere
    (a build of a copied repository), pointing at the copy."""
    catalog = Path(shutil.copytree(SMALL, tmp_path / "copy" / "catalog"))
    ctx = small_context()
    site.save_context(ctx, tmp_path / "ctx.pickle")
    loaded = site.load_saved(tmp_path / "ctx.pickle", catalog)
    assert loaded is not None and loaded.catalog_dir == catalog.resolve()
    pd.testing.assert_frame_equal(loaded.frame, ctx.frame)


def test_saved_chart_series_equal_the_ones_computed_on_demand(tmp_path, monkeypatch, prepared_ctx):
    from sizing.views import series

    ctx = prepared_ctx
    site.save_context(ctx, tmp_path / "ctx.pickle")
    monkeypatch.setenv(site.SNAPSHOT_VAR, str(tmp_path / "ctx.pickle"))
    loaded = site._saved(str(site.DEFAULT_DIR.resolve()))
    for server in ("gpu-l40s", "gpu-rtx-pro"):
        assert list(loaded.series[server]) == series.concurrency_series(ctx.catalog, ctx.frame, server)


def test_every_field_of_a_saved_context_comes_back_by_name(tmp_path, monkeypatch):
    """Assert the saved file holds each SiteContext field under its name, and loading restores each one."""
    import dataclasses
    import pickle

    cat = site.load_catalog(site.DEFAULT_DIR)
    ctx = site.with_series(site.build_context(cat, site.DEFAULT_DIR.resolve()))
    site.save_context(ctx, tmp_path / "ctx.pickle")
    payload = pickle.loads((tmp_path / "ctx.pickle").read_bytes())  # noqa: S301 - written just above
    names = [f.name for f in dataclasses.fields(site.SiteContext)]
    assert payload["format"] == site.SAVED_FORMAT and list(payload["fields"]) == names
    monkeypatch.setenv(site.SNAPSHOT_VAR, str(tmp_path / "ctx.pickle"))
    loaded = site._saved(str(site.DEFAULT_DIR.resolve()))
    assert dict(loaded.series) == dict(ctx.series) and loaded.catalog_dir == ctx.catalog_dir
    assert list(loaded.examples["example-1"].index) == list(ctx.examples["example-1"].index)


def test_a_foreign_or_old_saved_file_is_refused_with_one_line(tmp_path, monkeypatch, capsys):
    """Assert an 11-tuple of the old layout, a file of another format and bytes that are no pickle are
    refused."""
    import pickle

    resolved = str(site.DEFAULT_DIR.resolve())
    old = ("stamp", None, None, {}, site.DEFAULT_DIR.resolve(), (), {}, {}, {}, (), {})
    cases = {
        "old.pickle": pickle.dumps(old),
        "other.pickle": pickle.dumps({"format": 1, "fields": {}}),
        "junk.pickle": b"not a pickle",
    }
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        monkeypatch.setenv(site.SNAPSHOT_VAR, str(tmp_path / name))
        assert site._saved(resolved) is None
        lines = capsys.readouterr().err.splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"{site.SNAPSHOT_VAR}={tmp_path / name}: ignored, ")
