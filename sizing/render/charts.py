"""Build-time inline SVG charts: the SVG primitives and concurrency by context length per server
(the price chart is :mod:`sizing.render.price_chart`).

Every chart is a ``<figure class="sz-chart">`` holding an ``<svg>`` (with ``<title>`` and
``<desc>`` for screen readers), an HTML legend and a caption, drawn from the points it is given
(:mod:`sizing.views.series`, computed once per build): no engine calls, no JavaScript, no fonts, nothing
fetched. Colours come from
``currentColor``; ``overrides/assets/stylesheets/sizing.css`` sets the ``color`` of each series
and bar class from Material's variables, so light and dark schemes both read, and series also
differ by dash pattern and marker shape.

Output is deterministic: rows in catalog order, coordinates with two decimals, ids derived from
the server id. The geometry never depends on the language; only label strings and number
formatting (Babel, via :mod:`sizing.render.i18n`) do. The whole figure is one line of well-formed XML,
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

from sizing.catalog.loader import Catalog
from sizing.render.catalog_text import server_name
from sizing.render.i18n import LANGS, fmt_number, t
from sizing.render.plural import join_names, plural
from sizing.views.series import CONTEXT_POINTS, Series, check_server

__all__ = ["concurrency_svg"]

DASHES: tuple[str, ...] = ("", "8 4", "2 3", "9 3 2 3", "4 3", "9 3 2 3 2 3")
MARKERS: tuple[str, ...] = ("circle", "square", "triangle", "diamond", "triangle-down", "cross")

WIDTH = 720.0
FONT_PX = 11.2
PHONE_FONT_PX = 24.0
"""Label size in user units under the phone stylesheet (``sizing.css``, max-width 44.9375em): the
720-unit chart is drawn 344–358 px wide there at 390 px (Zensical's and Material's content widths), so
24 units are 11.5–11.9 px on screen. Margins are sized
for it, so labels fit at both sizes (the desktop stylesheet sets 0.7rem, 14 units)."""

SVG_NS = "http://www.w3.org/2000/svg"


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


def grid_line(x1: float, x2: float, y1: float, y2: float, value: str | None = None) -> str:
    """One grid line from (x1, y1) to (x2, y2), ``value`` the tick it marks (``data-value``, if any)."""
    return _el(
        "line",
        class_="sz-grid",
        x1=_f(x1),
        x2=_f(x2),
        y1=_f(y1),
        y2=_f(y2),
        stroke="currentColor",
        stroke_opacity="0.12",
        data_value=value,
    )


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-") or "x"


def text_width(text: str, font_px: float = FONT_PX) -> float:
    """Estimated advance of ``text`` at ``font_px`` in a wide sans-serif (DejaVu), with 10 % to spare."""
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
    return total * font_px * 1.1


def marker_path(shape: str, x: float, y: float, r: float = 4.0) -> str:
    """The ``d`` of a marker of ``shape`` centred on (x, y)."""
    if shape == "circle":
        return (
            f"M{_f(x - r)} {_f(y)}a{_f(r)} {_f(r)} 0 1 0 {_f(2 * r)} 0a{_f(r)} {_f(r)} 0 1 0 {_f(-2 * r)} 0Z"
        )
    if shape == "square":
        s = r * 0.85
        return f"M{_f(x - s)} {_f(y - s)}H{_f(x + s)}V{_f(y + s)}H{_f(x - s)}Z"
    if shape in ("triangle", "triangle-down"):
        k = 1 if shape == "triangle" else -1
        return (
            f"M{_f(x)} {_f(y - k * r * 1.2)}L{_f(x + r * 1.1)} {_f(y + k * r * 0.8)}"
            f"L{_f(x - r * 1.1)} {_f(y + k * r * 0.8)}Z"
        )
    if shape == "diamond":
        s = r * 1.25
        return f"M{_f(x)} {_f(y - s)}L{_f(x + s)} {_f(y)}L{_f(x)} {_f(y + s)}L{_f(x - s)} {_f(y)}Z"
    if shape == "cross":
        s = r * 0.9
        x0, x1, y0, y1 = _f(x - s), _f(x + s), _f(y - s), _f(y + s)
        return f"M{x0} {y0}L{x1} {y1}M{x1} {y0}L{x0} {y1}"
    raise ValueError(f"unknown marker shape {shape!r}")


def _marker(shape: str, x: float, y: float, title: str | None = None) -> str:
    """A marker path (a cross is stroked, the others filled), with an optional tooltip."""
    paint = (
        {"fill": "none", "stroke": "currentColor", "stroke_width": "2"}
        if shape == "cross"
        else {"fill": "currentColor", "stroke": "none"}
    )
    inner = None if title is None else _el("title", _esc(title))
    return _el("path", inner, class_=f"sz-marker sz-marker--{shape}", d=marker_path(shape, x, y), **paint)


def _legend_key(index: int) -> str:
    """A small inline SVG showing series ``index``'s dash pattern and marker, for the HTML legend."""
    shape, dash = MARKERS[index], DASHES[index]
    line = _el(
        "line",
        x1=_f(1),
        y1=_f(5),
        x2=_f(27),
        y2=_f(5),
        stroke="currentColor",
        stroke_width="2",
        stroke_dasharray=dash or None,
    )
    return _el(
        "svg",
        line + _marker(shape, 14, 5),
        xmlns=SVG_NS,
        class_=f"sz-key sz-series--{index}",
        viewBox="0 0 28 10",
        width=_f(28),
        height=_f(10),
        aria_hidden="true",
        focusable="false",
    )


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
    return _el(
        "figure",
        svg + legend + _el("figcaption", _esc(caption)),
        class_=f"sz-chart sz-chart--{kind}",
        data_search_exclude="",
    )


