"""The registry of published tables and their renderers (site Markdown, English Markdown, CSV, JSON).

A :class:`TableSpec` pairs a stable id (pages call ``{{ sz_table("what-fits") }}``) with typed
columns and a function computing its language-neutral rows (:mod:`sizing.views.table_rows`). Cells are
formatted per language with :mod:`sizing.render.i18n`; headers come from ``docs/messages/<lang>.yaml`` and
carry the unit, so cells hold plain numbers: memory in GiB (2^30), KV per token in KiB (2^10),
nominal capacities and file sizes in decimal GB.

Catalog text can never break a table, inject HTML or reach Jinja: :func:`escape_cell` folds
newlines, HTML-escapes ``<>&`` and writes ``|``, backticks, backslashes and braces as character
references. (mkdocs-macros does not render a macro's output again, and after this escaping no
``{{``/``{%`` survives anyway.)
"""

from __future__ import annotations

import functools
import html
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import pandas as pd

from sizing.catalog.loader import Catalog
from sizing.errors import UsageError
from sizing.render.catalog_text import server_name, source_links, source_refs, translate
from sizing.render.flagtext import flag, message_with_code
from sizing.render.i18n import fmt_money, fmt_number, fmt_percent, t
from sizing.render.plural import plural
from sizing.render.speed_cells import REASON_FIELD, speed_cell
from sizing.units import GB, GiB, KiB
from sizing.views import plan_rows
from sizing.views import table_rows as tr
from sizing.views.bundle import SiteContext
from sizing.views.matrix import Filter, fit_view, select
from sizing.views.plan_rows import PLAN_COMPARISONS
from sizing.views.verdict import tight_below

KINDS = frozenset(
    {
        "text",
        "int",
        "gib",
        "kib",
        "gb",
        "float1",
        "float2",
        "fraction",
        "money",
        "bool",
        "verdict",
        "plan",
        "change",
        "tier",
        "server",
        "catalog",
        "places",
        "source",
        "code",
        "fixed1",
        "users",
        "usd",
    }
)
NUMERIC = frozenset(
    {"int", "gib", "kib", "gb", "float1", "fixed1", "float2", "fraction", "money", "users", "usd"}
)
KIND_UNIT = {"gib": "unit_gib", "kib": "unit_kib", "gb": "unit_gb"}
DASH = "—"
_LINE_BREAKS = re.compile(r"[ \t]*[\r\n\v\f\u2028\u2029]+[ \t]*")
_ENTITIES = {"\\": "&#92;", "|": "&#124;", "`": "&#96;", "{": "&#123;", "}": "&#125;"}


@dataclass(frozen=True)
class ColumnSpec:
    """One column: the row field ``id``, its header message key, and how its cells are formatted.

    ``unit`` is the message key of the header's unit (default from the kind: gib, kib, gb);
    ``args`` fills the header's placeholders; ``decimals`` overrides the kind's fraction digits.
    """

    id: str
    header_key: str
    kind: str
    unit: str | None = None
    args: tuple[tuple[str, str], ...] = ()
    decimals: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"column {self.id!r}: unknown kind {self.kind!r}")


@dataclass(frozen=True)
class TableSpec:
    """A published table: stable id, columns, rows(ctx), the columns identifying a row, a note."""

    id: str
    columns: tuple[ColumnSpec, ...]
    rows: Callable[[SiteContext], pd.DataFrame]
    key: tuple[str, ...]
    note: Callable[[SiteContext, str], str] | None = field(default=None, compare=False)


# ---------------------------------------------------------------------------------------------
# Cells
# ---------------------------------------------------------------------------------------------


def escape_cell(text: str) -> str:
    """``text`` made safe for one Markdown table cell: one line, no HTML, pipes, code or Jinja.

    Line breaks fold into one space; other spaces (such as Babel's no-break group separator) stay.
    """
    escaped = html.escape(_LINE_BREAKS.sub(" ", str(text)).strip(), quote=False)
    return "".join(_ENTITIES.get(ch, ch) for ch in escaped)


def is_missing(value: Any) -> bool:
    """Whether a cell value is absent (None, NaN, empty text)."""
    if value is None or (isinstance(value, str) and value == ""):
        return True
    return isinstance(value, float) and math.isnan(value)


WORD_KEYS = ("word_yes", "word_no", "plan_single_gpu")


def cell_words(lang: str) -> dict[str, str]:
    """The fixed words cells use, looked up once per table rather than once per cell."""
    return {key: t(lang, key) for key in WORD_KEYS}


@functools.lru_cache(maxsize=1 << 16)
def _num(value: float, lang: str, decimals: int) -> str:
    """:func:`sizing.render.i18n.fmt_number`, memoised (tables repeat the same numbers many times)."""
    return fmt_number(value, lang, decimals)


def _whole_or(value: float, lang: str, decimals: int) -> str:
    """``value`` without fraction digits when it rounds to a whole number, else with ``decimals``."""
    return _num(value, lang, 0 if round(float(value), decimals).is_integer() else decimals)


