"""Throughput on the pages: the ladder table, the chart, the worked example and the calibration table.

Each ``f(lang, ctx, ...)`` returns Markdown or one line of SVG/HTML for one page language, from
:func:`sizing.views.throughput.throughput_view` (computed once per context): no engine calls. Published
figures are the cautious end of each band (lower tokens/s, higher TPOT, TTFT and cost); an uncalibrated
class shows its roofline bound, marked.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from sizing.launch.bench import BenchRun, bench_serve_line
from sizing.render.catalog_text import server_name
from sizing.render.cells import escape_cell
from sizing.render.charts import DASHES, MARKERS, SVG_NS, Axis, _el, _esc, _f, _legend_key, _marker, _slug
from sizing.render.explain import Quantity, caption, fmt_quantity, step_parts
from sizing.render.i18n import NBSP, fmt_money, fmt_number, fmt_percent, t
from sizing.render.plural import percentile
from sizing.views.bundle import SiteContext
from sizing.views.ladder_rows import LadderRow, by_checkpoint, server_ladder
from sizing.views.series import check_server
from sizing.views.throughput import PAGE_WORKLOAD, example_breakdown, throughput_steps, throughput_view

WIDTH, HEIGHT = 540.0, 360.0
LEFT, RIGHT, TOP, BOTTOM = 56.0, 26.0, 30.0, 46.0


def _signed(fraction: float, lang: str) -> str:
    """A signed percentage with one decimal: ``+12.5%``, ``-3.0%`` (Babel's minus for the language)."""
    return ("+" if fraction > 0 else "") + fmt_percent(fraction, lang, 1)


def _ms(seconds: float, lang: str) -> str:
    """A latency: milliseconds with one decimal below a second, else seconds with one decimal."""
    if seconds < 1:
        return fmt_quantity(Quantity(seconds, "ms"), lang)
    return f"{fmt_number(seconds, lang, 1)}{NBSP}{t(lang, 'unit_seconds')}"


def _cautious(row: Mapping[str, Any]) -> dict[str, float]:
    """The published figures of a ladder row: the cautious end when calibrated, else the roofline point."""
    if bool(row["calibrated"]):
        return {
            "tps": row["output_tps_low"],
            "tpot": row["tpot_s_high"],
            "ttft": row["ttft_s_high"],
            "usd": row["usd_per_mtok_high"],
        }
    return {
        "tps": row["output_tps"],
        "tpot": row["tpot_s"],
        "ttft": row["ttft_s"],
        "usd": row["usd_per_mtok"],
    }


def _model_name(ctx: SiteContext, row: Mapping[str, Any]) -> str:
    model = ctx.catalog.models.get(str(row["model"]))
    return f"{model.name if model else row['model']} ({row['checkpoint']})"


def ladder_cells(lang: str, row: Mapping[str, Any]) -> list[str]:
    """One table row's cells: users (✓ within the speed target), tokens/s of the server and per user, TTFT,
    TPOT, $ per 1M, limit."""
    c = _cautious(row)
    mark = "" if bool(row["calibrated"]) else " *"
    usd = fmt_money(c["usd"], "USD", lang, 3) if math.isfinite(c["usd"]) else "—"
    return [
        fmt_number(int(row["concurrency"]), lang) + (" ✓" if bool(row["within_target"]) else ""),
        fmt_number(c["tps"], lang, 0) + mark,
        fmt_number(1 / c["tpot"], lang, 1),
        _ms(c["ttft"], lang),
        _ms(c["tpot"], lang),
        usd,
        t(lang, "tp_limit_" + str(row["limited_by"]).replace("-", "_")),
    ]


def throughput_ladder(lang: str, ctx: SiteContext, server_id: str) -> str:
    """``{{ sz_tp_ladder("gpu-l40s") }}``: the chat-workload ladder of a server's chart models."""
    check_server(ctx.catalog, server_id)
    rows = server_ladder(ctx, server_id)
    if not rows:
        return t(lang, "tp_no_rows")
    head = [
        t(lang, k)
        for k in (
            "col_model",
            "col_tp_users",
            "col_tp_server",
            "col_tp_user",
            "col_tp_ttft",
            "col_tp_tpot",
            "col_tp_cost",
            "col_tp_limit",
        )
    ]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * 6 + "---|"]
    for row in rows:
        cells = [escape_cell(_model_name(ctx, row)), *ladder_cells(lang, row)]
        lines.append("| " + " | ".join(cells) + " |")
    note = (
        t(lang, "tp_ladder_note", **band_ends(lang, ctx))
        if all(bool(r["calibrated"]) for r in rows)
        else t(lang, "tp_ladder_note_roofline")
    )
    note += " " + t(lang, "tp_ladder_target_note", target=speed_target(lang, ctx))
    return (
        '\n<div class="sz-sortable" data-search-exclude markdown>\n\n'
        + "\n".join(lines)
        + f"\n\n</div>\n\n{note}\n"
    )


