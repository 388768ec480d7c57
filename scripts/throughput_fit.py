"""Fit the throughput constants per architecture class and score them leave-one-source-out.

    python -m scripts.throughput_fit            # write calibration/throughput.yaml and throughput.md
    python -m scripts.throughput_fit --check    # exit 1 when either file differs from what the data give

Not part of the build. The runs (``scripts/throughput_runs.py``) are evaluated with the same engine the site
uses (:func:`sizing.engine.throughput.steady_state` over :func:`sizing.engine.throughput_inputs.inputs`).
Per class the constants (η_bw, η_c, τ_L, τ_s) minimise the mean squared log error of TPOT and output
tokens/s (and a quarter of TTFT's) by coordinate descent over multiplicative steps, with the all-reduce
latency and the share of a burst that queues together (``wave_share``). Errors are signed,
``measured / estimate − 1``, each run scored by constants fitted without its
group: its model (all its GPUs and campaigns), or, in a class with one model, its model × GPU.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from scripts.throughput_report import markdown
from scripts.throughput_runs import ROOT, Runs, evaluate_runs, read_runs
from sizing.catalog.loader import load_catalog
from sizing.engine import throughput as tp
from sizing.engine.throughput_inputs import METRICS, architecture_class, inputs

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
}
CAPPED = ("eta_bw", "eta_kv", "eta_compute", "overlap_loss", "wave_share", "eta_experts")
STEPS = (0.5, 0.7, 0.85, 0.95, 1.05, 1.2, 1.5, 2.0)


def predict(
    x: dict[str, np.ndarray], runs: pd.DataFrame, constants: dict[str, float]
) -> dict[str, np.ndarray]:
    """TPOT, TTFT and output tokens/s of each run under ``constants``."""
    y = {**x, **{name: np.full(len(runs), value) for name, value in constants.items()}}
    shape = [runs[c].to_numpy(float) for c in ("isl", "osl", "batch_size")]
    return tp.steady_state(y, *shape)


def loss(x: dict[str, np.ndarray], runs: pd.DataFrame, constants: dict[str, float]) -> float:
    """Mean squared log error of TPOT and of output tokens/s, plus a quarter of TTFT's."""
    out = predict(x, runs, constants)
    weights = {"tpot_s": 1.0, "output_tps": 1.0, "ttft_s": 0.25}
    return sum(w * float(np.mean(np.log(out[m] / runs[m].to_numpy()) ** 2)) for m, w in weights.items())


def fit(x: dict[str, np.ndarray], runs: pd.DataFrame, rounds: int = 6) -> dict[str, float]:
    """Coordinate descent from :data:`START` over multiplicative :data:`STEPS` (η capped at 1)."""
    best = dict(START)
    free = [p for p in PARAMS if p != "eta_experts" or bool((x["expert_bytes"] > 0).any())]
    best.update({p: 1.0 for p in PARAMS if p not in free})  # no experts: their efficiency is moot
    for _ in range(rounds):
        for name in free:
            tries = [min(best[name] * s, 1.0) if name in CAPPED else best[name] * s for s in STEPS]
            scored = [(loss(x, runs, {**best, name: v}), v) for v in (best[name], *tries)]
            best[name] = min(scored)[1]
    return best


def take(x: dict[str, np.ndarray], rows: np.ndarray) -> dict[str, np.ndarray]:
    """The input arrays at ``rows``."""
    return {name: values[rows] for name, values in x.items()}


def held_out_groups(runs: pd.DataFrame) -> np.ndarray:
    """The group each run is left out with: its model, or its model × GPU in a class with one model."""
    models = runs["model_path"].to_numpy(object)
    single = runs.groupby("class")["model_path"].transform("nunique").to_numpy() == 1
    return np.where(single, models + " on " + runs["gpu"].to_numpy(object), models)


def leave_one_out(x: dict[str, np.ndarray], runs: pd.DataFrame) -> pd.DataFrame:
    """Signed errors (measured / estimate − 1) of every run of a class, each from a fit without its group."""
    groups = held_out_groups(runs)
    errors = pd.DataFrame(index=runs.index, columns=list(METRICS), dtype=float)
    for group in np.unique(groups):
        test, train = np.flatnonzero(groups == group), np.flatnonzero(groups != group)
        constants = fit(take(x, train), runs.iloc[train])
        out = predict(take(x, test), runs.iloc[test], constants)
        for m in METRICS:
            errors.iloc[test, errors.columns.get_loc(m)] = runs[m].to_numpy()[test] / out[m] - 1
    return errors.assign(group=groups)


def error_stats(errors: np.ndarray) -> dict[str, float]:
    """Median absolute and signed error, p10, p90 and the share within ±25 % (fractions, 4 decimals)."""
    stats = {
        "median_abs": np.median(np.abs(errors)),
        "median": np.median(errors),
        "p10": np.percentile(errors, 10),
        "p90": np.percentile(errors, 90),
        "within_25": np.mean(np.abs(errors) <= 0.25),
    }
    return {k: round(float(v), 4) for k, v in stats.items()}


def calibrate(data: Runs) -> tuple[dict[str, dict], pd.DataFrame]:
    """Constants and band per class, and every run's leave-one-out errors."""
    cat = load_catalog()
    runs = data.runs.assign(**{"class": architecture_class(data.deployments)})
    x = inputs(data.deployments, cat, {})
    classes, scored = {}, []
    for name in sorted(runs["class"].unique()):
        rows = np.flatnonzero(runs["class"].to_numpy() == name)
        sub, xs = runs.iloc[rows].reset_index(drop=True), take(x, rows)
        errors = leave_one_out(xs, sub)
        constants = fit(xs, sub)
        band = {
            m: [round(float(np.percentile(errors[m], 10)), 4), round(float(np.percentile(errors[m], 90)), 4)]
            for m in METRICS
        }
        classes[name] = {
            **{k: float(f"{v:.4g}") for k, v in constants.items()},
            "band": band,
            "errors": {m: error_stats(errors[m].to_numpy()) for m in METRICS},
            "runs": len(sub),
            "sources": int(sub["campaign"].nunique()),
        }
        scored.append(
            pd.concat([sub, errors.add_prefix("err_").rename(columns={"err_group": "group"})], axis=1)
        )
    return classes, pd.concat(scored, ignore_index=True)


def texts(classes: dict[str, dict], scored: pd.DataFrame) -> tuple[str, str]:
    """The YAML constants file and the Markdown report."""
    head = (
        "# Written by python -m scripts.throughput_fit; do not edit.\n"
        "# Signed errors are measured / estimate - 1;\n"
        "# band = [p10, p90] of the leave-one-source-out errors of the class.\n"
    )
    return head + yaml.safe_dump({"classes": classes}, sort_keys=True), markdown(classes, scored)


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
