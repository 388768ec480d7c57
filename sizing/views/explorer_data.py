"""The explorer's rows, language-neutral: every recommended plan with its status at each context.

The explorer page (``docs/<lang>/explorer.md``) lets a reader pick a model, precision, server, KV
cache type and context length. Everything it shows is decided here and formatted by
:mod:`sizing.render.explorer_render`; the browser only looks rows up. Raw values only (bytes, counts, ids).

The status at a context ``c`` is the verdict's state there (:mod:`sizing.views.verdict`, the one rule
of the fit tables, the CLI and the prose too): ``fits``, ``tight``, ``borderline``, ``no-fit`` or
``beyond`` (``c`` is longer than the model's own context).
"""

from __future__ import annotations

import pandas as pd

from sizing.views.bundle import SiteContext
from sizing.views.context_plans import recommended_rows
from sizing.views.table_rows import labelled
from sizing.views.verdict import BEYOND, STARTS, STATES

STATUSES = (*STATES, BEYOND)


def overhead_bytes(df: pd.DataFrame) -> pd.Series:
    """Per-GPU memory vLLM takes besides weights and KV cache: activations, non-torch, CUDA graphs."""
    return df["activation_bytes"] + df["nontorch_bytes"] + df["cudagraph_bytes"]


def explorer_rows(ctx: SiteContext) -> pd.DataFrame:
    """Every recommended plan (all checkpoints and KV types), labelled, with ``status_<c>`` per context
    and ``overhead_bytes``; in the matrix's deterministic order."""
    df = labelled(recommended_rows(ctx), ctx.catalog).reset_index(drop=True)
    df["overhead_bytes"] = overhead_bytes(df)
    for c in ctx.contexts:
        df[f"status_{c}"] = df[f"state_{c}"]
    return df


def best_rows(rows: pd.DataFrame, context: int) -> dict[tuple[str, str], int]:
    """For each (model, server): the index of the row holding the most sequences at ``context`` among
    rows that fit there (first in catalog order on a tie), else the model's first row on that server."""
    best: dict[tuple[str, str], int] = {}
    seq = rows[f"sequences_{context}"].where(rows[f"status_{context}"].isin(STARTS), -1)
    for key, group in seq.groupby([rows["model"], rows["server"]], sort=False):
        best[(str(key[0]), str(key[1]))] = int(group.idxmax())
    return best
