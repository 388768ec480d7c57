"""A worked example, step by step, in words: the steps of :mod:`sizing.views.steps` rendered per language.

:func:`explain_text` prints them for the CLI, :func:`explain_markdown` as a table for pages;
labels and formula words come from ``docs/messages``, numbers from :mod:`sizing.render.i18n`.
"""

from __future__ import annotations

from typing import Any, Mapping

from sizing.catalog.loader import Catalog
from sizing.render.i18n import NBSP, fmt_gib, fmt_kib, fmt_number, t
from sizing.views.steps import Quantity, Step, explain_steps
from sizing.render.tables import change_label, escape_cell, plan_label
from sizing.units import GiB, MiB

__all__ = ["Quantity", "Step", "caption", "explain_markdown", "explain_steps", "explain_text", "fmt_quantity",
           "step_parts", "verdict_line"]

Row = Mapping[str, Any]


# ---------------------------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------------------------


def _with(number: str, lang: str, unit_key: str) -> str:
    return f"{number}{NBSP}{t(lang, unit_key)}"


def fmt_quantity(q: Quantity, lang: str) -> str:
    """A quantity in ``lang`` with its unit (memory in MiB/GiB/KiB from bytes)."""
    v = q.value
    if q.unit == "gib":
        return fmt_gib(v, lang)
    if q.unit == "kib":
        return fmt_kib(v, lang, 0 if (v / 1024).is_integer() else 1)
    simple = {"mib": (v / MiB, 0, "unit_mib"), "bytes": (v, 0, "unit_bytes"), "tokens": (v, 0, "unit_tokens"),
              "tokens_per_s": (v, 1, "unit_tokens_per_s"), "gb_per_s": (v, 0, "unit_gb_per_s"),
              "gib_per_s": (v / GiB, 1, "unit_gib_per_s")}
    if q.unit in simple:
        value, digits, unit = simple[q.unit]
        return _with(fmt_number(value, lang, digits), lang, unit)
    if q.unit == "ratio":
        return f"{fmt_number(v, lang, 2)}×"
    return fmt_number(v, lang, 2 if q.unit == "plain2" else 0)


def step_parts(step: Step, lang: str) -> tuple[str, str, str]:
    """(label, calculation, result) of one step in ``lang``."""
    label = t(lang, step.label_key, **{k: fmt_quantity(q, lang) for k, q in step.label_args})
    formula = t(lang, step.formula_key, **{k: fmt_quantity(q, lang) for k, q in step.terms}) if step.formula_key else ""
    result = " = ".join(fmt_quantity(q, lang) for q in step.result)
    return label, formula, result


def caption(row: Row, cat: Catalog, lang: str) -> tuple[str, str]:
    """The example's title (checkpoint, server, plan) and its vLLM settings line."""
    server = cat.servers[row["server"]].name if row["server"] in cat.servers else str(row["server"])
    title = t(lang, "example_caption", checkpoint=row["checkpoint"], server=server, plan=plan_label(row, lang))
    settings = t(lang, "explain_settings", max_model_len=fmt_number(int(row["max_model_len"]), lang),
                 kv=row["kv_cache_dtype"], gmu=fmt_number(float(row["gpu_memory_utilization"]), lang, 2),
                 version=str(row.get("vllm_version") or cat.assume("vllm_version")))
    return title, settings


def verdict_line(row: Row, lang: str) -> str:
    """``✅ Fits`` or ``❌ Does not fit`` with the nearest change that would make it fit."""
    if bool(row["fits"]):
        return f"✅ {t(lang, 'verdict_fits')}"
    change = change_label(row, lang)
    return f"❌ {t(lang, 'verdict_does_not_fit')}" + (f": {change}" if change else "")


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
    title, settings = caption(row, cat, lang)
    head = [t(lang, k) for k in ("col_step", "col_calculation", "col_result")]
    lines = [f"**{escape_cell(title)}**  ", escape_cell(settings), "",
             "| " + " | ".join(head) + " |", "|---|---|---:|"]
    for step in explain_steps(row, cat):
        lines.append("| " + " | ".join(escape_cell(part) for part in step_parts(step, lang)) + " |")
    return "\n".join([*lines, "", escape_cell(verdict_line(row, lang))]) + "\n"
