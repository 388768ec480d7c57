"""``python -m sizing table``: which servers run which checkpoints, filtered, sorted, for a terminal or a
script.

Filters: ``--model``, ``--server``, ``--precision`` (catalog ids, any case), ``--gpu`` (a GPU id),
``--gpus N`` (servers of N GPUs; with ``--gpu`` and no such server in the catalog, a node of N of those
GPUs is sized), ``--max-model-len C`` (vLLM's spelling: ``32K``, ``32k``, ``auto``; the catalog's 32768
by default) and ``--users N`` (at least N whole requests of C tokens at once). ``--sort price|gpus|
sequences|params`` orders the rows (cheapest, fewest GPUs, most requests, largest model first).

``--format text`` lays the table out for the terminal (:func:`sizing.render.terminal.text_table`): ids
whole, the chosen context's column kept to the last, no markup. ``json`` gives one object per row with
``server``, ``plan``, ``sequences`` (at C), ``price_usd_month`` (null where unknown) and ``command``.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import sys
from typing import Any

import numpy as np
import pandas as pd

from sizing import cli_types as ty
from sizing.catalog.loader import Catalog
from sizing.catalog.schema import Assumption, Server
from sizing.engine.evaluate import as_text, evaluate
from sizing.errors import UsageError
from sizing.launch.commands import vllm_command
from sizing.render.cells import NUMERIC, cell_words, format_cell, plan_label
from sizing.render.flagtext import plain_text
from sizing.render.table_specs import view_columns
from sizing.render.tables import CELL_CONTEXT, cli_table
from sizing.render.terminal import fits_whole, grouped_text, text_table
from sizing.views.context_plans import plan_fields
from sizing.views.matrix import Filter, fit_view, select
from sizing.views.rows import fit_view_rows
from sizing.views.verdict import tight_below

SORTS = ("price", "gpus", "sequences", "params")
SHORT = {
    "checkpoint": "Checkpoint",
    "precision": "Precision",
    "server": "Server",
    "kv_cache_dtype": "KV",
    "plan": "Plan",
    "verdict": "Verdict",
    "weights_gib": "Weights GiB/GPU",
    "kv_cache_gib": "KV GiB/GPU",
    "kv_cache_tokens": "KV tokens",
    "change": "Why this plan, or what would fit",
}
"""Terminal headers (short, units as vLLM prints them); the other columns are left to --format markdown."""
WHOLE = ("checkpoint", "server")
"""Id columns the terminal never breaks."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The ``table`` options beyond --model/--server/--precision/--format (see the module docstring)."""
    p.add_argument("--gpu", help="only servers of this GPU (catalog id, e.g. rtx-4090)")
    p.add_argument(
        "--gpus",
        type=ty.count("gpus"),
        help="only servers of this many GPUs (with --gpu: sized even when the catalog has no such server)",
    )
    p.add_argument(
        "--max-model-len",
        type=ty.max_model_len,
        help="context per request, as vLLM reads it: 32768, 32K, 32k (=32000) or auto "
        "(default: the catalog's, 32768)",
    )
    p.add_argument(
        "--users",
        type=ty.count("seqs"),
        help="only rows holding at least this many whole requests of --max-model-len tokens at once",
    )
    p.add_argument(
        "--sort",
        choices=SORTS,
        help="price (cheapest first), gpus (fewest), sequences (most), params (largest model first)",
    )


@dataclasses.dataclass(frozen=True)
class Query:
    """What ``table`` was asked, ids resolved."""

    model: str | None = None
    server: str | None = None
    precision: str | None = None
    gpu: str | None = None
    gpus: int | None = None
    context: int | None = None
    users: int | None = None
    sort: str | None = None
    version: str | None = None

    @property
    def auto(self) -> bool:
        """``--max-model-len auto``: each row at the longest context its KV cache holds."""
        return self.context == ty.AUTO


def query_of(ns: argparse.Namespace) -> Query:
    """The :class:`Query` of parsed ``table`` arguments (ids already resolved by the caller)."""
    if getattr(ns, "users", None) and getattr(ns, "max_model_len", None) == ty.AUTO:
        raise UsageError("--users: give --max-model-len in tokens (auto sizes each row for one request)")
    return Query(
        ns.model,
        ns.server,
        ns.precision,
        getattr(ns, "gpu", None),
        getattr(ns, "gpus", None),
        getattr(ns, "max_model_len", None),
        getattr(ns, "users", None),
        getattr(ns, "sort", None),
        ns.vllm_version,
    )


