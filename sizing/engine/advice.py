"""For every recommended row that does not fit, the nearest change that would make it fit.

Tried in this order, the first that works wins:

1. ``max-model-len``: a shorter ``--max-model-len`` (the longest context the pool holds, rounded
   down to 1024 tokens, if that is at least 4096);
2. ``kv-fp8``: ``--kv-cache-dtype fp8`` on the same checkpoint and server;
3. ``checkpoint``: the largest lower-precision checkpoint of the model that fits on this server;
4. ``more-gpus``: the smallest power of two of these GPUs whose budgets hold the weights (split by
   tensor parallelism) and the KV cache of one request of ``max_model_len`` tokens, at the cautious
   (low) end of the available-KV band.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sizing.engine import kvcache as kv
from sizing.engine.cases import group_ids, per_group

MIN_CONTEXT = 4096
GPU_COUNTS = (1, 2, 4, 8, 16, 32, 64)
STEP = 1024
CHANGES = ("", "max-model-len", "kv-fp8", "checkpoint", "more-gpus")
CODE = {change: number for number, change in enumerate(CHANGES)}
ROW_COLUMNS = ["longest_context", "budget_bytes", "activation_bytes", "nontorch_bytes", "cudagraph_bytes", "is_mla",
               "kv_heads", "head_dim", "mla_dim", "kv_bytes", "full_layers", "sliding_layers", "max_model_len",
               "w_total"]
"""The columns :func:`_shorter_context` and :func:`_gpus_needed` read (of the advised rows only)."""


def _shorter_context(rows: pd.DataFrame) -> pd.Series:
    """The longest context the pool holds, rounded down to ``STEP`` tokens; NaN below ``MIN_CONTEXT``."""
    rounded = (rows["longest_context"] // STEP) * STEP
    return rounded.where(rounded >= MIN_CONTEXT)


def _fp8_kv_fits(df: pd.DataFrame, at: np.ndarray) -> np.ndarray:
    """Of the rows ``at``: 'auto' KV rows whose checkpoint fits on the same server (any plan) with fp8 KV."""
    ids, bound = group_ids(df, ["model", "checkpoint", "precision", "server"])
    fp8_fits = np.zeros(bound, dtype=bool)
    fp8_fits[ids[(df["fits"] & (df["kv_cache_dtype"] == "fp8")).to_numpy()]] = True
    return fp8_fits[ids[at]] & (df["kv_cache_dtype"].iloc[at] == "auto").to_numpy()


def _largest_fitting(df: pd.DataFrame, ids: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the largest weights that fit in its group (NaN if none), and the first row that has them."""
    fits, weights = df["fits"].to_numpy(), df["w_total"].to_numpy()
    largest = per_group(np.fmax, np.where(fits, weights, np.nan), ids, bound)
    winners = np.flatnonzero(fits & (weights == largest))
    first = np.full(bound, len(df))
    np.minimum.at(first, ids[winners], winners)
    return largest, first[ids]


def _smaller_checkpoint(df: pd.DataFrame, at: np.ndarray) -> np.ndarray:
    """Of the rows ``at``: the row of the model's largest checkpoint that fits on the same server and KV dtype,
    if smaller than the row's (else -1); equal sizes go to the first in catalog order (the frame's order)."""
    largest, first = _largest_fitting(df, *group_ids(df, ["model", "server", "kv_cache_dtype"]))
    return np.where(largest[at] < df["w_total"].to_numpy()[at], first[at], -1)


def _checkpoint_label(df: pd.DataFrame, rows: np.ndarray) -> np.ndarray:
    """'checkpoint (precision)' of the rows ``rows``."""
    label = df["checkpoint"].iloc[rows].astype("str") + " (" + df["precision"].iloc[rows].astype("str") + ")"
    return label.to_numpy()


def cautious_free(printed: pd.Series | np.ndarray, kv_band_optimistic: float) -> pd.Series | np.ndarray:
    """The low end of a printed available KV memory (bytes): what the estimate's band promises at least.

    Same rule as :func:`sizing.engine.overhead.kv_band`: a positive figure is divided by
    ``1 + kv_band_optimistic``; a negative one stays as it is (it cannot hold a request either way).
    """
    return np.where(np.asarray(printed) > 0, np.asarray(printed) / (1 + kv_band_optimistic), printed)