def plan_label(row: Mapping[str, Any], lang: str, words: Mapping[str, str] | None = None) -> str:
    """``1 GPU`` (zh ``单卡``), ``DP 2``, ``TP 2``, ``TP 4 × DP 2``, ``TP 8 × PP 2``: how the server runs
    the model. The one plan formatter of the site: tables, captions and chart legends use it."""
    plan = row.get("plan")
    if is_missing(plan):
        return DASH
    tp, pp, dp = (_num(int(row[k]), lang, 0) for k in ("tp", "pp", "dp"))
    if plan == "dp":
        return (words or cell_words(lang))["plan_single_gpu"] if int(row["dp"]) == 1 else f"DP {dp}"
    if plan == "dp-ep":  # data-parallel attention, experts spread over every rank
        return " × ".join([*([f"TP {tp}"] if int(row["tp"]) > 1 else []), f"DP {dp}"]) + " + EP"
    parts = [
        f"TP {tp}",
        *([f"PP {pp}"] if int(row["pp"]) > 1 else []),
        *([f"DP {dp}"] if int(row["dp"]) > 1 else []),
    ]
    return " × ".join(parts)


def _code_message(lang: str, key: str, code: Mapping[str, str], **plain: str) -> str:
    """A message with flags as code spans, escaped for a table cell."""
    return message_with_code(lang, key, code, True, escape_cell, **plain)


def weight_only_note(row: Mapping[str, Any], lang: str) -> str:
    """The note for a format the GPU has no tensor cores for (vLLM runs it weight-only), or ""."""
    hw = str(row.get("weight_only") or "")
    return t(lang, f"note_weight_only_{hw}") if hw in ("fp8", "fp4") else ""


def change_label(row: Mapping[str, Any], lang: str) -> str:
    """Why the plan was chosen or, for a row that does not fit, the nearest change that would fit;
    plus the weight-only note where the GPU lacks the format's tensor cores."""
    text = _change_text(row, lang)
    note = escape_cell(weight_only_note(row, lang)) if bool(row.get("fits")) else ""
    return "; ".join(part for part in (text, note) if part)


_PLAN_ID = re.compile(r"^(?P<plan>[a-z-]+)-tp(?P<tp>\d+)-pp(?P<pp>\d+)-dp(?P<dp>\d+)$")


def target_plan(text: str) -> dict[str, Any] | None:
    """The plan of a suggested case, ``tp-tp8-pp1-dp1`` (the engine's ``change_plan``), as plan fields; None
    when the suggestion keeps the row's plan."""
    match = _PLAN_ID.match(text)
    if not match:
        return None
    return {"plan": match["plan"], **{k: int(match[k]) for k in ("tp", "pp", "dp")}}


def _change_text(row: Mapping[str, Any], lang: str) -> str:
    code, value = row.get("change") or "", str(row.get("change_value") or "")
    reason = str(row.get("reason") or "")
    if not code:
        if (
            reason == "fits-one-gpu"
            and not is_missing(row.get("server_gpus"))
            and int(row["server_gpus"]) == 1
        ):
            reason = "fits-the-gpu"  # "one copy per GPU" says nothing on a one-GPU server
        return (
            escape_cell(t(lang, f"reason_{reason.replace('-', '_')}"))
            if reason and reason != "no-fit"
            else ""
        )
    if code == "max-model-len":
        return _code_message(lang, "change_max_model_len", {"flag": flag("--max-model-len", int(value))})
    if code == "kv-fp8":
        return _code_message(lang, "change_kv_fp8", {"flag": "--kv-cache-dtype fp8"})
    if code == "gpu-memory-utilization":
        gmu = {"flag": flag("--gpu-memory-utilization", float(value))}
        plan = target_plan(str(row.get("change_plan") or ""))
        if plan:
            return _code_message(lang, "change_gmu_plan", gmu, plan=plan_label(plan, lang))
        return _code_message(lang, "change_gmu", gmu)
    if code == "more-gpus":
        return escape_cell(
            t(
                lang,
                "change_more_gpus",
                value=plural(lang, "plural_gpus", int(value), fmt_number(int(value), lang)),
            )
        )
    return escape_cell(t(lang, f"change_{code.replace('-', '_')}", value=value))


def _number(kind: str, value: float, lang: str, decimals: int | None) -> str:
    """A numeric cell of ``kind`` (bytes for gib/kib/gb); kib, gb and float1 drop a zero fraction."""
    if kind == "gib":
        return _num(value / GiB, lang, 2 if decimals is None else decimals)
    if kind == "kib":
        return _whole_or(value / KiB, lang, 1 if decimals is None else decimals)
    if kind == "gb":
        return _whole_or(value / GB, lang, 1 if decimals is None else decimals)
    if kind == "fraction":
        return fmt_percent(value, lang, decimals or 0)
    if kind == "float1":
        return _whole_or(value, lang, 1 if decimals is None else decimals)
    digits = {"int": 0, "float2": 2, "fixed1": 1}[kind]
    return _num(value, lang, digits if decimals is None else decimals)


