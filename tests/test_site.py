"""Tests for sizing.site: the cached build context (catalog, matrix and worked examples)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sizing import site
from sizing.catalog import load_catalog
from sizing.errors import UsageError
from sizing.estimate import Request, estimate

FIXTURE = Path(__file__).resolve().parent / "data" / "site_catalog"


@pytest.fixture()
def fresh_cache():
    """An empty context cache before and after the test."""
    site._cached.cache_clear()
    yield
    site._cached.cache_clear()


def test_context_is_built_once_per_catalog_folder(fresh_cache, monkeypatch: pytest.MonkeyPatch) -> None:
    """Assert the matrix is evaluated once and each example estimated once, whatever the path spelling."""
    calls = {"evaluate": 0, "estimate": 0}

    def counting(name, real):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return real(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(site, "evaluate", counting("evaluate", site.evaluate))
    monkeypatch.setattr(site, "estimate", counting("estimate", site.estimate))
    first = site.context(FIXTURE)
    again = site.context(str(FIXTURE / ".." / "site_catalog"))
    assert first is again
    assert calls == {"evaluate": 1, "estimate": len(load_catalog(FIXTURE).examples)}


def test_examples_are_the_catalog_requests(fresh_cache) -> None:
    """Assert each example row is what estimate() returns for the example's checkpoint, server and plan."""
    ctx = site.context(FIXTURE)
    ex = ctx.catalog.examples["example-2"]
    direct = estimate(ctx.catalog, Request(model=ex.checkpoint, server=ex.server, kv_cache_dtype=ex.kv_cache_dtype,
                                           max_model_len=ex.max_model_len, tensor_parallel_size=2))
    row = ctx.example("example-2")
    assert (row["checkpoint"], row["server"], int(row["tp"]), int(row["dp"])) == (ex.checkpoint, ex.server, 2, 1)
    assert row["kv_cache_bytes"] == direct["kv_cache_bytes"]
    assert list(ctx.examples) == list(ctx.catalog.examples)


def test_contexts_come_from_the_assumptions(fresh_cache) -> None:
    """Assert the published context lengths are the catalog's assumption, in order."""
    ctx = site.context(FIXTURE)
    assert ctx.contexts == list(ctx.catalog.assume("contexts"))


def test_unknown_example_names_the_known_ones(fresh_cache) -> None:
    """Assert asking for a missing example fails with the list of examples."""
    with pytest.raises(UsageError, match="example-1"):
        site.context(FIXTURE).example("no-such-example")


def test_active_dir_follows_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Assert $SIZING_CATALOG points the site at another catalog, and catalog/ is the default."""
    monkeypatch.delenv(site.ENV_VAR, raising=False)
    assert site.active_dir() == site.DEFAULT_DIR
    monkeypatch.setenv(site.ENV_VAR, str(FIXTURE))
    assert site.active_dir() == FIXTURE


def test_contexts_hash_by_identity(fresh_cache) -> None:
    """Assert two contexts of the same catalog are distinct cache keys (identity, not value)."""
    cat = load_catalog(FIXTURE)
    one, two = site.build_context(cat), site.build_context(cat)
    assert one != two and len({one, two}) == 2