def _svg(ident: str, height: float, title: str, desc: str, body: Iterable[str], **attrs: object) -> str:
    head = _el("title", _esc(title), id=f"{ident}-title") + _el("desc", _esc(desc), id=f"{ident}-desc")
    return _el(
        "svg",
        head + "".join(body),
        xmlns=SVG_NS,
        id=ident,
        class_="sz-chart__svg",
        viewBox=f"0 0 {_f(WIDTH)} {_f(height)}",
        width=_f(WIDTH),
        height=_f(height),
        role="img",
        aria_labelledby=f"{ident}-title {ident}-desc",
        font_size=_f(FONT_PX),
        **attrs,
    )


# ---------------------------------------------------------------------------------------------
# Concurrency by context length
# ---------------------------------------------------------------------------------------------

CONC_HEIGHT = 420.0
CONC_LEFT, CONC_RIGHT, CONC_TOP, CONC_BOTTOM = 56.0, 20.0, 52.0, 74.0
LINE = 25.0
"""Line height of a two-line axis title at :data:`PHONE_FONT_PX`."""


def _halves(text: str) -> tuple[str, str]:
    """``text`` in two lines of about equal length: at the space nearest the middle, else mid-text."""
    middle = len(text) // 2
    spaces = [i for i, ch in enumerate(text) if ch == " "]
    if not spaces:
        return text[:middle], text[middle:]
    cut = min(spaces, key=lambda i: abs(i - middle))
    return text[:cut], text[cut + 1 :]


def _axis_title(text: str, x: float, y: float, anchor: str | None = None, top: bool = False) -> str:
    """An axis title twice: in two lines ending at baseline ``y`` (``sz-narrow``, for the phone's larger
    font), and on one line (``sz-wide``) at the baseline of the first of them with ``top``, else of the
    last; sizing.css shows one of them."""
    first, second = _halves(text)
    lines = _el("tspan", _esc(first), x=_f(x), y=_f(y - LINE)) + _el("tspan", _esc(second), x=_f(x), y=_f(y))
    wide_y = y - LINE if top else y
    return _el(
        "text", _esc(text), class_="sz-axis-label sz-wide", x=_f(x), y=_f(wide_y), text_anchor=anchor
    ) + _el("text", lines, class_="sz-axis-label sz-narrow", x=_f(x), y=_f(y), text_anchor=anchor)


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


def _x_axis(left: float) -> Axis:
    return Axis(CONTEXT_POINTS[0], CONTEXT_POINTS[-1], left, WIDTH - CONC_RIGHT, log=True)


def _label_margin(labels: Iterable[str], least: float, pad: float) -> float:
    """A margin holding the widest of ``labels`` (given in every language, so the geometry never
    depends on the page's) at the phone's font size, and at least ``least``."""
    return max([least, *(text_width(label, PHONE_FONT_PX) + pad for label in labels)])


def _context_tick(lang: str, tokens: int) -> str:
    return t(
        lang, "chart_context_tick", value=fmt_number(tokens / 1024, lang, 0 if tokens % 1024 == 0 else 1)
    )


def series_plan(s: Series, lang: str) -> str:
    """A line's plan for its legend: the plan of its first point (the language's one-GPU word for ""), then
    the plan from each point where it changes, as the fit tables write a context's other plan."""
    single = t(lang, "plan_single_gpu")
    changes = [
        t(lang, "plan_at_context", context=_context_tick(lang, point), plan=plan or single)
        for point, plan in s.plan_changes
    ]
    own = s.plan or single
    if not changes:
        return own
    return t(lang, "plan_with_contexts", plan=own, others=t(lang, "list_separator").join(changes))


