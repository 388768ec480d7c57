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
from sizing.engine.evaluate import append_columns
from sizing.engine.throughput_inputs import CLASSES, METRICS, ROOFLINE, inputs_with_reasons

ID_COLUMNS = ("model", "checkpoint", "precision", "server", "gpu", "kv_cache_dtype", "plan", "tp", "pp", "dp")
"""Columns of the evaluated row each throughput row keeps, to say which deployment it is (``precision`` tells
a checkpoint quantised at load time from the same checkpoint as published)."""


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


def _categorical(codes: np.ndarray, texts: list[str] | tuple[str, ...]) -> pd.Categorical:
    """Text columns as categoricals (a small code per row, never a string per row)."""
    return pd.Categorical.from_codes(codes, categories=list(texts))


def _id_columns(df: pd.DataFrame, n: int) -> pd.DataFrame:
    """The evaluated rows' :data:`ID_COLUMNS`, each repeated ``n`` times, their dtypes kept."""
    rows = np.repeat(np.arange(len(df)), n)
    return df[[name for name in ID_COLUMNS if name in df]].iloc[rows].reset_index(drop=True)


DERIVED = frozenset(
    {*ROOFLINE, "calibrated", *(f"{m}_{end}" for m in METRICS for end in ("p10", "p90")), "stage_layers"}
)
"""Inputs that follow from others (the class's constants and band, the layers per stage): left out of the
hash that tells rows apart."""


def distinct_rows(x: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(the first row of each distinct combination of input values, each row's combination): the matrix
    repeats the same deployment under many ids (a checkpoint on every server of one GPU type and plan), so
    the steady state is computed once per distinct input, as :func:`sizing.engine.evaluate.evaluate` computes
    memory once per compute class. Rows are told apart by a 64-bit hash over the independent input arrays."""
    digest = np.zeros(len(next(iter(x.values()))), dtype=np.uint64)
    for name, values in x.items():
        if name not in DERIVED:
            digest = digest * np.uint64(0x100000001B3) ^ pd.util.hash_array(np.asarray(values, dtype=float))
    _, first, inverse = np.unique(digest, return_index=True, return_inverse=True)
    return first, inverse.reshape(-1)


def ladder(
    df: pd.DataFrame,
    cat: Catalog,
    constants: dict[str, ClassConstants],
    shapes: list[Shape],
    target: Target,
    rate: float = float("inf"),
) -> pd.DataFrame:
    """One row per row of ``df`` × shape: throughput, latency, bands, limit and cost (module docstring).
    ``rate``: requests per second (``--request-rate``; ``inf``, the default, is the closed loop)."""
    n = len(shapes)
    base, reasons = inputs_with_reasons(df, cat, constants)
    first, inverse = distinct_rows(base)
    x = _repeat({name: values[first] for name, values in base.items()}, n)
    length = np.tile(np.array([s.input_len for s in shapes], float), len(first))
    output = np.tile(np.array([s.output_len for s in shapes], float), len(first))
    clients = np.tile(np.array([s.concurrency for s in shapes], float), len(first))
    if np.isinf(rate):
        out = tp.steady_state(x, length, output, clients)
    else:
        out = tp.open_loop(x, length, output, clients, np.full(len(clients), rate))
    computed = results(out, x, target, x["refused"] == 0, rate * output)
    rows = (inverse[:, None] * n + np.arange(n)).reshape(-1)
    names = list(dict.fromkeys(s.workload for s in shapes))
    columns: dict[str, np.ndarray | pd.Categorical] = {
        "workload": _categorical(np.tile([names.index(s.workload) for s in shapes], len(df)), names),
        **{
            name: np.tile([getattr(s, name) for s in shapes], len(df)).astype(np.int64)
            for name in ("input_len", "output_len", "concurrency")
        },
        "tp_class": _categorical(np.repeat(base["class"], n), CLASSES),
        "calibrated": np.repeat(base["calibrated"], n),
        "refused": _categorical(np.repeat(base["refused"], n), reasons),
        **{name: take(values, rows) for name, values in computed.items()},
    }
    return append_columns(_id_columns(df, n), columns)


def take(values: np.ndarray | pd.Categorical, rows: np.ndarray) -> np.ndarray | pd.Categorical:
    """``values`` at ``rows`` (categoricals by their codes)."""
    if isinstance(values, pd.Categorical):
        return pd.Categorical.from_codes(values.codes[rows], dtype=values.dtype)
    return values[rows]


def results(
    out: dict[str, np.ndarray], x: dict[str, np.ndarray], target: Target, ok: np.ndarray, most: np.ndarray
) -> dict[str, np.ndarray | pd.Categorical]:
    """The estimate's columns with their bands (cautious end: lower tokens/s, higher TPOT, TTFT and cost),
    NaN on refused rows; ``within_target`` judged on the cautious ends. ``most``: output tokens/s the
    arrival rate allows (inf in the closed loop), which caps the band too."""
    cols: dict[str, np.ndarray] = {"running": out["running"]}
    for metric in ("output_tps", "tpot_s", "ttft_s"):
        cols[metric] = out[metric]
        cols[f"{metric}_low"], cols[f"{metric}_high"] = tp.banded(
            out[metric], x[f"{metric}_p10"], x[f"{metric}_p90"]
        )
    cols["output_tps_high"] = np.minimum(cols["output_tps_high"], most)
    cols.update({name: out[name] for name in ("user_tps", "request_rate", "total_tps")})
    cols = {name: np.where(ok, values, np.nan) for name, values in cols.items()}
    usd = {
        end: tp.usd_per_million(x["price_monthly"], cols[f"output_tps{end}"], target.hours_per_month)
        for end in ("", "_low", "_high")
    }
    cols["usd_per_mtok"], cols["usd_per_mtok_low"], cols["usd_per_mtok_high"] = (
        usd[""],
        usd["_high"],
        usd["_low"],
    )
    tpot = np.where(x["calibrated"], cols["tpot_s_high"], cols["tpot_s"])
    ttft = np.where(x["calibrated"], cols["ttft_s_high"], cols["ttft_s"])
    limited = _categorical(np.where(ok, out["limited_by"] + 1, 0), ("", *tp.LIMITS))
    return {**cols, "limited_by": limited, "within_target": (tpot <= target.tpot_s) & (ttft <= target.ttft_s)}


def users_within_target(frame: pd.DataFrame) -> pd.Series:
    """Per deployment and workload: the largest concurrency of the ladder whose cautious TPOT and TTFT meet
    the target (0 when none does)."""
    keys = [c for c in (*ID_COLUMNS, "workload") if c in frame]
    served = frame["concurrency"].where(frame["within_target"], 0)
    return served.groupby([frame[k] for k in keys], sort=False, observed=True).max()
