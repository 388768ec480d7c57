"""The Markdown report of the throughput calibration (``calibration/throughput.md``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

NAMES = {"output_tps": "output tokens/s", "tpot_s": "TPOT", "ttft_s": "TTFT"}


def _pct(value: float) -> str:
    return f"{100 * value:+.1f} %"


def error_row(name: str, metric: str, errors: np.ndarray) -> str:
    """One table row: median |error|, signed median, p10, p90, share within ±25 %, n."""
    within = float(np.mean(np.abs(errors) <= 0.25))
    cells = [
        name,
        NAMES[metric],
        f"{100 * np.median(np.abs(errors)):.1f} %",
        _pct(float(np.median(errors))),
        _pct(float(np.percentile(errors, 10))),
        _pct(float(np.percentile(errors, 90))),
        f"{100 * within:.0f} %",
        str(len(errors)),
    ]
    return "| " + " | ".join(cells) + " |"


def error_table(scored: pd.DataFrame) -> list[str]:
    """Leave-one-source-out errors per class and metric, then all classes together."""
    lines = [
        "| class | metric | median abs. error | signed median | p10 | p90 | within ±25 % | n |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, sub in [*scored.groupby("class"), ("all", scored)]:
        lines += [error_row(str(name), m, sub[f"err_{m}"].to_numpy()) for m in NAMES]
    return lines


def constants_table(classes: dict[str, dict]) -> list[str]:
    """The fitted constants of each class."""
    lines = [
        "| class | η weights | η experts | η KV | η compute | overlap loss | τ per layer per step "
        "| τ per step | τ per sequence per step | τ per all-reduce | wave share | runs | campaigns |",
        "|---|" + "---:|" * 12,
    ]
    for name, c in sorted(classes.items()):
        lines.append(
            f"| {name} | {c['eta_bw']:.3f} | {c['eta_experts']:.3f} | {c['eta_kv']:.3f} | "
            f"{c['eta_compute']:.3f} | "
            f"{c['overlap_loss']:.2f} | {1e6 * c['tau_layer_s']:.1f} µs | {1e6 * c['tau_step_s']:.0f} µs | "
            f"{1e6 * c['tau_seq_s']:.1f} µs | {1e6 * c['tau_allreduce_s']:.1f} µs | {c['wave_share']:.2f} | "
            f"{c['runs']} | {c['sources']} |"
        )
    return lines


def group_table(scored: pd.DataFrame) -> list[str]:
    """Median signed errors per left-out group, so a reader sees where the model is off."""
    lines = ["| class | left out | runs | tokens/s | TPOT | TTFT |", "|---|---|---:|---:|---:|---:|"]
    for (cls, group), sub in scored.groupby(["class", "group"]):
        lines.append(
            f"| {cls} | {group} | {len(sub)} | {_pct(sub['err_output_tps'].median())} | "
            f"{_pct(sub['err_tpot_s'].median())} | {_pct(sub['err_ttft_s'].median())} |"
        )
    return lines


def cautious_share(scored: pd.DataFrame, classes: dict[str, dict]) -> str:
    """Share of runs whose measured tokens/s is at least the cautious end (estimate × (1 + p10))."""
    p10 = scored["class"].map(lambda c: classes[c]["band"]["output_tps"][0])
    held = (1 + scored["err_output_tps"]) >= (1 + p10)
    return f"{100 * held.mean():.0f} %"


def markdown(classes: dict[str, dict], scored: pd.DataFrame) -> str:
    """The whole report."""
    campaigns = scored["campaign"].nunique()
    lines = [
        "# Throughput calibration",
        "",
        "Written by `python -m scripts.throughput_fit` (checked with `--check`); do not edit.",
        "",
        f"{len(scored)} measured `vllm bench serve` runs (fixed input/output lengths and concurrency) from "
        f"{campaigns} measuring campaigns published in NVIDIA aiconfigurator's `systems/silicon_sample.csv` "
        "(Apache-2.0; vLLM aggregated serving on H100, H200, B200 and B300; one publisher). Output tokens/s "
        "is derived from each run's measured mean TTFT and TPOT for the closed loop, "
        "`C · OSL / (TTFT + (OSL − 1) · TPOT)`. None of the held-back sources is among them.",
        "",
        "Errors are signed, `measured / estimate − 1` (positive: the estimate was low), and every run is "
        "scored by constants fitted without its group: its model (all its GPUs and campaigns), or, in a "
        "class with one model, its model on one GPU. The band of a published figure is its class's "
        "[p10, p90]; the site's headline is the cautious end (lower tokens/s, higher TPOT, TTFT and cost).",
        "",
        "## Leave-one-source-out errors",
        "",
        *error_table(scored),
        "",
        f"Measured tokens/s at or above the cautious end: {cautious_share(scored, classes)} of the runs.",
        "",
        "## Fitted constants",
        "",
        *constants_table(classes),
        "",
        "A class without fitted constants (hybrid linear-attention models today) is published as the "
        "roofline bound only (η = 1, no fixed costs), marked not calibrated.",
        "",
        "## Where it is off, by left-out group (median signed error)",
        "",
        *group_table(scored),
        "",
    ]
    return "\n".join(lines)
