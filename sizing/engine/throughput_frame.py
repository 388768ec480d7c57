"""Throughput frames: evaluated rows × request shapes × concurrencies, computed in one vectorised pass.

:func:`ladder` repeats each evaluated row once per (workload, concurrency) pair, builds the inputs once
per evaluated row (:func:`sizing.engine.throughput_inputs.inputs`) and takes them to the repeated rows,
then adds the bands and the cost. Columns: :data:`sizing.engine.columns.THROUGHPUT`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from sizing.catalog.loader import Catalog
from sizing.catalog.workloads import ClassConstants, Workload
from sizing.engine import throughput as tp
from sizing.engine.throughput_inputs import inputs

ID_COLUMNS = ("model", "checkpoint", "server", "gpu", "kv_cache_dtype", "plan", "tp", "pp", "dp")
"""Columns of the evaluated row each throughput row keeps, to say which deployment it is."""


@dataclass(frozen=True)
class Shape:
    """One request shape and concurrency, as ``vllm bench serve`` takes them (tokens, clients)."""

    workload: str
    input_len: int
    output_len: int
    concurrency: int


@dataclass(frozen=True)
class Target:
    """The speed target (seconds) and the hours a monthly price covers."""

    tpot_s: float
    ttft_s: float
    hours_per_month: float

    @classmethod
    def of(cls, cat: Catalog) -> "Target":
        """The catalog's ``speed_target_ms`` ([TPOT, TTFT]) and ``hours_per_month``."""
        tpot_ms, ttft_ms = cat.assume("speed_target_ms")
        return cls(float(tpot_ms) / 1000, float(ttft_ms) / 1000, float(cat.assume("hours_per_month")))


def workload_shapes(workloads: Mapping[str, Workload]) -> list[Shape]:
    """Every (workload, concurrency) pair of ``catalog/workloads.yaml`` entries, in file and ladder order."""
    return [Shape(name, w.input_len, w.output_len, c) for name, w in workloads.items() for c in w.concurrency]


def _repeat(x: dict[str, np.ndarray], times: int) -> dict[str, np.ndarray]:
    """Each input array repeated ``times`` times per row (row-major: a row's shapes are contiguous)."""
    return {name: np.repeat(values, times) for name, values in x.items()}


def ladder(df: pd.DataFrame, cat: Catalog, constants: dict[str, ClassConstants], shapes: list[Shape],
           target: Target, rate: float = float("inf")) -> pd.DataFrame:
    """One row per row of ``df`` × shape: throughput, latency, bands, limit and cost (see the module docstring).
    ``rate``: requests per second (``--request-rate``; ``inf``, the default, is the closed loop)."""
    n = len(shapes)
    x = _repeat(inputs(df, cat, constants), n)
    length = np.tile([s.input_len for s in shapes], len(df)).astype(float)
    output = np.tile([s.output_len for s in shapes], len(df)).astype(float)
    clients = np.tile([s.concurrency for s in shapes], len(df)).astype(float)
    if np.isinf(rate):
        out = tp.steady_state(x, length, output, clients)
    else:
        out = tp.open_loop(x, length, output, clients, np.full(len(clients), rate))
    ok = x["refused"] == ""
    frame = pd.DataFrame({name: np.repeat(df[name].to_numpy(), n) for name in ID_COLUMNS if name in df})
    frame["workload"] = np.tile([s.workload for s in shapes], len(df))
    frame["input_len"], frame["output_len"] = length.astype(np.int64), output.astype(np.int64)
    frame["concurrency"] = clients.astype(np.int64)
    frame["tp_class"], frame["calibrated"], frame["refused"] = x["class"], x["calibrated"], x["refused"]
    for name, values in results(out, x, target, ok, rate * output).items():
        frame[name] = values
    return frame


def results(out: dict[str, np.ndarray], x: dict[str, np.ndarray], target: Target, ok: np.ndarray,
            most: np.ndarray) -> dict[str, np.ndarray]:
    """The estimate's columns with their bands (cautious end: lower tokens/s, higher TPOT, TTFT and cost),
    NaN on refused rows; ``within_target`` judged on the cautious ends. ``most``: output tokens/s the
    arrival rate allows (inf in the closed loop), which caps the band too."""
    cols: dict[str, np.ndarray] = {"running": out["running"]}
    for metric in ("output_tps", "tpot_s", "ttft_s"):
        cols[metric] = out[metric]
        cols[f"{metric}_low"], cols[f"{metric}_high"] = tp.banded(out[metric], x[f"{metric}_p10"],
                                                                  x[f"{metric}_p90"])
    cols["output_tps_high"] = np.minimum(cols["output_tps_high"], most)
    cols.update({name: out[name] for name in ("user_tps", "request_rate", "total_tps")})
    cols = {name: np.where(ok, values, np.nan) for name, values in cols.items()}
    cols["limited_by"] = np.where(ok, np.asarray(tp.LIMITS, dtype=object)[out["limited_by"]], "")
    usd = {end: tp.usd_per_million(x["price_monthly"], cols[f"output_tps{end}"], target.hours_per_month)
           for end in ("", "_low", "_high")}
    cols["usd_per_mtok"], cols["usd_per_mtok_low"], cols["usd_per_mtok_high"] = usd[""], usd["_high"], usd["_low"]
    tpot = np.where(x["calibrated"], cols["tpot_s_high"], cols["tpot_s"])
    ttft = np.where(x["calibrated"], cols["ttft_s_high"], cols["ttft_s"])
    cols["within_target"] = (tpot <= target.tpot_s) & (ttft <= target.ttft_s)
    return cols


def users_within_target(frame: pd.DataFrame) -> pd.Series:
    """Per deployment and workload: the largest concurrency of the ladder whose cautious TPOT and TTFT meet
    the target (0 when none does)."""
    keys = [c for c in (*ID_COLUMNS, "workload") if c in frame]
    served = frame["concurrency"].where(frame["within_target"], 0)
    return served.groupby([frame[k] for k in keys], sort=False, observed=True).max()
