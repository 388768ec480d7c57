"""The price chart: horizontal bars of monthly price per GB of GPU memory, one per priced server.

Drawn from :func:`sizing.views.series.price_rows` with the primitives of :mod:`sizing.render.charts` (one
line of well-formed SVG in a figure, geometry independent of the language, labels formatted by Babel).
"""

from __future__ import annotations

from collections.abc import Sequence

from sizing.render.charts import (
    WIDTH,
    Axis,
    _el,
    _esc,
    _f,
    _figure,
    _label_margin,
    _svg,
    grid_line,
    linear_ticks,
)
from sizing.render.i18n import LANGS, fmt_money, fmt_number, t
from sizing.render.plural import join_names
from sizing.views.series import PriceRow

__all__ = ["price_svg"]


BAR_BAND, BAR_HEIGHT = 30.0, 20.0
PRICE_TOP, PRICE_BOTTOM, PRICE_RIGHT = 10.0, 48.0, 96.0


def price_svg(lang: str, rows: Sequence[PriceRow]) -> str:
    """Horizontal bars of monthly price per GB of GPU memory: one per row of
    :func:`sizing.views.series.price_rows` (priced servers, cheapest first)."""
    if not rows:
        return _el("p", _esc(t(lang, "chart_no_prices")), class_="sz-chart-empty")
    height = PRICE_TOP + BAR_BAND * len(rows) + PRICE_BOTTOM
    left = min(_label_margin((r.name for r in rows), 0.0, 16.0), 300.0)
    shown = [fmt_money(r.price_per_gb_month, r.currency, lg) for r in rows for lg in LANGS]
    right = WIDTH - _label_margin(shown, PRICE_RIGHT, 12.0)
    bottom = PRICE_TOP + BAR_BAND * len(rows)
    ticks, decimals = linear_ticks(max(r.price_per_gb_month for r in rows))
    xa = Axis(0.0, ticks[-1], left, right)
    currencies = sorted({r.currency for r in rows})
    body = [
        _grid(lang, xa, ticks, decimals, currencies[0] if len(currencies) == 1 else "", bottom),
        _el("g", "".join(_bar(lang, xa, i, row) for i, row in enumerate(rows)), class_="sz-bars"),
        _el(
            "path",
            class_="sz-axis",
            d=f"M{_f(left)} {_f(PRICE_TOP)}V{_f(bottom)}",
            fill="none",
            stroke="currentColor",
            stroke_opacity="0.4",
        ),
        _el(
            "text",
            _esc(t(lang, "chart_price_x")),
            class_="sz-axis-label",
            x=_f((left + right) / 2),
            y=_f(height - 6),
            text_anchor="middle",
        ),
    ]
    title = t(lang, "chart_price_title")
    listing = join_names(
        [f"{r.name} {fmt_money(r.price_per_gb_month, r.currency, lang)}" for r in rows], lang
    )
    svg = _svg("sz-price-per-gb", height, title, t(lang, "chart_price_desc", servers=listing), body)
    return _figure("price", svg, "", title)


def _grid(lang: str, xa: Axis, ticks: list[float], decimals: int, currency: str, bottom: float) -> str:
    """The vertical grid lines and their labels: money in ``currency``, or plain numbers when "" (the
    bars are in several currencies)."""
    grid = []
    for v in ticks:
        x = xa(v)
        label = fmt_money(v, currency, lang, decimals) if currency else fmt_number(v, lang, decimals)
        grid.append(grid_line(x, x, PRICE_TOP, bottom, _f(v)))
        grid.append(_el("text", _esc(label), x=_f(x), y=_f(bottom + 16), text_anchor="middle"))
    return _el("g", "".join(grid), class_="sz-axes")


def _bar(lang: str, xa: Axis, index: int, row: PriceRow) -> str:
    """One server's bar (its tooltip naming price, memory and price per GB), name and value."""
    left = xa.start
    y = PRICE_TOP + index * BAR_BAND + (BAR_BAND - BAR_HEIGHT) / 2
    shown = fmt_money(row.price_per_gb_month, row.currency, lang)
    tip = t(
        lang,
        "chart_price_bar_title",
        server=row.name,
        value=shown,
        price=fmt_money(row.price_monthly, row.currency, lang, 0),
        memory=f"{fmt_number(row.vram_gb, lang)}\u00a0{t(lang, 'unit_gb')}",
    )
    end = xa(row.price_per_gb_month)
    bar = _el(
        "rect",
        _el("title", _esc(tip)),
        class_="sz-bar",
        x=_f(left),
        y=_f(y),
        width=_f(end - left),
        height=_f(BAR_HEIGHT),
        fill="currentColor",
    )
    mid = y + BAR_HEIGHT / 2 + 4
    name = _el("text", _esc(row.name), class_="sz-bar-name", x=_f(left - 8), y=_f(mid), text_anchor="end")
    value = _el("text", _esc(shown), class_="sz-bar-value", x=_f(end + 6), y=_f(mid))
    return _el(
        "g",
        bar + name + value,
        class_="sz-bar-row",
        data_server=row.server,
        data_value=_f(row.price_per_gb_month),
    )