def format_cell(
    col: ColumnSpec, row: Mapping[str, Any], lang: str, words: Mapping[str, str] | None = None
) -> str:
    """The text of one cell in ``lang`` (``—`` when the value is missing); ``words``: :func:`cell_words`."""
    if col.kind == "plan":
        return plan_label(row, lang, words)
    if col.kind == "change":
        return change_label(row, lang)
    value: Any = row.get(col.id)
    if col.kind in REASON_FIELD:
        return escape_cell(speed_cell(col.kind, value, row, lang, DASH))
    if is_missing(value):
        return DASH
    if col.kind in TEXT_KINDS:
        return TEXT_KINDS[col.kind](str(value), lang)
    words = words or cell_words(lang)
    if col.kind == "bool":
        return words["word_yes" if value else "word_no"]
    if col.kind == "verdict":
        return verdict_cell(row, lang)
    if col.kind == "money":
        return fmt_money(float(value), str(row.get("currency") or "USD"), lang, col.decimals)
    return _number(col.kind, float(value), lang, col.decimals)


TEXT_KINDS: dict[str, Callable[[str, str], str]] = {
    "text": lambda v, lang: escape_cell(v),
    "code": lambda v, lang: f"<code>{escape_cell(v)}</code>",
    "server": lambda v, lang: escape_cell(server_name(lang, v)),
    "catalog": lambda v, lang: escape_cell(translate(lang, v)),
    "source": lambda v, lang: escape_cell(source_refs(lang, v)),
    "tier": lambda v, lang: escape_cell(t(lang, f"tier_{v}")),
    "places": lambda v, lang: escape_cell(
        t(lang, "list_separator").join(translate(lang, p) for p in v.split(", "))
    ),
}
"""Text cells: as written, as code, a server name, a translated catalog text, a source, a tier."""


def verdict_state(row: Mapping[str, Any]) -> str:
    """The row's verdict (:mod:`sizing.views.verdict`): ``fits``, ``tight``, ``borderline`` or ``no-fit``, the
    word key and the badge class. Decided there; this only reads it."""
    state = row.get("verdict")
    if is_missing(state):
        raise ValueError("a verdict cell needs the row's 'verdict' (sizing.views.verdict.verdicts)")
    return str(state)


VERDICT_WORD = {
    "fits": "verdict_fits",
    "tight": "verdict_tight",
    "borderline": "verdict_borderline",
    "no-fit": "verdict_does_not_fit",
    "unsupported": "verdict_unsupported",
}
VERDICT_AT = {"fits": "verdict_fits_to", "tight": "verdict_tight_to", "borderline": "verdict_borderline_at"}
"""The verdict with the context it names: fits/tight up to the longest that starts, borderline at one."""


def verdict_text(row: Mapping[str, Any], lang: str) -> str:
    """``Fits up to 128K``, ``Tight up to 4K``, ``Borderline at 32K`` or ``Does not fit`` (no emoji: the site
    draws it as a badge)."""
    state = verdict_state(row)
    if state in ("no-fit", "unsupported"):
        return t(lang, VERDICT_WORD[state])
    return t(lang, VERDICT_AT[state], context=context_label(int(row["verdict_context"])))


def verdict_cell(row: Mapping[str, Any], lang: str) -> str:
    """:func:`verdict_text`, escaped for a table cell."""
    return escape_cell(verdict_text(row, lang))


def header(col: ColumnSpec, lang: str) -> str:
    """The header of ``col`` in ``lang``, with its unit: ``Weights per GPU (GiB)``."""
    label = t(lang, col.header_key, **dict(col.args))
    unit = col.unit or KIND_UNIT.get(col.kind)
    text = t(lang, "col_with_unit", label=label, unit=t(lang, unit)) if unit else label
    return escape_cell(text)


# ---------------------------------------------------------------------------------------------
# Columns and the registry
# ---------------------------------------------------------------------------------------------


def context_label(tokens: int) -> str:
    """``4K``, ``32K``, ``128K`` for multiples of 1024 tokens, else the number."""
    return f"{tokens // 1024}K" if tokens % 1024 == 0 else str(tokens)


def seq_columns(contexts: list[int], prefix: str = "seq") -> tuple[ColumnSpec, ...]:
    """One ``Sequences at 4K``-style column per context."""
    return tuple(
        ColumnSpec(f"{prefix}_{c}", "col_sequences_at", "int", args=(("context", context_label(c)),))
        for c in contexts
    )


def _c(id_: str, key: str, kind: str = "text", **extra: Any) -> ColumnSpec:
    return ColumnSpec(id_, key, kind, **extra)


MODEL, PRECISION, SERVER = (
    _c("model_name", "col_model"),
    _c("precision_name", "col_precision"),
    _c("server_name", "col_server", "server"),
)
CHECKPOINT, VERDICT = _c("checkpoint_label", "col_checkpoint"), _c("verdict", "col_verdict", "verdict")
PLAN = _c("plan", "col_plan", "plan")


