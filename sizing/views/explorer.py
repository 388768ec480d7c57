"""The explorer's language-neutral file: ids, statuses, commands, memory bars, heatmap and advice as data.

Built from the explorer rows (:func:`sizing.views.explorer_data.explorer_rows`) once per context;
:mod:`sizing.render.explorer_render` adds each language's strings and writes the files (its module docstring
describes them). Repeated strings are stored once (:func:`interned`, :func:`by_frequency`), and the files
are column-oriented (:func:`column_file`). No words here: ids, indices, counts and per cent.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from typing import Any

import pandas as pd

from sizing.launch.commands import CONTINUATION, vllm_command
from sizing.views import explorer_data as xd
from sizing.views.advice import suggestion
from sizing.views.bundle import SiteContext
from sizing.views.context_plans import PLAN_COLUMNS, plan_at, plan_sizes
from sizing.views.explorer_targets import targets
from sizing.views.policy import EXPLORER_CONTEXT as DEFAULT_CONTEXT
from sizing.views.throughput import ladder_blocks

CTX_SLOT = "{ctx}"
_SENTINEL = 987_654_321
"""A --max-model-len no model has, replaced by :data:`CTX_SLOT` in the stored command."""


def _index(values: pd.Series) -> list[str]:
    """The distinct values in first-seen order."""
    return list(dict.fromkeys(str(v) for v in values))


def command_template(row: dict[str, Any], ctx: SiteContext) -> list[str]:
    """The lines of the row's ``vllm serve`` command, :data:`CTX_SLOT` as its ``--max-model-len``
    (joined by :data:`sizing.launch.commands.CONTINUATION` they are the command)."""
    text = vllm_command({**row, "max_model_len": _SENTINEL}, ctx.catalog)
    return text.replace(str(_SENTINEL), CTX_SLOT).split(CONTINUATION)


def context_commands(row: dict[str, Any], ctx: SiteContext, lines: dict[str, int]) -> list[list[int]]:
    """Per published context: the line indices of the command launching that context's plan
    (:func:`sizing.views.context_plans.plan_at`), :data:`CTX_SLOT` as its ``--max-model-len``. Contexts
    on one plan (equal :data:`~sizing.views.context_plans.PLAN_COLUMNS`; a command reads no memory column)
    share one command."""
    done: dict[tuple[Any, ...], list[int]] = {}
    out = []
    for c in ctx.contexts:
        key = tuple(v for k, v in plan_sizes(row, c).items() if k in PLAN_COLUMNS)
        if key not in done:
            done[key] = interned(command_template(plan_at(row, c), ctx), lines)
        out.append(done[key])
    return out


def interned(values: list[str], table: dict[str, int]) -> list[int]:
    """Indices of ``values`` in ``table`` (a string table in insertion order), adding new ones."""
    return [table.setdefault(v, len(table)) for v in values]


def by_frequency(table: dict[str, int], uses: list[list[int]]) -> tuple[list[str], list[list[int]]]:
    """``table`` (from :func:`interned`) reordered most-used first, ties in first-seen order, and
    ``uses`` renumbered to match: the indices written most often are the shortest."""
    counts = Counter(i for use in uses for i in use)
    order = sorted(range(len(table)), key=lambda i: (-counts[i], i))
    new, strings = {old: n for n, old in enumerate(order)}, list(table)
    return [strings[i] for i in order], [[new[i] for i in use] for use in uses]


def one_or_each(values: list[list[Any]]) -> list[Any]:
    """Per-context lists as stored: the one list when every context has the same (the row's plan is the
    same at every context), else the list per context (explorer.js tells them apart by nesting)."""
    return values[0] if all(v == values[0] for v in values) else values


def context_bars(row: dict[str, Any], contexts: list[int]) -> list[list[float]]:
    """:func:`bar_widths` of the plan each context launches (:func:`sizing.views.context_plans.plan_at`)."""
    return [bar_widths(at_context(row, c)) for c in contexts]


def at_context(row: dict[str, Any], context: int) -> dict[str, Any]:
    """The row as launched at ``context`` (that context's plan), its ``overhead_bytes`` that plan's."""
    launched = plan_at(row, context)
    return {**launched, "overhead_bytes": xd.overhead_bytes(launched)}


def bar_widths(row: dict[str, Any]) -> list[float]:
    """Weights, overhead and KV cache of the fullest GPU in per cent of its total memory, one
    decimal (explorer.js writes them as CSS widths)."""
    total = float(row["total_bytes"])
    parts = (row["weights_bytes"], row["overhead_bytes"], max(float(row["kv_cache_bytes"]), 0.0))
    return [round(min(100.0, 100.0 * float(p) / total), 1) for p in parts]


def heatmap(rows: pd.DataFrame, models: list[str], servers: list[str], context: int) -> list[list[int]]:
    """Row indices of the best plan, one list per model with one entry per server."""
    best = xd.best_rows(rows, context)
    return [[best.get((m, s), -1) for s in servers] for m in models]


def default_row(ctx: SiteContext, rows: pd.DataFrame) -> int:
    """The row shown before any choice: the catalog's first worked example (else the first row)."""
    for ex in ctx.catalog.examples.values():
        hit = rows[
            (rows["checkpoint"] == ex.checkpoint)
            & (rows["server"] == ex.server)
            & (rows["kv_cache_dtype"] == ex.kv_cache_dtype)
        ]
        if len(hit):
            return int(hit.index[0])
    return 0


def neutral_payload(ctx: SiteContext, rows: pd.DataFrame) -> dict[str, Any]:
    """The language-neutral explorer file (see the module docstring)."""
    ids = {k: _index(rows[k]) for k in ("model", "server", "precision", "kv_cache_dtype")}
    records, lines = rows.to_dict("records"), dict[str, int]()
    out = [
        [
            ids["model"].index(r["model"]),
            r["checkpoint"],
            ids["precision"].index(r["precision"]),
            ids["server"].index(r["server"]),
            ids["kv_cache_dtype"].index(r["kv_cache_dtype"]),
            "".join(str(xd.STATUSES.index(r[f"status_{c}"])) for c in ctx.contexts),
            context_commands(r, ctx, lines),
            context_bars(r, ctx.contexts),
            to,
            ladder,
        ]
        for r, to, ladder in zip(records, targets(rows, ctx.contexts, ctx.catalog), ladder_blocks(ctx)[1])
    ]
    table, commands = by_frequency(lines, [[i for command in r[6] for i in command] for r in out])
    for r, renumbered in zip(out, commands):
        ends = list(itertools.accumulate(len(command) for command in r[6]))
        r[6] = one_or_each([renumbered[end - len(command) : end] for end, command in zip(ends, r[6])])
        r[7] = one_or_each(r[7])
    heat = {str(c): heatmap(rows, ids["model"], ids["server"], c) for c in ctx.contexts}
    advice = advice_entries(ctx, records, ids)
    return {
        "contexts": ctx.contexts,
        "default_context": DEFAULT_CONTEXT,
        "default_row": default_row(ctx, rows),
        "slot": CTX_SLOT,
        "joiner": CONTINUATION,
        "lines": table,
        "statuses": list(xd.STATUSES),
        "models": ids["model"],
        "servers": ids["server"],
        "precisions": ids["precision"],
        "kv": ids["kv_cache_dtype"],
        "rows": out,
        "heat": heat,
        "advice": advice,
    }


ADVICE_TARGET = (
    "model",
    "checkpoint",
    "precision",
    "server",
    "kv",
    "max_model_len",
    "gpu_memory_utilization",
    "plan",
    "tp",
    "pp",
    "dp",
)
"""The fields of a suggested case in ``advice`` (model, precision, server and KV: indices into lists)."""


def advice_entries(
    ctx: SiteContext, records: list[dict[str, Any]], ids: dict[str, list[str]]
) -> dict[str, list[Any]]:
    """Row index -> ``[kind, value, target]`` of every row with a nearest change (:mod:`sizing.views.advice`);
    ``target`` lists :data:`ADVICE_TARGET`, null when no catalog server has the GPUs suggested."""
    out: dict[str, list[Any]] = {}
    for index, row in enumerate(records):
        found = suggestion(row, ctx.catalog)
        if found is None:
            continue
        target = found["target"]
        out[str(index)] = [found["kind"], found["value"], None if target is None else target_row(target, ids)]
    return out


def target_row(target: dict[str, Any], ids: dict[str, list[str]]) -> list[Any]:
    """A suggested case as :data:`ADVICE_TARGET` values: model, precision, server and KV as list indices."""
    lists = {"model": "model", "precision": "precision", "server": "server", "kv": "kv_cache_dtype"}
    keys = {"kv": "kv_cache_dtype"}
    return [
        _position(ids[lists[k]], target[keys.get(k, k)]) if k in lists else target[k] for k in ADVICE_TARGET
    ]


def _position(values: list[str], value: str) -> int:
    """The index of ``value`` in ``values``, -1 when the explorer has no row of it."""
    return values.index(value) if value in values else -1


NEUTRAL_FIELDS = (
    "model",
    "checkpoint",
    "precision",
    "server",
    "kv",
    "status",
    "command",
    "bars",
    "targets",
    "ladder",
)
"""A neutral row's fields: indices into models, checkpoints, precisions, servers and kv; one status
digit per context; the line indices of the command (per context, that context's plan, when the row's
plan differs between contexts); the memory bar in per cent (likewise per context when it differs); per
context, the case its suggestion leads to, ``[row, context]`` or null (:mod:`sizing.views.explorer_targets`);
the index of the row's chat ladder in the language file's ``ladders``
(:mod:`sizing.render.explorer_ladder`)."""


def server_memory_bytes(records: list[dict[str, Any]], servers: list[str]) -> list[tuple[float, float]]:
    """Per server: vLLM's budget and the total memory of one GPU, bytes (from its first row)."""
    first: dict[str, dict[str, Any]] = {}
    for r in records:
        first.setdefault(str(r["server"]), r)
    return [(float(first[s]["budget_bytes"]), float(first[s]["total_bytes"])) for s in servers]


@functools.lru_cache(maxsize=2)
def neutral_of(ctx: SiteContext) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The explorer's rows as records and its language-neutral file (computed once per context)."""
    rows = xd.explorer_rows(ctx)
    return rows.to_dict("records"), neutral_payload(ctx, rows)


def column_file(payload: dict[str, Any], fields: list[str]) -> dict[str, Any]:
    """``payload`` as written: its rows turned into ``columns`` (one array per field, in ``fields``
    order); in the neutral file the checkpoints become indices into a ``checkpoints`` table."""
    out = {k: v for k, v in payload.items() if k != "rows"}
    columns = [list(column) for column in zip(*payload["rows"])] if payload["rows"] else [[] for _ in fields]
    if fields[1] == "checkpoint":
        table: dict[str, int] = {}
        columns[1] = interned(columns[1], table)
        out["checkpoints"] = list(table)
    return {**out, "fields": fields, "columns": columns}


def rows_of(data: dict[str, Any]) -> list[list[Any]]:
    """The rows of a written file back (what explorer.js rebuilds): one list per row, checkpoints as ids."""
    rows = [list(row) for row in zip(*data["columns"])]
    for row in rows if "checkpoints" in data else []:
        row[1] = data["checkpoints"][row[1]]
    return rows
