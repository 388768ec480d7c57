"""The catalog's cases before settings: every model × checkpoint × server × KV dtype × plan a server and a
model can take, built once from the positions of the valid cases in small frames.

Plan templates are sized on each server (:func:`size_plans`), kept where the server takes them
(:func:`server_takes`) and the model splits that many ways (:func:`model_takes`); :func:`case_frame` then
builds the matrix column by column, with the compute classes of its rows (:class:`Classes`, rows whose
memory columns are computed once) and its groups (:func:`case_groups`). :mod:`sizing.engine.evaluate`
adds the settings and every computed column.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from sizing.catalog import plans as plan_rules
from sizing.catalog.loader import Catalog
from sizing.engine.cases import Groups, model_frame, plan_frame, server_frame
from sizing.engine.frames import Grouping, group_ids, repeat_frames


def size_plans(df: pd.DataFrame) -> None:
    """tp, pp and dp of each plan template on its server: ``tp-pp`` runs one node's GPUs as TP on every node.

    Across nodes: ``dp`` and ``tp`` run whole replicas inside each node (``dp_per_node`` of them, one
    engine per node: ``nodes_per_engine`` 1); ``dp-ep`` spreads one data-parallel group and the experts
    over every node's GPUs (``dp_per_node`` ranks on each); ``tp-pp`` runs TP within a node and one
    pipeline stage per node.
    The launch commands read ``nodes``, ``gpus_per_node``, ``nodes_per_engine`` and ``dp_per_node``."""
    df["tp"] = np.where(df["pp_nodes"], df["gpus_per_node"], df["tp"])
    df["pp"] = np.where(df["pp_nodes"], df["nodes"], 1)
    df["dp"] = df["server_gpus"] // (df["tp"] * df["pp"])
    df["ep"] = np.where(df["expert_parallel"], df["tp"] * df["dp"], 1)
    spans = np.where(df["expert_parallel"], df["nodes"], 1)
    df["nodes_per_engine"] = np.where(df["pp_nodes"], df["pp"], spans)
    df["dp_per_node"] = np.maximum(df["dp"] // df["nodes"], 1)


def server_takes(df: pd.DataFrame) -> pd.Series:
    """Whether the server can run the sized plan: TP divides a node's GPUs, one replica at least, PP on 2+
    nodes."""
    ok = (df["tp"] <= df["gpus_per_node"]) & (df["gpus_per_node"] % df["tp"] == 0) & (df["dp"] >= 1)
    ok &= ~(df["expert_parallel"] & (df["server_gpus"] < 2))  # dp-ep: 2+ GPUs, on one node or across nodes
    return ok & ~(df["pp_nodes"] & (df["nodes"] < 2))


def model_takes(df: pd.DataFrame | dict[str, np.ndarray]) -> pd.Series | np.ndarray:
    """Whether the model splits ``tp`` ways (:func:`sizing.catalog.plans.model_takes`: heads, KV/GDN heads,
    experts).

    ``df`` may also be a dict of arrays that broadcast (models down, TP sizes across).
    """
    return plan_rules.model_takes(df)


def resolve_plans(df: pd.DataFrame) -> pd.DataFrame:
    """Turn plan templates into tp/pp/dp per server and drop plans the model or server cannot take."""
    df = df.copy()
    size_plans(df)
    return df[server_takes(df) & model_takes(df)].drop(columns=["pp_nodes"])


def server_plans(servers: pd.DataFrame, plans: pd.DataFrame) -> pd.DataFrame:
    """Every plan template sized on every server (server-major), with ``ok``: whether the server takes it."""
    sp = servers.merge(plans, how="cross")
    size_plans(sp)
    sp["ok"] = server_takes(sp)
    return sp.drop(columns=["pp_nodes"])


def plan_takes(models: pd.DataFrame, sp: pd.DataFrame, plans: int) -> np.ndarray:
    """Whether each model row takes each server-plan: a (model rows, servers, plans) array.

    A case is valid when its server takes the plan and its model splits the plan's TP ways; the KV
    dtype changes neither, so validity is decided per model × server-plan, then repeated per KV dtype.
    """
    heads = {
        c: models[c].to_numpy()[:, None]
        for c in (
            "attention_heads",
            "kv_heads",
            "la_value_heads",
            "linear_layers",
            "expert_intermediate",
            "experts",
        )
    }
    sizes, size_of = np.unique(sp[["tp", "ep"]].to_numpy(), axis=0, return_inverse=True)
    split = {"tp": sizes[None, :, 0], "ep": sizes[None, :, 1]}
    takes = model_takes({**heads, **split})[:, size_of.ravel()] & sp["ok"].to_numpy()
    return takes.reshape(len(models), -1, plans)


def case_rows(takes: np.ndarray, kv_dtypes: int) -> tuple[np.ndarray, ...]:
    """Positions (model row, server-plan row, KV dtype) of every valid case (:func:`plan_takes`), in
    model × server × KV × plan order."""
    models, servers, plans = takes.shape
    valid = np.broadcast_to(takes[:, :, None, :], (models, servers, kv_dtypes, plans))
    m, s, k, p = np.nonzero(valid)  # row-major: model, then server, KV dtype, plan
    return np.ascontiguousarray(m), s * plans + p, np.ascontiguousarray(k)  # nonzero gives strided views


def case_groups(takes: np.ndarray, kv_dtypes: int, model_ids: np.ndarray) -> Groups:
    """The :class:`sizing.engine.cases.Groups` of the valid cases (:func:`case_rows`), from their positions:
    a model row is one model × checkpoint × precision, a server-plan row one server × plan.

    ``model_ids``: the model (an integer per model) of each model row.
    """
    models, servers, plans = takes.shape
    per_server = takes.sum(axis=2).ravel()  # plans of each model row × server
    counts = np.repeat(per_server, kv_dtypes)  # the cases of a model row × server × KV dtype are consecutive
    used = np.flatnonzero(counts)  # (model row × servers + server) × KV dtypes + KV dtype, per combination
    row, kv = np.divmod(used, kv_dtypes)
    model_row, server = np.divmod(row, servers)
    combination = Grouping.runs(counts[used])
    model_server_kv = (model_ids[model_row] * servers + server) * kv_dtypes + kv
    return Groups(
        combination,
        Grouping.runs(per_server[per_server > 0] * kv_dtypes),
        Grouping(
            model_server_kv[combination.ids], (int(model_ids.max(initial=-1)) + 1) * servers * kv_dtypes
        ),
    )


COMPUTE_KEY = ["gpu", "tp", "pp", "ep", "expert_parallel"]
"""The server-plan columns :func:`sizing.engine.memory.compute` depends on. Rows that share these, the
model row and the KV dtype have identical inputs there (a server's price, RAM, disks, node count and
data-parallel replicas are never read), so their memory columns are computed once per class."""


def compute_classes(
    sp: pd.DataFrame, m: np.ndarray, s: np.ndarray, k: np.ndarray, kv_dtypes: int
) -> tuple[np.ndarray, np.ndarray]:
    """(class of each case row, one representative row per class) for the cases at (m, s, k).

    A class is a model row × KV dtype × server-plan class over :data:`COMPUTE_KEY`.
    """
    plan_class = np.unique(group_ids(sp, COMPUTE_KEY)[0], return_inverse=True)[
        1
    ]  # dense: a small table below
    ids = (m.astype(np.int64) * (int(plan_class.max(initial=0)) + 1) + plan_class[s]) * kv_dtypes + k
    used = np.zeros(int(ids.max(initial=0)) + 1, dtype=bool)
    used[ids] = True
    number = np.cumsum(used) - 1
    classes = number[ids]
    representative = np.empty(int(used.sum()), dtype=np.int64)
    representative[classes] = np.arange(len(classes))  # any member will do: they have the same inputs
    return classes, representative


class Classes(NamedTuple):
    """The compute classes of a case frame's rows (:func:`compute_classes`)."""

    of_row: np.ndarray
    """The class of each row."""
    representative: np.ndarray
    """One row per class."""
    members: pd.DataFrame
    """The representative rows of the frame, one per class (built from the small frames, not taken)."""
    left_out: frozenset[str] = frozenset()
    """Columns the members have and the frame's rows leave out
    (:data:`sizing.engine.columns.PER_CLASS_ONLY`)."""


