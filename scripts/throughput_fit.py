"""Fit the throughput constants per architecture class and score them leave-one-source-out.

    python -m scripts.throughput_fit            # write calibration/throughput.yaml and throughput.md
    python -m scripts.throughput_fit --check    # exit 1 when either file differs from what the data give

Not part of the build. The runs (``scripts/throughput_runs.py``) are evaluated with the same engine the site
uses (:func:`sizing.engine.throughput.steady_state` over :func:`sizing.engine.throughput_inputs.inputs`).
Per class the constants (η_bw, η_c, τ_L, τ_s, τ per held expert, …), and once for all classes the time per
dequantised expert weight, minimise a pseudo-Huber log error of TPOT and output tokens/s (and a quarter of
TTFT's) by coordinate descent over multiplicative steps, each near-duplicate group of runs counted once, on
the runs of the engine the model describes (vLLM V1).
Errors are signed, ``measured / estimate − 1``, each run scored by constants fitted without its source
(its publisher on its GPU); the report adds the errors on a model the fit never saw. The band quantiles
come from the catalog (``throughput_band_quantiles``).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from scripts.throughput_report import markdown
from scripts.throughput_runs import ROOT, Runs, evaluate_runs, read_runs
from sizing.catalog.loader import load_catalog
from sizing.engine import throughput as tp
from sizing.engine.throughput_inputs import METRICS, ROOFLINE, architecture_class, inputs

YAML_OUT = ROOT / "calibration" / "throughput.yaml"
MD_OUT = ROOT / "calibration" / "throughput.md"
PARAMS = (
    "eta_bw",
    "eta_kv",
    "eta_compute",
    "overlap_loss",
    "tau_layer_s",
    "tau_seq_s",
    "tau_allreduce_s",
    "tau_step_s",
    "eta_experts",
    "wave_share",
    "tau_expert_s",
    "tau_dequant_s",
)
START = {
    "eta_bw": 0.7,
    "eta_kv": 0.7,
    "eta_compute": 0.4,
    "overlap_loss": 0.3,
    "tau_layer_s": 50e-6,
    "tau_seq_s": 20e-6,
    "tau_allreduce_s": 10e-6,
    "tau_step_s": 1e-3,
    "eta_experts": 0.8,
    "wave_share": 0.5,
    "tau_expert_s": 0.1e-6,
    "tau_dequant_s": 0.2e-12,
}
SHARED = ("tau_dequant_s",)
"""Constants of a kernel rather than of an architecture, one value for every class, fitted on the runs of
all classes at once: the dequantisation of weight-only experts (Marlin, Triton ``matmul_ogs``) is the same
work whatever model the experts belong to."""
EXPERT_ONLY = ("eta_experts", "tau_expert_s")
"""Constants that only routed experts inform."""
CAPPED = ("eta_bw", "eta_kv", "eta_compute", "overlap_loss", "wave_share", "eta_experts")
STEPS = (0.5, 0.7, 0.85, 0.95, 1.05, 1.2, 1.5, 2.0)
HUBER_DELTA = 0.1
"""Scale of the pseudo-Huber loss on log errors: quadratic within about ±10 %, linear beyond, so that a
few runs far off (a vLLM release's slow kernels, a campaign's unusual setup) pull the constants of a
class no more than their share; the errors reported are medians, which such runs do not move either."""


Columns = pd.DataFrame | dict[str, np.ndarray]
"""The runs, or the columns of them the fit reads (:func:`columns`)."""


def columns(runs: pd.DataFrame) -> dict[str, np.ndarray]:
    """The columns :func:`fit` reads, as arrays: its thousands of loss evaluations would otherwise spend a
    third of their time looking columns up in the DataFrame."""
    return {c: runs[c].to_numpy() for c in ("class", "isl", "osl", "concurrency", "weight", *METRICS)}


def predict(
    x: dict[str, np.ndarray], runs: Columns, constants: dict[str, float] | dict[str, dict[str, float]]
) -> dict[str, np.ndarray]:
    """TPOT, TTFT and output tokens/s of each run under ``constants``: one set for every run, or a set per
    class (``runs["class"]``, each run's class in it)."""
    shape = [np.asarray(runs[c], dtype=float) for c in ("isl", "osl", "concurrency")]
    if all(isinstance(v, dict) for v in constants.values()):
        codes = np.asarray(runs["class"])
        per_row = {p: np.array([constants[c][p] for c in codes], dtype=float) for p in PARAMS}  # type: ignore[index]
    else:
        per_row = {p: np.full(len(shape[0]), v) for p, v in constants.items()}
    return tp.steady_state({**x, **per_row}, *shape)


def pseudo_huber(error: np.ndarray, delta: float = HUBER_DELTA) -> np.ndarray:
    """``2 δ² (√(1 + (e/δ)²) − 1)``: ``e²`` for small errors, ``2 δ |e|`` for large ones."""
    return 2 * delta**2 * (np.sqrt(1 + (error / delta) ** 2) - 1)


def loss(x: dict[str, np.ndarray], runs: Columns, constants: dict[str, float]) -> float:
    """Mean pseudo-Huber log error (:func:`pseudo_huber`) of TPOT and of output tokens/s, plus a quarter of
    TTFT's, each near-duplicate group of runs counted once (``runs["weight"]``,
    :func:`scripts.throughput_runs.duplicate_weights`)."""
    out = predict(x, runs, constants)
    metrics = {"tpot_s": 1.0, "output_tps": 1.0, "ttft_s": 0.25}
    weight = np.asarray(runs["weight"])
    return sum(
        w * float(np.average(pseudo_huber(np.log(out[m] / np.asarray(runs[m]))), weights=weight))
        for m, w in metrics.items()
    )


def free_constants(x: dict[str, np.ndarray]) -> list[str]:
    """The class constants the runs inform: the expert ones only with routed experts; never the shared."""
    moe = bool((x["expert_bytes"] > 0).any())
    return [p for p in PARAMS if p not in SHARED and (p not in EXPERT_ONLY or moe)]


def tries(name: str, value: float) -> list[float]:
    """The values coordinate descent weighs for one constant: itself and its :data:`STEPS` (η capped at 1)."""
    return [value, *(min(value * s, 1.0) if name in CAPPED else value * s for s in STEPS)]


def fit(x: dict[str, np.ndarray], runs: pd.DataFrame, rounds: int = 10) -> dict[str, dict[str, float]]:
    """Constants per class (``runs["class"]``) by coordinate descent from :data:`START` over multiplicative
    :data:`STEPS`: the :data:`SHARED` ones on every run at once (the classes' losses weighted by their
    runs), the others on the runs of their class; a class without experts keeps the expert constants that
    leave them out."""
    parts = {str(n): np.flatnonzero(runs["class"].to_numpy() == n) for n in sorted(runs["class"].unique())}
    cols = columns(runs)
    parts_x = {n: (take(x, rows), take(cols, rows)) for n, rows in parts.items()}
    free = {n: free_constants(xs) for n, (xs, _) in parts_x.items()}
    best = {n: {p: START[p] if p in free[n] else ROOFLINE[p] for p in PARAMS} for n in parts}
    shared = {p: START[p] for p in SHARED}
    share = {n: rs["weight"].sum() / runs["weight"].sum() for n, (_, rs) in parts_x.items()}
    for _ in range(rounds):
        for p in SHARED:
            pooled = [
                (
                    sum(
                        share[n] * loss(xs, rs, {**best[n], **shared, p: v})
                        for n, (xs, rs) in parts_x.items()
                    ),
                    v,
                )
                for v in tries(p, shared[p])
            ]
            shared[p] = min(pooled)[1]
        for n, (xs, rs) in parts_x.items():
            for p in free[n]:
                const = {**best[n], **shared}
                best[n][p] = min((loss(xs, rs, {**const, p: v}), v) for v in tries(p, best[n][p]))[1]
    return {n: {**c, **shared} for n, c in best.items()}


def take(x: dict[str, np.ndarray], rows: np.ndarray) -> dict[str, np.ndarray]:
    """The input arrays at ``rows``."""
    return {name: values[rows] for name, values in x.items()}


def held_out_groups(runs: pd.DataFrame, by: str = "source") -> np.ndarray:
    """The group each run is left out with: its source, the publisher on one GPU (``by="source"``), or its
    model on every GPU (``by="model"``: how the class does on a model the fit never saw)."""
    if by == "model":
        return runs["model_path"].to_numpy(object)
    return (runs["publisher"].to_numpy(object) + " on " + runs["gpu"].to_numpy(object)).astype(object)


def held_out_predictions(
    job: tuple[dict[str, np.ndarray], pd.DataFrame, np.ndarray, np.ndarray],
) -> tuple[np.ndarray, dict[str, np.ndarray] | None]:
    """One left-out group: the runs of ``test`` (of a class the fit covers) and their predictions by the
    constants fitted on ``train`` (None when no such run is left)."""
    x, runs, train, test = job
    constants = fit(take(x, train), runs.iloc[train])
    test = test[runs["class"].iloc[test].isin(list(constants)).to_numpy()]
    return test, (predict(take(x, test), runs.iloc[test], constants) if len(test) else None)


def leave_one_out(x: dict[str, np.ndarray], runs: pd.DataFrame, by: str = "source") -> pd.DataFrame:
    """Signed errors (measured / estimate − 1) of every run, each from a fit without its group
    (:func:`held_out_groups`) and without the runs of an engine the model does not describe (``v1``); NaN
    where its class has nothing left to fit. The groups' fits are independent: they run in one process per
    core (the same numbers as one after the other)."""
    groups = held_out_groups(runs, by)
    errors = pd.DataFrame(index=runs.index, columns=list(METRICS), dtype=float)
    fitted = runs["v1"].to_numpy(bool)
    jobs = [
        (x, runs, np.flatnonzero((groups != g) & fitted), np.flatnonzero(groups == g))
        for g in np.unique(groups)
    ]
    workers = max(1, min(len(jobs), os.cpu_count() or 1))
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        for test, out in pool.map(held_out_predictions, jobs):
            for m in METRICS if out is not None else ():
                errors.iloc[test, errors.columns.get_loc(m)] = runs[m].to_numpy()[test] / out[m] - 1
    return errors.assign(group=groups)


def error_stats(errors: np.ndarray, quantiles: tuple[float, float]) -> dict[str, float]:
    """Median absolute and signed error, the ``low`` and ``high`` band quantiles (the catalog's
    ``throughput_band_quantiles``) and the share within ±25 % (fractions, 4 decimals)."""
    stats = {
        "median_abs": np.median(np.abs(errors)),
        "median": np.median(errors),
        "low": np.quantile(errors, quantiles[0]),
        "high": np.quantile(errors, quantiles[1]),
        "within_25": np.mean(np.abs(errors) <= 0.25),
    }
    return {k: round(float(v), 4) for k, v in stats.items()}


def class_entry(
    constants: dict[str, float], errors: pd.DataFrame, sub: pd.DataFrame, quantiles: tuple[float, float]
) -> dict:
    """One class's entry of ``calibration/throughput.yaml``: constants, band, error statistics, counts. The
    statistics cover every run; the band only the runs of the V1 engine (vLLM 0.8 and later), the scheduler
    the site models: a V0 run is scored, not fitted, and does not widen the band (where a class has
    no V1 run, all its runs)."""
    stats = {m: error_stats(errors[m].to_numpy(), quantiles) for m in METRICS}
    v1 = sub["v1"].to_numpy(bool)
    band = {m: error_stats(errors[m].to_numpy()[v1], quantiles) for m in METRICS} if v1.any() else stats
    return {
        **{k: float(f"{v:.4g}") for k, v in constants.items()},
        "band": {m: [band[m]["low"], band[m]["high"]] for m in METRICS},
        "errors": stats,
        "runs": len(sub),
        "sources": int(sub["publisher"].nunique()),
    }


def scored_frame(sub: pd.DataFrame, errors: pd.DataFrame, model_out: pd.DataFrame) -> pd.DataFrame:
    """The class's runs with their leave-one-source-out errors (``err_<metric>``, ``group``) and
    leave-one-model-out errors (``model_err_<metric>``)."""
    return pd.concat(
        [
            sub,
            errors.add_prefix("err_").rename(columns={"err_group": "group"}),
            model_out[list(METRICS)].add_prefix("model_err_"),
        ],
        axis=1,
    )


def calibrate(data: Runs) -> tuple[dict[str, dict], pd.DataFrame]:
    """Constants and band per class, and every run's leave-one-out errors (by source and by model)."""
    cat = load_catalog()
    quantiles = tuple(cat.assume("throughput_band_quantiles"))
    runs = data.runs.assign(**{"class": architecture_class(data.deployments)})
    x = inputs(data.deployments, cat, {})
    errors, model_out = leave_one_out(x, runs), leave_one_out(x, runs, by="model")
    fitted = np.flatnonzero(runs["v1"].to_numpy(bool))
    constants = fit(take(x, fitted), runs.iloc[fitted])
    classes = {}
    for name in sorted(runs["class"].unique()):
        rows = np.flatnonzero(runs["class"].to_numpy() == name)
        sub = runs.iloc[rows].reset_index(drop=True)
        class_errors = errors.iloc[rows].reset_index(drop=True)
        classes[name] = class_entry(constants[name], class_errors, sub, quantiles)
    scored = scored_frame(runs, errors, model_out)
    return classes, scored.sort_values("class", kind="stable").reset_index(drop=True)


def texts(classes: dict[str, dict], scored: pd.DataFrame) -> tuple[str, str]:
    """The YAML constants file and the Markdown report."""
    head = (
        "# Written by python -m scripts.throughput_fit; do not edit.\n"
        "# Signed errors are measured / estimate - 1;\n"
        "# band = [low, high] quantiles (catalog/assumptions.yaml, throughput_band_quantiles)\n"
        "# of the leave-one-source-out errors of the class.\n"
    )
    quantiles = tuple(load_catalog().assume("throughput_band_quantiles"))
    return head + yaml.safe_dump({"classes": classes}, sort_keys=True), markdown(classes, scored, quantiles)


def main(argv: list[str] | None = None) -> int:
    """Fit, then write or (``--check``) compare both outputs."""
    parser = argparse.ArgumentParser(prog="python -m scripts.throughput_fit")
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args(argv)
    cat = load_catalog()
    classes, scored = calibrate(evaluate_runs(cat, read_runs()))
    outputs = dict(zip((YAML_OUT, MD_OUT), texts(classes, scored)))
    if args.check:
        stale = [
            str(p.relative_to(ROOT))
            for p, text in outputs.items()
            if not p.is_file() or p.read_text(encoding="utf-8") != text
        ]
        if stale:
            print(f"stale: {', '.join(stale)} (run python -m scripts.throughput_fit)", file=sys.stderr)
        return 1 if stale else 0
    for path, text in outputs.items():
        Path(path).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
