"""The explorer's rows, language-neutral: every recommended plan with its status at each context.

The explorer page (``docs/<lang>/explorer.md``) lets a reader pick a model, precision, server, KV
cache type and context length. Everything it shows is decided here and formatted by
:mod:`sizing.render.explorer_render`; the browser only looks rows up. Raw values only (bytes, counts, ids).

Status at a context ``c`` (one rule, used by the explorer and its heatmap):

- ``beyond``: ``c`` is longer than the model's own context;
- ``no-fit``: the row does not fit at its ``--max-model-len``, or holds no whole sequence of ``c`` tokens;
- ``tight``: fewer than :data:`TIGHT_BELOW` whole sequences of ``c`` tokens at once;
- ``fits``: otherwise.
"""

from __future__ import annotations

import pandas as pd

from sizing.views.bundle import SiteContext
from sizing.render.table_rows import labelled

TIGHT_BELOW = 4
"""Fewer whole sequences than this at the chosen context is "tight": a burst of requests queues."""
STATUSES = ("fits", "tight", "no-fit", "beyond")


def status(row: pd.Series | dict, context: int) -> str:
    """The row's status at ``context`` tokens (see the module docstring)."""
    if context > int(row["max_context"]):
        return "beyond"
    sequences = float(row[f"sequences_{context}"])
    if not bool(row["fits"]) or sequences < 1:
        return "no-fit"
    return "tight" if sequences < TIGHT_BELOW else "fits"


def overhead_bytes(df: pd.DataFrame) -> pd.Series:
    """Per-GPU memory vLLM takes besides weights and KV cache: activations, non-torch, CUDA graphs."""
    return df["activation_bytes"] + df["nontorch_bytes"] + df["cudagraph_bytes"]


def explorer_rows(ctx: SiteContext) -> pd.DataFrame:
    """Every recommended plan (all checkpoints and KV types), labelled, with ``status_<c>`` per context
    and ``overhead_bytes``; in the matrix's deterministic order."""
    df = labelled(ctx.frame[ctx.frame["chosen"]], ctx.catalog).reset_index(drop=True)
    df["overhead_bytes"] = overhead_bytes(df)
    for c in ctx.contexts:
        df[f"status_{c}"] = [status(r, c) for r in df[["max_context", "fits", f"sequences_{c}"]].to_dict("records")]
    return df


def best_rows(rows: pd.DataFrame, context: int) -> dict[tuple[str, str], int]:
    """For each (model, server): the index of the row holding the most sequences at ``context`` among
    rows that fit there (first in catalog order on a tie), else the model's first row on that server."""
    best: dict[tuple[str, str], int] = {}
    seq = rows[f"sequences_{context}"].where(rows[f"status_{context}"].isin(["fits", "tight"]), -1)
    for key, group in seq.groupby([rows["model"], rows["server"]], sort=False):
        best[(str(key[0]), str(key[1]))] = int(group.idxmax())
    return best
