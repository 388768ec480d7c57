"""The site's build context: the evaluated bundle of the active catalog, prepared and cached once.

Every macro of a page build reads :func:`context`, which is cached per catalog folder, so one
``mkdocs build`` process evaluates the whole matrix exactly once, and each catalog example (one
``estimate`` each) exactly once. The context is language-neutral; pages format it per language.

``SIZING_CATALOG`` in the environment points the site at another catalog folder (tests, previews).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
import pickle
from pathlib import Path
from types import MappingProxyType

from sizing import safeio
from sizing.views.bundle import SiteContext, build_context, evaluate_examples, example_request
from sizing.review.calibration import results
from sizing.review.calibration_stats import coverage, group_summary, summary
from sizing.review.calibration_left import left_out
from sizing.catalog.loader import DEFAULT_DIR, load_catalog
from sizing.views.series import all_series
from sizing.render.explorer_render import explorer_payloads

__all__ = ["ENV_VAR", "SNAPSHOT_VAR", "SiteContext", "active_context", "active_dir", "build_context", "context",
           "calibrated_context", "evaluate_examples", "example_request", "fingerprint", "load_catalog", "prepare",
           "refresh",
           "save_context", "with_calibration", "with_explorer", "with_series"]

ENV_VAR = "SIZING_CATALOG"


SNAPSHOT_VAR = "SIZING_CONTEXT_FILE"
"""Set by ``scripts/docs.py build``: a context evaluated once and shared by every language's build."""


def fingerprint(catalog_dir: Path) -> str:
    """SHA-256 over the catalog's YAML files (names and bytes): what a saved context was computed from."""
    digest = hashlib.sha256()
    for path in sorted(Path(catalog_dir).glob("*.yaml")):
        digest.update(path.name.encode() + b"\0" + safeio.read_bytes(path, str(path), safeio.MAX_YAML_BYTES) + b"\0")
    return digest.hexdigest()


def with_series(ctx: SiteContext) -> SiteContext:
    """``ctx`` with every server's concurrency-chart series (``ctx`` itself when it has them)."""
    if ctx.series:
        return ctx
    return dataclasses.replace(ctx, series=MappingProxyType(all_series(ctx.catalog, ctx.frame)))


def with_calibration(ctx: SiteContext) -> SiteContext:
    """``ctx`` with the calibration checks and their summary (``ctx`` itself when it has them)."""
    if ctx.calibration:
        return ctx
    checks = tuple(results(ctx.catalog))
    groups = {key: group_summary(list(checks), key) for key in ("classes", "line", "gpu")}
    groups["coverage"] = {"all": coverage(list(checks), ctx.catalog.assume("kv_band_quantiles"))}
    return dataclasses.replace(ctx, calibration=checks, calibration_summary=MappingProxyType(summary(list(checks))),
                               calibration_groups=MappingProxyType(groups), calibration_left=left_out())


def with_explorer(ctx: SiteContext) -> SiteContext:
    """``ctx`` with the explorer's files as data, every language formatted (``ctx`` when it has them)."""
    if ctx.explorer:
        return ctx
    return dataclasses.replace(ctx, explorer=MappingProxyType(explorer_payloads(ctx)))


def prepare(ctx: SiteContext) -> SiteContext:
    """``ctx`` with the views a build computes once, before the language builds: series, calibration and
    the explorer's files."""
    return with_explorer(with_calibration(with_series(ctx)))


def save_context(ctx: SiteContext, path: Path) -> None:
    """Write a prepared ``ctx`` (with its catalog's fingerprint) for the language builds to load."""
    if ctx.catalog_dir is None:
        raise ValueError("save_context: the context has no catalog folder to fingerprint")
    payload = (fingerprint(ctx.catalog_dir), ctx.catalog, ctx.frame, dict(ctx.examples), ctx.catalog_dir,
               ctx.calibration, dict(ctx.calibration_summary), dict(ctx.series), dict(ctx.calibration_groups),
               ctx.calibration_left, dict(ctx.explorer))
    path.write_bytes(pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL))


def _saved(resolved: str) -> SiteContext | None:
    """The context saved by the build for this catalog folder, if any and if the catalog is unchanged."""
    path = os.environ.get(SNAPSHOT_VAR)
    if not path or not Path(path).is_file():
        return None
    stamp, cat, frame, examples, catalog_dir, checks, summed, series, groups, left, explorer = pickle.loads(  # noqa: S301
        Path(path).read_bytes())
    if catalog_dir != Path(resolved) or stamp != fingerprint(Path(resolved)):
        return None
    return SiteContext(cat, frame, MappingProxyType(examples), catalog_dir, checks, MappingProxyType(summed),
                       MappingProxyType(series), MappingProxyType(groups), left, MappingProxyType(explorer))


@functools.lru_cache(maxsize=4)
def _cached(resolved: str) -> SiteContext:
    return _saved(resolved) or with_series(build_context(load_catalog(resolved), Path(resolved)))


def context(catalog_dir: str | Path = DEFAULT_DIR) -> SiteContext:
    """The cached context of the catalog in ``catalog_dir`` (evaluated once per process)."""
    return _cached(str(Path(catalog_dir).resolve()))


def refresh() -> None:
    """Forget every cached context (the live preview calls it when the catalog's YAML changed)."""
    _cached.cache_clear()
    _calibrated.cache_clear()


def active_dir() -> Path:
    """The catalog folder the site is built from: ``$SIZING_CATALOG`` or ``catalog/``."""
    return Path(os.environ.get(ENV_VAR) or DEFAULT_DIR)


def active_context() -> SiteContext:
    """The context of :func:`active_dir` (what every page macro reads)."""
    return context(active_dir())


@functools.lru_cache(maxsize=4)
def _calibrated(ctx: SiteContext) -> SiteContext:
    return with_calibration(ctx)


def calibrated_context() -> SiteContext:
    """:func:`active_context` with its calibration checks (saved by the build, else computed once)."""
    return _calibrated(active_context())
