"""The explorer's data files and page, rendered once by the build (formatting with Babel per language).

Two kinds of JSON file are written at the site root (``data/``, by ``scripts/docs.py build``):

- ``explorer.json``, language-neutral (:mod:`sizing.views.explorer`): the ids, each row's status per
  context, its memory bar widths and its ``vllm serve`` command, the heatmap (best row per model, server
  and context), and ``advice``: for each row that does not start at its length, its nearest change as
  data (row index -> ``[kind, value, target]``, :func:`sizing.views.explorer.advice_entries`), so the
  page can link each suggestion to its case;
- ``explorer.<lang>.json``: every label and every number of every row, already formatted;
- ``ladder.<server>.<lang>.json``: the chat ladders (concurrency → tokens/s, per user, TTFT, TPOT, $ per 1M)
  of the server's rows, formatted (:mod:`sizing.render.explorer_ladder`); a neutral row's ``ladder`` indexes
  its server's file, which explorer.js fetches when the answer shows that server.

Both are column-oriented (``fields`` names the columns, ``columns`` holds one array per field, all
in the same row order), and repeated strings are stored once: a column holds indices into a string
table (``checkpoints``; ``lines`` for the command lines; ``texts`` for a language's strings), each
ordered most-used first so the commonest indices are the shortest. Each language page loads the
neutral file and its own language's file only.

``overrides/assets/javascripts/explorer.js`` only looks these up and shows them: the browser does
no arithmetic. The command is stored once per row (once per context for the few rows launched on another
plan at some context) with ``{ctx}`` where the chosen context goes (the browser substitutes the raw
token count, which is code and the same in every language).
The page (:func:`explorer_page`) carries the controls, the heatmap at the default context as static
HTML (what a reader without JavaScript sees; explorer.js links its cells) and the links to the data files.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

from sizing.render.catalog_text import server_name
from sizing.render.cells import change_label, context_label, plan_label
from sizing.render.explain import Quantity, fmt_quantity
from sizing.render.explorer_ladder import HEAD as LADDER_HEAD
from sizing.render.explorer_ladder import file_name, server_ladders
from sizing.render.i18n import LANGS, fmt_gib, fmt_number, t
from sizing.units import MiB
from sizing.views.bundle import SiteContext
from sizing.views.context_plans import differs_at, plan_at
from sizing.views.explorer import (
    DEFAULT_CONTEXT,
    NEUTRAL_FIELDS,
    at_context,
    by_frequency,
    column_file,
    interned,
    neutral_of,
    server_memory_bytes,
)
from sizing.views.verdict import STARTS

LABELS = (
    "explorer_model",
    "explorer_precision",
    "explorer_server",
    "explorer_context",
    "explorer_kv",
    "explorer_verdict",
    "explorer_plan",
    "explorer_why",
    "explorer_sequences",
    "explorer_decode",
    "explorer_memory",
    "explorer_weights",
    "explorer_overhead",
    "explorer_kvcache",
    "explorer_free",
    "explorer_command",
    "explorer_change",
    "explorer_link",
    "explorer_copy",
    "explorer_copied",
    "explorer_budget",
    "explorer_kv_auto",
    "explorer_tried",
    "explorer_settings",
    "explorer_ladder",
)
HEAT_KEYS = {
    "fits": "heat_fits",
    "tight": "heat_tight",
    "borderline": "heat_borderline",
    "no-fit": "heat_no_fit",
    "unsupported": "heat_unsupported",
    "beyond": "heat_beyond",
}
STATUS_KEYS = {
    "fits": "verdict_fits",
    "tight": "verdict_tight",
    "borderline": "verdict_borderline",
    "no-fit": "verdict_does_not_fit",
    "unsupported": "verdict_unsupported",
    "beyond": "explorer_status_beyond",
}


CODE_MARK = "`"
"""Marks a code span in a note: explorer.js turns ``Lower the context: `--max-model-len 25600` `` into
text and a ``<code>`` element (it never parses markup)."""


def marked(cell: str) -> str:
    """A table cell's HTML (escaped text with ``<code>`` spans) as plain text with :data:`CODE_MARK` spans."""
    return html.unescape(re.sub(r"</?code>", CODE_MARK, cell))