# ---------------------------------------------------------------------------------------------
# Rows
# ---------------------------------------------------------------------------------------------


def context_of(cat: Catalog, q: Query) -> int:
    """The context the table reports sequences at: ``--max-model-len`` in tokens, else the catalog's."""
    return int(q.context) if q.context and not q.auto else int(cat.assume("max_model_len"))


def sized_catalog(cat: Catalog, q: Query) -> Catalog:
    """``cat`` evaluated at the query's context (its ``max_model_len`` and one more published context),
    with a node of ``--gpus`` × ``--gpu`` added when no catalog server has that many of them."""
    context = context_of(cat, q)
    contexts = sorted({*(int(c) for c in cat.assume("contexts")), context})
    assumptions = {
        **cat.assumptions,
        "max_model_len": Assumption(value=context, reason="python -m sizing table --max-model-len"),
        "contexts": Assumption(value=contexts, reason="the published contexts and --max-model-len"),
    }
    servers = dict(cat.servers)
    if (
        q.gpu
        and q.gpus
        and not any(s.gpu == q.gpu and s.gpus_per_node * s.nodes == q.gpus for s in servers.values())
    ):
        name = f"{q.gpus}× {cat.gpus[q.gpu].name.removeprefix('NVIDIA ')} (sized by --gpu --gpus)"
        servers[f"{q.gpus}x-{q.gpu}"] = Server(name=name, kind="reference", gpu=q.gpu, gpus_per_node=q.gpus)
        print(f"note: no catalog server has {q.gpus} × {q.gpu}; sizing one node of them", file=sys.stderr)
    return dataclasses.replace(cat, assumptions=assumptions, servers=servers)


def matrix_rows(cat: Catalog, q: Query) -> tuple[Catalog, pd.DataFrame, int]:
    """(the catalog sized, the recommended rows matching ``q`` in its order, the context they report)."""
    sized = sized_catalog(cat, q)
    df = as_text(evaluate(sized, q.version))
    rows = select(df, Filter(model=q.model, server=q.server, precision=q.precision))
    context = context_of(cat, q)
    if q.gpu:
        rows = rows[rows["gpu"] == q.gpu]
    if q.gpus:
        rows = rows[rows["server_gpus"] == q.gpus]
    rows = rows.assign(
        sequences=sequences(rows, context, q.auto),
        max_model_len=rows["longest_context"] if q.auto else rows["max_model_len"],
        params_b=[cat.models[m].total_params_b for m in rows["model"]],
    )
    if q.users:
        rows = rows[rows["sequences"] >= q.users]
    return sized, sort_rows(rows, q.sort), context


def sequences(rows: pd.DataFrame, context: int, auto: bool) -> pd.Series:
    """Whole requests held at once: of ``context`` tokens (0 where the model's context is shorter), or with
    ``auto`` one per data-parallel replica at the longest context it holds (0 when it holds none)."""
    if auto:
        return rows["dp"].where(rows["longest_context"] > 0, 0).astype(int)
    return rows[f"sequences_{context}"].where(context <= rows["max_context"], 0).fillna(0).astype(int)


def sort_rows(rows: pd.DataFrame, by: str | None) -> pd.DataFrame:
    """``rows`` by price (unknown last), GPUs, sequences (most first) or parameters (largest first);
    ties keep catalog order."""
    if not by:
        return rows
    keys = {
        "price": (rows["price_monthly"].fillna(np.inf), True),
        "gpus": (rows["server_gpus"], True),
        "sequences": (rows["sequences"], False),
        "params": (rows["params_b"], False),
    }
    key, ascending = keys[by]
    return rows.iloc[np.argsort(key.to_numpy() if ascending else -key.to_numpy(), kind="stable")]


# ---------------------------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------------------------


def json_rows(cat: Catalog, rows: pd.DataFrame, context: int) -> str:
    """One object per row: ids, ``plan``, ``sequences`` at ``context``, ``price_usd_month`` and
    ``command``."""
    out = [json_row(cat, r, context) for r in rows.to_dict("records")]
    return json.dumps(out, ensure_ascii=False, indent=2) + "\n"


