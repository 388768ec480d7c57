"""Build-time inline SVG charts: concurrency by context length per server, price per GB of VRAM.

Every chart is a ``<figure class="sz-chart">`` holding an ``<svg>`` (with ``<title>`` and
``<desc>`` for screen readers), an HTML legend and a caption, computed from the evaluated
matrix while the page is built: no JavaScript, no fonts, nothing fetched. Colours come from
``currentColor``; ``overrides/assets/stylesheets/sizing.css`` sets the ``color`` of each series
and bar class from Material's variables, so light and dark schemes both read, and series also
differ by dash pattern and marker shape.

Output is deterministic: rows in catalog order, coordinates with two decimals, ids derived from
the server id. The geometry never depends on the language; only label strings and number
formatting (Babel, via :mod:`sizing.i18n`) do. The whole figure is one line of well-formed XML,
so it survives Markdown indentation (tabs, admonitions) and parses in tests.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from html import escape
from pathlib import Path

import numpy as np
import pandas as pd
from babel.lists import format_list

from sizing import memory, site
from sizing.catalog import Catalog
from sizing.errors import UsageError
from sizing.i18n import fmt_money, fmt_number, t
from sizing.versions import rules_for

__all__ = [
    "CONTEXT_POINTS",
    "MAX_SERIES",
    "Series",
    "concurrency_chart",
    "concurrency_series",
    "concurrency_svg",
    "price_chart",
    "price_rows",
    "price_svg",
]

CONTEXT_POINTS: tuple[int, ...] = tuple(2**k for k in range(10, 18))
"""The x positions of the concurrency chart, tokens: 1K, 2K, … 128K (a model's own maximum is added)."""

MAX_SERIES = 6
"""At most this many models per concurrency chart (one dash pattern and marker shape each)."""

AUTO_MIN_CONTEXT = 32768
"""Models picked automatically have at least this much context (their lines span most of the x axis)."""

KV_CACHE_DTYPE = "fp8"
"""The KV-cache type the concurrency chart shows (the guide's recommendation)."""

DASHES: tuple[str, ...] = ("", "8 4", "2 3", "9 3 2 3", "4 3", "9 3 2 3 2 3")
MARKERS: tuple[str, ...] = ("circle", "square", "triangle", "diamond", "triangle-down", "cross")

WIDTH = 720.0
FONT_PX = 11.2

SVG_NS = "http://www.w3.org/2000/svg"


# ---------------------------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------------------------


def _context(catalog_dir: str | Path | None) -> site.SiteContext:
    """The build context the other macros share: of ``catalog_dir``, else the site's active catalog."""
    return site.context(catalog_dir) if catalog_dir else site.active_context()


@dataclass(frozen=True)
class Series:
    """One model's line: whole-server concurrency at each context length (ascending)."""

    model: str
    name: str
    checkpoint: str
    precision: str
    plan: str
    contexts: tuple[int, ...]
    values: tuple[float, ...]


def _check_server(cat: Catalog, server_id: str) -> None:
    if server_id not in cat.servers:
        raise UsageError(f"unknown server {server_id!r}; catalog/servers.yaml has {', '.join(cat.servers)}")


def plan_label(tp: int, pp: int, dp: int) -> str:
    """``TP2``, ``TP1 × DP2``, ``TP8 × PP2``: the parallel layout, language-neutral."""
    parts = [f"TP{tp}"] + [f"{name}{n}" for name, n in (("PP", pp), ("DP", dp)) if n > 1]
    return " × ".join(parts)


def auto_models(cat: Catalog, fitting: Iterable[str]) -> list[str]:
    """A deterministic spread of sizes among the ``fitting`` models, at most :data:`MAX_SERIES`.

    Candidates: the largest model (total parameters) of each catalog family, among those with at
    least :data:`AUTO_MIN_CONTEXT` tokens of context. Sorted by size (ties: catalog order), the
    smallest, the largest and evenly spaced ones between are kept, smallest first.
    """
    fitting = set(fitting)
    order = {mid: i for i, mid in enumerate(cat.models)}
    largest: dict[str, str] = {}
    for mid, m in cat.models.items():
        best = largest.get(m.family)
        if mid in fitting and m.max_context >= AUTO_MIN_CONTEXT and (
                best is None or m.total_params_b > cat.models[best].total_params_b):
            largest[m.family] = mid
    ranked = sorted(largest.values(), key=lambda mid: (cat.models[mid].total_params_b, order[mid]))
    if len(ranked) <= MAX_SERIES:
        return ranked
    step = (len(ranked) - 1) / (MAX_SERIES - 1)
    return [ranked[round(i * step)] for i in range(MAX_SERIES)]


def chosen_rows(cat: Catalog, df: pd.DataFrame, server_id: str, models: Sequence[str] | None = None) -> pd.DataFrame:
    """One fitting chosen fp8-KV row per model on ``server_id``: its widest-precision checkpoint.

    Models: ``models`` in that order, else :func:`auto_models`. The checkpoint is the one with the
    most bits per weight that fits (ties: catalog order). At most :data:`MAX_SERIES` rows.
    """
    _check_server(cat, server_id)
    rows = df[df["chosen"] & df["fits"] & (df["server"] == server_id) & (df["kv_cache_dtype"] == KV_CACHE_DTYPE)]
    rows = rows[rows["max_context"] >= CONTEXT_POINTS[0]]
    if models is None:
        wanted = auto_models(cat, rows["model"])
    else:
        wanted = list(models)
        unknown = [m for m in wanted if m not in cat.models]
        if unknown:
            raise UsageError(f"unknown model(s) {', '.join(map(repr, unknown))}; see catalog/models.yaml")
    bits = rows["precision"].map({pid: spec.weight_bits for pid, spec in cat.precisions.items()})
    rows = rows.assign(_bits=bits, _order=np.arange(len(rows)))
    picked = []
    for model in wanted:
        of_model = rows[rows["model"] == model]
        if len(of_model):
            picked.append(of_model.sort_values(["_bits", "_order"], ascending=[False, True], kind="stable").index[0])
        if len(picked) == MAX_SERIES:
            break
    return rows.loc[picked].drop(columns=["_bits", "_order"])


def _points(max_context: int) -> list[int]:
    """The x positions of a model: the grid below its maximum, then the maximum (capped at 128K)."""
    cap = min(int(max_context), CONTEXT_POINTS[-1])
    return [c for c in CONTEXT_POINTS if c < cap] + [cap]


def concurrency_series(cat: Catalog, df: pd.DataFrame, server_id: str,
                       models: Sequence[str] | None = None) -> list[Series]:
    """Whole-server concurrency (per-engine concurrency × DP replicas) of each chosen model.

    Computed column-wise with :func:`sizing.memory.concurrency_at` on the chosen rows repeated
    once per context point. A line stops where one sequence no longer fits one engine.
    """
    rows = chosen_rows(cat, df, server_id, models)
    if rows.empty:
        return []
    points = [_points(m) for m in rows["max_context"]]
    long = rows.loc[rows.index.repeat([len(p) for p in points])]
    contexts = np.concatenate([np.asarray(p, dtype=np.int64) for p in points])
    per_engine = np.asarray(memory.concurrency_at(long, rules_for(str(df.attrs["vllm_version"])), contexts),
                            dtype=np.float64)
    whole = per_engine * long["dp"].to_numpy()
    series, start = [], 0
    for (_, row), pts in zip(rows.iterrows(), points):
        stop = start + len(pts)
        keep = per_engine[start:stop] >= 1
        series.append(Series(
            model=str(row["model"]), name=cat.models[row["model"]].name, checkpoint=str(row["checkpoint"]),
            precision=cat.precisions[row["precision"]].name,
            plan=plan_label(int(row["tp"]), int(row["pp"]), int(row["dp"])),
            contexts=tuple(int(c) for c in contexts[start:stop][keep]),
            values=tuple(float(v) for v in whole[start:stop][keep])))
        start = stop
    return [s for s in series if s.contexts]


def price_rows(cat: Catalog, df: pd.DataFrame) -> pd.DataFrame:
    """One row per priced server, cheapest GB of GPU memory first (ties by server id)."""
    rows = df[df["price_monthly"].notna()].drop_duplicates("server")
    rows = rows[["server", "price_monthly", "currency", "memory_gb", "server_gpus", "price_per_gb_month"]].copy()
    rows["name"] = [cat.servers[s].name for s in rows["server"]]
    rows["vram_gb"] = rows["memory_gb"] * rows["server_gpus"]
    return rows.sort_values(["price_per_gb_month", "server"], kind="stable").reset_index(drop=True)


# ---------------------------------------------------------------------------------------------
# SVG primitives
# ---------------------------------------------------------------------------------------------


def _esc(text: object) -> str:
    """HTML-escaped text with braces as entities, so catalog text can never look like a Jinja expression."""
    return escape(str(text), quote=True).replace("{", "&#123;").replace("}", "&#125;")


def _f(value: float) -> str:
    """A coordinate with two decimals, never ``-0.00``."""
    text = f"{value:.2f}"
    return "0.00" if text == "-0.00" else text


def _attrs(**attrs: object) -> str:
    """`` key="value"`` pairs in the given order; ``class_`` -> ``class``, ``_`` -> ``-``; None is dropped."""
    out = []
    for key, value in attrs.items():
        if value is None:
            continue
        name = "class" if key == "class_" else key.rstrip("_").replace("_", "-")
        out.append(f' {name}="{_esc(value)}"')
    return "".join(out)


def _el(tag: str, text: str | None = None, **attrs: object) -> str:
    """One element; ``text`` is already-escaped markup (None -> self-closing)."""
    if text is None:
        return f"<{tag}{_attrs(**attrs)}/>"
    return f"<{tag}{_attrs(**attrs)}>{text}</{tag}>"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-") or "x"


def text_width(text: str) -> float:
    """Estimated advance of ``text`` at :data:`FONT_PX` in a wide sans-serif (DejaVu), with 10 % to spare."""
    total = 0.0
    for ch in text:
        if unicodedata.east_asian_width(ch) in "WF":
            total += 1.0
        elif ch.isspace():
            total += 0.32
        elif ch.isupper():
            total += 0.78
        else:
            total += 0.6
    return total * FONT_PX * 1.1


def marker_path(shape: str, x: float, y: float, r: float = 4.0) -> str:
    """The ``d`` of a marker of ``shape`` centred on (x, y)."""
    if shape == "circle":
        return f"M{_f(x - r)} {_f(y)}a{_f(r)} {_f(r)} 0 1 0 {_f(2 * r)} 0a{_f(r)} {_f(r)} 0 1 0 {_f(-2 * r)} 0Z"
    if shape == "square":
        s = r * 0.85
        return f"M{_f(x - s)} {_f(y - s)}H{_f(x + s)}V{_f(y + s)}H{_f(x - s)}Z"
    if shape in ("triangle", "triangle-down"):
        k = 1 if shape == "triangle" else -1
        return (f"M{_f(x)} {_f(y - k * r * 1.2)}L{_f(x + r * 1.1)} {_f(y + k * r * 0.8)}"
                f"L{_f(x - r * 1.1)} {_f(y + k * r * 0.8)}Z")
    if shape == "diamond":
        s = r * 1.25
        return f"M{_f(x)} {_f(y - s)}L{_f(x + s)} {_f(y)}L{_f(x)} {_f(y + s)}L{_f(x - s)} {_f(y)}Z"
    if shape == "cross":
        s = r * 0.9
        return f"M{_f(x - s)} {_f(y - s)}L{_f(x + s)} {_f(y + s)}M{_f(x + s)} {_f(y - s)}L{_f(x - s)} {_f(y + s)}"
    raise ValueError(f"unknown marker shape {shape!r}")


def _marker(shape: str, x: float, y: float, title: str | None = None) -> str:
    """A marker path (a cross is stroked, the others filled), with an optional tooltip."""
    paint = {"fill": "none", "stroke": "currentColor", "stroke_width": "2"} if shape == "cross" else \
        {"fill": "currentColor", "stroke": "none"}
    inner = None if title is None else _el("title", _esc(title))
    return _el("path", inner, class_=f"sz-marker sz-marker--{shape}", d=marker_path(shape, x, y), **paint)


def _legend_key(index: int) -> str:
    """A small inline SVG showing series ``index``'s dash pattern and marker, for the HTML legend."""
    shape, dash = MARKERS[index], DASHES[index]
    line = _el("line", x1=_f(1), y1=_f(5), x2=_f(27), y2=_f(5), stroke="currentColor", stroke_width="2",
               stroke_dasharray=dash or None)
    return _el("svg", line + _marker(shape, 14, 5), xmlns=SVG_NS, class_=f"sz-key sz-series--{index}",
               viewBox="0 0 28 10", width=_f(28), height=_f(10), aria_hidden="true", focusable="false")


@dataclass(frozen=True)
class Axis:
    """A linear or logarithmic mapping of data values onto a pixel range."""

    lo: float
    hi: float
    start: float
    end: float
    log: bool = False

    def _u(self, value: float) -> float:
        return math.log10(value) if self.log else value

    def __call__(self, value: float) -> float:
        lo, hi = self._u(self.lo), self._u(self.hi)
        return self.start + (self._u(value) - lo) / (hi - lo) * (self.end - self.start)


def nice_step(span: float, target: int = 5) -> float:
    """A 1/2/2.5/5 × 10^k step giving about ``target`` intervals over ``span``."""
    raw = span / target
    power = 10 ** math.floor(math.log10(raw))
    for mult in (1, 2, 2.5, 5, 10):
        if raw <= mult * power * (1 + 1e-9):
            return mult * power
    return 10 * power


def linear_ticks(top: float, target: int = 5) -> tuple[list[float], int]:
    """Ticks from 0 to a nice value at or above ``top``, and the decimals their labels need."""
    step = nice_step(max(top, 1e-9), target)
    count = math.ceil(top / step - 1e-9)
    exponent = Decimal(repr(round(step, 9))).normalize().as_tuple().exponent
    decimals = max(0, -int(exponent))
    return [i * step for i in range(max(count, 1) + 1)], decimals


def _figure(kind: str, svg: str, legend: str, caption: str) -> str:
    return _el("figure", svg + legend + _el("figcaption", _esc(caption)), class_=f"sz-chart sz-chart--{kind}",
               data_search_exclude="")


def _svg(ident: str, height: float, title: str, desc: str, body: Iterable[str], **attrs: object) -> str:
    head = _el("title", _esc(title), id=f"{ident}-title") + _el("desc", _esc(desc), id=f"{ident}-desc")
    return _el("svg", head + "".join(body), xmlns=SVG_NS, id=ident, class_="sz-chart__svg",
               viewBox=f"0 0 {_f(WIDTH)} {_f(height)}", width=_f(WIDTH), height=_f(height), role="img",
               aria_labelledby=f"{ident}-title {ident}-desc", font_size=_f(FONT_PX), **attrs)


# ---------------------------------------------------------------------------------------------
# Concurrency by context length
# ---------------------------------------------------------------------------------------------

CONC_HEIGHT = 400.0
CONC_LEFT, CONC_RIGHT, CONC_TOP, CONC_BOTTOM = 56.0, 20.0, 34.0, 50.0


def _y_axis(values: Sequence[float]) -> tuple[Axis, list[float], list[float], int]:
    """The y axis of the concurrency chart: log10 when the values span more than two decades.

    Returns the axis, the labelled ticks, unlabelled minor grid values and tick decimals.
    """
    top_px, bottom_px = CONC_TOP, CONC_HEIGHT - CONC_BOTTOM
    lo, hi = min(values), max(values)
    if hi / lo > 100:
        low, high = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
        ticks = [10.0**k for k in range(low, high + 1)]
        minor = [m * 10.0**k for k in range(low, high) for m in (2, 5)]
        return Axis(ticks[0], ticks[-1], bottom_px, top_px, log=True), ticks, minor, 0
    ticks, decimals = linear_ticks(hi)
    return Axis(0.0, ticks[-1], bottom_px, top_px), ticks, [], decimals


def _x_axis() -> Axis:
    return Axis(CONTEXT_POINTS[0], CONTEXT_POINTS[-1], CONC_LEFT, WIDTH - CONC_RIGHT, log=True)


def _context_tick(lang: str, tokens: int) -> str:
    return t(lang, "chart_context_tick", value=fmt_number(tokens / 1024, lang, 0 if tokens % 1024 == 0 else 1))


def concurrency_svg(lang: str, cat: Catalog, df: pd.DataFrame, server_id: str,
                    models: Sequence[str] | None = None, series: Sequence[Series] | None = None) -> str:
    """The concurrency-by-context figure of ``server_id`` in ``lang`` (see :func:`concurrency_series`;
    ``series`` when they were computed already)."""
    series = concurrency_series(cat, df, server_id, models) if series is None else list(series)
    server = cat.servers[server_id].name
    if not series:
        return _el("p", _esc(t(lang, "chart_no_models", server=server)), class_="sz-chart-empty")
    ident = f"sz-conc-{_slug(server_id)}"
    xa = _x_axis()
    ya, yticks, minor, decimals = _y_axis([v for s in series for v in s.values])
    left, right, top, bottom = CONC_LEFT, WIDTH - CONC_RIGHT, CONC_TOP, CONC_HEIGHT - CONC_BOTTOM
    body: list[str] = []
    grid = [_el("line", class_="sz-grid sz-grid--minor", x1=_f(left), x2=_f(right), y1=_f(ya(v)), y2=_f(ya(v)),
                stroke="currentColor", stroke_opacity="0.06") for v in minor]
    for v in yticks:
        y = ya(v)
        grid.append(_el("line", class_="sz-grid", x1=_f(left), x2=_f(right), y1=_f(y), y2=_f(y),
                        stroke="currentColor", stroke_opacity="0.12", data_value=_f(v)))
        grid.append(_el("text", _esc(fmt_number(v, lang, decimals)), x=_f(left - 6), y=_f(y + 4),
                        text_anchor="end"))
    for c in CONTEXT_POINTS:
        x = xa(c)
        grid.append(_el("line", class_="sz-grid", x1=_f(x), x2=_f(x), y1=_f(top), y2=_f(bottom),
                        stroke="currentColor", stroke_opacity="0.12", data_value=str(c)))
        grid.append(_el("text", _esc(_context_tick(lang, c)), x=_f(x), y=_f(bottom + 17), text_anchor="middle"))
    body.append(_el("g", "".join(grid), class_="sz-axes"))
    body.append(_el("path", class_="sz-axis", d=f"M{_f(left)} {_f(top)}V{_f(bottom)}H{_f(right)}", fill="none",
                    stroke="currentColor", stroke_opacity="0.4"))
    y_label = t(lang, "chart_concurrency_y_log" if ya.log else "chart_concurrency_y")
    body.append(_el("text", _esc(y_label), class_="sz-axis-label", x=_f(4), y=_f(top - 14)))
    body.append(_el("text", _esc(t(lang, "chart_concurrency_x")), class_="sz-axis-label",
                    x=_f((left + right) / 2), y=_f(CONC_HEIGHT - 6), text_anchor="middle"))
    legend = []
    for i, s in enumerate(series):
        label = t(lang, "chart_series_label", model=s.name, precision=s.precision, plan=s.plan)
        pts = [(xa(c), ya(v)) for c, v in zip(s.contexts, s.values)]
        parts = [_el("polyline", class_="sz-line", points=" ".join(f"{_f(x)},{_f(y)}" for x, y in pts), fill="none",
                     stroke="currentColor", stroke_width="2", stroke_linejoin="round",
                     stroke_dasharray=DASHES[i] or None)]
        for (x, y), c, v in zip(pts, s.contexts, s.values):
            tip = t(lang, "chart_point_title", model=s.name, value=fmt_number(v, lang, 1),
                    context=fmt_number(c, lang))
            parts.append(_marker(MARKERS[i], x, y, tip))
        body.append(_el("g", "".join(parts), class_=f"sz-series sz-series--{i}", data_model=s.model,
                        data_checkpoint=s.checkpoint))
        legend.append(_el("li", _legend_key(i) + _esc(label)))
    names = format_list([s.name for s in series], locale=lang)
    title = t(lang, "chart_concurrency_title", server=server)
    desc = t(lang, "chart_concurrency_desc", server=server, version=str(df.attrs["vllm_version"]), models=names)
    svg = _svg(ident, CONC_HEIGHT, title, desc, body, data_scale="log" if ya.log else "linear")
    legend_html = _el("ul", "".join(legend), class_="sz-legend", aria_label=t(lang, "chart_legend_models"))
    return _figure("concurrency", svg, legend_html, title)


def concurrency_chart(lang: str, server: str, models: Sequence[str] | str | None = None,
                      catalog_dir: str | Path | None = None) -> str:
    """Macro ``sz_chart_concurrency(server, models=None)``: the concurrency figure of one server.

    ``models`` optionally names the catalog models to plot (a list, or one comma-separated string).
    """
    if isinstance(models, str):
        models = [m.strip() for m in models.split(",") if m.strip()]
    ctx = _context(catalog_dir)
    _check_server(ctx.catalog, server)
    ready = ctx.series.get(server) if models is None else None
    return concurrency_svg(lang, ctx.catalog, ctx.frame, server, models, ready)


def all_series(cat: Catalog, df: pd.DataFrame) -> dict[str, tuple[Series, ...]]:
    """The automatically chosen series of every server (computed once per build, see :mod:`sizing.site`)."""
    return {server: tuple(concurrency_series(cat, df, server)) for server in cat.servers}


# ---------------------------------------------------------------------------------------------
# Price per GB of GPU memory
# ---------------------------------------------------------------------------------------------

BAR_BAND, BAR_HEIGHT = 30.0, 20.0
PRICE_TOP, PRICE_BOTTOM, PRICE_RIGHT = 10.0, 48.0, 96.0


def price_svg(lang: str, cat: Catalog, df: pd.DataFrame) -> str:
    """Horizontal bars of monthly price per GB of GPU memory, one per priced server, cheapest first."""
    rows = price_rows(cat, df)
    if rows.empty:
        return _el("p", _esc(t(lang, "chart_no_prices")), class_="sz-chart-empty")
    ident = "sz-price-per-gb"
    height = PRICE_TOP + BAR_BAND * len(rows) + PRICE_BOTTOM
    left = min(max(text_width(n) for n in rows["name"]) + 16, 300.0)
    right, bottom = WIDTH - PRICE_RIGHT, PRICE_TOP + BAR_BAND * len(rows)
    currencies = sorted(set(rows["currency"]))
    ticks, decimals = linear_ticks(float(rows["price_per_gb_month"].max()))
    xa = Axis(0.0, ticks[-1], left, right)
    body: list[str] = []
    grid = []
    for v in ticks:
        x = xa(v)
        label = fmt_money(v, currencies[0], lang, decimals) if len(currencies) == 1 else fmt_number(v, lang, decimals)
        grid.append(_el("line", class_="sz-grid", x1=_f(x), x2=_f(x), y1=_f(PRICE_TOP), y2=_f(bottom),
                        stroke="currentColor", stroke_opacity="0.12", data_value=_f(v)))
        grid.append(_el("text", _esc(label), x=_f(x), y=_f(bottom + 16), text_anchor="middle"))
    body.append(_el("g", "".join(grid), class_="sz-axes"))
    bars = []
    for i, row in rows.iterrows():
        y = PRICE_TOP + i * BAR_BAND + (BAR_BAND - BAR_HEIGHT) / 2
        value = float(row["price_per_gb_month"])
        shown = fmt_money(value, row["currency"], lang)
        tip = t(lang, "chart_price_bar_title", server=row["name"], value=shown,
                price=fmt_money(row["price_monthly"], row["currency"], lang, 0),
                memory=f"{fmt_number(row['vram_gb'], lang)}\u00a0{t(lang, 'unit_gb')}")
        bar = _el("rect", _el("title", _esc(tip)), class_="sz-bar", x=_f(left), y=_f(y),
                  width=_f(xa(value) - left), height=_f(BAR_HEIGHT), fill="currentColor")
        mid = y + BAR_HEIGHT / 2 + 4
        bars.append(_el("g", bar
                        + _el("text", _esc(row["name"]), class_="sz-bar-name", x=_f(left - 8), y=_f(mid),
                              text_anchor="end")
                        + _el("text", _esc(shown), class_="sz-bar-value", x=_f(xa(value) + 6), y=_f(mid)),
                        class_="sz-bar-row", data_server=row["server"], data_value=_f(value)))
    body.append(_el("g", "".join(bars), class_="sz-bars"))
    body.append(_el("path", class_="sz-axis", d=f"M{_f(left)} {_f(PRICE_TOP)}V{_f(bottom)}", fill="none",
                    stroke="currentColor", stroke_opacity="0.4"))
    body.append(_el("text", _esc(t(lang, "chart_price_x")), class_="sz-axis-label", x=_f((left + right) / 2),
                    y=_f(height - 6), text_anchor="middle"))
    title = t(lang, "chart_price_title")
    listing = format_list([f"{n} {fmt_money(v, c, lang)}" for n, v, c in
                           zip(rows["name"], rows["price_per_gb_month"], rows["currency"])], locale=lang)
    svg = _svg(ident, height, title, t(lang, "chart_price_desc", servers=listing), body)
    return _figure("price", svg, "", title)


def price_chart(lang: str, catalog_dir: str | Path | None = None) -> str:
    """Macro ``sz_chart_price()``: monthly price per GB of GPU memory of every priced server."""
    ctx = _context(catalog_dir)
    cat, df = ctx.catalog, ctx.frame
    return price_svg(lang, cat, df)
