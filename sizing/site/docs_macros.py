"""mkdocs-macros entry point (``plugins.macros.modules: [sizing.site.docs_macros]``): a thin shim.

All logic lives in the rest of :mod:`sizing`. Each page macro is a plain function
``f(lang, ctx, ...)`` of :mod:`sizing.render.macros`; :func:`define_env` registers it under an ``sz_``
name and passes, read at call time, the language of the page being rendered and the site's
prepared context (:func:`sizing.site.context.active_context`). Adding a macro is one line in
:func:`define_env`::

    _register(env, "sz_table", macros.table)   # {{ sz_table("what-fits") }}

Only ``define_env`` with ``env.macro`` is used, the subset Zensical's macros extension supports.
"""

from __future__ import annotations

import functools
import os
import posixpath
import sys
from collections.abc import Callable
from typing import Any

from sizing.engine import overhead
from sizing.render import calibration_macros, i18n, macros, throughput_render, wording_macros
from sizing.site.context import SNAPSHOT_VAR, SiteContext, active_context, calibrated_context

SERVE_HINT = (
    "note: `make preview LANG=en|zh|ru` is the writers' live preview: the catalog evaluated once "
    "and the explorer's data served too"
)
_hinted: list[bool] = []


def _serve_hint() -> None:
    """Once per process, the one line for a writer who runs ``mkdocs serve -f mkdocs.<lang>.yml`` directly."""
    if not _hinted and "serve" in sys.argv[1:] and not os.environ.get(SNAPSHOT_VAR):
        print(SERVE_HINT, file=sys.stderr)
        _hinted.append(True)


def _register(
    env: Any,
    name: str,
    function: Callable[..., str],
    context: Callable[[], SiteContext] | None = active_context,
) -> None:
    """Register ``function(lang, context(), *args, **kwargs)`` as the macro ``name(*args, **kwargs)``
    (``function(lang, *args, **kwargs)`` when ``context`` is None)."""
    if not name.startswith("sz_"):
        raise ValueError(f"macro {name!r}: site macros are named sz_…")

    @functools.wraps(function)
    def macro(*args: Any, **kwargs: Any) -> str:
        if context is not None:
            return function(i18n.page_lang(env), context(), *args, **kwargs)
        return function(i18n.page_lang(env), *args, **kwargs)

    env.macro(macro, name)


def _source_relative(env: Any) -> bool:
    """Whether relative links in raw HTML resolve against the page's source file, not its URL.

    Zensical (its ``MacroEnv``) rewrites every relative ``href`` as it does Markdown links; MkDocs
    leaves raw HTML as written, relative to the page's URL.
    """
    return type(env).__module__.split(".")[0] == "zensical"


def _link_base(env: Any, page_url: str | None) -> str | None:
    """The URL raw-HTML links of a page must be relative to under this engine: ``page_url`` itself
    (MkDocs), or the folder of the page's source (Zensical: ``"fit-tables/"`` -> ``""``)."""
    if page_url is None or not _source_relative(env):
        return page_url
    folder = posixpath.dirname(page_url.strip("/"))
    return f"{folder}/" if folder else ""


def _register_linking(env: Any) -> None:
    """``sz_downloads(page.url)`` and ``sz_fit_tables(page.url)``, which write raw links, given the
    URL those links must be relative to (:func:`_link_base`)."""

    def sz_downloads(page_url: str | None = None) -> str:
        return macros.downloads(i18n.page_lang(env), active_context(), _link_base(env, page_url))

    def sz_fit_tables(page_url: str | None = None) -> str:
        return macros.fit_tables(i18n.page_lang(env), active_context(), _link_base(env, page_url))

    env.macro(sz_downloads, "sz_downloads")
    env.macro(sz_fit_tables, "sz_fit_tables")