def row_note(row: dict[str, Any], context: int, lang: str) -> str:
    """Why this plan (when it fits at ``context``) or the nearest change that would make it fit, code
    spans :func:`marked`."""
    state = row[f"status_{context}"]
    if state == "beyond":
        return t(lang, "explorer_beyond", context=fmt_number(int(row["max_context"]), lang))
    if state == "unsupported":  # no kernel: no memory change helps
        return t(lang, "prose_verdict_unsupported")
    starts_to = int(row["verdict_context"]) if row["verdict"] in STARTS else 0
    if state in STARTS and not bool(row["fits"]):  # starts at this context, not at the catalog's length
        return marked(change_label({"change": "max-model-len", "change_value": context}, lang))
    if state in ("no-fit", "borderline") and starts_to:  # a shorter context starts
        return marked(change_label({"change": "max-model-len", "change_value": starts_to}, lang))
    return marked(change_label(row, lang))


def language_row(row: dict[str, Any], contexts: list[int], lang: str, texts: dict[str, int]) -> list[int]:
    """One row's formatted strings, as indices into ``texts``: plan; sequences, decode ceiling and
    note per context; weights, overhead and KV cache of the fullest GPU; then, for a row launched on
    another plan at some context, per context that plan and its weights, overhead and KV cache
    (:func:`plans_at` moves these to the file's ``plan_at``)."""

    def seq(c: int) -> str:
        return "—" if row[f"status_{c}"] == "beyond" else fmt_number(int(row[f"sequences_{c}"]), lang)

    def tps(c: int) -> str:
        value = float(row[f"decode_tps_{c}"])
        starts = row[f"status_{c}"] in STARTS
        return fmt_quantity(Quantity(value, "tokens_per_s"), lang) if starts else "—"

    def memory(at: dict[str, Any]) -> list[str]:
        parts = [fmt_gib(float(at[k]), lang) for k in ("weights_bytes", "overhead_bytes")]
        return [*parts, fmt_gib(max(float(at["kv_cache_bytes"]), 0.0), lang)]

    strings = [
        plan_label(row, lang),
        *(seq(c) for c in contexts),
        *(tps(c) for c in contexts),
        *(row_note(row, c, lang) for c in contexts),
        *memory(row),
    ]
    if any(differs_at(row, c) for c in contexts):
        strings += [
            s for c in contexts for s in (plan_label(plan_at(row, c), lang), *memory(at_context(row, c)))
        ]
    return interned(strings, texts)


PER_CONTEXT_STRINGS = 4
"""Strings per context of a row launched on another plan somewhere: plan, weights, overhead, KV cache."""


def plans_at(rows: list[list[int]], contexts: list[int]) -> dict[str, list[list[int]]]:
    """The rows of :func:`language_row` launched on another plan at some context: row index -> per context
    the indices of that plan, its weights, overhead and KV cache (stored apart: few rows have them)."""
    base = len(language_fields(contexts))
    return {
        str(index): [row[i : i + PER_CONTEXT_STRINGS] for i in range(base, len(row), PER_CONTEXT_STRINGS)]
        for index, row in enumerate(rows)
        if len(row) > base
    }


def server_memory(memory: list[tuple[float, float]], lang: str) -> list[list[str]]:
    """Per server: vLLM's budget and the total memory of one GPU, formatted."""
    return [[fmt_gib(budget, lang), fmt_gib(total, lang)] for budget, total in memory]


