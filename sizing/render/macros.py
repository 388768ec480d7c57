"""The page macros: each ``f(lang, ctx, ...) -> str`` returns Markdown (or raw HTML) for one page language.

:mod:`sizing.site.docs_macros` registers them under ``sz_`` names; pages call them identically in every
language, e.g. ``{{ sz_table("what-fits") }}``. Everything is computed from the cached site
context, which :mod:`sizing.site.docs_macros` passes as ``ctx`` (a :class:`sizing.views.bundle.SiteContext`
prepared once per build): the macros compute nothing themselves and read no global state.

Output contract: tables come wrapped in ``<div class="sz-sortable" markdown>`` (read by
``overrides/assets/javascripts/tablesort-init.js``); the fit-table filter is an
``<input class="sz-filter" data-target=…>`` (read by ``table-filter.js``); commands are fenced
``bash`` blocks, byte-identical in every language; download links are raw HTML relative to the page.
"""

from __future__ import annotations

import html
from typing import Any, Iterable

from sizing.errors import UsageError
from sizing.launch.commands import engine_builder, launch_nodes
from sizing.render.catalog_text import server_name
from sizing.render.cells import (
    VERDICT_WORD,
    context_label,
    escape_cell,
    header,
    plan_label,
    verdict_state,
    verdict_text,
)
from sizing.render.charts import concurrency_svg
from sizing.render.explain import Quantity, caption, explain_markdown, fmt_quantity
from sizing.render.explorer_render import explorer_page, server_caption
from sizing.render.flagtext import flag, message_with_code
from sizing.render.i18n import fmt_number, t
from sizing.render.plural import plural
from sizing.render.price_chart import price_svg
from sizing.render.table_specs import fit_spec, get_spec, settings_note
from sizing.render.tables import badge, html_rows_table, html_table, to_markdown
from sizing.views.bundle import SiteContext
from sizing.views.policy import CHARTED_KINDS, fit_table_servers
from sizing.views.series import check_server
from sizing.views.table_rows import server_kv, server_prices

FIT_TABLES_ID = "sz-fit-tables"
CATALOG_TABLES = ("catalog-gpus", "catalog-servers", "catalog-models", "catalog-precisions", "assumptions")
"""Reference tables drawn compact (``sz-catalog``): one line per cell, long texts in a bounded box."""
DOWNLOADS = ("fits.csv", "fits.json")


def sortable(markdown: str, lang: str | None = None, rows: int | None = None) -> str:
    """``markdown`` (a table) inside the container tablesort-init.js makes sortable; with ``lang``,
    it carries the scroll hint table-scroll.js shows when the table is wider than the page and, given
    its number of ``rows``, the line it shows under a table taller than its box (``12 rows, scroll
    inside the table``)."""
    hint = f' data-scroll-hint="{html.escape(t(lang, "scroll_hint"), quote=True)}"' if lang else ""
    if lang and rows:
        count = plural(lang, "plural_rows_scroll", rows, fmt_number(rows, lang))
        hint += f' data-rows-hint="{html.escape(count, quote=True)}"'
    return f'\n<div class="sz-sortable" data-search-exclude{hint} markdown>\n\n{markdown.strip()}\n\n</div>\n'


def markdown_rows(markdown: str) -> int:
    """The body rows of the Markdown table in ``markdown`` (its lines starting with ``|``, less the
    header and the delimiter row)."""
    return max(0, sum(line.startswith("|") for line in markdown.splitlines()) - 2)


# ---------------------------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------------------------


def table(lang: str, ctx: SiteContext, table_id: str) -> str:
    """``{{ sz_table("what-fits") }}``: one published table, sortable, with its settings note."""
    markdown = to_markdown(get_spec(ctx, table_id), lang, ctx, badges=True)
    out = sortable(markdown, lang, markdown_rows(markdown))
    return (
        out.replace('class="sz-sortable"', 'class="sz-sortable sz-catalog"', 1)
        if table_id in CATALOG_TABLES
        else out
    )