def settings_note(ctx: SiteContext, lang: str, key: str = "note_summary", **more: str) -> str:
    """The vLLM settings a table assumes, flags as code (KV type, memory utilisation, max model length,
    and the ``more`` flags the message ``key`` names)."""
    cat = ctx.catalog
    code = {
        "kv": flag("--kv-cache-dtype", tr.summary_kv(ctx)),
        "gmu": flag("--gpu-memory-utilization", float(cat.assume("gpu_memory_utilization"))),
        "max_model_len": flag("--max-model-len", int(cat.assume("max_model_len"))),
        **more,
    }
    return message_with_code(lang, key, code, escape=escape_cell)


def fit_spec(server: str, contexts: list[int]) -> TableSpec:
    """The fit table of one server, at the summary KV type: the columns a reader compares (model,
    precision, verdict, plan, sequences per context); the rest of the row is in the explorer."""
    columns = (
        _c("model_label", "col_model"),
        PRECISION,
        VERDICT,
        PLAN,
        _c("speed_users", "col_fit_users", "users"),
        _c("speed_usd", "col_fit_cost", "usd"),
        *seq_columns(contexts),
    )
    return TableSpec(
        f"fit-{server}",
        columns,
        lambda ctx: tr.fit_rows(ctx, server),
        ("checkpoint", "precision", "kv_cache_dtype"),
        functools.partial(fit_note, server=server),
    )


def fit_note(ctx: SiteContext, lang: str, server: str) -> str:
    """A fit table's settings line, with the KV cache type that server's table shows
    (:func:`sizing.views.table_rows.server_kv`: ``auto`` on GPUs with no FP8 KV backend)."""
    return settings_note(ctx, lang, kv=flag("--kv-cache-dtype", tr.server_kv(ctx, server)))


GPUS, WEIGHTS = _c("server_gpus", "col_gpus", "int"), _c("weights_bytes", "col_weights_per_gpu", "gib")


def long_columns(ctx: SiteContext) -> tuple[ColumnSpec, ...]:
    """The ``Sequences at 32K`` column, when the catalog publishes that context."""
    return seq_columns([c for c in tr.summary_contexts(ctx) if c == tr.LONG_CONTEXT])


def recommendation_spec(ctx: SiteContext, size: str) -> TableSpec:
    """``recommendations-<size>``: the catalog servers that fit the size class's model, per precision."""
    columns = (PRECISION, CHECKPOINT, SERVER, GPUS, PLAN, WEIGHTS, *long_columns(ctx))
    return TableSpec(
        f"recommendations-{size}",
        columns,
        lambda c: tr.recommendation_rows(c, size),
        ("checkpoint", "precision", "server"),
        settings_note,
    )


def throughput_spec(ctx: SiteContext) -> TableSpec:
    """``throughput``: decode ceilings of the main models on the offer servers."""
    at = tuple(
        _c(
            f"tps_{c}",
            "col_decode_at",
            "int",
            unit="unit_tokens_per_s",
            args=(("context", context_label(c)),),
        )
        for c in tr.summary_contexts(ctx)
    )
    columns = (
        MODEL,
        PRECISION,
        SERVER,
        PLAN,
        _c("weights_read_bytes", "col_weights_read", "gib"),
        _c("decode_tps_ceiling", "col_decode_ceiling", "int", unit="unit_tokens_per_s"),
        *at,
    )
    return TableSpec(
        "throughput", columns, tr.throughput_rows, ("checkpoint", "precision", "server"), settings_note
    )


def summary_specs(ctx: SiteContext) -> list[TableSpec]:
    """Tables summarising the matrix at the summary KV type (see :mod:`sizing.views.table_rows`)."""
    what_fits = (MODEL, PRECISION, SERVER, VERDICT, PLAN, *seq_columns(tr.summary_contexts(ctx)))
    quick = (
        _c("tier", "col_tier", "tier"),
        MODEL,
        PRECISION,
        SERVER,
        VERDICT,
        PLAN,
        WEIGHTS,
        *long_columns(ctx),
        _c("change", "col_change", "change"),
    )
    return [
        TableSpec(
            "what-fits",
            what_fits,
            tr.what_fits_rows,
            ("model", "checkpoint", "precision", "server"),
            settings_note,
        ),
        recommendation_spec(ctx, "32b"),
        recommendation_spec(ctx, "671b"),
        TableSpec(
            "quick-reference",
            quick,
            tr.quick_reference_rows,
            ("tier", "model", "checkpoint", "precision", "server"),
            settings_note,
        ),
        throughput_spec(ctx),
    ]


def disk_spec(ctx: SiteContext) -> TableSpec:
    """``disk``: model file sizes and the load time from each offer server's NVMe."""
    loads = tuple(
        _c(
            f"load_{sid}",
            "col_load_time_on",
            "fixed1",
            unit="unit_seconds",
            args=(("server", ctx.catalog.servers[sid].name),),
        )
        for sid in tr.offer_servers(ctx)
    )
    columns = (
        MODEL,
        PRECISION,
        _c("checkpoint", "col_checkpoint"),
        _c("file_bytes", "col_file_size", "gb"),
        *loads,
    )
    return TableSpec("disk", columns, tr.disk_rows, ("model", "checkpoint"))


