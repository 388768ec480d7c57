"""The calibration macros: how the engine's figures compare with real vLLM logs, as page tables.

``{{ sz_calibration_table() }}`` lists every check, ``{{ sz_calibration_grouped_table() }}`` the errors by
group with each class's band, ``{{ sz_calibration_left_table() }}`` the logs left out and why. Each reads the
calibration the build computed once (:func:`sizing.site.context.calibrated_context`); nothing is fitted here.
"""

from __future__ import annotations

import html
from typing import Iterable, Mapping

from sizing.catalog.loader import BAND_CLASSES
from sizing.render.cells import escape_cell
from sizing.render.i18n import fmt_number, fmt_percent, t
from sizing.render.macros import sortable
from sizing.render.plural import percentile
from sizing.render.tables import badge
from sizing.views.bundle import CalibrationCheck, LeftOutLog, SiteContext

GIB_METRICS = ("weights", "available_kv", "cudagraph")
"""Compared figures in GiB, shown to 0.01 GiB as vLLM prints them."""


def calibration_value(metric: str, number: float, lang: str) -> str:
    """A logged or predicted figure: GiB, tokens, concurrency, or a start/no-start verdict."""
    if metric.startswith("no_fit"):
        return badge(
            html.escape(t(lang, "calib_starts" if number else "calib_does_not_start")),
            "fits" if number else "no-fit",
        )
    if metric in GIB_METRICS:
        return fmt_number(number, lang, 2)
    return fmt_number(number, lang, 2 if metric == "concurrency" else 0)


def calibration_rows(checks: Iterable[CalibrationCheck], lang: str) -> list[str]:
    """One Markdown row per check."""
    return [
        f"| {escape_cell(c.case)} | {escape_cell(t(lang, f'calib_metric_{c.metric}'))} | "
        f"{calibration_value(c.metric, c.logged, lang)} | {calibration_value(c.metric, c.predicted, lang)} | "
        f"{calibration_error(c, lang)} | {t(lang, 'word_yes' if c.ok else 'word_no')} |"
        for c in checks
    ]


def calibration_error(check: CalibrationCheck, lang: str) -> str:
    """The error of a figure as a percentage; for a starts / does-not-start check, whether it matched."""
    if check.metric.startswith("no_fit"):
        return t(lang, "calib_match") if check.ok else "—"
    return fmt_percent(check.error, lang, 2)


def _grouped_row(label: str, stats: Mapping[str, float], lang: str) -> str:
    keys = ("median", "lomo_median", "lomo_p90", "lomo_signed_median", "logo_median")
    cells = [
        fmt_number(stats["cases"], lang),
        fmt_number(round(stats["groups"], 1), lang),
        *(fmt_percent(stats[k], lang, 2) for k in keys),
    ]
    return f"| {escape_cell(label)} | " + " | ".join(cells) + " |"


def _gpu_group(gpu: str, lang: str) -> str:
    """The label of a GPU-type group; ``unstated`` (logs that name no GPU, see
    :func:`sizing.review.calibration.gpu_key`) reads as a sentence in the page's language."""
    return t(lang, "calib_gpu_unstated") if gpu == "unstated" else t(lang, "calib_gpu", gpu=gpu)


def _band_table(lang: str, ctx: SiteContext) -> str:
    """The cautious and optimistic end of each class's band, as a share of our figure, and its coverage."""
    coef = ctx.catalog.assumptions
    rows = []
    for name in BAND_CLASSES:
        low, high = (
            1 / (1 + float(coef[f"kv_band_{end}_{name}"].value)) - 1  # type: ignore[arg-type]
            for end in ("optimistic", "pessimistic")
        )
        rows.append(
            f"| {escape_cell(t(lang, f'calib_class_{name}'))} | {fmt_percent(low, lang, 1)} | "
            f"{fmt_percent(high, lang, 1)} |"
        )
    head = [t(lang, k) for k in ("col_band_class", "col_band_low", "col_band_high")]
    held = ctx.calibration_groups.get("coverage", {}).get("all", {})
    ends = dict(zip(("low", "high"), (percentile(lang, q) for q in ctx.catalog.assume("kv_band_quantiles"))))
    note = t(
        lang,
        "calib_band_note",
        **ends,
        share=fmt_percent(held.get("nested", 0.0), lang, 0),
        logs=fmt_percent(held.get("nested_logs", 0.0), lang, 0),
    )
    return "\n".join(["| " + " | ".join(head) + " |", "|---|---:|---:|", *rows]) + "\n\n" + note + "\n"