def _series_points(rows: list[LadderRow]) -> tuple[list[float], list[float], list[float], list[float]]:
    """Per ladder row: tokens/s per user (x, cautious TPOT) and of the server (y: cautious, low, high)."""
    xs, ys, lows, highs = [], [], [], []
    for row in rows:
        c = _cautious(row)
        xs.append(1 / c["tpot"])
        ys.append(c["tps"])
        lows.append(row["output_tps_low"] if bool(row["calibrated"]) else c["tps"])
        highs.append(row["output_tps_high"] if bool(row["calibrated"]) else c["tps"])
    return xs, ys, lows, highs


def log_ticks(lo: float, hi: float) -> list[float]:
    """1-2-5 ticks covering [lo, hi] (both > 0), from the one at or below ``lo`` to the one at or above
    ``hi``."""
    ticks: list[float] = []
    k = math.floor(math.log10(lo))
    while not ticks or ticks[-1] < hi:
        ticks += [m * 10.0**k for m in (1, 2, 5)]
        k += 1
    start = max(i for i, v in enumerate(ticks) if v <= lo * (1 + 1e-9))
    end = max(min(i for i, v in enumerate(ticks) if v >= hi * (1 - 1e-9)), start + 1)
    return ticks[start : end + 1]


def _axes(lang: str, xa: Axis, ya: Axis, xticks: Sequence[float], yticks: Sequence[float]) -> str:
    """Grid, tick labels and axis titles (both axes logarithmic)."""
    grid = []
    for v in yticks:
        grid.append(
            _el(
                "line",
                class_="sz-grid",
                x1=_f(LEFT),
                x2=_f(WIDTH - RIGHT),
                y1=_f(ya(v)),
                y2=_f(ya(v)),
                stroke="currentColor",
                stroke_opacity="0.12",
            )
        )
        grid.append(
            _el("text", _esc(fmt_number(v, lang, 0)), x=_f(LEFT - 5), y=_f(ya(v) + 4), text_anchor="end")
        )
    for v in xticks:
        grid.append(
            _el(
                "line",
                class_="sz-grid",
                x1=_f(xa(v)),
                x2=_f(xa(v)),
                y1=_f(TOP),
                y2=_f(HEIGHT - BOTTOM),
                stroke="currentColor",
                stroke_opacity="0.12",
            )
        )
        grid.append(
            _el(
                "text",
                _esc(fmt_number(v, lang, 0)),
                x=_f(xa(v)),
                y=_f(HEIGHT - BOTTOM + 16),
                text_anchor="middle",
            )
        )
    grid.append(
        _el(
            "path",
            class_="sz-axis",
            d=f"M{_f(LEFT)} {_f(TOP)}V{_f(HEIGHT - BOTTOM)}H{_f(WIDTH - RIGHT)}",
            fill="none",
            stroke="currentColor",
            stroke_opacity="0.4",
        )
    )
    grid.append(_el("text", _esc(t(lang, "tp_chart_y")), class_="sz-axis-label", x=_f(4), y=_f(TOP - 12)))
    grid.append(
        _el(
            "text",
            _esc(t(lang, "tp_chart_x")),
            class_="sz-axis-label",
            x=_f((LEFT + WIDTH) / 2),
            y=_f(HEIGHT - 6),
            text_anchor="middle",
        )
    )
    return _el("g", "".join(grid), class_="sz-axes")


def _target_line(lang: str, ctx: SiteContext, xa: Axis) -> str:
    """The speed target: a vertical line at 1 / TPOT target tokens/s per user, labelled."""
    per_user = 1 / throughput_view(ctx).target.tpot_s
    x = xa(per_user)
    label = t(lang, "tp_chart_target", value=fmt_number(per_user, lang, 0))
    return _el(
        "g",
        _el(
            "line",
            class_="sz-limit",
            x1=_f(x),
            x2=_f(x),
            y1=_f(TOP),
            y2=_f(HEIGHT - BOTTOM),
            stroke="currentColor",
            stroke_dasharray="4 3",
        )
        + _el("text", _esc(label), x=_f(x + 4), y=_f(TOP + 12)),
        class_="sz-target",
    )


