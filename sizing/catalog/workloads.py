"""Request shapes for the throughput estimate (``catalog/workloads.yaml``) and the fitted throughput
constants (``calibration/throughput.yaml``, written by ``python -m scripts.throughput_fit``).

Both are read here, validated like the catalog: a bad file stops with one line naming file, entry and
field. Lengths are tokens; the constants' units are in their field names (``_s`` seconds).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import Field

from sizing.catalog.loader import DEFAULT_DIR, _read_file, display_path, read_yaml, validate_entry
from sizing.catalog.schema import Fraction, PosInt, Strict, Text
from sizing.errors import CatalogError

CALIBRATION_FILE = Path(__file__).resolve().parents[2] / "calibration" / "throughput.yaml"
NonNegSeconds = Annotated[float, Field(ge=0, le=1)]
Share = Annotated[float, Field(ge=0, le=1)]


class Meaning(Strict):
    en: Text
    zh: Text
    ru: Text


class Workload(Strict):
    """Fixed prompt (``input_len``) and answer (``output_len``) lengths, tokens, and the ladder of
    ``--max-concurrency`` values the pages show."""

    input_len: Annotated[int, Field(gt=0, le=1_048_576, strict=True)]
    output_len: Annotated[int, Field(gt=0, le=1_048_576, strict=True)]
    concurrency: Annotated[list[PosInt], Field(min_length=1, max_length=16)]
    meaning: Meaning


class ClassConstants(Strict):
    """The efficiency constants of one architecture class (:mod:`sizing.engine.throughput`)."""

    eta_bw: Fraction = Field(description="share of peak memory bandwidth a decode step reaches")
    eta_kv: Fraction = Field(description="share of peak memory bandwidth the KV-cache reads reach")
    eta_experts: Fraction = Field(description="routed-expert weights: their share of the weights' bandwidth")
    eta_compute: Fraction = Field(description="share of dense peak FLOP/s a step reaches")
    overlap_loss: Share = Field(description="share of the smaller of memory and compute time not overlapped")
    tau_layer_s: NonNegSeconds = Field(description="fixed cost per layer per step, seconds")
    tau_seq_s: NonNegSeconds = Field(description="host cost per running sequence per step, seconds")
    tau_step_s: NonNegSeconds = Field(description="fixed cost per engine step (scheduler, sampling), seconds")
    tau_allreduce_s: NonNegSeconds = Field(description="latency of one TP all-reduce, seconds")
    tau_expert_s: NonNegSeconds = Field(
        default=0.0, description="fused-MoE cost per routed expert held per layer per step, seconds"
    )
    tau_dequant_s: NonNegSeconds = Field(
        default=0.0,
        description="seconds per routed-expert weight the MoE kernels dequantise (weight-only formats); "
        "one value for every class",
    )
    wave_share: Share = Field(description="share of a burst's prompt queue a request waits through")
    band: dict[str, Annotated[list[float], Field(min_length=2, max_length=2)]] = Field(
        description="metric -> (low, high) band quantiles of the leave-one-source-out signed error, "
        "measured/estimate - 1"
    )
    errors: dict[str, dict[str, float]] = Field(
        description="metric -> median_abs, median, low, high (the band quantiles), within_25 of the "
        "leave-one-source-out errors"
    )
    runs: PosInt
    sources: PosInt


def load_workloads(directory: str | Path = DEFAULT_DIR) -> dict[str, Workload]:
    """``catalog/workloads.yaml`` as ``{name: Workload}``, validated."""
    text, label = _read_file(Path(directory), "workloads")
    return {
        name: validate_entry(Workload, raw, label, str(name)) for name, raw in read_yaml(text, label).items()
    }


def load_constants(path: Path = CALIBRATION_FILE) -> dict[str, ClassConstants]:
    """The fitted constants per class (``calibration/throughput.yaml``); empty when not fitted yet."""
    if not path.is_file():
        return {}
    label = display_path(path)
    raw = read_yaml(path.read_text(encoding="utf-8"), label)
    classes = raw.get("classes")
    if not isinstance(classes, dict):
        raise CatalogError(label, "classes", "", "must be a mapping of class names to constants")
    return {
        str(name): validate_entry(ClassConstants, entry, label, str(name)) for name, entry in classes.items()
    }
