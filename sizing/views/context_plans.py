"""The recommended row of each combination, each published context counted on its own plan.

The engine marks the plan recommended at the catalog's ``--max-model-len`` (``chosen``) and, by the
same rule, the plan recommended at each published context ``c`` launched with ``--max-model-len c``
(``chosen_<c>``, :func:`sizing.engine.evaluate.choose_context_plans`): at 4K a simpler plan may start
where the catalog's length needs a wider one, at 128K a wider plan may hold more requests. A
recommended row here is the ``chosen`` row with, per context ``c``, the per-context columns of that
context's plan (:data:`CONTEXT_COLUMNS`) and that plan's sizes as ``<name>_<c>`` (:data:`PLAN_COLUMNS`).

Every table, the explorer, the CLI and the prose read the recommended rows from here, so the sequences
at a context and the command printed for it come from one plan. Raw values only.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Iterable, Mapping

import numpy as np
import pandas as pd

from sizing.engine.cases import COMBINATION
from sizing.engine.evaluate import plan_contexts
from sizing.engine.frames import marked_positions
from sizing.views.bundle import SiteContext
from sizing.views.verdict import tight_below, with_verdicts

CONTEXT_COLUMNS = ("sequences", "concurrency", "starts_optimistic", "decode_tps")
"""Matrix columns counted at one context (``<name>_<c>``), taken from that context's plan."""
PLAN_COLUMNS = ("plan", "tp", "pp", "dp", "ep", "expert_parallel", "nodes_per_engine", "dp_per_node")
"""A plan's sizes (what a launch command reads), kept per context as ``<name>_<c>``."""
MEMORY_COLUMNS = ("weights_bytes", "activation_bytes", "nontorch_bytes", "cudagraph_bytes", "kv_cache_bytes")
"""A plan's memory per GPU (bytes), kept per context as ``<name>_<c>`` (the explorer's memory bar)."""
VERDICT_COLUMN = re.compile(r"^(verdict|verdict_context|state_\d+)$")


def context_positions(df: pd.DataFrame, at: np.ndarray, chosen: np.ndarray) -> np.ndarray:
    """For each row position ``chosen``: the position of the row of its combination marked in ``at``."""
    return marked_positions(df, COMBINATION, at, chosen)


def recommended(df: pd.DataFrame) -> pd.DataFrame:
    """The ``chosen`` rows of the matrix ``df`` (all plans), each context's columns from its own plan
    (see the module docstring); verdict columns are left out (:func:`sizing.views.verdict.with_verdicts`
    recomputes them). A frame without ``chosen_<c>`` columns gives its chosen rows as they are."""
    mask = df["chosen"].to_numpy(dtype=bool)
    chosen = np.flatnonzero(mask)
    out = df.iloc[chosen].drop(columns=[c for c in df.columns if VERDICT_COLUMN.match(str(c))])
    values: dict[str, np.ndarray] = {}
    for c in plan_contexts(df):
        at = context_positions(df, np.flatnonzero(df[f"chosen_{c}"].to_numpy(dtype=bool)), chosen)
        at = np.where(at < 0, chosen, at)
        values.update({f"{name}_{c}": df[f"{name}_{c}"].to_numpy()[at] for name in CONTEXT_COLUMNS})
        values.update({f"{name}_{c}": df[name].to_numpy()[at] for name in (*PLAN_COLUMNS, *MEMORY_COLUMNS)})
    order = [*out.columns, *(k for k in values if k not in out.columns)]
    kept = out.drop(columns=[k for k in values if k in out.columns])
    out = pd.concat([kept, pd.DataFrame(values, index=out.index)], axis=1)[order]  # one copy, not 60 inserts
    out.attrs.update(df.attrs)
    return out


@functools.lru_cache(maxsize=4)
def recommended_rows(ctx: SiteContext) -> pd.DataFrame:
    """:func:`recommended` of ``ctx``'s matrix with its verdicts (cached per context; pandas copy-on-write
    keeps callers' changes out of the cached frame)."""
    return with_verdicts(recommended(ctx.frame), ctx.contexts, tight_below(ctx.catalog.assume))


def plan_at(row: Mapping[str, Any], context: int) -> dict[str, Any]:
    """A recommended row as launched at ``context``: its plan's sizes and memory per GPU those of that
    context's plan and ``max_model_len`` the context (what :func:`sizing.launch.commands.vllm_command`
    reads)."""
    return {**row, **plan_sizes(row, context), "max_model_len": context}


def plan_sizes(row: Mapping[str, Any], context: int) -> dict[str, Any]:
    """What :func:`plan_at` changes in ``row`` at ``context`` besides ``max_model_len``: the plan's sizes and
    memory per GPU stored for that context (none for a row launched alike at every context)."""
    names = (*PLAN_COLUMNS, *MEMORY_COLUMNS)
    return {name: row[f"{name}_{context}"] for name in names if f"{name}_{context}" in row}


PLAN_FIELD = re.compile(r"^(plan|tp|pp|dp)_\d+$")
"""A recommended row's per-context plan fields (``plan_<c>``, ``tp_<c>`` ...), which a plan cell reads."""


def plan_fields(fields: Iterable[str]) -> list[str]:
    """The per-context plan fields among ``fields`` (:data:`PLAN_FIELD`), in their order."""
    return [f for f in fields if PLAN_FIELD.match(f)]


def plan_contexts_of(row: Mapping[str, Any]) -> list[int]:
    """The contexts a recommended row carries a plan for (its ``plan_<c>`` keys), shortest first."""
    return sorted(int(k[5:]) for k in map(str, row.keys()) if k.startswith("plan_") and k[5:].isdigit())


def differs_at(row: Mapping[str, Any], context: int) -> bool:
    """Whether the row's plan at ``context`` differs from its plan at the catalog's length."""
    return any(
        f"{name}_{context}" in row and row[f"{name}_{context}"] != row[name] for name in ("plan", "tp", "pp")
    )
