"""The build context of the site: the catalog, its evaluated matrix and the worked examples, once.

Every macro of a page build reads :func:`context`, which is cached per catalog folder, so one
``mkdocs build`` process evaluates the whole matrix exactly once, and each catalog example (one
``estimate`` each) exactly once. The context is language-neutral; pages format it per language.

``SIZING_CATALOG`` in the environment points the site at another catalog folder (tests, previews).
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
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
                   data_parallel_size=example.data_parallel_size)


def evaluate_examples(cat: Catalog) -> dict[str, pd.Series]:
    """Every catalog example evaluated once with :func:`sizing.estimate.estimate`, by id."""
    return {eid: estimate(cat, example_request(ex)) for eid, ex in cat.examples.items()}


def build_context(cat: Catalog, catalog_dir: Path | None = None) -> SiteContext:
    """An uncached context for ``cat`` (used for other git revisions of the catalog)."""
    examples = MappingProxyType(evaluate_examples(cat))
    return SiteContext(cat, evaluate(cat), examples, catalog_dir)


@functools.lru_cache(maxsize=4)
def _cached(resolved: str) -> SiteContext:
    return build_context(load_catalog(resolved), Path(resolved))


def context(catalog_dir: str | Path = DEFAULT_DIR) -> SiteContext:
    """The cached context of the catalog in ``catalog_dir`` (evaluated once per process)."""
    return _cached(str(Path(catalog_dir).resolve()))


def active_dir() -> Path:
    """The catalog folder the site is built from: ``$SIZING_CATALOG`` or ``catalog/``."""
    return Path(os.environ.get(ENV_VAR) or DEFAULT_DIR)


def active_context() -> SiteContext:
    """The context of :func:`active_dir` (what every page macro reads)."""
    return context(active_dir())