def kv_note(lang: str, ctx: SiteContext) -> str:
    """``{{ sz_kv_note() }}``: the KV cache type, memory share and context the page's figures assume,
    and why the command line (like vLLM) defaults to ``auto`` instead."""
    return settings_note(ctx, lang, "kv_note", auto=flag("--kv-cache-dtype", "auto")) + "\n{ .sz-kv-note }\n"


def column(lang: str, ctx: SiteContext, table_id: str, column_id: str) -> str:
    """``{{ sz_column("quick-reference", "change") }}``: the header of one column of a published table, in
    bold, as the page shows it. The one checked place a page refers to a column: an unknown table or column
    stops the build, so no page can name a column its table does not have."""
    spec = get_spec(ctx, table_id)
    found = [c for c in spec.columns if c.id == column_id]
    if not found:
        known = ", ".join(c.id for c in spec.columns)
        raise UsageError(f"table {table_id!r} has no column {column_id!r}; its columns: {known}")
    return f"**{header(found[0], lang)}**"


def filter_box(lang: str, target: str) -> str:
    """A labelled text box that filters the rows of every table inside the element ``target``, and
    the message it shows when no row matches (read by table-filter.js)."""
    label, hint = html.escape(t(lang, "filter_label")), html.escape(t(lang, "filter_placeholder"), quote=True)
    empty = html.escape(t(lang, "filter_no_rows"))
    return (
        f'<div class="sz-filter-box"><label class="sz-filter-label">{label} <input class="sz-filter" '
        f'type="search" data-target="{target}" placeholder="{hint}" aria-label="{label}"></label>'
        f'<p class="sz-filter-empty" data-for="{target}" role="status" hidden>{empty}</p></div>'
    )


def server_section(ctx: SiteContext, server: str, lang: str) -> str:
    """One server's fit table under an H3 heading ``{ #fit-<server id> }`` with its GPUs, in a
    ``sz-fit-section`` block the filter matches as a whole (server and GPU names)."""
    s = ctx.catalog.servers[server]
    spec = fit_spec(server, ctx.contexts)
    rows = spec.rows(ctx)
    table_html = html_rows_table(spec.columns, rows, lang)
    chart = concurrency_chart(lang, ctx, server) if s.kind in CHARTED_KINDS else ""
    return (
        f'<div class="sz-fit-section" markdown>\n\n### {escape_cell(server_name(lang, s.name))} '
        f"{{ #fit-{server} }}\n\n"
        f'<p class="sz-fit-caption">{escape_cell(server_caption(ctx, server, lang))}</p>\n'
        + sortable(table_html, lang, len(rows))
        + f"\n{chart}\n\n</div>\n"
    )


def verdict_counts(ctx: SiteContext, server: str) -> dict[str, int]:
    """How many rows of the server's fit table fit, are tight, borderline and do not fit (by verdict)."""
    states = fit_spec(server, ctx.contexts).rows(ctx).column("verdict")
    return {state: states.count(state) for state in VERDICT_WORD}


def other_servers_section(ctx: SiteContext, servers: list[str], lang: str, explorer_url: str) -> str:
    """The servers without a whole table on the page, one row each (``id="fit-<server id>"``): the
    server, linking to the explorer with it chosen, its GPUs, the KV cache type its rows are counted with
    (``auto`` on GPUs with no FP8 KV backend, as the full tables' settings line says) and how many fit-table
    rows fit, are tight and do not fit."""
    keys = ("col_server", "col_gpu", "col_kv_cache_dtype", *VERDICT_WORD.values())
    head = [escape_cell(t(lang, key)) for key in keys]
    body = []
    for sid in servers:
        name = escape_cell(server_name(lang, ctx.catalog.servers[sid].name))
        counts = verdict_counts(ctx, sid)
        body.append(
            [
                f'<a href="{html.escape(explorer_url)}#server={sid}">{name}</a>',
                escape_cell(server_caption(ctx, sid, lang)),
                f"<code>{html.escape(flag('--kv-cache-dtype', server_kv(ctx, sid)))}</code>",
                *(fmt_number(n, lang) for n in counts.values()),
            ]
        )
    table_html = html_table(head, body, [f"fit-{sid}" for sid in servers])
    return (
        '<div class="sz-fit-section sz-fit-others" markdown>\n\n### '
        f"{escape_cell(t(lang, 'fit_other_servers'))} "
        f"{{ #fit-other-servers }}\n\n<p "
        f'class="sz-fit-note">{escape_cell(t(lang, "fit_other_servers_note"))}</p>\n'
        + sortable(table_html, lang, len(body))
        + "\n</div>\n"
    )


