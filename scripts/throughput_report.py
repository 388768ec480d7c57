"""The Markdown report of the throughput calibration (``calibration/throughput.md``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

NAMES = {"output_tps": "output tokens/s", "tpot_s": "TPOT", "ttft_s": "TTFT"}
Quantiles = tuple[float, float]


def _pct(value: float) -> str:
    return f"{100 * value:+.1f} %"


def _q(quantile: float) -> str:
    """A quantile as the percentile it names: 0.1 -> ``p10``."""
    return f"p{100 * quantile:g}"


def error_row(name: str, metric: str, errors: np.ndarray, quantiles: Quantiles) -> str:
    """One table row: median |error|, signed median, the band quantiles, share within ±25 %, n."""
    within = float(np.mean(np.abs(errors) <= 0.25))
    cells = [
        name,
        NAMES[metric],
        f"{100 * np.median(np.abs(errors)):.1f} %",
        _pct(float(np.median(errors))),
        *(_pct(float(np.quantile(errors, q))) for q in quantiles),
        f"{100 * within:.0f} %",
        str(len(errors)),
    ]
    return "| " + " | ".join(cells) + " |"


def error_table(scored: pd.DataFrame, quantiles: Quantiles, prefix: str = "err_") -> list[str]:
    """Errors (columns ``<prefix><metric>``) per class and metric, then all classes together."""
    lines = [
        f"| class | metric | median abs. error | signed median | {_q(quantiles[0])} | {_q(quantiles[1])} "
        "| within ±25 % | n |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, sub in [*scored.groupby("class"), ("all", scored)]:
        for m in NAMES:
            errors = sub[f"{prefix}{m}"].dropna().to_numpy()
            lines += [error_row(str(name), m, errors, quantiles)] if len(errors) else []
    return lines


def constants_table(classes: dict[str, dict]) -> list[str]:
    """The fitted constants of each class (the time per dequantised weight is one value for all)."""
    lines = [
        "| class | η weights | η experts | η KV | η compute | overlap loss | τ per layer per step "
        "| τ per step | τ per sequence per step | τ per all-reduce | τ per held expert | τ per dequantised "
        "expert weight | wave share | runs | sources |",
        "|---|" + "---:|" * 14,
    ]
    for name, c in sorted(classes.items()):
        lines.append(
            f"| {name} | {c['eta_bw']:.3f} | {c['eta_experts']:.3f} | {c['eta_kv']:.3f} | "
            f"{c['eta_compute']:.3f} | "
            f"{c['overlap_loss']:.2f} | {1e6 * c['tau_layer_s']:.1f} µs | {1e6 * c['tau_step_s']:.0f} µs | "
            f"{1e6 * c['tau_seq_s']:.1f} µs | {1e6 * c['tau_allreduce_s']:.1f} µs | "
            f"{1e9 * c['tau_expert_s']:.0f} ns | {1e12 * c['tau_dequant_s']:.3f} ps | "
            f"{c['wave_share']:.2f} | {c['runs']} | {c['sources']} |"
        )
    return lines


def group_table(scored: pd.DataFrame) -> list[str]:
    """Median signed errors per left-out source and model, so a reader sees where the model is off."""
    lines = [
        "| class | left out | model | runs | tokens/s | TPOT | TTFT |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for (cls, group, model), sub in scored.groupby(["class", "group", "model_path"]):
        lines.append(
            f"| {cls} | {group} | {model} | {len(sub)} | {_pct(sub['err_output_tps'].median())} | "
            f"{_pct(sub['err_tpot_s'].median())} | {_pct(sub['err_ttft_s'].median())} |"
        )
    return lines


def sources_table(scored: pd.DataFrame) -> list[str]:
    """Each publisher: its runs, models, GPUs and where the numbers are."""
    lines = ["| source | runs | models | GPUs | where |", "|---|---:|---|---|---|"]
    for name, sub in scored.groupby("publisher"):
        models = ", ".join(sorted(sub["model_path"].unique()))
        gpus = ", ".join(sorted(sub["gpu"].unique()))
        urls = ", ".join(sorted(sub["source_url"].unique()))
        lines.append(f"| {name} | {len(sub)} | {models} | {gpus} | {urls} |")
    return lines


def cautious_share(scored: pd.DataFrame, classes: dict[str, dict]) -> str:
    """Share of runs whose measured tokens/s is at least the cautious end (estimate × (1 + low))."""
    low = scored["class"].map(lambda c: classes[c]["band"]["output_tps"][0])
    held = (1 + scored["err_output_tps"]) >= (1 + low)
    return f"{100 * held.mean():.0f} %"


def intro(scored: pd.DataFrame, quantiles: Quantiles) -> list[str]:
    """What was measured, how errors are scored and what the band is."""
    old = scored[~scored["v1"]]
    return [
        f"{len(scored)} measured serving runs (fixed input/output lengths and concurrency) from "
        f"{scored['publisher'].nunique()} publishers (`calibration/throughput_runs/`). Output tokens/s is "
        "derived from each run's measured mean TTFT and TPOT for the closed loop, "
        "`C · OSL / (TTFT + (OSL − 1) · TPOT)`. None of the held-back sources is among them.",
        "",
        "Errors are signed, `measured / estimate − 1` (positive: the estimate was low). Every run is scored "
        "by constants fitted without its source (its publisher on its GPU); the second table scores it by "
        "constants fitted without its model (all publishers and GPUs): the error on a model the fit never "
        "saw (none where no other fitted model shares its class). The fit counts each near-duplicate "
        "group of runs (same model, GPU, parallelism, lengths and "
        f"concurrency) once, and leaves out the {len(old)} runs of vLLM releases before 0.8, whose default "
        "engine (V0) schedules differently from the V1 scheduler the model follows; they are scored all "
        "the same. The constants minimise a pseudo-Huber log error (quadratic within about ±10 %, linear "
        "beyond, so that a few runs far off weigh no more than their share), per class, except the time "
        "per dequantised expert weight, a kernel's, fitted once on the runs of every class. The band of a "
        f"published figure is its class's [{_q(quantiles[0])}, {_q(quantiles[1])}] "
        "of the leave-one-source-out errors of its V1 runs, the engine the site models "
        "(`throughput_band_quantiles` in `catalog/assumptions.yaml`); "
        "the site's headline is the cautious end (lower tokens/s, higher TPOT, TTFT and cost).",
    ]


def markdown(classes: dict[str, dict], scored: pd.DataFrame, quantiles: Quantiles) -> str:
    """The whole report."""
    lines = [
        "# Throughput calibration",
        "",
        "Written by `python -m scripts.throughput_fit` (checked with `--check`); do not edit.",
        "",
        *intro(scored, quantiles),
        "",
        "## Sources",
        "",
        *sources_table(scored),
        "",
        "## Leave-one-source-out errors",
        "",
        *error_table(scored, quantiles),
        "",
        f"Measured tokens/s at or above the cautious end: {cautious_share(scored, classes)} of the runs.",
        "",
        "## Leave-one-model-out errors (a model the fit never saw)",
        "",
        *error_table(scored, quantiles, prefix="model_err_"),
        "",
        "## Fitted constants",
        "",
        *constants_table(classes),
        "",
        "A class without fitted constants (hybrid linear-attention models today) is published as the "
        "roofline bound only (η = 1, no fixed costs), marked not calibrated.",
        "",
        "## Where it is off, by left-out source (median signed error)",
        "",
        *group_table(scored),
        "",
    ]
    return "\n".join(lines)