def plan_comparison_spec(ctx: SiteContext, comparison: str) -> TableSpec:
    """``plans-<id>``: every plan of one checkpoint on one server, the chosen one with its reason."""
    columns = (
        PLAN,
        VERDICT,
        WEIGHTS,
        _c("kv_cache_bytes", "col_kv_cache_per_gpu", "gib"),
        _c("kv_bytes_per_token", "col_kv_per_token", "kib"),
        *seq_columns(ctx.contexts),
        _c("change", "col_change", "change"),
    )
    model, _, server, kv = PLAN_COMPARISONS[comparison]

    def note(c: SiteContext, lang: str) -> str:
        return t(
            lang,
            "note_plans",
            model=c.catalog.models[model].name,
            server=c.catalog.servers[server].name,
            kv=kv,
        )

    return TableSpec(
        f"plans-{comparison}",
        columns,
        lambda c: plan_rows.plan_comparison_rows(c, comparison),
        ("plan", "tp", "pp", "dp"),
        note,
    )


def table_specs(ctx: SiteContext) -> dict[str, TableSpec]:
    """Every published table of ``ctx``'s catalog, by id, in a fixed order (fit tables first)."""
    specs = [fit_spec(sid, ctx.contexts) for sid in ctx.catalog.servers]
    specs += [*summary_specs(ctx), *HARDWARE_SPECS[:4], disk_spec(ctx), *HARDWARE_SPECS[4:], *CATALOG_SPECS]
    specs += [
        plan_comparison_spec(ctx, cid)
        for cid in PLAN_COMPARISONS
        if PLAN_COMPARISONS[cid][0] in ctx.catalog.models and PLAN_COMPARISONS[cid][2] in ctx.catalog.servers
    ]
    return {spec.id: spec for spec in specs}


def get_spec(ctx: SiteContext, table_id: str) -> TableSpec:
    """The table ``table_id``; an unknown id is an error naming the known ones."""
    specs = table_specs(ctx)
    if table_id not in specs:
        raise UsageError(f"unknown table {table_id!r}; known: {', '.join(specs)}")
    return specs[table_id]


# ---------------------------------------------------------------------------------------------
# Renderers
# ---------------------------------------------------------------------------------------------

FRAME_COLUMNS = {
    "model": _c("model", "col_model"),
    "checkpoint": _c("checkpoint", "col_checkpoint"),
    "precision": _c("precision", "col_precision"),
    "server": _c("server", "col_server"),
    "kv_cache_dtype": _c("kv_cache_dtype", "col_kv_cache_dtype"),
    "plan": PLAN,
    "verdict": VERDICT,
    "weights_gib": _c("weights_gib", "col_weights_per_gpu", "float2", unit="unit_gib"),
    "kv_cache_gib": _c("kv_cache_gib", "col_kv_cache_per_gpu", "float2", unit="unit_gib"),
    "kv_kib_per_token": _c("kv_kib_per_token", "col_kv_per_token", "float1", unit="unit_kib"),
    "kv_cache_tokens": _c("kv_cache_tokens", "col_tokens", "int"),
    "change": _c("change", "col_change", "change"),
}
"""How the columns of a :func:`sizing.views.matrix.fit_view` frame are shown (``seq_<ctx>`` added per frame)."""


def frame_columns(frame: pd.DataFrame) -> tuple[ColumnSpec, ...]:
    """Column specs for a view frame: the known columns it has, in its order (tp/pp/dp fold into plan)."""
    hidden = {"tp", "pp", "dp", "change_value", "change_plan", "verdict_context"}
    specs: list[ColumnSpec] = []
    for name in frame.columns:
        if name.startswith("seq_"):
            specs.extend(seq_columns([int(name[4:])]))
        elif name not in hidden:
            specs.append(FRAME_COLUMNS.get(name, _c(name, "col_value")))
    return tuple(specs)


def _needs(ctx: SiteContext | None, table: TableSpec) -> SiteContext:
    """``ctx``, which a table spec needs to compute its rows (a UsageError naming the table if None)."""
    if ctx is None:
        raise UsageError(f"table {table.id!r}: its rows are computed from a context; none was given")
    return ctx


def resolve(
    table: TableSpec | pd.DataFrame, ctx: SiteContext | None
) -> tuple[tuple[ColumnSpec, ...], pd.DataFrame]:
    """(columns, rows) of a spec (computed from ``ctx``, required then) or of a view frame."""
    if isinstance(table, pd.DataFrame):
        return frame_columns(table), table
    return table.columns, table.rows(_needs(ctx, table))


CELL_CONTEXT = (
    "plan",
    "tp",
    "pp",
    "dp",
    "change",
    "change_value",
    "change_plan",
    "reason",
    "currency",
    "speed_reason",
    "cost_reason",
    "speed_top",
    "fits",
    "weight_only",
    "verdict",
    "verdict_context",
    "server_gpus",
)
"""Row fields that formatters read besides a column's own value (plan sizes, advice, currency)."""


def badge(text: str, verdict: str) -> str:
    """``text`` as a verdict badge: coloured, with the theme's icon (CSS), the word always shown."""
    return f'<span class="sz-badge sz-badge--{verdict}">{text}</span>'