def explorer_url(lang: str, page_url: str | None) -> str:
    """The relative URL of the page language's explorer from ``page_url`` (see :func:`root_prefix`)."""
    return root_prefix(lang, page_url) + ("" if lang == ROOT_LANG else f"{lang}/") + "explorer/"


def fit_tables(lang: str, ctx: SiteContext, page_url: str | None = None) -> str:
    """``{{ sz_fit_tables(page.url) }}``: a filter box, the settings, one sortable table per server of
    :func:`sizing.views.policy.fit_table_servers`, then one summary row per other server."""
    full = fit_table_servers({sid: s.kind for sid, s in ctx.catalog.servers.items()})
    others = [sid for sid in ctx.catalog.servers if sid not in full]
    sections = [server_section(ctx, sid, lang) for sid in full]
    if others:
        sections.append(other_servers_section(ctx, others, lang, explorer_url(lang, page_url)))
    note = settings_note(ctx, lang)
    return (
        f"\n{filter_box(lang, FIT_TABLES_ID)}\n\n*{note}*\n\n"
        f'<div id="{FIT_TABLES_ID}" markdown>\n\n' + "\n".join(sections) + "\n</div>\n"
    )


# ---------------------------------------------------------------------------------------------
# Charts
# ---------------------------------------------------------------------------------------------


def concurrency_chart(lang: str, ctx: SiteContext, server: str) -> str:
    """``{{ sz_chart_concurrency("gpu-l40s") }}``: the concurrency figure of one server (its prepared
    series)."""
    check_server(ctx.catalog, server)
    return concurrency_svg(lang, ctx.catalog, server, ctx.series.get(server, ()), ctx.vllm_version)


def price_chart(lang: str, ctx: SiteContext) -> str:
    """``{{ sz_chart_price() }}``: monthly price per GB of GPU memory of every priced server."""
    return price_svg(lang, server_prices(ctx))


# ---------------------------------------------------------------------------------------------
# Worked examples
# ---------------------------------------------------------------------------------------------

FIELDS: dict[str, tuple[str, str]] = {
    "total_gib": ("total_bytes", "gib"),
    "budget_gib": ("budget_bytes", "gib"),
    "checkpoint_gib": ("w_total", "gib"),
    "weights_gib": ("weights_bytes", "gib"),
    "activation_gib": ("activation_bytes", "gib"),
    "nontorch_gib": ("nontorch_bytes", "gib"),
    "cudagraph_gib": ("cudagraph_bytes", "gib"),
    "available_kv_gib": ("available_kv_bytes", "gib"),
    "kv_cache_gib": ("kv_cache_bytes", "gib"),
    "kv_kib_per_token": ("kv_bytes_per_token", "kib"),
    "bytes_per_block_kib": ("bytes_per_block", "kib"),
    "kv_cache_tokens": ("kv_cache_tokens", "count"),
    "num_gpu_blocks": ("num_gpu_blocks", "count"),
    "max_concurrency": ("max_concurrency", "plain2"),
    "decode_tps_ceiling": ("decode_tps_ceiling", "tokens_per_s"),
    "max_model_len": ("max_model_len", "count"),
    "gpu_memory_utilization": ("gpu_memory_utilization", "plain2"),
    "block_size": ("block_size", "count"),
    "tp": ("tp", "count"),
    "pp": ("pp", "count"),
    "dp": ("dp", "count"),
    "gpus": ("server_gpus", "count"),
    "draft_gib": ("draft_weights_bytes", "gib"),
    "spec_tokens": ("spec_tokens", "count"),
}
"""Fields of :func:`value`; plus ``seq_<ctx>``, ``concurrency_<ctx>`` and ``decode_tps_<ctx>``."""
PER_CONTEXT = {
    "seq": ("sequences", "count"),
    "concurrency": ("concurrency", "plain2"),
    "decode_tps": ("decode_tps", "tokens_per_s"),
}


