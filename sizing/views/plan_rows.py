"""Every parallel plan evaluated for one model checkpoint on one server, side by side (a view).

The fit tables show only the recommended plan of each combination; this view keeps all of them, so
a page can show why one wins (e.g. tensor parallelism against data-parallel attention with expert
parallelism for an MLA model). Rows come from the evaluated matrix; nothing is recomputed.
"""

from __future__ import annotations

import pandas as pd

from sizing.views import table_rows as tr
from sizing.views.bundle import SiteContext
from sizing.views.policy import PLAN_COMPARISONS


def plan_comparison_rows(ctx: SiteContext, comparison: str) -> pd.DataFrame:
    """Every plan the matrix holds for the comparison's checkpoint, server and KV type, simplest first.

    ``reason`` (why the chosen plan won) is kept on the chosen row only; ``seq_<ctx>`` columns give
    whole sequences per server at each published context.
    """
    model, checkpoint, server, kv = PLAN_COMPARISONS[comparison]
    df = ctx.frame
    keep = (df["model"] == model) & (df["checkpoint"] == checkpoint) & (df["server"] == server)
    keep &= (df["kv_cache_dtype"] == kv) & ~df["online_quantization"].astype(bool)
    rows = tr.labelled(df[keep].sort_values("rank", kind="stable"), ctx.catalog)
    rows["change"] = rows["change"].where(rows["chosen"], "")
    rows["kv_cache_bytes"] = rows["kv_cache_bytes"].clip(lower=0)  # a plan that does not fit has no cache
    return tr.add_sequences(rows, ctx.contexts).reset_index(drop=True)
