"""Language-neutral views of the evaluated matrix: filtered rows and typed columns.

A view is a DataFrame whose columns are stable ids (``weights_gib``, ``seq_4096`` …) holding raw
numbers; the CLI prints them with English headers, the site with translated headers and
locale-formatted numbers, ``export`` as committed snapshots. Row order is deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from sizing.units import GiB, KiB
from sizing.views.context_plans import recommended
from sizing.views.verdict import with_verdicts

ORDER = ["model", "precision", "checkpoint", "server", "kv_cache_dtype", "rank"]
ID_COLUMNS = ("model", "checkpoint", "precision", "server", "kv_cache_dtype")
"""What identifies one combination; with the plan (and its sizes) it identifies a matrix row."""


@dataclass(frozen=True)
class Filter:
    """Row filters by catalog id (None = all); ``chosen_only`` keeps the recommended plan."""

    model: str | None = None
    server: str | None = None
    precision: str | None = None
    kv_cache_dtype: str | None = None
    chosen_only: bool = True


def select(df: pd.DataFrame, f: Filter) -> pd.DataFrame:
    """Rows of ``df`` matching ``f``, in deterministic catalog order; ``chosen_only``: the recommended rows,
    each context counted on its own plan (:func:`sizing.views.context_plans.recommended`)."""
    df = recommended(df) if f.chosen_only else df
    mask = pd.Series(True, index=df.index)
    for column in ("model", "server", "precision", "kv_cache_dtype"):
        wanted = getattr(f, column)
        if wanted is not None:
            mask &= (df[column] == wanted) | (column == "model" and df["checkpoint"] == wanted)
    return df[mask].sort_values(ORDER, kind="stable")


def row_id(df: pd.DataFrame) -> pd.Series:
    """``model|checkpoint|precision|server|kv|plan-tpN-ppN``: unique per matrix row, stable across runs."""
    parts = [df[c].astype(str) for c in ID_COLUMNS]
    plan = df["plan"] + "-tp" + df["tp"].astype(str) + "-pp" + df["pp"].astype(str)
    return pd.concat([*parts, plan], axis=1).agg("|".join, axis=1)


def fit_view(df: pd.DataFrame, contexts: list[int], tight_below: int | None = None) -> pd.DataFrame:
    """The fit-table columns: what runs where, how, its verdict (:mod:`sizing.views.verdict`) and how many
    sequences at each context. ``tight_below``: the catalog's threshold, needed when ``df`` has no verdicts
    yet."""
    if "verdict" not in df.columns:
        if tight_below is None:
            raise ValueError("fit_view: the rows have no verdicts and no tight_below was given")
        df = with_verdicts(df, contexts, tight_below)
    out = pd.DataFrame(
        {
            "model": df["model"],
            "checkpoint": df["checkpoint"],
            "precision": df["precision"],
            "server": df["server"],
            "kv_cache_dtype": df["kv_cache_dtype"],
            "plan": df["plan"],
            "tp": df["tp"],
            "pp": df["pp"],
            "dp": df["dp"],
            "verdict": df["verdict"],
            "verdict_context": df["verdict_context"],
            "weights_gib": df["weights_bytes"] / GiB,
            "kv_cache_gib": np.maximum(df["kv_cache_bytes"], 0) / GiB,
            "kv_kib_per_token": df["kv_bytes_per_token"] / KiB,
            "kv_cache_tokens": df["kv_cache_tokens"],
        }
    )
    for ctx in contexts:
        out[f"seq_{ctx}"] = df[f"sequences_{ctx}"].where(ctx <= df["max_context"])
    for name in (f"{size}_{ctx}" for ctx in contexts for size in ("plan", "tp", "pp", "dp")):
        if name in df.columns:  # recommended rows: the plan each context is counted on
            out[name] = df[name]
    out["change"] = df["change"]
    out["change_value"] = df["change_value"]
    out["change_plan"] = df["change_plan"]
    return out.reset_index(drop=True)


def matrix_view(df: pd.DataFrame, contexts: list[int]) -> pd.DataFrame:
    """Every row of the matrix (all plans) with its stable id, for CSV/JSON downloads and snapshots."""
    view = fit_view(df, contexts)
    view.insert(0, "id", row_id(df).to_numpy())
    view["chosen"] = df["chosen"].to_numpy()
    view["fits"] = df["fits"].to_numpy()  # starts at its own length (kept for readers of older files)
    view["available_kv_gib"] = (df["available_kv_bytes"] / GiB).to_numpy()
    view["max_concurrency"] = df["max_concurrency"].to_numpy()
    view["decode_tps_ceiling"] = df["decode_tps_ceiling"].to_numpy()
    return view