def field_source(field: str, contexts: Iterable[int]) -> tuple[str, str]:
    """(row column, quantity unit) of a :func:`value` field; an unknown field is an error listing them."""
    if field in FIELDS:
        return FIELDS[field]
    prefix, _, ctx = field.rpartition("_")
    if prefix in PER_CONTEXT and ctx.isdigit() and int(ctx) in contexts:
        column, unit = PER_CONTEXT[prefix]
        return f"{column}_{ctx}", unit
    known = [*FIELDS, *(f"{p}_{c}" for p in PER_CONTEXT for c in contexts)]
    raise UsageError(f"unknown field {field!r}; known: {', '.join(known)}")


def value(lang: str, ctx: SiteContext, example_id: str, field: str) -> str:
    """``{{ sz_value("example-1", "weights_gib") }}``: one number of a worked example, with its unit."""
    column, unit = field_source(field, ctx.contexts)
    return fmt_quantity(Quantity(float(ctx.example(example_id)[column]), unit), lang)


def example(lang: str, ctx: SiteContext, example_id: str) -> str:
    """``{{ sz_example("example-1") }}``: the worked example, every step with its unit."""
    return "\n" + explain_markdown(ctx.example(example_id), ctx.catalog, lang)


def engine_command(ctx: SiteContext, example_id: str, engine: str, node_rank: int = 0) -> str:
    """The vLLM or SGLang command of an example on node ``node_rank``, as plain text."""
    return engine_builder(engine)(ctx.example(example_id), ctx.catalog, node_rank)


def fenced(command: str) -> str:
    """``command`` in a fenced bash block."""
    return f"\n```bash\n{command}\n```\n"


def command(lang: str, ctx: SiteContext, example_id: str, engine: str = "vllm") -> str:
    """``{{ sz_command("example-1") }}``: the launch command in a bash block, one block per node where one
    engine spans several nodes (each under "On node N:"), and a note where every node runs the same one."""
    row = ctx.example(example_id)
    nodes = launch_nodes(row, engine)
    if nodes == 1:
        note = f"\n{t(lang, 'launch_every_node')}\n" if int(row.get("nodes", 1)) > 1 else ""
        return note + fenced(engine_command(ctx, example_id, engine))
    return "".join(
        f"\n{t(lang, 'launch_node', rank=fmt_number(r, lang))}\n"
        + fenced(engine_command(ctx, example_id, engine, r))
        for r in range(nodes)
    )


def parallel_tabs(lang: str, ctx: SiteContext, example_ids: str | Iterable[str]) -> str:
    """``{{ sz_parallel_tabs(["dh-671b-fp8-8xh200", ...]) }}``: per example, vLLM and SGLang tabs."""
    ids = [example_ids] if isinstance(example_ids, str) else list(example_ids)
    parts = []
    for eid in ids:
        title, _ = caption(ctx.example(eid), ctx.catalog, lang)
        parts.append(
            f"\n**{escape_cell(title)}**\n\n/// tab | vLLM\n    new: true\n"
            f"{command(lang, ctx, eid, 'vllm')}\n///\n\n"
            f"/// tab | SGLang\n{command(lang, ctx, eid, 'sglang')}\n///\n"
        )
    return "".join(parts)


