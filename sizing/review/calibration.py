"""Our estimates against real vLLM start-up logs (``calibration/``), with the error of each figure.

``calibration/vllm_logs.yaml`` holds the logs; ``calibration/cases.yaml`` says how each one is
reproduced (which checkpoint, the total memory torch reported, the vLLM release, which figures
to compare). :func:`results` runs every case through :func:`sizing.engine.estimate.estimate`, exactly as
``python -m sizing estimate`` would, and returns one :class:`Check` per compared figure.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sizing import safeio
from sizing.catalog.loader import Catalog, display_path
from sizing.catalog.schema import Model
from sizing.catalog.settings import Settings
from sizing.engine.estimate import find_model, memory_estimates
from sizing.engine.kv_band import band_classes, classes_in
from sizing.engine.speculative import parse_speculative_config
from sizing.engine.versions import parse_version, rules_for
from sizing.errors import CatalogError, UsageError
from sizing.review.calibration_fit import FitCase, fit_case, leave_group_out
from sizing.units import GiB, MiB

ROOT = Path(__file__).resolve().parents[2]
DIR = ROOT / "calibration"
TOLERANCE = {
    "weights": 0.03,
    "available_kv": 0.10,
    "concurrency": 0.01,
    "tokens": 0.01,
    "tokens_min_rank": 0.02,
    "cudagraph": 1.75,
}
"""Relative error allowed per compared figure. CUDA-graph memory is one fitted constant per captured size
against printed figures that spread from 0.28 to 1.8 GiB, so only its order of magnitude is checked."""


@dataclass(frozen=True)
class Check:
    """One compared figure: logged vs predicted (in sample and, where a coefficient is fitted, by fits
    that never saw the log's model (``lomo``) or its GPU type (``logo``)), with what groups it."""

    case: str
    metric: str
    logged: float
    predicted: float
    tolerance: float
    lomo: float | None = None
    logo: float | None = None
    classes: tuple[str, ...] = ()
    line: str = ""
    model: str = ""
    gpu: str = ""
    weight: float = 1.0

    @property
    def error(self) -> float:
        """Relative error (predicted − logged) / |logged|; 0/1 for verdict checks."""
        if self.metric.startswith("no_fit"):
            return 0.0 if self.predicted == self.logged else 1.0
        return (self.predicted - self.logged) / abs(self.logged)

    def _out(self, value: float | None) -> float:
        return self.error if value is None else (value - self.logged) / abs(self.logged)

    @property
    def lomo_error(self) -> float:
        """The leave-one-model-out relative error (the in-sample one where nothing fitted depends on it)."""
        return self._out(self.lomo)

    @property
    def logo_error(self) -> float:
        """The leave-one-GPU-type-out relative error (likewise)."""
        return self._out(self.logo)

    @property
    def ok(self) -> bool:
        """Whether the error is within the tolerance."""
        return abs(self.error) <= self.tolerance


LOG_FILES = ("vllm_logs.yaml", "validation_db_logs.yaml")
CASE_FILES = ("cases.yaml", "validation_db_cases.yaml")
"""The log files (one schema) and the files saying how each log is reproduced; the second of each is
written by ``scripts/import_validation_db.py`` and may be absent."""


def _yaml(path: Path) -> Any:
    return safeio.read_yaml(path, display_path(path)) if path.exists() else None


def load(directory: Path = DIR) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """(logs by id, the cases files merged section by section) from ``directory``."""
    logs = {log["id"]: log for name in LOG_FILES for log in (_yaml(directory / name) or [])}
    spec: dict[str, Any] = {"cases": {}, "skipped": {}, "outliers": {}}
    files: dict[str, str] = {}
    for name in CASE_FILES:
        found = _yaml(directory / name) or {}
        for section in ("cases", "skipped", "outliers"):
            spec[section].update(found.get(section) or {})
        files.update(dict.fromkeys(found.get("cases") or {}, name))
    spec["files"] = files
    return logs, spec


def check_models(spec: dict[str, Any], cat: Catalog, directory: Path = DIR) -> None:
    """Stop with one line (:class:`CatalogError`) naming the cases file, the case and its model where a case
    names a model or checkpoint the catalog no longer has (a case with a config.json carries its own)."""
    for case_id, case in spec["cases"].items():
        if str(case["model"]).endswith(".json"):
            continue
        try:
            find_model(cat, str(case["model"]))
        except UsageError:
            path = display_path(directory / spec["files"].get(case_id, CASE_FILES[0]))
            problem = f"{case['model']!r} is not in the catalog; keep the model or remove the case"
            raise CatalogError(path, f"cases.{case_id}", "model", problem) from None


def request(log: dict[str, Any], spec: dict[str, Any], kv_bytes: int | None = None) -> Settings:
    """The estimate request that reproduces ``log`` under ``spec`` (optionally with the logged KV bytes)."""
    mib = spec.get("total_mib") or round(float(spec["total_gib"]) * GiB / MiB)
    kv_dtype = log.get("kv_cache_dtype") or "auto"
    model = str(ROOT / spec["model"]) if spec["model"].endswith(".json") else spec["model"]
    return Settings(
        model=model,
        gpu=spec.get("gpu"),
        gpu_memory_mib=int(mib),
        vllm_version=spec["version"],
        tensor_parallel_size=log.get("tp") or spec.get("tp") or 1,
        pipeline_parallel_size=log.get("pp") or 1,
        gpu_memory_utilization=log.get("gpu_memory_utilization") or _default_gmu(spec["version"]),
        max_model_len=log.get("max_model_len") or spec.get("max_model_len"),
        kv_cache_dtype="auto" if kv_dtype in ("auto", None) else kv_dtype,
        max_num_batched_tokens=spec.get("max_num_batched_tokens"),
        max_num_seqs=spec.get("max_num_seqs"),
        enforce_eager=bool(spec.get("enforce_eager")),
        block_size=spec.get("block_size"),
        enable_expert_parallel=bool(spec.get("enable_expert_parallel")),
        kv_cache_memory_bytes=kv_bytes,
        llm_class=spec.get("entrypoint") == "llm",
        flashinfer_installed=bool(spec.get("flashinfer", True)),
        enable_prefix_caching=bool(spec.get("enable_prefix_caching")),
        speculative_config=parse_speculative_config(spec["speculative_config"])
        if spec.get("speculative_config")
        else None,
    )


def _default_gmu(version: str) -> float:
    return rules_for(version).default_gmu


GIVEN_KV = ("concurrency", "tokens", "tokens_min_rank", "no_fit_given_kv")


def _requests(log: dict[str, Any], spec: dict[str, Any]) -> dict[bool, Settings]:
    """The requests of a case without and (when a check needs it) with the logged KV memory given."""
    needs = {metric in GIVEN_KV for metric in _metrics(spec)}
    kv = {False: None, True: round(log["available_kv_gib"] * GiB) if True in needs else None}
    return {given: request(log, spec, kv[given]) for given in needs}


def _all_rows(logs: dict[str, Any], spec: dict[str, Any], cat: Catalog) -> dict[str, dict[bool, Any]]:
    """Per case, its estimates by whether the logged KV memory is given, computed together
    (:func:`sizing.engine.estimate.memory_estimates`)."""
    wanted = [
        (case_id, given, req)
        for case_id, case in spec["cases"].items()
        for given, req in _requests(logs[case_id], case).items()
    ]
    rows: dict[str, dict[bool, Any]] = {}
    for (case_id, given, _), row in zip(wanted, memory_estimates(cat, [req for _, _, req in wanted])):
        rows.setdefault(case_id, {})[given] = row
    return rows


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


def classes_of(row: Any) -> tuple[str, ...]:
    """The band classes (:data:`sizing.catalog.loader.BAND_CLASSES`) of an estimate ``row``, as the engine
    assigns them (:func:`sizing.engine.kv_band.band_classes`)."""
    return classes_in(
        int(band_classes(row["is_moe"], row["is_mla"], row["linear_layers"], row["vision_tokens"]))
    )


def model_key(model: Model) -> str:
    """What "the same model" means for leave-one-model-out: one architecture (every checkpoint, fine-tune or
    re-release of it), named by its class, layers and hidden size."""
    return f"{model.architecture} {model.layers}x{model.hidden_size}"


def gpu_key(case: dict[str, Any]) -> str:
    """The GPU type of a case: the catalog GPU, else ``gpu_type`` (a GPU the catalog lacks), else
    ``unstated``."""
    return str(case.get("gpu") or case.get("gpu_type") or "unstated")


def duplicate_group(log: dict[str, Any], case: dict[str, Any], model: str) -> tuple[str, ...]:
    """The near-duplicate group of a log: source (without record or comment), model, GPU, TP and release
    (runs that differ only in settings such as ``--gpu-memory-utilization`` or in the build of one
    release)."""
    source = re.split(r" record | \(comment|;", str(log.get("source", "")))[0]
    minor = str(parse_version(case["version"])[1])
    return source, model, gpu_key(case), str(log.get("tp") or case.get("tp") or 1), minor


@dataclass(frozen=True)
class Run:
    """Every check of every reproducible case, the fit inputs, the cases left out with their reasons, and the
    error quantiles that bound each class's band (the catalog's ``kv_band_quantiles``)."""

    checks: list[Check]
    fit_cases: list[FitCase]
    skipped: dict[str, str]
    quantiles: tuple[float, ...]


def _metrics(case: dict[str, Any]) -> list[str]:
    """The figures compared for a case: its ``checks``, and ``cudagraph`` where it gives ``cudagraph_gib``."""
    return [*case["checks"], *(["cudagraph"] if "cudagraph_gib" in case else [])]


def _case_checks(
    case_id: str,
    log: dict[str, Any],
    case: dict[str, Any],
    rows: dict[bool, Any],
    cat: Catalog,
    fits: list[FitCase],
) -> list[Check]:
    rules = rules_for(case["version"])
    model, row = (
        model_key(find_model(cat, request(log, case).model)[1]),
        rows[False] if False in rows else rows[True],
    )
    kv = log["available_kv_gib"] * GiB if "available_kv" in case["checks"] else None
    graphs = case["cudagraph_gib"] * GiB if "cudagraph_gib" in case else None
    if kv is not None or graphs is not None:
        fits.append(
            replace(fit_case(case_id, kv, rows[False], rules, graphs), model=model, gpu=gpu_key(case))
        )
    measured = {metric: _measure(log, case, rows[metric in GIVEN_KV], metric) for metric in _metrics(case)}
    return [
        Check(
            case_id,
            metric,
            float(logged),
            float(predicted),
            TOLERANCE.get(metric, 0.0),
            classes=classes_of(row),
            line=rules.line,
            model=model,
            gpu=gpu_key(case),
        )
        for metric, (logged, predicted) in measured.items()
    ]


FITTED_METRICS = ("available_kv", "cudagraph")
"""The compared figures that a fitted coefficient depends on, in the order :func:`leave_group_out` returns
them."""


def _left_out(check: Check, out: dict[str, tuple[float | None, float | None]]) -> float | None:
    """The group-out prediction (GiB) of ``check`` where a fitted coefficient depends on it, else None."""
    if check.metric not in FITTED_METRICS or check.case not in out:
        return None
    value = out[check.case][FITTED_METRICS.index(check.metric)]
    return None if value is None else value / GiB


def _weights(logs: dict[str, Any], spec: dict[str, Any], checks: list[Check]) -> dict[str, float]:
    """Each case's weight: 1 / the size of its near-duplicate group (:func:`duplicate_group`), so each
    group counts once in the fit and in every statistic."""
    models = {c.case: c.model for c in checks}
    groups = {case: duplicate_group(logs[case], spec["cases"][case], models[case]) for case in models}
    sizes = Counter(groups.values())
    return {case: 1.0 / sizes[group] for case, group in groups.items()}


def run(cat: Catalog, directory: Path = DIR) -> Run:
    """Every check in file order, with leave-one-model-out and leave-one-GPU-type-out predictions on the
    fitted available-KV and graph checks, each weighted by its near-duplicate group."""
    logs, spec = load(directory)
    check_models(spec, cat, directory)
    checks: list[Check] = []
    fits: list[FitCase] = []
    rows = _all_rows(logs, spec, cat)
    for case_id, case in spec["cases"].items():
        checks += _case_checks(case_id, logs[case_id], case, rows[case_id], cat, fits)
    weights = _weights(logs, spec, checks)
    fits = [replace(f, weight=weights[f.case]) for f in fits]
    lomo, logo = ((leave_group_out(fits, key) if len(fits) > 1 else {}) for key in ("model", "gpu"))
    checks = [
        replace(c, weight=weights[c.case], lomo=_left_out(c, lomo), logo=_left_out(c, logo)) for c in checks
    ]
    skipped = {case: " ".join(entry["reason"].split()) for case, entry in spec["skipped"].items()}
    return Run(checks, fits, skipped, tuple(cat.assume("kv_band_quantiles")))


def results(cat: Catalog, directory: Path = DIR) -> list[Check]:
    """Every check of every reproducible case, in file order."""
    return run(cat, directory).checks
