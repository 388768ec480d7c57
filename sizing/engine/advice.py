"""For every recommended row that does not start, the nearest change the reader can make that would.

Tried in this order, the first that works wins:

1. ``gpu-memory-utilization``: the catalog's highest ``--gpu-memory-utilization``
   (``gpu_memory_utilization_max``) on the same server, with the row's own plan if it then starts, else the
   simplest plan of the combination that does (``change_plan``: TP 8 instead of DP+EP, say);
2. ``max-model-len``: a shorter ``--max-model-len`` (the longest context the pool holds, rounded
   down to 1024 tokens, if that is at least 4096);
3. ``kv-fp8``: ``--kv-cache-dtype fp8`` on the same checkpoint and server;
4. ``checkpoint``: the largest lower-precision checkpoint of the model that fits on this server;
5. ``more-gpus``: more of these GPUs than the server has — the smallest power of two above its count whose
   budgets hold the weights (split by tensor parallelism) and the KV cache of one request of
   ``max_model_len`` tokens, at the cautious (low) end of the available-KV band.

The advice is data (``change``: the kind, ``change_value``: its argument, ``change_plan``: the plan of the
suggested case); :mod:`sizing.views.advice` turns it into the suggested case's ids.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sizing.engine import kvcache as kv
from sizing.engine import memory
from sizing.engine.cases import Groups
from sizing.engine.frames import Grouping, group_ids, spread, text_categorical
from sizing.engine.overhead import Coefficients
from sizing.engine.versions import Rules

MIN_CONTEXT = 4096
GPU_COUNTS = (1, 2, 4, 8, 16, 32, 64)
STEP = 1024
CHANGES = ("", "gpu-memory-utilization", "max-model-len", "kv-fp8", "checkpoint", "more-gpus")
CODE = {change: number for number, change in enumerate(CHANGES)}
GPU_COLUMNS = [
    "budget_bytes",
    "activation_bytes",
    "nontorch_bytes",
    "cudagraph_bytes",
    "is_mla",
    "kv_heads",
    "head_dim",
    "mla_dim",
    "kv_bytes",
    "full_layers",
    "sliding_layers",
    "max_model_len",
    "w_total",
    "server_gpus",
]
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
    """Of the rows ``at``: the row of the model's largest checkpoint that fits on the same server and KV
    dtype,
    if smaller than the row's (else -1); equal sizes go to the first in catalog order (the frame's order).

    ``by``: the rows of each model × server × KV dtype.
    """
    largest, first = _largest_fitting(df, by, at)
    return np.where(largest < df["w_total"].to_numpy()[at], first, -1)


def _checkpoint_labels(df: pd.DataFrame, rows: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """(code of each of the rows ``rows``, the 'checkpoint (precision)' texts the codes index): each text made
    once."""
    pairs = df[["checkpoint", "precision"]].iloc[rows]
    _, first, codes = np.unique(
        group_ids(pairs, ["checkpoint", "precision"])[0], return_index=True, return_inverse=True
    )
    label = (
        pairs["checkpoint"].iloc[first].astype("str")
        + " ("
        + pairs["precision"].iloc[first].astype("str")
        + ")"
    )
    return codes.ravel(), label.tolist()


def cautious_free(printed: pd.Series | np.ndarray, kv_band_optimistic: float) -> pd.Series | np.ndarray:
    """The low end of a printed available KV memory (bytes): what the estimate's band promises at least.

    Same rule as :func:`sizing.engine.kv_band.kv_band`: a positive figure is divided by
    ``1 + kv_band_optimistic``; a negative one stays as it is (it cannot hold a request either way).
    """
    return np.where(np.asarray(printed) > 0, np.asarray(printed) / (1 + kv_band_optimistic), printed)


def _gpus_needed(rows: Rows, kv_band_optimistic: float) -> np.ndarray:
    """The smallest power of two of these GPUs, above the server's own count (every plan of the server was
    tried), whose budgets hold the weights and one full request, on the cautious (low) end of the
    available-KV band, as the published verdicts are."""
    free = rows["budget_bytes"] - rows["activation_bytes"] - rows["nontorch_bytes"] - rows["cudagraph_bytes"]
    tokens = (rows["full_layers"] + rows["sliding_layers"]) * rows["max_model_len"]
    needed = np.zeros(len(free), dtype=np.int64)
    for gpus in (g for g in GPU_COUNTS if g > 1):
        enough_gpus = gpus > rows["server_gpus"]
        per_layer = kv.attention_bytes_per_token_layer(
            rows["is_mla"], rows["kv_heads"], rows["head_dim"], rows["mla_dim"], gpus, rows["kv_bytes"]
        )
        enough = cautious_free(free - rows["w_total"] / gpus, kv_band_optimistic) >= per_layer * tokens
        needed[enough & enough_gpus & (needed == 0)] = gpus
    return np.where(needed > 0, needed, GPU_COUNTS[-1] * 2)


def _number_texts(numbers: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """(code of each number, the distinct numbers as text): each distinct value converted once."""
    codes, values = pd.factorize(numbers.astype(np.int64))
    return codes, [str(v) for v in values]


Texts = list[tuple[np.ndarray, np.ndarray, list[str]]]
"""Per change: its advised rows, their codes and the distinct texts the codes index."""


def _argument_texts(
    df: pd.DataFrame,
    at: np.ndarray,
    change: np.ndarray,
    shorter: np.ndarray,
    smaller: np.ndarray,
    kv_band_optimistic: float,
    utilization: float,
) -> Texts:
    """Per change: (its advised rows, as positions in ``at``, their codes, the distinct texts the codes index)
    of
    the argument: the utilisation, tokens, fp8, 'checkpoint (precision)' or GPUs."""
    pick = {name: np.flatnonzero(change == CODE[name]) for name in CHANGES[1:]}
    more = _gpus_needed(_columns_at(df, GPU_COLUMNS, at[pick["more-gpus"]]), kv_band_optimistic)
    return [
        (
            pick["gpu-memory-utilization"],
            np.zeros(len(pick["gpu-memory-utilization"]), dtype=np.int64),
            [f"{utilization:.2f}"],
        ),
        (pick["max-model-len"], *_number_texts(shorter[pick["max-model-len"]])),
        (pick["kv-fp8"], np.zeros(len(pick["kv-fp8"]), dtype=np.int64), ["fp8"]),
        (pick["checkpoint"], *_checkpoint_labels(df, smaller[pick["checkpoint"]])),
        (pick["more-gpus"], *_number_texts(more)),
    ]


def _text_column(
    parts: list[tuple[np.ndarray, np.ndarray, list[str]]], at: np.ndarray, length: int
) -> pd.Categorical:
    """A text column (categorical) of ``length`` rows: at the rows ``at[picked]`` of each part, its texts by
    code; "" elsewhere (each text made once)."""
    texts, column = [""], np.zeros(length, dtype=np.int64)
    for picked, codes, labels in parts:
        column[at[picked]] = codes + len(texts)
        texts += labels
    return text_categorical(column, texts)


def starts_at_utilization(
    df: pd.DataFrame, rows: np.ndarray, utilization: float, rules: Rules, coef: Coefficients
) -> np.ndarray:
    """Whether each of the rows ``rows`` starts with ``--gpu-memory-utilization utilization``, everything else
    unchanged: the budget, the available-KV band and the blocks recomputed by the engine's own rules
    (:func:`sizing.engine.memory.add_budget`, :func:`sizing.engine.memory.add_capacity`)."""
    if not len(rows):
        return np.zeros(0, dtype=bool)
    part = pd.DataFrame({name: df[name].to_numpy()[rows] for name in BUDGET_INPUTS if name in df.columns})
    part["gpu_memory_utilization"] = utilization
    memory.add_budget(part, rules, coef)
    memory.add_capacity(part, rules)
    return part["fits"].to_numpy(dtype=bool)


BUDGET_INPUTS = (
    "total_bytes",
    "weights_bytes",
    "activation_bytes",
    "nontorch_bytes",
    "cudagraph_bytes",
    "kv_cache_memory_bytes",
    "bytes_per_block",
    "max_model_len",
    "max_context",
    "block_size",
    "block_size_full",
    "block_size_sliding",
    "groups_full",
    "groups_sliding",
    "groups_linear",
    "kv_groups",
    "window",
    "max_num_batched_tokens",
    "pp",
    "spec_tokens",
    "prefix_caching",
    "is_moe",
    "is_mla",
    "linear_layers",
    "vision_tokens",
)
"""The columns :func:`sizing.engine.memory.add_budget` (the class band's among them) and
:func:`~sizing.engine.memory.add_capacity` read."""


def could_start(df: pd.DataFrame, rows: np.ndarray, utilization: float) -> np.ndarray:
    """Of the rows ``rows``: whether the budget a higher utilisation adds could hold one request at all (the
    blocks gain at most that much: the band's low end and the extensible cache's headroom grow no faster)."""
    total, gmu = df["total_bytes"].to_numpy()[rows], df["gpu_memory_utilization"].to_numpy()[rows]
    gain = np.ceil(utilization * total) - np.ceil(gmu * total)
    request = df["blocks_per_request"].to_numpy()[rows] * df["bytes_per_block"].to_numpy()[rows]
    return df["kv_cache_bytes"].to_numpy()[rows] + gain >= request


def _utilization_plans(
    df: pd.DataFrame, at: np.ndarray, by: Grouping, utilization: float, rules: Rules, coef: Coefficients
) -> np.ndarray:
    """Of the rows ``at`` (one per combination ``by``): the row of the plan that starts at ``utilization`` —
    the row's own if it does, else the simplest (lowest rank) of its combination — or -1 if none does."""
    wanted = np.zeros(by.bound, dtype=bool)
    wanted[by.ids[at]] = True
    rows = np.flatnonzero(wanted[by.ids] & (df["gpu_memory_utilization"].to_numpy() < utilization))
    rows = rows[could_start(df, rows, utilization)]
    starts = starts_at_utilization(df, rows, utilization, rules, coef)
    rank = df["rank"].to_numpy(np.int64)[rows]
    best = np.full(by.bound, np.iinfo(np.int64).max)
    np.minimum.at(best, by.ids[rows[starts]], rank[starts] * len(df) + rows[starts])
    own = np.zeros(len(df), dtype=bool)
    own[rows[starts]] = True
    simplest = np.where(best[by.ids[at]] < np.iinfo(np.int64).max, best[by.ids[at]] % len(df), -1)
    return np.where(own[at], at, simplest)


def _plan_texts(df: pd.DataFrame, at: np.ndarray, target: np.ndarray) -> pd.Categorical:
    """``change_plan`` of the rows ``at`` whose suggested case runs another plan (row ``target``):
    ``<plan>-tp<N>-pp<N>-dp<N>``; "" elsewhere."""
    other = np.flatnonzero((target >= 0) & (target != at))
    plan, tp, pp, dp = (df[name].to_numpy()[target[other]] for name in ("plan", "tp", "pp", "dp"))
    labels = [f"{p}-tp{t}-pp{q}-dp{d}" for p, t, q, d in zip(plan, tp, pp, dp)]
    return _text_column([(other, np.arange(len(other)), labels)], at, len(df))


def add_nearest_change(
    df: pd.DataFrame, coef: Coefficients, rules: Rules, utilization: float, groups: Groups | None = None
) -> None:
    """Add ``change`` (a code), ``change_value`` (its argument) and ``change_plan`` (the suggested case's plan
    when it differs) to recommended rows that do not start.

    ``coef``: the calibrated coefficients (the KV band's optimistic error sizes the GPU count advised);
    ``utilization``: the highest ``--gpu-memory-utilization`` the advice may suggest.
    ``groups``: the frame's groupings when known, else found from its key columns.
    """
    groups = groups or Groups.of(df)
    at = np.flatnonzero(df["chosen"].to_numpy() & ~df["fits"].to_numpy())
    target = _utilization_plans(df, at, groups.combination, utilization, rules, coef)
    shorter = _shorter_context(df["longest_context"].to_numpy()[at])
    smaller = _smaller_checkpoint(df, at, groups.model_server_kv)
    fp8 = _fp8_kv_fits(df, at, groups.checkpoint_server)
    change = np.select(
        [target >= 0, shorter > 0, fp8, smaller >= 0],
        [CODE[n] for n in ("gpu-memory-utilization", "max-model-len", "kv-fp8", "checkpoint")],
        CODE["more-gpus"],
    )
    df["change"] = text_categorical(spread(change, at, len(df), CODE[""]), CHANGES)
    texts = _argument_texts(df, at, change, shorter, smaller, coef.kv_band_optimistic, utilization)
    df["change_value"] = _text_column(texts, at, len(df))
    df["change_plan"] = _plan_texts(df, at, np.where(change == CODE["gpu-memory-utilization"], target, -1))
