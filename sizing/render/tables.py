"""The renderers of the published tables: site Markdown and HTML, English Markdown, CSV and JSON.

Each takes a :class:`sizing.render.table_specs.TableSpec` (its rows computed from a context) or
:class:`sizing.views.rows.Rows` (a fit view: columns from its fields) and writes the cells
(:mod:`sizing.render.cells`) as one table.
"""

from __future__ import annotations

import html
from typing import Any, Mapping

from sizing.errors import UsageError
from sizing.render.catalog_text import source_links
from sizing.render.cells import (
    NUMERIC,
    ColumnSpec,
    cell_words,
    escape_cell,
    format_cell,
    header,
    is_missing,
    verdict_state,
)
from sizing.render.i18n import t
from sizing.render.table_specs import TableSpec, view_columns
from sizing.views import rows as vr
from sizing.views.bundle import SiteContext
from sizing.views.context_plans import plan_fields
from sizing.views.rows import Rows

# ---------------------------------------------------------------------------------------------
# Renderers
# ---------------------------------------------------------------------------------------------


def _needs(ctx: SiteContext | None, table: TableSpec) -> SiteContext:
    """``ctx``, which a table spec needs to compute its rows (a UsageError naming the table if None)."""
    if ctx is None:
        raise UsageError(f"table {table.id!r}: its rows are computed from a context; none was given")
    return ctx


def resolve(table: TableSpec | Rows, ctx: SiteContext | None) -> tuple[tuple[ColumnSpec, ...], Rows]:
    """(columns, rows) of a spec (computed from ``ctx``, required then) or of a fit view."""
    if isinstance(table, Rows):
        return view_columns(table.fields), table
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
    columns: tuple[ColumnSpec, ...], rows: Rows, lang: str, badges: bool = False
) -> list[list[str]]:
    """The formatted cells of every row (verdicts as badges with ``badges``, the site's choice)."""
    words = cell_words(lang)
    out = []
    for row in rows.records:
        cells = [format_cell(c, row, lang, words) for c in columns]
        out.append([html_cell(c, row, text, lang) for c, text in zip(columns, cells)] if badges else cells)
    return out


def markdown_rows(
    columns: tuple[ColumnSpec, ...], rows: Rows, lang: str, badges: bool = False, aligned: bool = True
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


def html_rows_table(columns: tuple[ColumnSpec, ...], rows: Rows, lang: str) -> str:
    """``rows`` as a site HTML table (:func:`html_table`): translated headers (grouped under one label,
    :func:`group_header_row`, where several columns count sequences), verdict badges."""
    group = group_header_row(columns, lang)
    head = [
        escape_cell(dict(c.args)["context"]) if group and c.header_key == GROUPED_HEADER else header(c, lang)
        for c in columns
    ]
    return html_table(head, row_cells(columns, rows, lang, badges=True), group_row=group)


def to_markdown(
    table: TableSpec | Rows, lang: str, ctx: SiteContext | None = None, badges: bool = False
) -> str:
    """The table as Markdown in ``lang`` (a paragraph saying so when it has no rows), plus its note."""
    columns, rows = resolve(table, ctx)
    body = (
        "\n".join(markdown_rows(columns, rows, lang, badges)) if len(rows) else f"*{t(lang, 'table_empty')}*"
    )
    if not isinstance(table, TableSpec) or table.note is None:
        return body + "\n"
    return body + f"\n\n*{table.note(_needs(ctx, table), lang)}*\n"


def to_markdown_en(table: TableSpec | Rows, ctx: SiteContext | None = None) -> str:
    """The English Markdown of a table (CLI output and committed snapshots)."""
    return to_markdown(table, "en", ctx)


def raw_rows(table: TableSpec | Rows, ctx: SiteContext | None = None) -> Rows:
    """The raw values behind a table: its key and shown columns (plan as tp/pp/dp too), no formatting."""
    columns, rows = resolve(table, ctx)
    keys = table.key if isinstance(table, TableSpec) else ()
    wanted = [*keys, *(c.id for c in columns)]
    if any(c.kind == "plan" for c in columns):
        wanted += ["tp", "pp", "dp", *plan_fields(rows.fields)]
    if any(c.kind == "change" for c in columns):
        wanted += ["change_value", "change_plan"]
    if any(c.kind == "verdict" for c in columns):
        wanted += ["verdict_context"]
    return rows.select(wanted)


def to_csv(table: TableSpec | Rows, ctx: SiteContext | None = None) -> str:
    """The raw values as CSV (:func:`sizing.views.rows.to_csv`)."""
    return vr.to_csv(raw_rows(table, ctx))


def to_json(table: TableSpec | Rows, ctx: SiteContext | None = None) -> str:
    """The raw values as a JSON list of objects, one per row (:func:`sizing.views.rows.to_json`)."""
    return vr.to_json(raw_rows(table, ctx))


def cli_table(view: Rows, fmt: str) -> str:
    """A fit view (:func:`sizing.views.rows.fit_view_rows`) as ``markdown``, ``csv`` or ``json``."""
    if fmt == "csv":
        return to_csv(view)
    if fmt == "json":
        return to_json(view)
    return to_markdown_en(view)
