"""``table --format text``: the fit table laid out for a terminal (the same cells as the Markdown).

The rows and the cell texts are those of :func:`sizing.render.tables.cli_table` (English); the layout is
:func:`sizing.render.terminal.text_table`'s, folded to the terminal width. Markdown code marks are dropped,
since a terminal shows them literally.
"""

from __future__ import annotations

from sizing.catalog.loader import Catalog
from sizing.engine.evaluate import as_text, evaluate
from sizing.render.tables import CELL_CONTEXT, NUMERIC, cell_words, format_cell, frame_columns
from sizing.render.terminal import text_table
from sizing.views.matrix import Filter, fit_view, select
from sizing.views.verdict import tight_below


SHORT = {"checkpoint": "Checkpoint", "precision": "Precision", "server": "Server", "kv_cache_dtype": "KV",
         "plan": "Plan", "verdict": "Verdict", "weights_gib": "Weights GiB/GPU", "kv_cache_gib": "KV GiB/GPU",
         "kv_cache_tokens": "KV tokens", "change": "Why this plan, or what would fit"}
"""Terminal headers (short, units as vLLM prints them); the other columns are left to --format markdown."""


def _header(column_id: str) -> str:
    if column_id.startswith("seq_"):
        return f"Seqs @{int(column_id[4:]) // 1024}K"
    return SHORT[column_id]


def cli_text_table(cat: Catalog, model: str | None, server: str | None, precision: str | None,
                   version: str | None) -> str:
    """The fit table (recommended plans), filtered by catalog ids (already resolved), as terminal text.

    The checkpoint names the model, so the model column is left out, as are columns a filter fixes.
    """
    df = as_text(evaluate(cat, version))
    view = fit_view(select(df, Filter(model=model, server=server, precision=precision)), df.attrs["contexts"],
                    tight_below(cat.assume))
    if view.empty:
        return "No rows match.\n"
    dropped = {"model", *(name for name, given in (("server", server), ("precision", precision)) if given)}
    columns = tuple(c for c in frame_columns(view) if c.id not in dropped and (c.id in SHORT or
                                                                            c.id.startswith("seq_")))
    words = cell_words("en")
    needed = [k for k in dict.fromkeys([*(c.id for c in columns), *CELL_CONTEXT]) if k in view.columns]
    rows = ([format_cell(c, row, "en", words).replace("`", "").replace("\\|", "|") for c in columns]
            for row in view[needed].to_dict("records"))
    headers = [_header(c.id) for c in columns]
    contexts = [h for h in reversed(headers) if h.startswith("Seqs @")]
    drop = contexts[:-1] + ["KV tokens", "KV GiB/GPU", "Precision"]
    return text_table(headers, rows, [c.kind in NUMERIC for c in columns], drop_order=drop, fold_first=True)
