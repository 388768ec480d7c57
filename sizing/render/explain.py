"""A worked example, step by step, in words: the steps of :mod:`sizing.views.steps` rendered per language.

:func:`explain_text` prints them for the CLI, :func:`explain_markdown` as a table for pages;
labels and formula words come from ``docs/messages``, numbers from :mod:`sizing.render.i18n`.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Mapping

from sizing.catalog.loader import Catalog
from sizing.render.catalog_text import server_name
from sizing.render.cells import change_label, escape_cell, plan_label, verdict_state, verdict_text
from sizing.render.flagtext import flag, message_with_code, plain_text
from sizing.render.i18n import NBSP, fmt_gib, fmt_kib, fmt_money, fmt_number, t
from sizing.render.plural import plural
from sizing.render.tables import badge
from sizing.units import GiB, MiB
from sizing.views.steps import Quantity, Step, explain_steps

__all__ = [
    "Quantity",
    "Step",
    "caption",
    "explain_markdown",
    "explain_steps",
    "explain_text",
    "fmt_quantity",
    "step_parts",
    "verdict_line",
]

Row = Mapping[str, Any]
COUNTED = {
    "tokens": "plural_tokens",
    "layers": "plural_layers",
    "kv_heads": "plural_kv_heads",
    "replicas": "plural_replicas",
    "blocks": "plural_blocks",
}
"""Units written as a counted noun, through the CLDR plural forms of ``docs/messages``."""


# ---------------------------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------------------------


def _with(number: str, lang: str, unit_key: str) -> str:
    return f"{number}{NBSP}{t(lang, unit_key)}"


def fmt_quantity(q: Quantity, lang: str) -> str:
    """A quantity in ``lang`` with its unit (memory in MiB/GiB/KiB from bytes). A negative GiB figure
    reads as a shortfall, ``short by 0.44 GiB`` (no page shows a negative amount of memory)."""
    v = q.value
    if q.unit == "gib":
        return fmt_gib(v, lang) if v >= 0 else t(lang, "quantity_short_by", amount=fmt_gib(-v, lang))
    if q.unit == "kib":
        return fmt_kib(v, lang, 0 if (v / 1024).is_integer() else 1)
    if q.unit in COUNTED:
        return plural(lang, COUNTED[q.unit], v, fmt_number(v, lang))
    if q.unit == "tokens_per_s":
        return plural(lang, "plural_tokens_per_s", Decimal(f"{v:.1f}"), fmt_number(v, lang, 1))
    simple = {
        "mib": (v / MiB, 0, "unit_mib"),
        "bytes": (v, 0, "unit_bytes"),
        "gb_per_s": (v, 0, "unit_gb_per_s"),
        "gib_per_s": (v / GiB, 1, "unit_gib_per_s"),
        "gb": (v / 1e9, 2, "unit_gb"),
        "ms": (v * 1e3, 1, "unit_ms"),
        "us": (v * 1e6, 1, "unit_us"),
        "tflop": (v / 1e12, 2, "unit_tflop"),
        "tflops": (v / 1e12, 0, "unit_tflops"),
    }
    if q.unit in ("usd", "usd0"):
        return fmt_money(v, "USD", lang, 3 if q.unit == "usd" else 0)
    if q.unit in simple:
        value, digits, unit = simple[q.unit]
        return _with(fmt_number(value, lang, digits), lang, unit)
    if q.unit == "ratio":
        return f"{fmt_number(v, lang, 2)}×"
    return fmt_number(v, lang, 2 if q.unit == "plain2" else 0)


def step_parts(step: Step, lang: str) -> tuple[str, str, str]:
    """(label, calculation, result) of one step in ``lang``."""
    label = t(lang, step.label_key, **{k: fmt_quantity(q, lang) for k, q in step.label_args})
    formula = (
        t(lang, step.formula_key, **{k: fmt_quantity(q, lang) for k, q in step.terms})
        if step.formula_key
        else ""
    )
    result = " = ".join(fmt_quantity(q, lang) for q in step.result)
    return label, formula, result


def caption(row: Row, cat: Catalog, lang: str, markdown: bool = False) -> tuple[str, str]:
    """The example's title (checkpoint, server, plan) and its vLLM settings line, flags raw (as code
    spans when ``markdown``; then the line is escaped for Markdown already)."""
    server = cat.servers[row["server"]].name if row["server"] in cat.servers else str(row["server"])
    title = t(
        lang,
        "example_caption",
        checkpoint=row["checkpoint"],
        server=server_name(lang, server),
        plan=plan_label(row, lang),
    )
    code = {
        "max_model_len": flag("--max-model-len", int(row["max_model_len"])),
        "kv": flag("--kv-cache-dtype", row["kv_cache_dtype"]),
        "gmu": flag("--gpu-memory-utilization", float(row["gpu_memory_utilization"])),
    }
    settings = message_with_code(
        lang,
        "explain_settings",
        code,
        markdown,
        escape=escape_cell,
        version=str(row.get("vllm_version") or cat.assume("vllm_version")),
    )
    return title, settings


ICONS = {"fits": "✅", "tight": "✅", "borderline": "⚠️", "no-fit": "❌", "unsupported": "❌"}


def verdict_line(row: Row, lang: str, markdown: bool = False) -> str:
    """The row's verdict (:mod:`sizing.views.verdict`), ``✅ Fits up to 128K`` (a page's verdict badge when
    ``markdown``: no emoji, which shows as a box without an emoji font), and the nearest change that would
    make it start at its own length where it does not (escaped Markdown with code spans when ``markdown``,
    else plain text)."""
    state = verdict_state(row)
    text = verdict_text(row, lang)
    verdict = badge(escape_cell(text), state) if markdown else f"{ICONS[state]} {text}"
    change = change_label(row, lang) if not bool(row["fits"]) and state != "unsupported" else ""
    if not markdown:
        change = plain_text(change)
    return t(lang, "verdict_with_change", verdict=verdict, change=change) if change else verdict


def explain_text(row: Row, cat: Catalog, lang: str) -> str:
    """The worked example as plain text, one numbered step per line (the CLI's ``explain``)."""
    title, settings = caption(row, cat, lang)
    lines = [title, settings, ""]
    for i, step in enumerate(explain_steps(row, cat), 1):
        label, formula, result = step_parts(step, lang)
        lines.append(f"{i:>2}. {label}: " + (f"{formula} = {result}" if formula else result))
    lines += ["", verdict_line(row, lang)]
    return "\n".join(lines).replace(NBSP, " ") + "\n"


def explain_markdown(row: Row, cat: Catalog, lang: str) -> str:
    """The worked example as a Markdown table (step, calculation, result) with its title and verdict."""
    title, settings = caption(row, cat, lang, markdown=True)
    head = [t(lang, k) for k in ("col_step", "col_calculation", "col_result")]
    lines = [f"**{escape_cell(title)}**  ", settings, "", "| " + " | ".join(head) + " |", "|---|---|---:|"]
    for step in explain_steps(row, cat):
        lines.append("| " + " | ".join(escape_cell(part) for part in step_parts(step, lang)) + " |")
    return "\n".join([*lines, "", verdict_line(row, lang, markdown=True)]) + "\n"