def _gpus_needed(rows: pd.DataFrame, kv_band_optimistic: float) -> pd.Series:
    """The smallest power of two of these GPUs whose budgets hold the weights and one full request,
    on the cautious (low) end of the available-KV band, as the published verdicts are."""
    free = rows["budget_bytes"] - rows["activation_bytes"] - rows["nontorch_bytes"] - rows["cudagraph_bytes"]
    needed = pd.Series(0, index=rows.index, dtype=np.int64)
    for gpus in GPU_COUNTS:
        per_layer = kv.attention_bytes_per_token_layer(rows["is_mla"], rows["kv_heads"], rows["head_dim"],
                                                       rows["mla_dim"], gpus, rows["kv_bytes"])
        request = per_layer * (rows["full_layers"] + rows["sliding_layers"]) * rows["max_model_len"]
        enough = (cautious_free(free - rows["w_total"] / gpus, kv_band_optimistic) >= request) & (needed == 0)
        needed = needed.where(~enough, gpus)
    return needed.where(needed > 0, GPU_COUNTS[-1] * 2)


def _as_text(numbers: pd.Series) -> np.ndarray:
    """Integers as text (each distinct value converted once)."""
    codes, values = pd.factorize(numbers.astype(np.int64))
    return np.array([str(v) for v in values], dtype=object)[codes]


def _spread(values: np.ndarray, at: np.ndarray, length: int, fill: object) -> np.ndarray:
    """A column of ``length`` rows holding ``values`` at the rows ``at`` and ``fill`` elsewhere."""
    column = np.full(length, fill, dtype=np.asarray(values).dtype)
    column[at] = values
    return column


def _arguments(df: pd.DataFrame, rows: pd.DataFrame, change: np.ndarray, shorter: pd.Series,
               smaller: np.ndarray, kv_band_optimistic: float) -> np.ndarray:
    """The argument of each advised row's change, as text: tokens, fp8, 'checkpoint (precision)' or GPUs."""
    value = np.full(len(rows), "fp8", dtype=object)
    pick = change == CODE["max-model-len"]
    value[pick] = _as_text(shorter[pick])
    pick = change == CODE["checkpoint"]
    value[pick] = _checkpoint_label(df, smaller[pick])
    pick = change == CODE["more-gpus"]
    value[pick] = _as_text(_gpus_needed(rows[pick], kv_band_optimistic))
    return value


def _text_column(values: np.ndarray, at: np.ndarray, length: int) -> pd.api.extensions.ExtensionArray:
    """A text column of ``length`` rows holding ``values`` at the rows ``at`` and "" elsewhere
    (each distinct text made once, then taken per row)."""
    codes, texts = pd.factorize(np.concatenate([np.array([""], dtype=object), values]))
    column = np.zeros(length, dtype=np.int64)
    column[at] = codes[1:]
    return pd.array(texts, dtype="str").take(column)


def add_nearest_change(df: pd.DataFrame, kv_band_optimistic: float) -> None:
    """Add ``change`` (a code) and ``change_value`` (its argument) to recommended non-fitting rows.

    ``kv_band_optimistic`` is the calibrated optimistic error of the available KV memory
    (``catalog/assumptions.yaml``): the GPU count advised holds one request at the band's low end.
    """
    at = np.flatnonzero(df["chosen"] & ~df["fits"])
    rows = pd.DataFrame({name: df[name].to_numpy()[at] for name in ROW_COLUMNS}, index=df.index[at])
    shorter, smaller = _shorter_context(rows), _smaller_checkpoint(df, at)
    change = np.select([shorter.notna().to_numpy(), _fp8_kv_fits(df, at), smaller >= 0],
                       [CODE["max-model-len"], CODE["kv-fp8"], CODE["checkpoint"]], CODE["more-gpus"])
    value = _arguments(df, rows, change, shorter, smaller, kv_band_optimistic)
    df["change"] = pd.Categorical.from_codes(_spread(change, at, len(df), CODE[""]), CHANGES)
    df["change_value"] = _text_column(value, at, len(df))