# ---------------------------------------------------------------------------------------------
# Downloads and calibration
# ---------------------------------------------------------------------------------------------


ROOT_LANG = "en"
"""The language built at the site root; the others live one folder below it (scripts/docs.py)."""


def root_prefix(lang: str, page_url: str | None) -> str:
    """The relative path from a page to the site root: one ``../`` per folder of ``page_url`` (as
    MkDocs gives it, e.g. ``fit-tables/``; None means one folder), one more outside the root language."""
    depth = 1 if page_url is None else page_url.lstrip("/").count("/")
    return "../" * (depth + (0 if lang == ROOT_LANG else 1))


def downloads(lang: str, ctx: SiteContext, page_url: str | None = None) -> str:
    """``{{ sz_downloads(page.url) }}``: raw links to the site root's downloads/fits.csv and fits.json.

    The files are written once per site, at its root, by :func:`sizing.review.downloads.write_downloads`
    (``scripts/docs.py build``); every language links to the same copy.
    """
    del ctx  # the same files for every catalog
    prefix = root_prefix(lang, page_url)
    links = [
        f'<a href="{prefix}downloads/{name}" download>{html.escape(t(lang, key))}</a>'
        for name, key in zip(DOWNLOADS, ("download_csv", "download_json"))
    ]
    return f'\n<p class="sz-downloads">{" · ".join(links)}</p>\n'


def explorer(lang: str, ctx: SiteContext, page_url: str | None = None) -> str:
    """``{{ sz_explorer(page.url) }}``: the explorer (controls, result, heatmap); its data files are
    written once at the site root (:func:`sizing.render.explorer_render.explorer_files`)."""
    return explorer_page(ctx, lang, root_prefix(lang, page_url))


# ---------------------------------------------------------------------------------------------
# Home page
# ---------------------------------------------------------------------------------------------


def headline(lang: str, ctx: SiteContext, example_id: str, page_url: str | None = None) -> str:
    """``{{ sz_headline("example-1", page.url) }}``: one server's headline answer, as a card: the
    server, the example's verdict badge, model, precision, plan and whole sequences at its length,
    and a link opening that answer in the explorer."""
    row = ctx.example(example_id)
    cat = ctx.catalog
    context = int(row["max_model_len"])
    answer = t(
        lang,
        "headline_answer",
        model=cat.models[str(row["model"])].name,
        precision=cat.precisions[str(row["precision"])].name,
        plan=plan_label(row, lang),
        context=context_label(context),
        sequences=fmt_number(int(row[f"sequences_{context}"]), lang),
    )
    verdict = badge(html.escape(verdict_text(row, lang)), verdict_state(row))
    settings = message_with_code(
        lang,
        "headline_settings",
        {
            "kv": flag("--kv-cache-dtype", row["kv_cache_dtype"]),
            "max_model_len": flag("--max-model-len", context),
        },
    )
    link = (
        "../" * (0 if page_url is None else page_url.lstrip("/").count("/"))
        + "explorer/"
        + headline_hash(row)
    )
    return (
        '<div class="sz-headline"><p '
        f'class="sz-headline__server">{html.escape(server_name(lang, cat.servers[str(row["server"])].name))}'
        f'</p><p class="sz-headline__answer">{verdict} {html.escape(answer)}</p>'
        f'<p class="sz-headline__settings">{settings}</p>'
        '<a class="sz-headline__link" '
        f'href="{html.escape(link)}">{html.escape(t(lang, "headline_open"))}</a></div>'
    )


def headline_hash(row: Any) -> str:
    """The explorer state of an evaluated row (see ``explorer.js``)."""
    pairs = (
        ("model", row["model"]),
        ("checkpoint", row["checkpoint"]),
        ("precision", row["precision"]),
        ("server", row["server"]),
        ("kv", row["kv_cache_dtype"]),
        ("ctx", int(row["max_model_len"])),
    )
    return "#" + "&".join(f"{k}={v}" for k, v in pairs)
