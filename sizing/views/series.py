"""The chart series: language-neutral points the charts draw, computed from the evaluated matrix.

:func:`all_series` runs once per build (:func:`sizing.site.context.prepare`, before the language builds);
the renderer (:mod:`sizing.render.charts`) only draws what it is given. Concurrency at the chart's extra
context points comes from the engine (:func:`sizing.engine.memory.concurrency_at`), here and nowhere else.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from sizing.catalog.loader import Catalog
from sizing.engine import memory
from sizing.engine.cases import COMBINATION
from sizing.engine.evaluate import plan_contexts
from sizing.engine.frames import marked_positions
from sizing.engine.versions import rules_for
from sizing.errors import UsageError
from sizing.views.policy import summary_kv

__all__ = [
    "AUTO_MIN_CONTEXT",
    "CONTEXT_POINTS",
    "MAX_SERIES",
    "Series",
    "all_series",
    "auto_models",
    "check_server",
    "chosen_rows",
    "concurrency_series",
    "plan_label",
    "price_rows",
]

CONTEXT_POINTS: tuple[int, ...] = tuple(2**k for k in range(10, 18))
"""The x positions of the concurrency chart, tokens: 1K, 2K, … 128K (a model's own maximum is added)."""

MAX_SERIES = 6
"""At most this many models per concurrency chart (one dash pattern and marker shape each)."""

AUTO_MIN_CONTEXT = 32768
"""Models picked automatically have at least this much context (their lines span most of the x axis)."""


@dataclass(frozen=True)
class Series:
    """One model's line: whole-server concurrency at each context length (ascending)."""

    model: str
    name: str
    checkpoint: str
    precision: str
    plan: str
    contexts: tuple[int, ...]
    values: tuple[float, ...]
    plan_changes: tuple[tuple[int, str], ...] = ()
    """(context point, plan) where the line's plan changes from ``plan`` (:func:`point_rows`)."""


def check_server(cat: Catalog, server_id: str) -> None:
    """Fail with a one-line UsageError when ``server_id`` is not a catalog server."""
    if server_id not in cat.servers:
        raise UsageError(f"unknown server {server_id!r}; catalog/servers.yaml has {', '.join(cat.servers)}")


def plan_label(tp: int, pp: int, dp: int) -> str:
    """``DP 2``, ``TP 2``, ``TP 8 × PP 2`` as the tables write them (:func:`sizing.render.cells.plan_label`);
    "" for one GPU, which the legend shows as the language's ``plan_single_gpu`` word."""
    if tp == 1 and pp == 1:
        return "" if dp == 1 else f"DP {dp}"
    parts = [f"TP {tp}"] + [f"{name} {n}" for name, n in (("PP", pp), ("DP", dp)) if n > 1]
    return " × ".join(parts)


def auto_models(cat: Catalog, fitting: Iterable[str]) -> list[str]:
    """A deterministic spread of sizes among the ``fitting`` models, at most :data:`MAX_SERIES`.

    Candidates: the largest model (total parameters) of each catalog family, among those with at
    least :data:`AUTO_MIN_CONTEXT` tokens of context. Sorted by size (ties: catalog order), the
    smallest, the largest and evenly spaced ones between are kept, smallest first.
    """
    fitting = set(fitting)
    order = {mid: i for i, mid in enumerate(cat.models)}
    largest: dict[str, str] = {}
    for mid, m in cat.models.items():
        best = largest.get(m.family)
        if (
            mid in fitting
            and m.max_context >= AUTO_MIN_CONTEXT
            and (best is None or m.total_params_b > cat.models[best].total_params_b)
        ):
            largest[m.family] = mid
    ranked = sorted(largest.values(), key=lambda mid: (cat.models[mid].total_params_b, order[mid]))
    if len(ranked) <= MAX_SERIES:
        return ranked
    step = (len(ranked) - 1) / (MAX_SERIES - 1)
    return [ranked[round(i * step)] for i in range(MAX_SERIES)]


def chosen_rows(
    cat: Catalog, df: pd.DataFrame, server_id: str, models: Sequence[str] | None = None
) -> pd.DataFrame:
    """One fitting chosen row per model at the summary KV type (:mod:`sizing.views.policy`) on ``server_id``:
    its widest-precision checkpoint.

    Models: ``models`` in that order, else :func:`auto_models`. The checkpoint is the one with the
    most bits per weight that fits (ties: catalog order). At most :data:`MAX_SERIES` rows.
    """
    check_server(cat, server_id)
    kv = summary_kv(cat.assume("kv_cache_dtypes"))
    rows = df[df["chosen"] & df["fits"] & (df["server"] == server_id) & (df["kv_cache_dtype"] == kv)]
    rows = rows[rows["max_context"] >= CONTEXT_POINTS[0]]
    if models is None:
        wanted = auto_models(cat, rows["model"])
    else:
        wanted = list(models)
        unknown = [m for m in wanted if m not in cat.models]
        if unknown:
            raise UsageError(f"unknown model(s) {', '.join(map(repr, unknown))}; see catalog/models.yaml")
    bits = rows["precision"].map({pid: spec.weight_bits for pid, spec in cat.precisions.items()})
    rows = rows.assign(_bits=bits, _order=np.arange(len(rows)))
    picked = []
    for model in wanted:
        of_model = rows[rows["model"] == model]
        if len(of_model):
            picked.append(
                of_model.sort_values(["_bits", "_order"], ascending=[False, True], kind="stable").index[0]
            )
        if len(picked) == MAX_SERIES:
            break
    return rows.loc[picked].drop(columns=["_bits", "_order"])


def _points(max_context: int) -> list[int]:
    """The x positions of a model: the grid below its maximum, then the maximum (capped at 128K)."""
    cap = min(int(max_context), CONTEXT_POINTS[-1])
    return [c for c in CONTEXT_POINTS if c < cap] + [cap]


def concurrency_series(
    cat: Catalog, df: pd.DataFrame, server_id: str, models: Sequence[str] | None = None
) -> list[Series]:
    """Whole-server concurrency (per-engine concurrency × DP replicas) of each chosen model.

    Computed column-wise with :func:`sizing.engine.memory.concurrency_at` on the chosen rows repeated
    once per context point. A line stops where one sequence no longer fits one engine.
    """
    rows = chosen_rows(cat, df, server_id, models)
    if rows.empty:
        return []
    points = [_points(m) for m in rows["max_context"]]
    long = df.iloc[point_rows(df, df.index.get_indexer(rows.index), points)]
    contexts = np.concatenate([np.asarray(p, dtype=np.int64) for p in points])
    per_engine = np.asarray(
        memory.concurrency_at(long, rules_for(str(df.attrs["vllm_version"])), contexts), dtype=np.float64
    )
    whole = per_engine * long["dp"].to_numpy()
    labels = [plan_label(int(t), int(p), int(d)) for t, p, d in zip(long["tp"], long["pp"], long["dp"])]
    series, start = [], 0
    for (_, row), pts in zip(rows.iterrows(), points):
        stop = start + len(pts)
        keep = per_engine[start:stop] >= 1
        series.append(
            Series(
                model=str(row["model"]),
                name=cat.models[row["model"]].name,
                checkpoint=str(row["checkpoint"]),
                precision=cat.precisions[row["precision"]].name,
                plan=labels[start],
                contexts=tuple(int(c) for c in contexts[start:stop][keep]),
                values=tuple(float(v) for v in whole[start:stop][keep]),
                plan_changes=plan_changes(labels[start:stop], pts),
            )
        )
        start = stop
    return [s for s in series if s.contexts]


def point_rows(df: pd.DataFrame, picked: np.ndarray, points: list[list[int]]) -> np.ndarray:
    """Matrix positions of the plan each chart point is drawn with, per picked ``chosen`` row position and
    its points: the plan chosen at the shortest published context at or above the point (the longest one
    beyond them, :func:`sizing.engine.evaluate.plan_contexts`), so the line passes through the tables'
    count at each published context; the picked row itself where the frame has no per-context choice."""
    lengths = plan_contexts(df)
    if not lengths:
        return np.repeat(picked, [len(p) for p in points])
    at = {
        c: marked_positions(df, COMBINATION, np.flatnonzero(df[f"chosen_{c}"].to_numpy(bool)), picked)
        for c in lengths
    }
    out = []
    for i, (own, pts) in enumerate(zip(picked, points)):
        for point in pts:
            pos = at[next((c for c in lengths if c >= point), lengths[-1])][i]
            out.append(pos if pos >= 0 else own)
    return np.asarray(out, dtype=np.int64)


def plan_changes(labels: list[str], points: list[int]) -> tuple[tuple[int, str], ...]:
    """The (point, plan) pairs where a line's plan (``labels``, one per point) changes, after its first."""
    return tuple(
        (point, label) for before, label, point in zip(labels, labels[1:], points[1:]) if label != before
    )


@dataclass(frozen=True)
class PriceRow:
    """One priced server: its monthly price and price per GB of its nominal GPU memory (in ``currency``),
    and that memory, decimal GB."""

    server: str
    name: str
    currency: str
    price_monthly: float
    price_per_gb_month: float
    vram_gb: float


def price_rows(cat: Catalog, df: pd.DataFrame) -> list[PriceRow]:
    """One row per priced server, cheapest GB of GPU memory first (ties by server id)."""
    rows = df[df["price_monthly"].notna()].drop_duplicates("server")
    rows = rows.sort_values(["price_per_gb_month", "server"], kind="stable")
    return [
        PriceRow(
            server=str(r.server),
            name=cat.servers[str(r.server)].name,
            currency=str(r.currency),
            price_monthly=float(r.price_monthly),
            price_per_gb_month=float(r.price_per_gb_month),
            vram_gb=float(r.memory_gb * r.server_gpus),
        )
        for r in rows.itertuples()
    ]


def all_series(cat: Catalog, df: pd.DataFrame) -> dict[str, tuple[Series, ...]]:
    """The automatically chosen series of every server (computed once per build by
    :func:`sizing.site.context.prepare`)."""
    return {server: tuple(concurrency_series(cat, df, server)) for server in cat.servers}