def server_caption(ctx: SiteContext, server: str, lang: str) -> str:
    """``2 × NVIDIA RTX PRO 6000 …, 94.97 GiB per GPU (nvidia-smi)``."""
    s = ctx.catalog.servers[server]
    gpu = ctx.catalog.gpus[s.gpu]
    return t(
        lang,
        "fit_server_caption",
        gpus=fmt_number(s.gpus_per_node * s.nodes, lang),
        gpu=gpu.name,
        memory=fmt_gib(gpu.memory_mib * MiB, lang),
    )


def language_payload(
    ctx: SiteContext, rows: list[dict[str, Any]], neutral: dict[str, Any], lang: str
) -> dict[str, Any]:
    """The ``lang`` explorer file: labels, names and every row's formatted strings (same row order)."""
    cat, table = ctx.catalog, dict[str, int]()
    texts, flat = by_frequency(table, [language_row(r, ctx.contexts, lang, table) for r in rows])
    out = [row[: len(language_fields(ctx.contexts))] for row in flat]
    return {
        "lang": lang,
        "labels": {k: t(lang, k) for k in LABELS},
        "ladder_head": [t(lang, k) for k in LADDER_HEAD],
        "status": {s: t(lang, k) for s, k in STATUS_KEYS.items()},
        "heat": {s: t(lang, k) for s, k in HEAT_KEYS.items()},
        "contexts": [context_label(c) for c in ctx.contexts],
        "models": [cat.models[m].name for m in neutral["models"]],
        "servers": [server_name(lang, cat.servers[s].name) for s in neutral["servers"]],
        "server_notes": [server_caption(ctx, s, lang) for s in neutral["servers"]],
        "server_memory": server_memory(server_memory_bytes(rows, neutral["servers"]), lang),
        "precisions": [cat.precisions[p].name for p in neutral["precisions"]],
        "texts": texts,
        "rows": out,
        "plan_at": plans_at(flat, ctx.contexts),
    }


def language_fields(contexts: list[int]) -> list[str]:
    """A language row's fields, each an index into ``texts``: the plan; sequences, decode ceiling
    and note per context; weights, overhead and KV cache of the fullest GPU (a row launched on another
    plan at some context has that plan's strings in the file's ``plan_at``, :func:`plans_at`)."""
    per = [f"{name}_{c}" for name in ("sequences", "decode", "note") for c in contexts]
    return ["plan", *per, "weights", "overhead", "kv_cache"]


def explorer_payloads(ctx: SiteContext) -> dict[str, dict[str, Any]]:
    """The explorer files as data, one list per row (what :func:`explorer_page` reads)."""
    rows, neutral = neutral_of(ctx)
    files = {"explorer.json": neutral}
    files.update({f"explorer.{lang}.json": language_payload(ctx, rows, neutral, lang) for lang in LANGS})
    for lang in LANGS:
        files.update({name: ladder_file(ladders) for name, ladders in server_ladders(ctx, lang).items()})
    return files


def ladder_file(ladders: list[list[str]]) -> dict[str, Any]:
    """One server's ladder file: ``ladders`` as indices into its own ``texts`` (most-used first)."""
    table: dict[str, int] = {}
    texts, used = by_frequency(table, [interned(strings, table) for strings in ladders])
    return {"texts": texts, "ladders": used}


def explorer_files(ctx: SiteContext) -> dict[str, str]:
    """``{file name: JSON text}`` of the explorer's data files (written under ``data/``), column-oriented."""
    files = {
        name: data
        if name.startswith("ladder.")
        else column_file(
            data, list(NEUTRAL_FIELDS) if name == "explorer.json" else language_fields(ctx.contexts)
        )
        for name, data in (ctx.explorer or explorer_payloads(ctx)).items()
    }
    return {
        name: json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"
        for name, data in files.items()
    }


# ---------------------------------------------------------------------------------------------
# The page
# ---------------------------------------------------------------------------------------------