def concurrency_svg(lang: str, cat: Catalog, server_id: str, series: Sequence[Series], version: str) -> str:
    """The concurrency-by-context figure of ``server_id`` in ``lang``: draws ``series``
    (:func:`sizing.views.series.concurrency_series`), computed by vLLM ``version``'s rules."""
    check_server(cat, server_id)
    server = server_name(lang, cat.servers[server_id].name)
    if not series:
        return _el("p", _esc(t(lang, "chart_no_models", server=server)), class_="sz-chart-empty")
    ident = f"sz-conc-{_slug(server_id)}"
    ya, yticks, minor, decimals = _y_axis([v for s in series for v in s.values])
    left = _label_margin((fmt_number(v, lg, decimals) for v in yticks for lg in LANGS), CONC_LEFT, 10.0)
    xa = _x_axis(left)
    right, top, bottom = WIDTH - CONC_RIGHT, CONC_TOP, CONC_HEIGHT - CONC_BOTTOM
    body: list[str] = []
    grid = [
        _el(
            "line",
            class_="sz-grid sz-grid--minor",
            x1=_f(left),
            x2=_f(right),
            y1=_f(ya(v)),
            y2=_f(ya(v)),
            stroke="currentColor",
            stroke_opacity="0.06",
        )
        for v in minor
    ]
    for v in yticks:
        y = ya(v)
        grid.append(grid_line(left, right, y, y, _f(v)))
        grid.append(
            _el("text", _esc(fmt_number(v, lang, decimals)), x=_f(left - 6), y=_f(y + 4), text_anchor="end")
        )
    for c in CONTEXT_POINTS:
        x = xa(c)
        grid.append(grid_line(x, x, top, bottom, str(c)))
        grid.append(
            _el("text", _esc(_context_tick(lang, c)), x=_f(x), y=_f(bottom + 17), text_anchor="middle")
        )
    body.append(_el("g", "".join(grid), class_="sz-axes"))
    body.append(
        _el(
            "path",
            class_="sz-axis",
            d=f"M{_f(left)} {_f(top)}V{_f(bottom)}H{_f(right)}",
            fill="none",
            stroke="currentColor",
            stroke_opacity="0.4",
        )
    )
    y_label = t(lang, "chart_concurrency_y_log" if ya.log else "chart_concurrency_y")
    body.append(_axis_title(y_label, 4.0, top - 14))
    body.append(
        _axis_title(t(lang, "chart_concurrency_x"), (left + right) / 2, CONC_HEIGHT - 4, "middle", top=True)
    )
    legend = []
    for i, s in enumerate(series):
        label = t(
            lang,
            "chart_series_label",
            model=s.name,
            precision=s.precision,
            plan=series_plan(s, lang),
        )
        pts = [(xa(c), ya(v)) for c, v in zip(s.contexts, s.values)]
        parts = [
            _el(
                "polyline",
                class_="sz-line",
                points=" ".join(f"{_f(x)},{_f(y)}" for x, y in pts),
                fill="none",
                stroke="currentColor",
                stroke_width="2",
                stroke_linejoin="round",
                stroke_dasharray=DASHES[i] or None,
            )
        ]
        for (x, y), c, v in zip(pts, s.contexts, s.values):
            whole = math.floor(v)
            tip = t(
                lang,
                "chart_point_title",
                model=s.name,
                sequences=plural(lang, "plural_sequences", whole, fmt_number(whole, lang)),
                context=plural(lang, "plural_tokens", c, fmt_number(c, lang)),
            )
            parts.append(_marker(MARKERS[i], x, y, tip))
        body.append(
            _el(
                "g",
                "".join(parts),
                class_=f"sz-series sz-series--{i}",
                data_model=s.model,
                data_checkpoint=s.checkpoint,
            )
        )
        legend.append(_el("li", _legend_key(i) + _esc(label)))
    names = join_names([s.name for s in series], lang)
    title = t(lang, "chart_concurrency_title", server=server)
    desc = t(lang, "chart_concurrency_desc", server=server, version=version, models=names)
    svg = _svg(ident, CONC_HEIGHT, title, desc, body, data_scale="log" if ya.log else "linear")
    legend_html = _el("ul", "".join(legend), class_="sz-legend", aria_label=t(lang, "chart_legend_models"))
    return _figure("concurrency", svg, legend_html, title)
