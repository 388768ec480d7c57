"""Our estimates against real vLLM start-up logs (``calibration/``), with the error of each figure.

``calibration/vllm_logs.yaml`` holds the logs; ``calibration/cases.yaml`` says how each one is
reproduced (which checkpoint, the total memory torch reported, the vLLM release, which figures
to compare). :func:`results` runs every case through :func:`sizing.engine.estimate.estimate`, exactly as
``python -m sizing estimate`` would, and returns one :class:`Check` per compared figure.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from sizing.catalog.loader import Catalog
from sizing.engine.estimate import Request, memory_estimate
from sizing.units import GiB, MiB

DIR = Path(__file__).resolve().parents[2] / "calibration"
TOLERANCE = {"weights": 0.03, "available_kv": 0.05, "concurrency": 0.01, "tokens": 0.01, "tokens_min_rank": 0.02}


@dataclass(frozen=True)
class Check:
    """One compared figure: logged vs predicted, relative error, and whether it is within tolerance."""

    case: str
    metric: str
    logged: float
    predicted: float
    tolerance: float

    @property
    def error(self) -> float:
        """Relative error (predicted − logged) / |logged|; 0/1 for verdict checks."""
        if self.metric.startswith("no_fit"):
            return 0.0 if self.predicted == self.logged else 1.0
        return (self.predicted - self.logged) / abs(self.logged)

    @property
    def ok(self) -> bool:
        """Whether the error is within the tolerance."""
        return abs(self.error) <= self.tolerance


def load(directory: Path = DIR) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """(logs by id, the cases file) from ``directory``."""
    logs = {case["id"]: case for case in yaml.safe_load((directory / "vllm_logs.yaml").read_text(encoding="utf-8"))}
    return logs, yaml.safe_load((directory / "cases.yaml").read_text(encoding="utf-8"))


def request(log: dict[str, Any], spec: dict[str, Any], kv_bytes: int | None = None) -> Request:
    """The estimate request that reproduces ``log`` under ``spec`` (optionally with the logged KV bytes)."""
    total = float(spec["total_gib"])
    kv_dtype = log.get("kv_cache_dtype") or "auto"
    return Request(
        model=spec["model"], gpu_memory_mib=round(total * GiB / MiB), vllm_version=spec["version"],
        tensor_parallel_size=log.get("tp") or spec.get("tp") or 1, pipeline_parallel_size=log.get("pp") or 1,
        gpu_memory_utilization=log.get("gpu_memory_utilization") or _default_gmu(spec["version"]),
        max_model_len=log.get("max_model_len") or spec.get("max_model_len"),
        kv_cache_dtype="auto" if kv_dtype in ("auto", None) else kv_dtype,
        max_num_batched_tokens=spec.get("max_num_batched_tokens"), max_num_seqs=spec.get("max_num_seqs"),
        enforce_eager=bool(spec.get("enforce_eager")),
        kv_cache_memory_bytes=kv_bytes, llm_class=spec.get("entrypoint") == "llm")


def _default_gmu(version: str) -> float:
    from sizing.engine.versions import rules_for  # noqa: PLC0415 - tiny helper
    return rules_for(version).default_gmu


GIVEN_KV = ("concurrency", "tokens", "tokens_min_rank", "no_fit_given_kv")


def _rows(log: dict[str, Any], spec: dict[str, Any], cat: Catalog) -> dict[bool, Any]:
    """The estimate of a case without and (when a check needs it) with the logged KV memory given."""
    needs = {metric in GIVEN_KV for metric in spec["checks"]}
    kv = {False: None, True: round(log["available_kv_gib"] * GiB) if True in needs else None}
    return {given: memory_estimate(cat, request(log, spec, kv[given])) for given in needs}


def _measure(log: dict[str, Any], row: Any, metric: str) -> tuple[float, float]:
    """(logged, predicted) for one metric of one case, from its estimate ``row``."""
    if metric == "weights":
        return log["model_loading_gib"], row["weights_bytes"] / GiB
    if metric == "available_kv":
        return log["available_kv_gib"], row["available_kv_bytes"] / GiB
    if metric == "concurrency":
        return log["max_concurrency"], float(row["max_concurrency"])
    if metric.startswith("tokens"):
        return log["kv_cache_tokens"], float(row["kv_cache_tokens"])
    return 0.0, 0.0 if not bool(row["fits"]) else 1.0


def results(cat: Catalog, directory: Path = DIR) -> list[Check]:
    """Every check of every reproducible case, in file order."""
    logs, spec = load(directory)
    checks = []
    for case_id, case in spec["cases"].items():
        rows = _rows(logs[case_id], case, cat)
        measured = {metric: _measure(logs[case_id], rows[metric in GIVEN_KV], metric) for metric in case["checks"]}
        checks += [Check(case_id, metric, float(logged), float(predicted), TOLERANCE.get(metric, 0.0))
                   for metric, (logged, predicted) in measured.items()]
    return checks


def summary(checks: list[Check]) -> dict[str, dict[str, float]]:
    """Median and worst absolute relative error per metric (verdict checks count failures)."""
    by_metric: dict[str, list[float]] = {}
    for check in checks:
        by_metric.setdefault(check.metric, []).append(abs(check.error))
    return {m: {"cases": len(e), "median": statistics.median(e), "worst": max(e)} for m, e in by_metric.items()}