def calibration_grouped_table(lang: str, ctx: SiteContext) -> str:
    """``{{ sz_calibration_grouped_table() }}``: errors on models (and GPU types) the fit never saw, overall,
    per class, release line and GPU, each near-duplicate group counted once; then each class's band."""
    overall, groups = ctx.calibration_summary, ctx.calibration_groups
    rows = [
        _grouped_row(t(lang, f"calib_group_{m}"), overall[m], lang)
        for m in ("available_kv", "weights")
        if m in overall
    ]
    rows += [
        _grouped_row(t(lang, f"calib_class_{k.replace('-', '_')}"), s, lang)
        for k, s in groups.get("classes", {}).items()
    ]
    rows += [_grouped_row(t(lang, "calib_line", line=k), s, lang) for k, s in groups.get("line", {}).items()]
    rows += [_grouped_row(_gpu_group(k, lang), s, lang) for k, s in groups.get("gpu", {}).items()]
    head = [
        t(lang, k)
        for k in (
            "col_loo_group",
            "col_cases",
            "col_groups",
            "col_in_sample_median",
            "col_lomo_median",
            "col_lomo_p90",
            "col_lomo_signed",
            "col_logo_median",
        )
    ]
    table = "\n".join(["| " + " | ".join(head) + " |", "|---|---:|---:|---:|---:|---:|---:|---:|", *rows])
    return sortable(table) + "\n" + _band_table(lang, ctx)


def _left_cells(left: LeftOutLog, lang: str) -> str:
    """Log id, model, release and GPU as the log names them: quoted as code (they are the log's words)."""
    cells = [left.case, left.model, left.version, left.gpu]
    return "| " + " | ".join(f"`{escape_cell(c)}`" if c else "—" for c in cells) + " |"


def _outlier_error(left: LeftOutLog, checks: Iterable[CalibrationCheck], lang: str) -> str:
    """The left-out available-KV error of an outlier (or its weights error when it has no KV check)."""
    found = {c.metric: c for c in checks if c.case == left.case}
    check = found.get("available_kv") or found.get("weights")
    return fmt_percent(check.lomo_error, lang, 1) if check else "—"


def calibration_left_table(lang: str, ctx: SiteContext) -> str:
    """``{{ sz_calibration_left_table() }}``: the logs not reproduced, then the reproduced ones outside the
    bounds, each with what the log states and the translated kind of reason
    (:class:`sizing.review.calibration_left.LeftOut`)."""
    head = [t(lang, k) for k in ("col_case", "col_model", "col_vllm", "col_gpu", "col_why")]
    skipped = [
        _left_cells(x, lang) + f" {escape_cell(t(lang, 'calib_kind_' + x.kind.replace('-', '_')))} |"
        for x in ctx.calibration_left
        if not x.outlier
    ]
    outliers = [
        _left_cells(x, lang) + f" {_outlier_error(x, ctx.calibration, lang)} | "
        f"{escape_cell(t(lang, 'calib_kind_' + x.kind.replace('-', '_')))} |"
        for x in ctx.calibration_left
        if x.outlier
    ]
    first = "\n".join(["| " + " | ".join(head) + " |", "|---|---|---|---|---|", *skipped])
    parts = [sortable(first, lang) if skipped else t(lang, "calib_none_skipped") + "\n"]
    head.insert(4, t(lang, "col_loo_error"))
    second = "\n".join(["| " + " | ".join(head) + " |", "|---|---|---|---|---:|---|", *outliers])
    parts.append(
        t(lang, "calib_outliers_intro") + "\n" + sortable(second, lang)
        if outliers
        else t(lang, "calib_none_outside") + "\n"
    )
    return "\n".join(parts)


def calibration_table(lang: str, ctx: SiteContext) -> str:
    """``{{ sz_calibration_table() }}``: error per metric (median, worst), then every check.

    The checks (:class:`sizing.review.calibration.Check`) and their summary are the ones
    :func:`sizing.site.context.prepare` computed for ``ctx`` (none: empty tables)."""
    checks = tuple(ctx.calibration)
    head = [t(lang, k) for k in ("col_metric", "col_cases", "col_median_error", "col_worst_error")]
    summary = [
        f"| {escape_cell(t(lang, f'calib_metric_{m}'))} | {fmt_number(s['cases'], lang)} | "
        f"{fmt_percent(s['median'], lang, 2)} | {fmt_percent(s['worst'], lang, 2)} |"
        for m, s in ctx.calibration_summary.items()
    ]
    detail = [
        t(lang, k)
        for k in (
            "col_case",
            "col_metric",
            "col_logged",
            "col_predicted",
            "col_error",
            "col_within_tolerance",
        )
    ]
    first = "\n".join(["| " + " | ".join(head) + " |", "|---|---:|---:|---:|", *summary])
    second = "\n".join(
        ["| " + " | ".join(detail) + " |", "|---|---|---:|---:|---:|---|", *calibration_rows(checks, lang)]
    )
    return sortable(first, lang) + sortable(second, lang)