def _model_series(index: int, xa: Axis, ya: Axis, points: tuple[list[float], ...], tip: str) -> str:
    """One model's band (shaded), line and markers."""
    xs, ys, lows, highs = points
    band = [(xa(x), ya(h)) for x, h in zip(xs, highs)] + [
        (xa(x), ya(lo)) for x, lo in reversed(list(zip(xs, lows)))
    ]
    parts = [
        _el(
            "polygon",
            class_="sz-band",
            points=" ".join(f"{_f(a)},{_f(b)}" for a, b in band),
            fill="currentColor",
            fill_opacity="0.12",
            stroke="none",
        ),
        _el(
            "polyline",
            class_="sz-line",
            points=" ".join(f"{_f(xa(x))},{_f(ya(y))}" for x, y in zip(xs, ys)),
            fill="none",
            stroke="currentColor",
            stroke_width="2",
            stroke_dasharray=DASHES[index] or None,
        ),
    ]
    parts += [_marker(MARKERS[index], xa(x), ya(y), tip) for x, y in zip(xs, ys)]
    return _el("g", "".join(parts), class_=f"sz-series sz-series--{index}")


def throughput_chart(lang: str, ctx: SiteContext, server_id: str) -> str:
    """``{{ sz_tp_chart("gpu-l40s") }}``: output tokens/s of the server against tokens/s per user, one
    line per model over the concurrency ladder, the band shaded and the speed target marked."""
    check_server(ctx.catalog, server_id)
    rows = server_ladder(ctx, server_id)
    server = server_name(lang, ctx.catalog.servers[server_id].name)
    if not rows:
        return _el("p", _esc(t(lang, "chart_no_models", server=server)), class_="sz-chart-empty")
    groups = by_checkpoint(rows)
    points = [_series_points(g) for g in groups]
    per_user = 1 / throughput_view(ctx).target.tpot_s
    xticks = log_ticks(
        min(min(min(p[0]) for p in points), per_user), max(max(max(p[0]) for p in points), per_user)
    )
    yticks = log_ticks(min(min(p[2]) for p in points), max(max(p[3]) for p in points))
    xa = Axis(xticks[0], xticks[-1], LEFT, WIDTH - RIGHT, log=True)
    ya = Axis(yticks[0], yticks[-1], HEIGHT - BOTTOM, TOP, log=True)
    body = [_axes(lang, xa, ya, xticks, yticks), _target_line(lang, ctx, xa)]
    legend = []
    for i, (g, p) in enumerate(zip(groups, points)):
        name = _model_name(ctx, g[0]) + ("" if bool(g[0]["calibrated"]) else " *")
        body.append(_model_series(i, xa, ya, p, name))
        legend.append(_el("li", _legend_key(i) + _esc(name)))
    title = t(lang, "tp_chart_title", server=server)
    ident = f"sz-tp-{_slug(server_id)}"
    head = _el("title", _esc(title), id=f"{ident}-title") + _el(
        "desc", _esc(t(lang, "tp_chart_desc")), id=f"{ident}-desc"
    )
    svg = _el(
        "svg",
        head + "".join(body),
        xmlns=SVG_NS,
        id=ident,
        class_="sz-chart__svg",
        viewBox=f"0 0 {_f(WIDTH)} {_f(HEIGHT)}",
        width=_f(WIDTH),
        height=_f(HEIGHT),
        role="img",
        aria_labelledby=f"{ident}-title {ident}-desc",
    )
    legend_html = _el("ul", "".join(legend), class_="sz-legend", aria_label=t(lang, "chart_legend_models"))
    return _el(
        "figure",
        svg + legend_html + _el("figcaption", _esc(title)),
        class_="sz-chart sz-chart--throughput",
        data_search_exclude="",
    )


def throughput_example(lang: str, ctx: SiteContext, example_id: str, concurrency: int = 16) -> str:
    """``{{ sz_tp_example("example-1", 16) }}``: the worked example as a step table."""
    row = ctx.example(example_id)
    b = example_breakdown(ctx, example_id, concurrency)
    price = float(row["price_monthly"])
    title, settings = caption(row, ctx.catalog, lang, markdown=True)
    head = [t(lang, k) for k in ("col_step", "col_calculation", "col_result")]
    lines = [f"**{escape_cell(title)}**  ", settings, "", "| " + " | ".join(head) + " |", "|---|---|---:|"]
    for step in throughput_steps(b, throughput_view(ctx).target.hours_per_month, price):
        lines.append("| " + " | ".join(escape_cell(part) for part in step_parts(step, lang)) + " |")
    return "\n".join(lines) + "\n"


