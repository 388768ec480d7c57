"""The build context of the site: the catalog, its evaluated matrix and the worked examples, once.

Every macro of a page build reads :func:`context`, which is cached per catalog folder, so one
``mkdocs build`` process evaluates the whole matrix exactly once, and each catalog example (one
``estimate`` each) exactly once. The context is language-neutral; pages format it per language.

``SIZING_CATALOG`` in the environment points the site at another catalog folder (tests, previews).
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

import pandas as pd

from sizing.catalog import DEFAULT_DIR, Catalog, load_catalog
from sizing.errors import UsageError
from sizing.estimate import Request, estimate
from sizing.evaluate import evaluate
from sizing.schema import Example

ENV_VAR = "SIZING_CATALOG"


@dataclass(frozen=True, eq=False)
class SiteContext:
    """Everything the pages compute from: read-only by convention (the frames are shared).

    Compared and hashed by identity, so functions of a context can be cached per context.
    """

    catalog: Catalog
    frame: pd.DataFrame
    examples: Mapping[str, pd.Series]
    catalog_dir: Path | None = None
    calibration: tuple = ()
    """Calibration checks computed by the build before the language builds (empty: compute on demand)."""
    series: Mapping[str, tuple] = field(default_factory=lambda: MappingProxyType({}))
    """Each server's concurrency-chart series, computed by the build likewise (empty: compute on demand)."""

    @property
    def contexts(self) -> list[int]:
        """The published context lengths, tokens."""
        return list(self.frame.attrs["contexts"])

    def example(self, example_id: str) -> pd.Series:
        """The evaluated row of catalog example ``example_id``."""
        if example_id not in self.examples:
            known = ", ".join(self.examples) or "(none)"
            raise UsageError(f"unknown example {example_id!r}; catalog/examples.yaml has {known}")
        return self.examples[example_id]


def example_request(example: Example) -> Request:
    """The :class:`Request` a catalog example describes (its checkpoint, server and plan)."""
    return Request(model=example.checkpoint, server=example.server, kv_cache_dtype=example.kv_cache_dtype,
                   max_model_len=example.max_model_len, tensor_parallel_size=example.tensor_parallel_size,
                   pipeline_parallel_size=example.pipeline_parallel_size,
                   data_parallel_size=example.data_parallel_size,
                   enable_expert_parallel=example.enable_expert_parallel)


def evaluate_examples(cat: Catalog) -> dict[str, pd.Series]:
    """Every catalog example evaluated once with :func:`sizing.estimate.estimate`, by id."""
    return {eid: estimate(cat, example_request(ex)) for eid, ex in cat.examples.items()}


def build_context(cat: Catalog, catalog_dir: Path | None = None) -> SiteContext:
    """An uncached context for ``cat`` (used for other git revisions of the catalog)."""
    examples = MappingProxyType(evaluate_examples(cat))
    return SiteContext(cat, evaluate(cat), examples, catalog_dir)


SNAPSHOT_VAR = "SIZING_CONTEXT_FILE"
"""Set by ``scripts/docs.py build``: a context evaluated once and shared by every language's build."""


def fingerprint(catalog_dir: Path) -> str:
    """SHA-256 over the catalog's YAML files (names and bytes): what a saved context was computed from."""
    digest = hashlib.sha256()
    for path in sorted(Path(catalog_dir).glob("*.yaml")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def save_context(ctx: SiteContext, path: Path) -> None:
    """Write ``ctx`` (with its catalog's fingerprint) for the language builds to load."""
    from sizing.calibration import results  # noqa: PLC0415 - the build's once-only work
    from sizing.charts import all_series  # noqa: PLC0415
    checks = ctx.calibration or tuple(results(ctx.catalog))
    series = dict(ctx.series) or all_series(ctx.catalog, ctx.frame)
    payload = (fingerprint(ctx.catalog_dir), ctx.catalog, ctx.frame, dict(ctx.examples), ctx.catalog_dir, checks,
               series)
    path.write_bytes(pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL))


def _saved(resolved: str) -> SiteContext | None:
    """The context saved by the build for this catalog folder, if any and if the catalog is unchanged."""
    path = os.environ.get(SNAPSHOT_VAR)
    if not path or not Path(path).is_file():
        return None
    stamp, cat, frame, examples, catalog_dir, checks, series = pickle.loads(Path(path).read_bytes())  # noqa: S301
    if catalog_dir != Path(resolved) or stamp != fingerprint(Path(resolved)):
        return None
    return SiteContext(cat, frame, MappingProxyType(examples), catalog_dir, checks, MappingProxyType(series))


@functools.lru_cache(maxsize=4)
def _cached(resolved: str) -> SiteContext:
    return _saved(resolved) or build_context(load_catalog(resolved), Path(resolved))


def context(catalog_dir: str | Path = DEFAULT_DIR) -> SiteContext:
    """The cached context of the catalog in ``catalog_dir`` (evaluated once per process)."""
    return _cached(str(Path(catalog_dir).resolve()))


def active_dir() -> Path:
    """The catalog folder the site is built from: ``$SIZING_CATALOG`` or ``catalog/``."""
    return Path(os.environ.get(ENV_VAR) or DEFAULT_DIR)


def active_context() -> SiteContext:
    """The context of :func:`active_dir` (what every page macro reads)."""
    return context(active_dir())
