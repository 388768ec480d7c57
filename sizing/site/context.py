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
import sys
from pathlib import Path
from types import MappingProxyType
from typing import Any

from sizing import safeio
from sizing.catalog.loader import DEFAULT_DIR, load_catalog
from sizing.render.explorer_render import explorer_payloads
from sizing.review.calibration import results
from sizing.review.calibration_left import left_out
from sizing.review.calibration_stats import coverage, group_summary, summary
from sizing.views.bundle import SiteContext, build_context, evaluate_examples
from sizing.views.series import all_series

__all__ = [
    "ENV_VAR",
    "SNAPSHOT_VAR",
    "SAVED_FORMAT",
    "SiteContext",
    "active_context",
    "active_dir",
    "build_context",
    "context",
    "calibrated_context",
    "evaluate_examples",
    "fingerprint",
    "load_saved",
    "load_catalog",
    "prepare",
    "refresh",
    "save_context",
    "with_calibration",
    "with_explorer",
    "with_series",
]

ENV_VAR = "SIZING_CATALOG"


SNAPSHOT_VAR = "SIZING_CONTEXT_FILE"
"""Set by ``scripts/docs.py build``: a context evaluated once and shared by every language's build."""


def fingerprint(catalog_dir: Path) -> str:
    """SHA-256 over the catalog's YAML files (names and bytes): what a saved context was computed from."""
    digest = hashlib.sha256()
    for path in sorted(Path(catalog_dir).glob("*.yaml")):
        digest.update(
            path.name.encode() + b"\0" + safeio.read_bytes(path, str(path), safeio.MAX_YAML_BYTES) + b"\0"
        )
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
    return dataclasses.replace(
        ctx,
        calibration=checks,
        calibration_summary=MappingProxyType(summary(list(checks))),
        calibration_groups=MappingProxyType(groups),
        calibration_left=left_out(),
    )


def with_explorer(ctx: SiteContext) -> SiteContext:
    """``ctx`` with the explorer's files as data, every language formatted (``ctx`` when it has them)."""
    if ctx.explorer:
        return ctx
    return dataclasses.replace(ctx, explorer=MappingProxyType(explorer_payloads(ctx)))


def prepare(ctx: SiteContext) -> SiteContext:
    """``ctx`` with the views a build computes once, before the language builds: series, calibration and
    the explorer's files."""
    return with_explorer(with_calibration(with_series(ctx)))


SAVED_FORMAT = 2
"""The layout of a saved context; raise it when :class:`SiteContext` changes in a way that a check of
its field names misses."""


def _plain(value: object) -> object:
    """A picklable copy of one field (a read-only mapping becomes a dict)."""
    return dict(value) if isinstance(value, MappingProxyType) else value


def _frozen(value: Any) -> Any:
    """One loaded field as the context holds it (a dict becomes a read-only mapping)."""
    return MappingProxyType(value) if isinstance(value, dict) else value


def save_context(ctx: SiteContext, path: Path) -> None:
    """Write a prepared ``ctx`` for the language builds to load: every field by name, with the layout's
    version and its catalog's fingerprint (:func:`load_saved` refuses a file that does not match both)."""
    if ctx.catalog_dir is None:
        raise ValueError("save_context: the context has no catalog folder to fingerprint")
    fields = {f.name: _plain(getattr(ctx, f.name)) for f in dataclasses.fields(SiteContext)}
    payload = {"format": SAVED_FORMAT, "fingerprint": fingerprint(ctx.catalog_dir), "fields": fields}
    path.write_bytes(pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL))


def _stale(payload: object, resolved: Path) -> str | None:
    """Why a loaded file is not a context of this layout and catalog (None when it is). The catalog is
    compared by content (:func:`fingerprint`): a copy of the same catalog in another folder matches."""
    names = {f.name for f in dataclasses.fields(SiteContext)}
    if not isinstance(payload, dict) or payload.get("format") != SAVED_FORMAT:
        return f"not a saved context of format {SAVED_FORMAT}"
    if not isinstance(payload.get("fields"), dict) or set(payload["fields"]) != names:
        return "its fields are not those of SiteContext"
    if payload.get("fingerprint") != fingerprint(resolved):
        return f"it was computed from another catalog than {resolved}"
    return None


def load_saved(path: Path, catalog_dir: Path) -> SiteContext | None:
    """The context :func:`save_context` wrote to ``path``, when it was computed from a catalog with the same
    files as ``catalog_dir`` (its ``catalog_dir`` then reads ``catalog_dir``, resolved). A file of another
    layout or catalog is refused with one line on stderr and None."""
    resolved = Path(catalog_dir).resolve()
    try:
        payload = pickle.loads(Path(path).read_bytes())  # noqa: S301 - our own file, written by save_context
    except (pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError, ValueError) as exc:
        payload = f"unreadable ({type(exc).__name__})"
    why = payload if isinstance(payload, str) else _stale(payload, resolved)
    if why:
        print(f"{SNAPSHOT_VAR}={path}: ignored, {why}", file=sys.stderr)
        return None
    fields = {name: _frozen(value) for name, value in payload["fields"].items()}
    return SiteContext(**{**fields, "catalog_dir": resolved})


def _saved(resolved: str) -> SiteContext | None:
    """The context saved by the build (``$SIZING_CONTEXT_FILE``) for this catalog folder, if any."""
    path = os.environ.get(SNAPSHOT_VAR)
    if not path or not Path(path).is_file():
        return None
    return load_saved(Path(path), Path(resolved))


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