def band_ends(lang: str, ctx: SiteContext) -> dict[str, str]:
    """The throughput band's ends as the percentiles prose names (``low``, ``high``; the catalog's
    ``throughput_band_quantiles``)."""
    quantiles = ctx.catalog.assume("throughput_band_quantiles")
    return dict(zip(("low", "high"), (percentile(lang, q) for q in quantiles)))


def calibration_table(lang: str, ctx: SiteContext) -> str:
    """``{{ sz_tp_calibration() }}``: leave-one-source-out errors per class and metric."""
    view = throughput_view(ctx)
    ends = band_ends(lang, ctx)
    head = [
        *(t(lang, k) for k in ("col_tp_class", "col_tp_metric", "col_tp_median_abs", "col_tp_median")),
        t(lang, "col_tp_p10", pct=ends["low"]),
        t(lang, "col_tp_p90", pct=ends["high"]),
        t(lang, "col_tp_within"),
        t(lang, "col_tp_runs"),
    ]
    lines = ["| " + " | ".join(head) + " |", "|---|---|" + "---:|" * 6]
    for name, c in sorted(view.constants.items()):
        for metric in ("output_tps", "tpot_s", "ttft_s"):
            e = c.errors[metric]
            cells = [
                t(lang, "tp_class_" + name.replace("-", "_")),
                t(lang, f"tp_metric_{metric}"),
                fmt_percent(e["median_abs"], lang, 1),
                _signed(e["median"], lang),
                _signed(e["low"], lang),
                _signed(e["high"], lang),
                fmt_percent(e["within_25"], lang),
                fmt_number(c.runs, lang),
            ]
            lines.append("| " + " | ".join(cells) + " |")
    return '\n<div class="sz-sortable" data-search-exclude markdown>\n\n' + "\n".join(lines) + "\n\n</div>\n"


def workloads_table(lang: str, ctx: SiteContext) -> str:
    """``{{ sz_tp_workloads() }}``: the request shapes, their lengths, meaning and ladder."""
    head = [t(lang, k) for k in ("col_tp_workload", "col_tp_input", "col_tp_output", "col_tp_meaning")]
    lines = ["| " + " | ".join(head) + " |", "|---|---:|---:|---|"]
    for name, w in throughput_view(ctx).workloads.items():
        lines.append(
            f"| `{name}` | {fmt_number(w.input_len, lang)} | {fmt_number(w.output_len, lang)} | "
            f"{escape_cell(getattr(w.meaning, lang))} |"
        )
    return "\n".join(lines) + "\n"


def speed_target(lang: str, ctx: SiteContext) -> str:
    """``{{ sz_tp_target() }}``: the speed target in words (TPOT and TTFT limits)."""
    target = throughput_view(ctx).target
    tpot = f"{fmt_number(target.tpot_s * 1000, lang, 0)}{NBSP}{t(lang, 'unit_ms')}"
    ttft = f"{fmt_number(target.ttft_s, lang, 0)}{NBSP}{t(lang, 'unit_seconds')}"
    return t(lang, "tp_target", tpot=tpot, ttft=ttft, per_user=fmt_number(1 / target.tpot_s, lang, 0))


def page_workload(lang: str, ctx: SiteContext) -> str:
    """``{{ sz_tp_page_workload() }}``: the workload the ladders show, as code."""
    return f"`{PAGE_WORKLOAD}`"


def bench_block(lang: str, ctx: SiteContext, example_id: str, concurrency: int = 16) -> str:
    """``{{ sz_tp_bench("example-1", 16) }}``: the ``vllm bench serve`` line that measures the worked
    example's chat figures at ``concurrency`` clients (ten requests per client), as a bash block."""
    row = ctx.example(example_id)
    work = throughput_view(ctx).workloads[PAGE_WORKLOAD]
    run = BenchRun(
        str(row["checkpoint"]),
        str(ctx.catalog.assume("serve_host")),
        int(ctx.catalog.assume("serve_port")),
        work.input_len,
        work.output_len,
        10 * concurrency,
        concurrency,
    )
    return f"```bash\n{bench_serve_line(run)}\n```\n"