def json_row(cat: Catalog, r: dict[str, Any], context: int) -> dict[str, Any]:
    """The JSON object of one matrix row ``r`` (see :func:`json_rows`)."""
    usd = r.get("currency") == "USD" and not pd.isna(r.get("price_monthly"))
    return {
        "model": r["model"],
        "checkpoint": r["checkpoint"],
        "precision": r["precision"],
        "server": r["server"],
        "gpu": r["gpu"],
        "gpus": int(r["server_gpus"]),
        "kv_cache_dtype": r["kv_cache_dtype"],
        "plan": plan_label(r, "en"),
        "tp": int(r["tp"]),
        "pp": int(r["pp"]),
        "dp": int(r["dp"]),
        "fits": bool(r["fits"]),
        "max_model_len": int(r["max_model_len"]),
        "context": context,
        "sequences": int(r["sequences"]),
        "params_b": float(r["params_b"]),
        "price_usd_month": float(r["price_monthly"]) if usd else None,
        "command": vllm_command(r, cat) if bool(r["fits"]) else None,
    }


def _header(column_id: str) -> str:
    if column_id.startswith("seq_"):
        return (
            f"Seqs @{int(column_id[4:]) // 1024}K"
            if int(column_id[4:]) % 1024 == 0
            else f"Seqs @{column_id[4:]}"
        )
    return SHORT[column_id]


def text_rows(cat: Catalog, rows: pd.DataFrame, context: int, q: Query) -> str:
    """The rows as a terminal table: whole ids, plain text, the ``context`` column dropped last."""
    view = fit_view(
        rows, sorted({context, *(int(c) for c in cat.assume("contexts"))}), tight_below(cat.assume)
    )
    dropped = {
        "model",
        *(name for name, given in (("server", q.server), ("precision", q.precision)) if given),
    }
    columns = tuple(
        c
        for c in view_columns(tuple(view.columns))
        if c.id not in dropped and (c.id in SHORT or c.id.startswith("seq_"))
    )
    words = cell_words("en")
    needed = [k for k in dict.fromkeys([*(c.id for c in columns), *CELL_CONTEXT]) if k in view.columns]
    needed += plan_fields(map(str, view.columns))
    body = (
        [plain_text(format_cell(c, row, "en", words)).replace("`", "").replace("\\|", "|") for c in columns]
        for row in view[needed].to_dict("records")
    )
    headers = [_header(c.id) for c in columns]
    chosen = _header(f"seq_{context}")
    others = [h for h in reversed(headers) if h.startswith("Seqs @") and h != chosen]
    drop = [
        *others,
        "KV tokens",
        "KV GiB/GPU",
        "Weights GiB/GPU",
        "Precision",
        "Plan",
        "Why this plan, or what would fit",
        "Verdict",
    ]
    numeric, whole = [c.kind in NUMERIC for c in columns], [c.id in WHOLE for c in columns]
    cells = list(body)
    essential = [h for h, c in zip(headers, columns) if c.id in (*WHOLE, "kv_cache_dtype")] + [chosen]
    if headers[0] != SHORT["checkpoint"] or fits_whole(headers, cells, numeric, whole, essential):
        return text_table(headers, cells, numeric, drop_order=drop, whole=whole)
    groups = [(name, [r[1:] for r in run]) for name, run in itertools.groupby(cells, key=lambda r: r[0])]
    return grouped_text(SHORT["checkpoint"], groups, headers[1:], numeric[1:], drop_order=drop)


def table_output(cat: Catalog, q: Query, fmt: str) -> str:
    """The ``table`` command's output in ``fmt`` (text, markdown, csv, json)."""
    if fmt in ("markdown", "csv") and q == Query(q.model, q.server, q.precision, version=q.version):
        df = as_text(evaluate(cat, q.version))
        return cli_table(fit_view_rows(cat, df, q.model, q.server, q.precision), fmt)
    sized, rows, context = matrix_rows(cat, q)
    if fmt == "json":
        return json_rows(sized, rows, context)
    if rows.empty:
        return "No rows match.\n"
    if fmt == "text":
        return text_rows(sized, rows, context, q)
    return cli_table(fit_view_rows(sized, rows, None, None, None), fmt)
