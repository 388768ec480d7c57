"""The registry of published tables: each :class:`TableSpec` pairs a stable id (pages call
``{{ sz_table("what-fits") }}``) with its columns (:class:`sizing.render.cells.ColumnSpec`), a function
computing its language-neutral rows (:mod:`sizing.views.table_rows`, :mod:`sizing.views.catalog_rows`,
as :class:`sizing.views.rows.Rows`), the fields identifying a row and its note.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Callable

from sizing.errors import UsageError
from sizing.render.cells import ColumnSpec, context_label, escape_cell
from sizing.render.flagtext import flag, message_with_code
from sizing.render.i18n import t
from sizing.views import catalog_rows as cr
from sizing.views import plan_rows
from sizing.views import table_rows as tr
from sizing.views.bundle import SiteContext
from sizing.views.context_plans import plan_fields
from sizing.views.policy import PLAN_COMPARISONS
from sizing.views.rows import Rows, as_rows


@dataclass(frozen=True)
class TableSpec:
    """A published table: stable id, columns, rows(ctx), the columns identifying a row, a note."""

    id: str
    columns: tuple[ColumnSpec, ...]
    rows: Callable[[SiteContext], Rows]
    key: tuple[str, ...]
    note: Callable[[SiteContext, str], str] | None = field(default=None, compare=False)


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
        lambda ctx: as_rows(tr.fit_rows)(ctx, server),
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
        lambda c: as_rows(tr.recommendation_rows)(c, size),
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
        "throughput",
        columns,
        as_rows(tr.throughput_rows),
        ("checkpoint", "precision", "server"),
        settings_note,
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
            as_rows(tr.what_fits_rows),
            ("model", "checkpoint", "precision", "server"),
            settings_note,
        ),
        recommendation_spec(ctx, "32b"),
        recommendation_spec(ctx, "671b"),
        TableSpec(
            "quick-reference",
            quick,
            as_rows(tr.quick_reference_rows),
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
        for sid in cr.offer_servers(ctx)
    )
    columns = (
        MODEL,
        PRECISION,
        _c("checkpoint", "col_checkpoint"),
        _c("file_bytes", "col_file_size", "gb"),
        *loads,
    )
    return TableSpec("disk", columns, as_rows(cr.disk_rows), ("model", "checkpoint"))


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
        lambda c: as_rows(plan_rows.plan_comparison_rows)(c, comparison),
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
"""How the fields of a fit view (:func:`sizing.views.rows.fit_view_rows`) are shown (``seq_<ctx>`` added
per view)."""


def view_columns(fields: tuple[str, ...]) -> tuple[ColumnSpec, ...]:
    """Column specs for a fit view's ``fields``: the known ones, in their order (tp/pp/dp and each
    context's plan fold into plan)."""
    hidden = {"tp", "pp", "dp", "change_value", "change_plan", "verdict_context"}
    folded = set(plan_fields(fields))  # each context's plan: in the plan cell
    specs: list[ColumnSpec] = []
    for name in fields:
        if name.startswith("seq_"):
            specs.extend(seq_columns([int(name[4:])]))
        elif name not in hidden and name not in folded:
            specs.append(FRAME_COLUMNS.get(name, _c(name, "col_value")))
    return tuple(specs)


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
        as_rows(cr.weights_rows),
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
        as_rows(cr.gpu_class_rows),
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
        as_rows(cr.cpu_core_rows),
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
        as_rows(cr.host_ram_rows),
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
        as_rows(tr.price_rows),
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
        as_rows(cr.model_catalog_rows),
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
        as_rows(cr.gpu_catalog_rows),
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
        as_rows(cr.server_catalog_rows),
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
        as_rows(cr.precision_catalog_rows),
        ("precision",),
    ),
    TableSpec(
        "assumptions",
        (
            _c("key", "col_assumption", "code"),
            _c("value", "col_value", "code"),
            _c("reason", "col_reason", "catalog"),
        ),
        as_rows(cr.assumption_rows),
        ("key",),
    ),
)
"""The catalog's own tables: models, GPUs, servers, precisions, assumptions."""
