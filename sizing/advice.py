"""For every recommended row that does not fit, the nearest change that would make it fit.

Tried in this order, the first that works wins:

1. ``max-model-len``: a shorter ``--max-model-len`` (the longest context the pool holds, rounded
   down to 1024 tokens, if that is at least 4096);
2. ``kv-fp8``: ``--kv-cache-dtype fp8`` on the same checkpoint and server;
3. ``checkpoint``: the largest lower-precision checkpoint of the model that fits on this server;
4. ``more-gpus``: the smallest power of two of these GPUs whose budgets hold the weights (split by
   tensor parallelism) and the KV cache of one request of ``max_model_len`` tokens.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sizing import kvcache as kv

MIN_CONTEXT = 4096
GPU_COUNTS = (1, 2, 4, 8, 16, 32, 64)
STEP = 1024


def _fitting(df: pd.DataFrame, keys: list[str]) -> pd.Series:
    """Whether any plan of each ``keys`` group fits, broadcast to the rows."""
    return df["fits"].groupby([df[k] for k in keys]).transform("any")


def _shorter_context(df: pd.DataFrame) -> pd.Series:
    rounded = (df["longest_context"] // STEP) * STEP
    return rounded.where(rounded >= MIN_CONTEXT)


def _fp8_kv_fits(df: pd.DataFrame) -> pd.Series:
    fits = df[df["fits"] & (df["kv_cache_dtype"] == "fp8")][["model", "checkpoint", "precision", "server"]]
    marker = fits.drop_duplicates().assign(_fp8=True)
    merged = df[["model", "checkpoint", "precision", "server"]].merge(marker, how="left")
    return (merged["_fp8"].fillna(False).to_numpy(dtype=bool)) & (df["kv_cache_dtype"] == "auto").to_numpy()


def _smaller_checkpoint(df: pd.DataFrame) -> pd.Series:
    ok = df[df["fits"]][["model", "server", "kv_cache_dtype", "checkpoint", "precision", "w_total"]]
    # largest first; equal sizes resolve by catalog order (the frame's order), never by other rows
    best = ok.sort_values("w_total", ascending=False, kind="stable").drop_duplicates(
        ["model", "server", "kv_cache_dtype"], keep="first")
    best = best.rename(columns={"checkpoint": "_ckpt", "precision": "_prec", "w_total": "_w"})
    merged = df[["model", "server", "kv_cache_dtype", "w_total"]].merge(best, how="left")
    label = merged["_ckpt"] + " (" + merged["_prec"] + ")"
    return label.where(merged["_w"] < merged["w_total"]).set_axis(df.index)


def _gpus_needed(df: pd.DataFrame) -> pd.Series:
    """The smallest power of two of these GPUs whose budgets hold the weights and one full request."""
    free = df["budget_bytes"] - df["activation_bytes"] - df["nontorch_bytes"] - df["cudagraph_bytes"]
    needed = pd.Series(0, index=df.index, dtype=np.int64)
    for gpus in GPU_COUNTS:
        per_layer = kv.attention_bytes_per_token_layer(df["is_mla"], df["kv_heads"], df["head_dim"],
                                                       df["mla_dim"], gpus, df["kv_bytes"])
        request = per_layer * (df["full_layers"] + df["sliding_layers"]) * df["max_model_len"]
        enough = (free - df["w_total"] / gpus >= request) & (needed == 0)
        needed = needed.where(~enough, gpus)
    return needed.where(needed > 0, GPU_COUNTS[-1] * 2)


def add_nearest_change(df: pd.DataFrame) -> None:
    """Add ``change`` (a code) and ``change_value`` (its argument) to recommended non-fitting rows."""
    target = df["chosen"] & ~df["fits"]
    shorter, fp8, smaller = _shorter_context(df), _fp8_kv_fits(df), _smaller_checkpoint(df)
    gpus = _gpus_needed(df)
    conditions = [shorter.notna(), fp8, smaller.notna()]
    df["change"] = np.where(target, np.select(conditions, ["max-model-len", "kv-fp8", "checkpoint"], "more-gpus"), "")
    value = np.select(conditions, [shorter.fillna(0).astype(np.int64).astype(str), "fp8", smaller.fillna("")],
                      gpus.astype(str))
    df["change_value"] = np.where(target, value, "")