CONTROLS = (
    ("model", "explorer_model"),
    ("variant", "explorer_precision"),
    ("server", "explorer_server"),
    ("ctx", "explorer_context"),
    ("kv", "explorer_kv"),
)
"""The explorer's choices: form field name and its label's message key (explorer.js fills them)."""


def page_payloads(ctx: SiteContext, lang: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The neutral file and the ``lang`` file as data: a language build formats its own strings only
    (the build's once-only step formats all of them into ``ctx.explorer``; then this only reads)."""
    if ctx.explorer:
        return ctx.explorer["explorer.json"], ctx.explorer[f"explorer.{lang}.json"]
    rows, neutral = neutral_of(ctx)
    return neutral, language_payload(ctx, rows, neutral, lang)


def heat_cell(neutral: dict[str, Any], local: dict[str, Any], index: int, context: int) -> str:
    """One heatmap cell: sequences and a status word, coloured. explorer.js makes it a link to that
    answer (``#model=…&server=…``); the static page, read without JavaScript, needs no link."""
    position = neutral["contexts"].index(context)
    row = neutral["rows"][index]
    state = neutral["statuses"][int(row[5][position])]
    number = local["texts"][local["rows"][index][1 + position]] if state in ("fits", "tight") else ""
    label = html.escape(local["heat"][state])
    text = f"{html.escape(number)} <small>{label}</small>" if number else f"<small>{label}</small>"
    return f'<td class="sz-heat sz-heat--{state}">{text}</td>'


def heatmap_table(neutral: dict[str, Any], local: dict[str, Any], context: int) -> str:
    """The model × server heatmap at ``context`` as an HTML table (rows models, columns servers)."""
    head = "".join(f'<th scope="col">{html.escape(name)}</th>' for name in local["servers"])
    body = []
    for m, cells in enumerate(neutral["heat"][str(context)]):
        tds = "".join(heat_cell(neutral, local, i, context) for i in cells)
        body.append(f'<tr><th scope="row">{html.escape(local["models"][m])}</th>{tds}</tr>')
    return (
        f'<table class="sz-heatmap" data-ctx="{context}"><thead><tr><th '
        f'scope="col">{html.escape(local["labels"]["explorer_model"])}'
        f"</th>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


def explorer_page(ctx: SiteContext, lang: str, root: str) -> str:
    """The explorer's HTML: controls and result (shown by explorer.js), a no-script note, and the
    heatmap at :data:`DEFAULT_CONTEXT`; ``root`` is the relative path to the site root."""
    neutral, local = page_payloads(ctx, lang)
    fields = "".join(
        f'<label class="sz-explorer__field">{html.escape(t(lang, key))}<select name="{name}">'
        f"</select></label>"
        for name, key in CONTROLS
    )
    caption = t(lang, "explorer_heatmap_caption", context=context_label(DEFAULT_CONTEXT))
    heat_caption = t(lang, "explorer_heatmap_caption", context="{context}")
    ladders = root + "data/" + file_name("{server}", lang)
    return (
        '\n<div id="sz-explorer" class="sz-explorer" data-search-exclude '
        f'data-matrix="{root}data/explorer.json" '
        f'data-strings="{root}data/explorer.{lang}.json" data-ladders="{ladders}">'
        f'<form class="sz-explorer__controls" hidden>{fields}</form>'
        f'<div class="sz-explorer__result" aria-live="polite" hidden></div>'
        '<noscript><p class="sz-explorer__noscript">'
        f"{html.escape(t(lang, 'explorer_noscript'))}</p></noscript>"
        f'</div>\n\n<figure class="sz-heatmap-figure" data-search-exclude '
        f'data-scroll-hint="{html.escape(t(lang, "scroll_hint"), quote=True)}">'
        f'<figcaption data-sz-heat-caption="{html.escape(heat_caption, quote=True)}">'
        f'{html.escape(caption)}</figcaption><div class="sz-heatmap-wrap">'
        f"{heatmap_table(neutral, local, DEFAULT_CONTEXT)}</div></figure>\n"
    )
