"""Our estimates against real vLLM start-up logs (``calibration/``), with the error of each figure.

``calibration/vllm_logs.yaml`` holds the logs; ``calibration/cases.yaml`` says how each one is
reproduced (which checkpoint, the total memory torch reported, the vLLM release, which figures
to compare). :func:`results` runs every case through :func:`sizing.engine.estimate.estimate`, exactly as
``python -m sizing estimate`` would, and returns one :class:`Check` per compared figure.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from sizing.review.calibration_fit import FitCase, fit_case, leave_one_out
from sizing.catalog.loader import Catalog
from sizing.engine.estimate import Request, find_model, memory_estimate
from sizing.engine.speculative import parse_speculative_config
from sizing.catalog.schema import Model
from sizing.engine.versions import rules_for
from sizing.units import GiB, MiB

ROOT = Path(__file__).resolve().parents[2]
DIR = ROOT / "calibration"
TOLERANCE = {"weights": 0.03, "available_kv": 0.10, "concurrency": 0.01, "tokens": 0.01,
             "tokens_min_rank": 0.02, "cudagraph": 1.75}
"""Relative error allowed per compared figure. CUDA-graph memory is one fitted constant per captured size
against printed figures that spread from 0.28 to 1.8 GiB, so only its order of magnitude is checked."""


@dataclass(frozen=True)
class Check:
    """One compared figure: logged vs predicted (in sample and, where a coefficient is fitted, left out)."""

    case: str
    metric: str
    logged: float
    predicted: float
    tolerance: float
    loo: float | None = None
    classes: tuple[str, ...] = ()
    line: str = ""

    @property
    def error(self) -> float:
        """Relative error (predicted − logged) / |logged|; 0/1 for verdict checks."""
        if self.metric.startswith("no_fit"):
            return 0.0 if self.predicted == self.logged else 1.0
        return (self.predicted - self.logged) / abs(self.logged)

    @property
    def loo_error(self) -> float:
        """The leave-one-out relative error (the in-sample one where nothing fitted depends on the case)."""
        if self.loo is None:
            return self.error
        return (self.loo - self.logged) / abs(self.logged)

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
    mib = spec.get("total_mib") or round(float(spec["total_gib"]) * GiB / MiB)
    kv_dtype = log.get("kv_cache_dtype") or "auto"
    model = str(ROOT / spec["model"]) if spec["model"].endswith(".json") else spec["model"]
    return Request(
        model=model, gpu=spec.get("gpu"), gpu_memory_mib=int(mib), vllm_version=spec["version"],
        tensor_parallel_size=log.get("tp") or spec.get("tp") or 1, pipeline_parallel_size=log.get("pp") or 1,
        gpu_memory_utilization=log.get("gpu_memory_utilization") or _default_gmu(spec["version"]),
        max_model_len=log.get("max_model_len") or spec.get("max_model_len"),
        kv_cache_dtype="auto" if kv_dtype in ("auto", None) else kv_dtype,
        max_num_batched_tokens=spec.get("max_num_batched_tokens"), max_num_seqs=spec.get("max_num_seqs"),
        enforce_eager=bool(spec.get("enforce_eager")), block_size=spec.get("block_size"),
        enable_expert_parallel=bool(spec.get("enable_expert_parallel")),
        kv_cache_memory_bytes=kv_bytes, llm_class=spec.get("entrypoint") == "llm",
        enable_prefix_caching=bool(spec.get("enable_prefix_caching")),
        speculative_config=parse_speculative_config(spec["speculative_config"]) if spec.get("speculative_config")
        else None)


def _default_gmu(version: str) -> float:
    return rules_for(version).default_gmu


GIVEN_KV = ("concurrency", "tokens", "tokens_min_rank", "no_fit_given_kv")


def _rows(log: dict[str, Any], spec: dict[str, Any], cat: Catalog) -> dict[bool, Any]:
    """The estimate of a case without and (when a check needs it) with the logged KV memory given."""
    needs = {metric in GIVEN_KV for metric in _metrics(spec)}
    kv = {False: None, True: round(log["available_kv_gib"] * GiB) if True in needs else None}
    return {given: memory_estimate(cat, request(log, spec, kv[given])) for given in needs}


def _measure(log: dict[str, Any], spec: dict[str, Any], row: Any, metric: str) -> tuple[float, float]:
    """(logged, predicted) for one metric of one case, from its estimate ``row``."""
    if metric == "weights":
        return log["model_loading_gib"], row["weights_bytes"] / GiB
    if metric == "available_kv":
        return log["available_kv_gib"], row["available_kv_bytes"] / GiB
    if metric == "cudagraph":
        return spec["cudagraph_gib"], row["cudagraph_captured_bytes"] / GiB
    if metric == "concurrency":
        return log["max_concurrency"], float(row["max_concurrency"])
    if metric.startswith("tokens"):
        return log["kv_cache_tokens"], float(row["kv_cache_tokens"])
    return 0.0, 0.0 if not bool(row["fits"]) else 1.0


def classes_of(model: Model, spec: dict[str, Any]) -> tuple[str, ...]:
    """Architecture classes of a case: dense, MoE, MLA, sliding-window, hybrid, multimodal."""
    flags = (("moe", model.moe), ("mla", model.mla), ("sliding-window", model.sliding_window),
             ("hybrid", model.linear_attention), ("multimodal", spec.get("multimodal")))
    found = [name for name, has in flags if has]
    return tuple(found) or ("dense",)


@dataclass(frozen=True)
class Run:
    """Every check of every reproducible case, the fit inputs, and the cases left out with their reasons."""

    checks: list[Check]
    fit_cases: list[FitCase]
    skipped: dict[str, str]


def _metrics(case: dict[str, Any]) -> list[str]:
    """The figures compared for a case: its ``checks``, and ``cudagraph`` where it gives ``cudagraph_gib``."""
    return [*case["checks"], *(["cudagraph"] if "cudagraph_gib" in case else [])]


def _case_checks(case_id: str, log: dict[str, Any], case: dict[str, Any], cat: Catalog,
                 fits: list[FitCase]) -> list[Check]:
    rows = _rows(log, case, cat)
    req = request(log, case)
    rules = rules_for(case["version"])
    classes, line = tuple(classes_of(find_model(cat, req.model)[1], case)), rules.line
    kv = log["available_kv_gib"] * GiB if "available_kv" in case["checks"] else None
    graphs = case["cudagraph_gib"] * GiB if "cudagraph_gib" in case else None
    if kv is not None or graphs is not None:
        fits.append(fit_case(case_id, kv, rows[False], rules, graphs))
    measured = {metric: _measure(log, case, rows[metric in GIVEN_KV], metric) for metric in _metrics(case)}
    return [Check(case_id, metric, float(logged), float(predicted), TOLERANCE.get(metric, 0.0),
                  classes=classes, line=line) for metric, (logged, predicted) in measured.items()]


FITTED_METRICS = ("available_kv", "cudagraph")
"""The compared figures that a fitted coefficient depends on, in the order :func:`leave_one_out` returns them."""


def _with_loo(check: Check, loo: dict[str, tuple[float | None, float | None]]) -> Check:
    """``check`` with its leave-one-out prediction (GiB) where a fitted coefficient depends on it."""
    if check.metric not in FITTED_METRICS or check.case not in loo:
        return check
    left_out = loo[check.case][FITTED_METRICS.index(check.metric)]
    return replace(check, loo=None if left_out is None else left_out / GiB)


def run(cat: Catalog, directory: Path = DIR) -> Run:
    """Every check in file order, with leave-one-out predictions on the fitted available-KV and graph checks."""
    logs, spec = load(directory)
    checks: list[Check] = []
    fits: list[FitCase] = []
    for case_id, case in spec["cases"].items():
        checks += _case_checks(case_id, logs[case_id], case, cat, fits)
    loo = leave_one_out(fits) if len(fits) > 1 else {}
    checks = [_with_loo(c, loo) for c in checks]
    return Run(checks, fits, {case: " ".join(entry["reason"].split()) for case, entry in spec["skipped"].items()})


def results(cat: Catalog, directory: Path = DIR) -> list[Check]:
    """Every check of every reproducible case, in file order."""
    return run(cat, directory).checks


def _stats(errors: list[float], loo: list[float]) -> dict[str, float]:
    absolute = [abs(e) for e in errors]
    loo_abs = [abs(e) for e in loo]
    return {"cases": len(errors), "median": statistics.median(absolute), "worst": max(absolute),
            "loo_median": statistics.median(loo_abs), "loo_worst": max(loo_abs),
            "loo_signed_median": statistics.median(loo)}


def summary(checks: list[Check]) -> dict[str, dict[str, float]]:
    """Per metric: median and worst absolute relative error in sample and left out, signed LOO median."""
    by_metric: dict[str, list[Check]] = {}
    for check in checks:
        by_metric.setdefault(check.metric, []).append(check)
    return {m: _stats([c.error for c in cs], [c.loo_error for c in cs]) for m, cs in by_metric.items()}


def group_summary(checks: list[Check], key: str, metric: str = "available_kv") -> dict[str, dict[str, float]]:
    """The :func:`summary` statistics of one metric per class (``key="classes"``) or per release line."""
    groups: dict[str, list[Check]] = {}
    for check in (c for c in checks if c.metric == metric):
        for name in (check.classes if key == "classes" else (check.line,)):
            groups.setdefault(name, []).append(check)
    return {g: _stats([c.error for c in cs], [c.loo_error for c in cs]) for g, cs in sorted(groups.items())}