LONG_TEXT = ("catalog", "places")
"""Text kinds whose cells can run to a sentence: the site wraps them in a box of bounded width
(``sz-long``), so the other cells of a catalog table stay on one line (sizing.css)."""


def source_cell(value: Any, lang: str) -> str:
    """A site source cell: each reference a short link (``owner/repo``, a host), a document kind as text."""
    links = [
        f'<a href="{html.escape(url, quote=True)}">{html.escape(label)}</a>' if url else html.escape(label)
        for label, url in source_links(lang, value)
    ]
    return '<span class="sz-long">' + ", ".join(links) + "</span>"


def html_cell(col: ColumnSpec, row: Mapping[str, Any], text: str, lang: str = "en") -> str:
    """A site cell: verdicts become badges, sources links, long texts a bounded box; others their text."""
    if col.kind == "verdict" and not is_missing(row.get(col.id)):
        return badge(text, verdict_state(row))
    if col.kind == "source":
        return source_cell(row.get(col.id), lang)
    if text and (col.kind in LONG_TEXT or col.id == "checkpoints"):
        return f'<span class="sz-long">{text}</span>'
    return text


def row_cells(
    columns: tuple[ColumnSpec, ...], rows: pd.DataFrame, lang: str, badges: bool = False
) -> list[list[str]]:
    """The formatted cells of every row (verdicts as badges with ``badges``, the site's choice)."""
    words = cell_words(lang)
    needed = [k for k in dict.fromkeys([*(c.id for c in columns), *CELL_CONTEXT]) if k in rows.columns]
    out = []
    for row in rows[needed].to_dict("records"):
        cells = [format_cell(c, row, lang, words) for c in columns]
        out.append([html_cell(c, row, text, lang) for c, text in zip(columns, cells)] if badges else cells)
    return out


def markdown_rows(
    columns: tuple[ColumnSpec, ...], rows: pd.DataFrame, lang: str, badges: bool = False, aligned: bool = True
) -> list[str]:
    """Header, alignment and body lines of a Markdown table, one row per line, cells unpadded.

    ``badges`` (the site) renders verdicts as badges; the CLI and snapshots keep plain words.
    ``aligned=False`` leaves number columns unmarked (the site's long tables align them with CSS,
    which saves a ``style`` attribute on every cell)."""
    lines = [
        "| " + " | ".join(header(c, lang) for c in columns) + " |",
        "|" + "|".join("---:" if aligned and c.kind in NUMERIC else "---" for c in columns) + "|",
    ]
    return lines + ["| " + " | ".join(cells) + " |" for cells in row_cells(columns, rows, lang, badges)]


def html_table(
    head: list[str], body: list[list[str]], row_ids: list[str] | None = None, group_row: str = ""
) -> str:
    """A plain HTML table, one body row per line: ``head`` and ``body`` cells are HTML already
    (:func:`header`, :func:`row_cells`); ``row_ids`` gives each body row an ``id``; ``group_row`` is
    an optional first header row (:func:`group_header_row`; Tablesort sorts by the last one). Half the
    bytes of the Markdown extension's output, which puts every tag on a line of its own."""
    ids = row_ids or [""] * len(body)
    rows = [
        (f'<tr id="{i}">' if i else "<tr>") + "<td>" + "</td><td>".join(cells) + "</td></tr>"
        for i, cells in zip(ids, body)
    ]
    return (
        "<table>\n<thead>"
        + group_row
        + "<tr><th>"
        + "</th><th>".join(head)
        + "</th></tr></thead>\n<tbody>\n"
        + "\n".join(rows)
        + "\n</tbody>\n</table>"
    )


GROUPED_HEADER = "col_sequences_at"
"""Columns of this header key, side by side, share one group header (``Sequences at``) above their
own short headers (``4K``, ``32K``, ``128K``): the table stays narrow in every language."""


def group_header_row(columns: tuple[ColumnSpec, ...], lang: str) -> str:
    """The first of two header rows: a blank cell over the ungrouped columns and the group's label over
    the :data:`GROUPED_HEADER` columns (which must be the last ones); "" when fewer than two are."""
    grouped = sum(c.header_key == GROUPED_HEADER for c in columns)
    if grouped < 2 or any(c.header_key == GROUPED_HEADER for c in columns[:-grouped]):
        return ""
    label = escape_cell(t(lang, "col_sequences_group"))
    return (
        f'<tr class="sz-head-group"><th colspan="{len(columns) - grouped}"></th>'
        f'<th colspan="{grouped}" scope="colgroup">{label}</th></tr>'
    )


def html_rows_table(columns: tuple[ColumnSpec, ...], rows: pd.DataFrame, lang: str) -> str:
    """``rows`` as a site HTML table (:func:`html_table`): translated headers (grouped under one label,
    :func:`group_header_row`, where several columns count sequences), verdict badges."""
    group = group_header_row(columns, lang)
    head = [
        escape_cell(dict(c.args)["context"]) if group and c.header_key == GROUPED_HEADER else header(c, lang)
        for c in columns
    ]
    return html_table(head, row_cells(columns, rows, lang, badges=True), group_row=group)


