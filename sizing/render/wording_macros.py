"""Page macros that put computed numbers into sentences: counted nouns and the tables' own plan.

``{{ sz_count("example-1", "seq_32768", "full_requests") }}`` gives ``9 full-context requests`` /
``9 个满上下文请求`` / ``9 запросов полной длины``: the number from the worked example, the noun
in the CLDR plural form the number needs (:func:`sizing.render.plural.plural`, message ``plural_<noun>``).
``{{ sz_table_plan("dh-70b-tp4") }}`` is the plan the summary tables choose for an example's
checkpoint, server and KV cache type, so prose that compares an example with its table row reads
the same value the table shows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sizing.errors import UsageError
from sizing.render.cells import change_label, context_label, plan_label
from sizing.render.explain import fmt_quantity
from sizing.render.flagtext import flag
from sizing.render.i18n import NBSP, fmt_gib, fmt_number, t
from sizing.render.macros import field_source
from sizing.render.plural import percentile, plural
from sizing.units import MiB
from sizing.views.bundle import SiteContext
from sizing.views.catalog_rows import read_speed_gbs
from sizing.views.steps import Quantity
from sizing.views.table_rows import example_table_row
from sizing.views.text_capacity import characters_held
from sizing.views.verdict import launch_verdict, tight_below

__all__ = [
    "assumption",
    "band_percentile",
    "byte_count",
    "count",
    "percentile",
    "table_plan",
    "verdict",
]


def count(lang: str, ctx: SiteContext, example_id: str, field: str, noun: str) -> str:
    """A whole-number field of a worked example followed by ``noun`` in its plural form."""
    column, _ = field_source(field, ctx.contexts)
    number = int(float(ctx.example(example_id)[column]))
    return plural(lang, f"plural_{noun}", number, fmt_number(number, lang))


def table_plan(lang: str, ctx: SiteContext, example_id: str) -> str:
    """The plan label the tables show for an example's checkpoint and server."""
    return plan_label(example_table_row(ctx, example_id), lang)


def change(lang: str, ctx: SiteContext, example_id: str) -> str:
    """For an example that does not fit, the nearest change that would make it fit (flags as code)."""
    return change_label(ctx.example(example_id), lang)


def verdict(lang: str, ctx: SiteContext, example_id: str) -> str:
    """``{{ sz_verdict("dh-70b-bf16-2x80") }}``: the worked example's verdict at its own ``--max-model-len``
    (:func:`sizing.views.verdict.launch_verdict`) as sentences, with what to try where it may not start:
    a shortfall as a positive amount ("short by"), a borderline case with the band that straddles the
    refusal."""
    row, threshold = ctx.example(example_id), tight_below(ctx.catalog.assume)
    state = launch_verdict(row, threshold)
    whole = int(float(row["max_concurrency"])) * int(row["dp"]) if bool(row["fits"]) else 0
    gib = {
        k: fmt_quantity(Quantity(abs(float(row[f"{k}_bytes"])), "gib"), lang)
        for k in ("available_kv", "available_kv_low", "available_kv_high", "kv_cache")
    }
    args = {
        "context": context_label(int(row["max_model_len"])),
        "threshold": fmt_number(threshold, lang),
        "requests": plural(lang, "plural_full_requests", whole, fmt_number(whole, lang)),
        "available": gib["available_kv"],
        "low": _signed(row, "available_kv_low", lang),
        "high": _signed(row, "available_kv_high", lang),
        "short": gib["kv_cache"],
        "tokens": plural(
            lang, "plural_tokens", int(row["kv_cache_tokens"]), fmt_number(int(row["kv_cache_tokens"]), lang)
        ),
        "change": change_label(row, lang),
    }
    short = float(row["kv_cache_bytes"]) < 0
    key = "prose_verdict_" + ("no_fit" + ("" if short else "_tokens") if state == "no-fit" else state)
    if (
        state == "borderline"
        and min(float(row[f"{k}_bytes"]) for k in ("available_kv", "available_kv_low")) < 0
    ):
        key, args["low"] = "prose_verdict_borderline_short", gib["available_kv_low"]  # short by its amount
    return t(lang, key, **args)


def _signed(row: Mapping[str, Any], name: str, lang: str) -> str:
    """A band end in GiB; a negative one reads as a shortfall (:func:`sizing.render.explain.fmt_quantity`)."""
    return fmt_quantity(Quantity(float(row[f"{name}_bytes"]), "gib"), lang)


def assumption(lang: str, ctx: SiteContext, key: str, flag_name: str = "") -> str:
    """``{{ sz_assumption("tight_below_sequences") }}``: a catalog assumption for prose, a number formatted
    for ``lang``; with ``flag_name`` the flag and its raw value as code
    (``--gpu-memory-utilization 0.95``)."""
    if key not in ctx.catalog.assumptions:
        raise UsageError(f"unknown assumption {key!r}; see catalog/assumptions.yaml")
    value = ctx.catalog.assume(key)
    if flag_name:
        return f"`{flag(flag_name, value)}`"
    return fmt_number(value, lang, 0 if float(value).is_integer() else 2)


