"""Grouped out-of-sample statistics of the calibration checks, and the error band each class gets.

Every statistic weights a log by its near-duplicate group (:func:`sizing.review.calibration._weights`),
so that twenty runs of one model that differ only in ``--gpu-memory-utilization`` count as one. The
headline errors are leave-one-*model*-out (every log of a model, any checkpoint, out of the fit) and
leave-one-*GPU-type*-out; a log's band is the 10th–90th percentile of the leave-one-model-out
available-KV errors of its classes (:data:`sizing.catalog.loader.BAND_CLASSES`).
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from sizing.catalog.loader import BAND_CLASSES
from sizing.review.calibration import Check
from sizing.review.calibration_fit import band, weighted_quantile

MIN_MODELS = 3
"""A class whose available-KV logs cover fewer models than this borrows the widest band of the others."""
BOUNDS = {
    "lomo_median": 0.02,
    "lomo_p90": 0.06,
    "lomo_signed_median": 0.01,
    "weights_median": 0.01,
    "coverage": 0.80,
}
"""What ``python -m scripts.calibrate --check`` enforces on the available-KV (and weights) statistics."""


def _quantile(values: Iterable[float], weights: Iterable[float], q: float) -> float:
    return float(weighted_quantile(np.asarray(list(values)), np.asarray(list(weights)), q))


def stats(checks: list[Check]) -> dict[str, float]:
    """Logs, groups, and weighted in-sample, leave-one-model-out and leave-one-GPU-out errors: median and
    90th percentile of the absolute error, signed median, worst."""
    w = [c.weight for c in checks]
    out = {
        "cases": float(len(checks)),
        "groups": round(sum(w), 6),
        "median": _quantile((abs(c.error) for c in checks), w, 0.5),
        "worst": max(abs(c.error) for c in checks),
    }
    for name, errors in (("lomo", [c.lomo_error for c in checks]), ("logo", [c.logo_error for c in checks])):
        out |= {
            f"{name}_median": _quantile(map(abs, errors), w, 0.5),
            f"{name}_p90": _quantile(map(abs, errors), w, 0.9),
            f"{name}_signed_median": _quantile(errors, w, 0.5),
            f"{name}_worst": max(map(abs, errors)),
        }
    return out


def summary(checks: list[Check]) -> dict[str, dict[str, float]]:
    """:func:`stats` per compared metric."""
    by_metric: dict[str, list[Check]] = {}
    for check in checks:
        by_metric.setdefault(check.metric, []).append(check)
    return {m: stats(cs) for m, cs in by_metric.items()}


def group_summary(checks: list[Check], key: str, metric: str = "available_kv") -> dict[str, dict[str, float]]:
    """:func:`stats` of one metric per class (``key="classes"``), release line (``"line"``) or GPU
    (``"gpu"``)."""
    groups: dict[str, list[Check]] = {}
    for check in (c for c in checks if c.metric == metric):
        for name in check.classes if key == "classes" else (getattr(check, key),):
            groups.setdefault(name, []).append(check)
    return {g: stats(cs) for g, cs in sorted(groups.items())}


def class_bands(checks: list[Check], quantiles: Sequence[float]) -> dict[str, tuple[float, float]]:
    """(optimistic, pessimistic) band per class from the leave-one-model-out available-KV errors; a class
    with fewer than :data:`MIN_MODELS` models borrows the widest band of those that have enough."""
    kv = [c for c in checks if c.metric == "available_kv"]
    members = {name: [c for c in kv if name in c.classes] for name in BAND_CLASSES}
    enough = {
        name: band(np.array([c.lomo_error for c in cs]), np.array([c.weight for c in cs]), quantiles)
        for name, cs in members.items()
        if len({c.model for c in cs}) >= MIN_MODELS
    }
    widest = (
        max((b[0] for b in enough.values()), default=0.0),
        min((b[1] for b in enough.values()), default=0.0),
    )
    return {name: enough.get(name, widest) for name in BAND_CLASSES}


def _holds(check: Check, bands: dict[str, tuple[float, float]]) -> bool:
    """Whether the band of ``check``'s classes around its leave-one-model-out prediction holds the log."""
    optimistic = max(bands[name][0] for name in check.classes)
    pessimistic = min(bands[name][1] for name in check.classes)
    predicted = check.logged * (1 + check.lomo_error)
    return predicted / (1 + optimistic) <= check.logged <= predicted / (1 + pessimistic)


def coverage(checks: list[Check], quantiles: Sequence[float]) -> dict[str, float]:
    """How often the band holds the logged available KV around the leave-one-model-out prediction, as a
    share of the independent groups (each near-duplicate group once) and of the logs: ``pooled`` with the
    bands built from every model's errors, ``nested`` with each model judged by bands built without it."""
    kv = [c for c in checks if c.metric == "available_kv"]
    pooled = _holds_all(kv, class_bands(kv, quantiles))
    nested: dict[str, bool] = {}
    for model in sorted({c.model for c in kv}):
        others = [c for c in kv if c.model != model]
        nested |= _holds_all([c for c in kv if c.model == model], class_bands(others, quantiles))
    weights = np.array([c.weight for c in kv])
    out = {"cases": float(len(kv))}
    for name, held in (("pooled", pooled), ("nested", nested)):
        flags = np.array([held[c.case] for c in kv], dtype=np.float64)
        out |= {name: float(flags @ weights / weights.sum()), f"{name}_logs": float(flags.mean())}
    return out


def _holds_all(checks: list[Check], bands: dict[str, tuple[float, float]]) -> dict[str, bool]:
    return {c.case: _holds(c, bands) for c in checks}


def failures(checks: list[Check], quantiles: Sequence[float]) -> list[str]:
    """The bounds of :data:`BOUNDS` the checks break, one line each (empty when all hold)."""
    kv, weights = summary(checks)["available_kv"], summary(checks)["weights"]
    found = {
        "lomo_median": kv["lomo_median"],
        "lomo_p90": kv["lomo_p90"],
        "lomo_signed_median": abs(kv["lomo_signed_median"]),
        "weights_median": weights["median"],
    }
    lines = [f"available KV {k} {v:.2%} > {BOUNDS[k]:.0%}" for k, v in found.items() if v > BOUNDS[k]]
    held = coverage(checks, quantiles)["pooled"]
    return lines + (
        [f"band coverage {held:.0%} < {BOUNDS['coverage']:.0%}"] if held < BOUNDS["coverage"] else []
    )