def to_markdown(
    table: TableSpec | pd.DataFrame, lang: str, ctx: SiteContext | None = None, badges: bool = False
) -> str:
    """The table as Markdown in ``lang`` (a paragraph saying so when it has no rows), plus its note."""
    columns, rows = resolve(table, ctx)
    body = (
        "\n".join(markdown_rows(columns, rows, lang, badges)) if len(rows) else f"*{t(lang, 'table_empty')}*"
    )
    note = table.note if isinstance(table, TableSpec) else None
    return body + (f"\n\n*{note(_needs(ctx, table), lang)}*" if note else "") + "\n"


def to_markdown_en(table: TableSpec | pd.DataFrame, ctx: SiteContext | None = None) -> str:
    """The English Markdown of a table (CLI output and committed snapshots)."""
    return to_markdown(table, "en", ctx)


def plain_value(value: Any) -> Any:
    """A JSON-safe cell: NaN -> None, NumPy scalars -> Python, floats rounded to 6 significant digits."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float):
        return None if math.isnan(value) else float(f"{value:.6g}")
    return value


def raw_frame(table: TableSpec | pd.DataFrame, ctx: SiteContext | None = None) -> pd.DataFrame:
    """The raw values behind a table: its key and shown columns (plan as tp/pp/dp too), no formatting."""
    columns, rows = resolve(table, ctx)
    keys = table.key if isinstance(table, TableSpec) else ()
    wanted = [*keys, *(c.id for c in columns)]
    if any(c.kind == "plan" for c in columns):
        wanted += ["tp", "pp", "dp"]
    if any(c.kind == "change" for c in columns):
        wanted += ["change_value", "change_plan"]
    if any(c.kind == "verdict" for c in columns):
        wanted += ["verdict_context"]
    present = [w for w in dict.fromkeys(wanted) if w in rows.columns]
    return rows[present]


def to_csv(table: TableSpec | pd.DataFrame, ctx: SiteContext | None = None) -> str:
    """The raw values as CSV (floats to 6 significant digits, missing values empty)."""
    return raw_frame(table, ctx).to_csv(index=False, float_format="%.6g", lineterminator="\n")


def to_json(table: TableSpec | pd.DataFrame, ctx: SiteContext | None = None) -> str:
    """The raw values as a JSON list of objects, one per row."""
    records = [
        {k: plain_value(v) for k, v in row.items()} for row in raw_frame(table, ctx).to_dict("records")
    ]
    return json.dumps(records, ensure_ascii=False, indent=2) + "\n"


# ---------------------------------------------------------------------------------------------
# python -m sizing table
# ---------------------------------------------------------------------------------------------


def check_ids(cat: Catalog, model: str | None, server: str | None, precision: str | None) -> None:
    """Fail with a one-line error on an id the catalog does not have."""
    checkpoints = {c.id for m in cat.models.values() for c in m.checkpoints}
    if model and model not in cat.models and model not in checkpoints:
        raise UsageError(f"--model: {model!r} is neither a catalog model nor a checkpoint id")
    if server and server not in cat.servers:
        raise UsageError(f"--server: unknown server {server!r}")
    if precision and precision not in cat.precisions:
        raise UsageError(f"--precision: unknown precision {precision!r}")


def cli_table(
    cat: Catalog, df: pd.DataFrame, model: str | None, server: str | None, precision: str | None, fmt: str
) -> str:
    """The fit table (recommended plans) of the evaluated matrix ``df``, filtered by ids, as ``markdown``,
    ``csv`` or ``json``."""
    check_ids(cat, model, server, precision)
    view = fit_view(
        select(df, Filter(model=model, server=server, precision=precision)),
        df.attrs["contexts"],
        tight_below(cat.assume),
    )
    if fmt == "csv":
        return to_csv(view)
    if fmt == "json":
        return to_json(view)
    return to_markdown_en(view)


# ---------------------------------------------------------------------------------------------
# Tables whose columns do not depend on the catalog (data)
# ---------------------------------------------------------------------------------------------

HARDWARE_SPECS: tuple[TableSpec, ...] = (
    TableSpec(
        "weights-by-precision",
        (
            MODEL,
            PRECISION,
            CHECKPOINT,
            _c("w_total", "col_weights_total", "gib"),
            _c("file_bytes", "col_file_size", "gb"),
            _c("published_size", "col_published_size", "bool"),
        ),
        tr.weights_rows,
        ("model", "checkpoint", "precision"),
    ),
    TableSpec(
        "gpu-classes",
        (
            _c("gpu_name", "col_gpu"),
            _c("memory_bytes", "col_memory", "gib", decimals=0),
            _c("total_bytes", "col_nvidia_smi_total", "gib"),
            _c("budget_bytes", "col_budget_per_gpu", "gib"),
            _c("bandwidth_gbs", "col_bandwidth", "int", unit="unit_gb_per_s"),
            _c("fp8", "col_fp8", "bool"),
            _c("fp4", "col_fp4", "bool"),
            _c("interconnect", "col_interconnect", "catalog"),
            _c("largest_single_gpu", "col_largest_single_gpu"),
        ),
        tr.gpu_class_rows,
        ("gpu",),
        lambda ctx, lang: settings_note(ctx, lang, "note_gpu_classes"),
    ),
    TableSpec(
        "cpu-cores",
        (
            _c("gpus", "col_gpus_per_node", "int"),
            _c("cores_min", "col_cores_min", "int"),
            _c("cores_low", "col_cores_low", "int"),
            _c("cores_high", "col_cores_high", "int"),
        ),
        tr.cpu_core_rows,
        ("gpus",),
    ),
    TableSpec(
        "host-ram",
        (
            SERVER,
            GPUS,
            _c("vram_bytes", "col_vram_total", "gb"),
            _c("ram_bytes", "col_system_ram", "gb"),
            _c("ram_ratio", "col_ram_ratio", "fixed1"),
            _c("ram_covers_vram", "col_ram_covers_vram", "bool"),
        ),
        tr.host_ram_rows,
        ("server",),
    ),
    TableSpec(
        "price-per-gb",
        (
            SERVER,
            GPUS,
            _c("vram_bytes", "col_vram_total", "gb"),
            _c("price_monthly", "col_price_monthly", "money", decimals=0),
            _c("price_per_gb_month", "col_price_per_gb_month", "money"),
        ),
        tr.price_rows,
        ("server",),
    ),
)
"""Hardware tables in page order; ``disk`` (one column per offer server) is built by :func:`disk_spec`."""

CATALOG_SPECS: tuple[TableSpec, ...] = (
    TableSpec(
        "catalog-models",
        (
            _c("model", "col_id"),
            _c("name", "col_name"),
            _c("total_params_b", "col_parameters", "float1", unit="unit_billion"),
            _c("active_params_b", "col_active_parameters", "float1", unit="unit_billion"),
            _c("layers", "col_layers", "int"),
            _c("hidden_size", "col_hidden_size", "int"),
            _c("attention_heads", "col_attention_heads", "int"),
            _c("kv_heads", "col_kv_heads", "int"),
            _c("head_dim", "col_head_dim", "int"),
            _c("max_context", "col_context", "int", unit="unit_tokens"),
            _c("attention", "col_attention", "catalog"),
            _c("checkpoints", "col_checkpoints"),
            _c("source", "col_source", "source"),
        ),
        tr.model_catalog_rows,
        ("model",),
    ),
    TableSpec(
        "catalog-gpus",
        (
            _c("gpu", "col_id"),
            _c("name", "col_name"),
            _c("architecture", "col_architecture"),
            _c("memory_bytes", "col_memory", "gib", decimals=0),
            _c("memory_mib", "col_nvidia_smi_total", "int", unit="unit_mib"),
            _c("bandwidth_gbs", "col_bandwidth", "int", unit="unit_gb_per_s"),
            _c("fp8", "col_fp8", "bool"),
            _c("fp4", "col_fp4", "bool"),
            _c("interconnect", "col_interconnect", "catalog"),
            _c("link_gbs", "col_link_bandwidth", "int", unit="unit_gb_per_s"),
            _c("source", "col_source", "source"),
        ),
        tr.gpu_catalog_rows,
        ("gpu",),
    ),
    TableSpec(
        "catalog-servers",
        (
            _c("server", "col_id"),
            _c("name", "col_name", "server"),
            _c("kind", "col_kind", "catalog"),
            _c("gpu_name", "col_gpu"),
            _c("gpus_per_node", "col_gpus_per_node", "int"),
            _c("nodes", "col_nodes", "int"),
            _c("cpu", "col_cpu"),
            _c("cpu_cores", "col_cpu_cores", "int"),
            _c("ram_bytes", "col_system_ram", "gb"),
            _c("nvme_read_gbs", "col_nvme_read", "float1", unit="unit_gb_per_s"),
            _c("network_gbps", "col_network", "int", unit="unit_gbit_per_s"),
            _c("price_monthly", "col_price_monthly", "money", decimals=0),
            _c("locations", "col_locations", "places"),
        ),
        tr.server_catalog_rows,
        ("server",),
    ),
    TableSpec(
        "catalog-precisions",
        (
            _c("precision", "col_id"),
            _c("name", "col_name"),
            _c("weight_bits", "col_weight_bits", "float1"),
            _c("group_size", "col_group_size", "int"),
            _c("scale_bits", "col_scale_bits", "int"),
            _c("zero_bits", "col_zero_bits", "int"),
            _c("bytes_per_param", "col_bytes_per_param", "float2", decimals=4),
            _c("needs_hw", "col_needs_hw", "catalog"),
            _c("vllm_quantization", "col_vllm_quantization", "code"),
            _c("online_from", "col_online_from", "code"),
        ),
        tr.precision_catalog_rows,
        ("precision",),
    ),
    TableSpec(
        "assumptions",
        (
            _c("key", "col_assumption", "code"),
            _c("value", "col_value", "code"),
            _c("reason", "col_reason", "catalog"),
        ),
        tr.assumption_rows,
        ("key",),
    ),
)
"""The catalog's own tables: models, GPUs, servers, precisions, assumptions."""