def context_characters(lang: str, ctx: SiteContext, text_lang: str, tokens: int | None = None) -> str:
    """``{{ sz_context_chars("zh") }}``: how many characters of ``text_lang`` prose a context of ``tokens``
    (default: the catalog's ``max_model_len``) holds, formatted for the page's ``lang``
    (:func:`sizing.views.text_capacity.characters_held`)."""
    length = int(tokens if tokens is not None else ctx.catalog.assume("max_model_len"))
    try:
        return fmt_number(characters_held(length, text_lang, ctx.catalog.assume), lang)
    except KeyError as exc:
        raise UsageError(f"sz_context_chars: {exc.args[0]}") from None


def server_fact(lang: str, ctx: SiteContext, server: str, field: str) -> str:
    """One catalog fact of a server for prose: ``cpu`` (model), ``cores``, ``nvme`` (drives × TB),
    ``network`` (Gbit/s) or ``ram`` (GB), formatted for ``lang``; an unknown field is an error."""
    cat = ctx.catalog
    if server not in cat.servers:
        raise UsageError(f"unknown server {server!r}; see catalog/servers.yaml")
    s = cat.servers[server]
    facts = {
        "cpu": lambda: s.cpu.model if s.cpu else "",
        "cores": lambda: (
            plural(lang, "plural_cores", s.cpu.cores, fmt_number(s.cpu.cores, lang)) if s.cpu else ""
        ),
        "nvme": lambda: (
            (
                f"{fmt_number(s.nvme.drives, lang)} × {fmt_number(s.nvme.drive_tb, lang, 2)}{NBSP}"
                f"{t(lang, 'unit_tb')}"
            )
            if s.nvme
            else ""
        ),
        "network": lambda: (
            f"{fmt_number(s.network_gbps, lang)}{NBSP}{t(lang, 'unit_gbit_per_s')}" if s.network_gbps else ""
        ),
        "ram": lambda: f"{fmt_number(s.ram_gb, lang)}{NBSP}{t(lang, 'unit_gb')}" if s.ram_gb else "",
        "nvme_read": lambda: (
            f"{fmt_number(read_speed_gbs(ctx, server), lang)}{NBSP}{t(lang, 'unit_gb_per_s')}"
        ),
    }
    if field not in facts:
        raise UsageError(f"unknown server field {field!r}; known: {', '.join(facts)}")
    return facts[field]()


def gpu_fact(lang: str, ctx: SiteContext, gpu: str, field: str) -> str:
    """One memory fact of a catalog GPU for prose: ``nominal_gb`` ("80 GB" as sold), ``nominal_gib``
    (the same, binary), ``smi_mib`` and ``smi_gib`` (the ``nvidia-smi`` total)."""
    cat = ctx.catalog
    if gpu not in cat.gpus:
        raise UsageError(f"unknown GPU {gpu!r}; see catalog/gpus.yaml")
    g = cat.gpus[gpu]
    facts = {
        "nominal_gb": lambda: f"{fmt_number(g.memory_gb, lang)}{NBSP}{t(lang, 'unit_gb')}",
        "nominal_gib": lambda: f"{fmt_number(g.memory_gb, lang)}{NBSP}{t(lang, 'unit_gib')}",
        "smi_mib": lambda: f"{fmt_number(g.memory_mib, lang)}{NBSP}{t(lang, 'unit_mib')}",
        "smi_gib": lambda: fmt_gib(g.memory_mib * MiB, lang),
    }
    if field not in facts:
        raise UsageError(f"unknown GPU field {field!r}; known: {', '.join(facts)}")
    return facts[field]()


BANDS = ("kv", "throughput")
"""Bands with their quantiles in the catalog (``<band>_band_quantiles``): available KV memory, throughput."""


def band_percentile(lang: str, ctx: SiteContext, end: str, band: str = "kv") -> str:
    """``{{ sz_band_percentile("low") }}``, ``{{ sz_band_percentile("high", "throughput") }}``: the ``low``
    or ``high`` end of a band as the percentile of the errors it sits at (the catalog's
    ``<band>_band_quantiles``, :func:`percentile`)."""
    if end not in ("low", "high"):
        raise UsageError(f"unknown band end {end!r}; known: low, high")
    if band not in BANDS:
        raise UsageError(f"unknown band {band!r}; known: {', '.join(BANDS)}")
    low, high = ctx.catalog.assume(f"{band}_band_quantiles")
    return percentile(lang, low if end == "low" else high)


def byte_count(lang: str, n: int) -> str:
    """A whole number of bytes with its noun in the CLDR plural form (message ``plural_bytes``)."""
    return plural(lang, "plural_bytes", n, fmt_number(n, lang))
