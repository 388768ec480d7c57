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
from sizing.engine.cases import Grouping, Groups, group_ids, spread, text_categorical

MIN_CONTEXT = 4096
GPU_COUNTS = (1, 2, 4, 8, 16, 32, 64)
STEP = 1024
CHANGES = ("", "max-model-len", "kv-fp8", "checkpoint", "more-gpus")
CODE = {change: number for number, change in enumerate(CHANGES)}
GPU_COLUMNS = ["budget_bytes", "activation_bytes", "nontorch_bytes", "cudagraph_bytes", "is_mla", "kv_heads",
               "head_dim", "mla_dim", "kv_bytes", "full_layers", "sliding_layers", "max_model_len", "w_total"]
"""The columns :func:`_gpus_needed` reads (of the rows advised more GPUs only)."""
Rows = dict[str, np.ndarray]
"""Columns of some rows, one array each."""


def _columns_at(df: pd.DataFrame, names: list[str], at: np.ndarray) -> Rows:
    """The columns ``names`` of the rows ``at``."""
    return {name: df[name].to_numpy()[at] for name in names}


def _shorter_context(longest_context: np.ndarray) -> np.ndarray:
    """The longest context the pool holds, rounded down to ``STEP`` tokens; 0 below ``MIN_CONTEXT``."""
    rounded = (longest_context // STEP) * STEP
    return np.where(rounded >= MIN_CONTEXT, rounded, 0)


def _fp8_kv_fits(df: pd.DataFrame, at: np.ndarray, by: Grouping) -> np.ndarray:
    """Of the rows ``at``: 'auto' KV rows whose checkpoint fits on the same server (any plan) with fp8 KV.

    ``by``: the rows of each model × checkpoint × precision × server.
    """
    fp8_fits = np.zeros(by.bound, dtype=bool)
    fp8_fits[by.ids[(df["fits"] & (df["kv_cache_dtype"] == "fp8")).to_numpy()]] = True
    return fp8_fits[by.ids[at]] & (df["kv_cache_dtype"].iloc[at] == "auto").to_numpy()


def _largest_fitting(df: pd.DataFrame, by: Grouping, at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Of the rows ``at``: the largest weights that fit in the row's group (NaN if none), and the first
    row that has them (``len(df)`` if none)."""
    fits, weights = np.flatnonzero(df["fits"].to_numpy()), df["w_total"].to_numpy()
    fitting = Grouping(by.ids[fits], by.bound)
    largest = fitting.table(np.fmax, weights[fits])
    winners = fits[weights[fits] == largest[fitting.ids]]
    first = np.full(by.bound, len(df))
    np.minimum.at(first, by.ids[winners], winners)
    return largest[by.ids[at]], first[by.ids[at]]


def _smaller_checkpoint(df: pd.DataFrame, at: np.ndarray, by: Grouping) -> np.ndarray:
    """Of the rows ``at``: the row of the model's largest checkpoint that fits on the same server and KV dtype,
    if smaller than the row's (else -1); equal sizes go to the first in catalog order (the frame's order).

    ``by``: the rows of each model × server × KV dtype.
    """
    largest, first = _largest_fitting(df, by, at)
    return np.where(largest < df["w_total"].to_numpy()[at], first, -1)


def _checkpoint_labels(df: pd.DataFrame, rows: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """(code of each of the rows ``rows``, the 'checkpoint (precision)' texts the codes index): each text made once."""
    pairs = df[["checkpoint", "precision"]].iloc[rows]
    _, first, codes = np.unique(group_ids(pairs, ["checkpoint", "precision"])[0], return_index=True,
                                return_inverse=True)
    label = pairs["checkpoint"].iloc[first].astype("str") + " (" + pairs["precision"].iloc[first].astype("str") + ")"
    return codes.ravel(), label.tolist()


def cautious_free(printed: pd.Series | np.ndarray, kv_band_optimistic: float) -> pd.Series | np.ndarray:
    """The low end of a printed available KV memory (bytes): what the estimate's band promises at least.

    Same rule as :func:`sizing.engine.overhead.kv_band`: a positive figure is divided by
    ``1 + kv_band_optimistic``; a negative one stays as it is (it cannot hold a request either way).
    """
    return np.where(np.asarray(printed) > 0, np.asarray(printed) / (1 + kv_band_optimistic), printed)


def _gpus_needed(rows: Rows, kv_band_optimistic: float) -> np.ndarray:
    """The smallest power of two of these GPUs whose budgets hold the weights and one full request,
    on the cautious (low) end of the available-KV band, as the published verdicts are."""
    free = rows["budget_bytes"] - rows["activation_bytes"] - rows["nontorch_bytes"] - rows["cudagraph_bytes"]
    tokens = (rows["full_layers"] + rows["sliding_layers"]) * rows["max_model_len"]
    needed = np.zeros(len(free), dtype=np.int64)
    for gpus in GPU_COUNTS:
        per_layer = kv.attention_bytes_per_token_layer(rows["is_mla"], rows["kv_heads"], rows["head_dim"],
                                                       rows["mla_dim"], gpus, rows["kv_bytes"])
        enough = cautious_free(free - rows["w_total"] / gpus, kv_band_optimistic) >= per_layer * tokens
        needed[enough & (needed == 0)] = gpus
    return np.where(needed > 0, needed, GPU_COUNTS[-1] * 2)


def _number_texts(numbers: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """(code of each number, the distinct numbers as text): each distinct value converted once."""
    codes, values = pd.factorize(numbers.astype(np.int64))
    return codes, [str(v) for v in values]


def _argument_texts(df: pd.DataFrame, at: np.ndarray, change: np.ndarray, shorter: np.ndarray, smaller: np.ndarray,
                    kv_band_optimistic: float) -> list[tuple[np.ndarray, np.ndarray, list[str]]]:
    """Per change: (its advised rows, as positions in ``at``, their codes, the distinct texts the codes index) of
    the argument: tokens, fp8, 'checkpoint (precision)' or GPUs."""
    pick = {name: np.flatnonzero(change == CODE[name]) for name in CHANGES[1:]}
    more = _gpus_needed(_columns_at(df, GPU_COLUMNS, at[pick["more-gpus"]]), kv_band_optimistic)
    return [(pick["max-model-len"], *_number_texts(shorter[pick["max-model-len"]])),
            (pick["kv-fp8"], np.zeros(len(pick["kv-fp8"]), dtype=np.int64), ["fp8"]),
            (pick["checkpoint"], *_checkpoint_labels(df, smaller[pick["checkpoint"]])),
            (pick["more-gpus"], *_number_texts(more))]


def _text_column(parts: list[tuple[np.ndarray, np.ndarray, list[str]]], at: np.ndarray,
                 length: int) -> pd.Categorical:
    """A text column (categorical) of ``length`` rows: at the rows ``at[picked]`` of each part, its texts by
    code; "" elsewhere (each text made once)."""
    texts, column = [""], np.zeros(length, dtype=np.int64)
    for picked, codes, labels in parts:
        column[at[picked]] = codes + len(texts)
        texts += labels
    return text_categorical(column, texts)


def add_nearest_change(df: pd.DataFrame, kv_band_optimistic: float, groups: Groups | None = None) -> None:
    """Add ``change`` (a code) and ``change_value`` (its argument) to recommended non-fitting rows.

    ``kv_band_optimistic`` is the calibrated optimistic error of the available KV memory
    (``catalog/assumptions.yaml``): the GPU count advised holds one request at the band's low end.
    ``groups``: the frame's groupings when known, else found from its key columns.
    """
    groups = groups or Groups.of(df)
    at = np.flatnonzero(df["chosen"].to_numpy() & ~df["fits"].to_numpy())
    shorter = _shorter_context(df["longest_context"].to_numpy()[at])
    smaller = _smaller_checkpoint(df, at, groups.model_server_kv)
    change = np.select([shorter > 0, _fp8_kv_fits(df, at, groups.checkpoint_server), smaller >= 0],
                       [CODE["max-model-len"], CODE["kv-fp8"], CODE["checkpoint"]], CODE["more-gpus"])
    df["change"] = text_categorical(spread(change, at, len(df), CODE[""]), CHANGES)
    df["change_value"] = _text_column(_argument_texts(df, at, change, shorter, smaller, kv_band_optimistic),
                                      at, len(df))