def case_frame(cat: Catalog, left_out: frozenset[str] = frozenset()) -> tuple[pd.DataFrame, Classes, Groups]:
    """The cases of the catalog before settings, the :class:`Classes` of their rows and their groups
    (:func:`case_groups`).

    Validity is decided on small frames (server × plan, then model × server-plan); the matrix is then
    built once, column by column, from the positions of the valid cases. The rows leave out the
    columns ``left_out``; the class members have every column.
    """
    servers, models = server_frame(cat), model_frame(cat)
    plans = plan_frame(int(servers["gpus_per_node"].max()), int(servers["nodes"].max()))
    kv_dtypes = pd.DataFrame({"kv_cache_dtype": list(cat.assume("kv_cache_dtypes"))})
    sp = server_plans(servers, plans)
    takes = plan_takes(models, sp, len(plans))
    m, s, k = case_rows(takes, len(kv_dtypes))
    parts = [
        (models, m),
        (sp[servers.columns], s),
        (kv_dtypes, k),
        (sp.drop(columns=[*servers.columns, "ok"]), s),
    ]
    of_row, representative = compute_classes(sp, m, s, k, len(kv_dtypes))
    members = repeat_frames([(frame, at[representative]) for frame, at in parts])
    groups = case_groups(takes, len(kv_dtypes), pd.factorize(models["model"])[0])
    rows = repeat_frames(
        [(frame.drop(columns=list(left_out & set(frame.columns))), at) for frame, at in parts]
    )
    return rows, Classes(of_row, representative, members, left_out), groups