def define_env(env: Any) -> None:
    """Register the site's macros with mkdocs-macros (called once per language build)."""
    _serve_hint()
    _register(env, "sz_t", i18n.t, context=None)  # {{ sz_t("col_model") }} -> the label in the page language
    _register(env, "sz_chart_concurrency", macros.concurrency_chart)  # {{ sz_chart_concurrency("gpu-l40s") }}
    _register(env, "sz_chart_price", macros.price_chart)  # {{ sz_chart_price() }}
    _register(env, "sz_table", macros.table)  # {{ sz_table("what-fits") }}
    _register(env, "sz_column", macros.column)  # {{ sz_column("quick-reference", "change") }}
    _register(env, "sz_example", macros.example)  # {{ sz_example("example-1") }}
    _register(env, "sz_value", macros.value)  # {{ sz_value("example-1", "weights_gib") }}
    _register(env, "sz_command", macros.command)  # {{ sz_command("example-1", engine="sglang") }}
    _register(env, "sz_parallel_tabs", macros.parallel_tabs)  # {{ sz_parallel_tabs(["dh-70b-tp4"]) }}
    _register_linking(env)  # {{ sz_downloads(page.url) }}, {{ sz_fit_tables(page.url) }}
    cm = calibration_macros  # {{ sz_calibration_table() }}, the grouped table and the logs left out
    _register(env, "sz_calibration_table", cm.calibration_table, calibrated_context)
    _register(env, "sz_calibration_grouped_table", cm.calibration_grouped_table, calibrated_context)
    _register(env, "sz_calibration_left_table", cm.calibration_left_table, calibrated_context)
    _register(env, "sz_explorer", macros.explorer)  # {{ sz_explorer(page.url) }}
    _register(env, "sz_headline", macros.headline)  # {{ sz_headline("example-1", page.url) }}
    _register(env, "sz_kv_note", macros.kv_note)  # {{ sz_kv_note() }}: the KV type the page's figures assume
    _register(env, "sz_count", wording_macros.count)  # {{ sz_count("example-1", "seq_32768", "requests") }}
    _register(env, "sz_table_plan", wording_macros.table_plan)  # {{ sz_table_plan("dh-70b-tp4") }}
    _register(env, "sz_change", wording_macros.change)  # {{ sz_change("dh-70b-bf16-2x80") }}
    _register(env, "sz_verdict", wording_macros.verdict)  # {{ sz_verdict("dh-70b-bf16-2x80") }}
    _register(env, "sz_band_percentile", wording_macros.band_percentile)  # {{ sz_band_percentile("low") }}
    _register(env, "sz_assumption", wording_macros.assumption)  # {{ sz_assumption("tight_below_sequences") }}
    _register(env, "sz_gpu_fact", wording_macros.gpu_fact)  # {{ sz_gpu_fact("a100-80gb", "smi_mib") }}
    _register(env, "sz_server_fact", wording_macros.server_fact)  # {{ sz_server_fact("gpu-l40s", "cpu") }}
    _register(env, "sz_context_chars", wording_macros.context_characters)  # {{ sz_context_chars("zh") }}
    _register_throughput(env)
    _register_constants(env)


def _register_throughput(env: Any) -> None:
    """The throughput macros (:mod:`sizing.render.throughput_render`)."""
    tr = throughput_render
    for name, function in (
        ("sz_tp_ladder", tr.throughput_ladder),
        ("sz_tp_chart", tr.throughput_chart),
        ("sz_tp_example", tr.throughput_example),
        ("sz_tp_calibration", tr.calibration_table),
        ("sz_tp_workloads", tr.workloads_table),
        ("sz_tp_target", tr.speed_target),
        ("sz_tp_page_workload", tr.page_workload),
        ("sz_tp_bench", tr.bench_block),
    ):
        _register(env, name, function)  # {{ sz_tp_ladder("gpu-l40s") }}, {{ sz_tp_example("example-1", 16) }}


LOGIT_BYTES = {
    "v1": overhead.SAMPLER_BYTES_PER_LOGIT,
    "v1_sort": overhead.SORT_SAMPLER_BYTES_PER_LOGIT,
    "v2": overhead.V2_SAMPLER_BYTES_PER_LOGIT,
    "v2_warmup": overhead.V2_SAMPLER_WARMUP_BYTES_PER_LOGIT,
}
"""The sampler's bytes per logit by runner and release
(:func:`sizing.engine.overhead.sampler_bytes_per_logit`)."""


def _register_constants(env: Any) -> None:
    """``sz_logit_bytes("v1" | "v1_sort" | "v2" | "v2_warmup")``: the sampler's bytes per logit
    (:data:`LOGIT_BYTES`)."""

    def sz_logit_bytes(kind: str) -> str:
        return wording_macros.byte_count(i18n.page_lang(env), LOGIT_BYTES[kind])

    env.macro(sz_logit_bytes, "sz_logit_bytes")
