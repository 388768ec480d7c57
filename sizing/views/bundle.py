"""The evaluated bundle the pages, the downloads and ``export``/``diff`` compute from (language-neutral).

:class:`SiteContext` holds a catalog, its evaluated matrix, the evaluated worked examples and the
views the build computes once (chart series, calibration checks). It knows nothing of mkdocs,
environment variables or pickles; :mod:`sizing.site.context` caches it and fills the build-time views.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping, Protocol

import pandas as pd

from sizing.catalog.loader import Catalog
from sizing.engine.estimate import estimate
from sizing.engine.evaluate import as_text, evaluate
from sizing.errors import UsageError
from sizing.views.series import Series
from sizing.views.verdict import judge, tight_below, with_verdicts


class CalibrationCheck(Protocol):
    """What the pages read of one calibration check (:class:`sizing.review.calibration.Check`, a layer above
    this one, satisfies it): the log, the metric, both values (bytes, tokens or 0/1) and the errors."""

    @property
    def case(self) -> str: ...
    @property
    def metric(self) -> str: ...
    @property
    def logged(self) -> float: ...
    @property
    def predicted(self) -> float: ...
    @property
    def ok(self) -> bool: ...
    @property
    def error(self) -> float: ...
    @property
    def lomo_error(self) -> float: ...


class LeftOutLog(Protocol):
    """What the pages read of one skipped or outlying log
    (:class:`sizing.review.calibration_left.LeftOut`)."""

    @property
    def case(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def model(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def gpu(self) -> str: ...
    @property
    def outlier(self) -> bool: ...


@dataclass(frozen=True, eq=False)
class SiteContext:
    """Everything the pages compute from: read-only by convention (the frames are shared).

    Compared and hashed by identity, so functions of a context can be cached per context.
    """

    catalog: Catalog
    frame: pd.DataFrame
    examples: Mapping[str, pd.Series]
    catalog_dir: Path | None = None
    calibration: tuple[CalibrationCheck, ...] = ()
    """Calibration checks (:class:`sizing.review.calibration.Check`) computed by the build's prepare step."""
    calibration_summary: Mapping[str, Mapping[str, float]] = field(
        default_factory=lambda: MappingProxyType({})
    )
    """Grouped error statistics per metric of those checks
    (:func:`sizing.review.calibration_stats.summary`)."""
    series: Mapping[str, tuple[Series, ...]] = field(default_factory=lambda: MappingProxyType({}))
    """Each server's concurrency-chart series (:class:`sizing.views.series.Series`), computed likewise."""
    calibration_groups: Mapping[str, Mapping[str, Mapping[str, float]]] = field(
        default_factory=lambda: MappingProxyType({})
    )
    """The available-KV error statistics per architecture class (``"classes"``), release line (``"line"``)
    and GPU type (``"gpu"``) (:func:`sizing.review.calibration_stats.group_summary`), and under ``"coverage"``
    / ``"all"`` how often the band holds the logs (:func:`sizing.review.calibration_stats.coverage`)."""
    calibration_left: tuple[LeftOutLog, ...] = ()
    """The skipped and outlying logs (:class:`sizing.review.calibration_left.LeftOut`), computed likewise."""
    explorer: Mapping[str, dict[str, Any]] = field(default_factory=lambda: MappingProxyType({}))
    """The explorer's files as JSON data by file name
    (:func:`sizing.render.explorer_render.explorer_payloads`),
    formatted once by the prepare step for every language build to read; empty when not prepared."""

    @property
    def contexts(self) -> list[int]:
        """The published context lengths, tokens."""
        return list(self.frame.attrs["contexts"])

    @property
    def vllm_version(self) -> str:
        """The vLLM release the matrix was evaluated for."""
        return str(self.frame.attrs["vllm_version"])

    def example(self, example_id: str) -> dict[str, Any]:
        """The evaluated row of catalog example ``example_id``, as a record (field -> raw value)."""
        if example_id not in self.examples:
            known = ", ".join(self.examples) or "(none)"
            raise UsageError(f"unknown example {example_id!r}; catalog/examples.yaml has {known}")
        return self.examples[example_id].to_dict()


def evaluate_examples(cat: Catalog) -> dict[str, pd.Series]:
    """Every catalog example evaluated once with :func:`sizing.engine.estimate.estimate`, by id, with its
    verdict (:func:`sizing.views.verdict.row_verdict`)."""
    return {eid: judged(estimate(cat, ex), cat) for eid, ex in cat.examples.items()}


def judged(row: pd.Series, cat: Catalog) -> pd.Series:
    """An estimate row with ``verdict`` and ``verdict_context`` added (:func:`sizing.views.verdict.judge`)."""
    return judge(row, [int(c) for c in cat.assume("contexts")], tight_below(cat.assume))


def matrix_frame(cat: Catalog) -> pd.DataFrame:
    """The evaluated matrix of ``cat`` as text columns, with its verdicts
    (:func:`sizing.views.verdict.with_verdicts`)."""
    frame = as_text(evaluate(cat))
    judged = with_verdicts(frame, list(frame.attrs["contexts"]), tight_below(cat.assume))
    judged.attrs.update(frame.attrs)
    return judged


def build_context(cat: Catalog, catalog_dir: Path | None = None, examples: bool = True) -> SiteContext:
    """An uncached context for ``cat`` (no build-time views; used for other git revisions too); without
    ``examples`` its worked examples are left empty (the prepare benchmark times them apart)."""
    evaluated = MappingProxyType(evaluate_examples(cat) if examples else {})
    return SiteContext(cat, matrix_frame(cat), evaluated, catalog_dir)
