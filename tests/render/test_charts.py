"""Tests for sizing.render.charts: well-formed, deterministic, language-neutral SVG that plots the engine's
numbers."""

from __future__ import annotations

import math
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml

from sizing.catalog.loader import Catalog, load_catalog
from sizing.engine import memory
from sizing.engine.cases import COMBINATION
from sizing.engine.evaluate import evaluate
from sizing.engine.versions import rules_for
from sizing.errors import UsageError
from sizing.render import charts, macros, price_chart
from sizing.render.i18n import LANGS, fmt_money, t
from sizing.site import context as site
from sizing.site import docs_macros
from sizing.views import series as views

ROOT = Path(__file__).resolve().parents[2]
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def real(catalog: Catalog, matrix: pd.DataFrame) -> tuple[Catalog, pd.DataFrame]:
    """The repository catalog and its evaluated matrix (the run's session fixtures)."""
    return catalog, matrix


@pytest.fixture(scope="module")
def servers(real: tuple[Catalog, pd.DataFrame]) -> list[str]:
    """Servers with at least one plotted model."""
    cat, df = real
    found = [s for s in cat.servers if views.concurrency_series(cat, df, s)]
    assert found, "no server has a model to plot"
    return found


def conc_svg(lang: str, cat: Catalog, df: pd.DataFrame, server: str, models: list[str] | None = None) -> str:
    """The concurrency figure of ``server`` drawn from the series the view computes."""
    points = views.concurrency_series(cat, df, server, models)
    return charts.concurrency_svg(lang, cat, server, points, str(df.attrs["vllm_version"]))


def price_of(lang: str, cat: Catalog, df: pd.DataFrame) -> str:
    """The price figure drawn from the view's price rows."""
    return price_chart.price_svg(lang, views.price_rows(cat, df))


def parse(markup: str) -> ET.Element:
    """The figure as an XML tree (fails the test if it is not well-formed)."""
    return ET.fromstring(markup)


def svg_of(figure: ET.Element) -> ET.Element:
    svg = figure.find(f"{SVG}svg")
    assert svg is not None
    return svg


def polylines(figure: ET.Element) -> list[tuple[ET.Element, list[tuple[float, float]]]]:
    """Each series group with the (x, y) points of its polyline."""
    out = []
    for group in svg_of(figure).iter(f"{SVG}g"):
        if "sz-series" in group.get("class", "").split():
            line = group.find(f"{SVG}polyline")
            assert line is not None
            pts = [tuple(float(v) for v in p.split(",")) for p in line.get("points", "").split()]
            out.append((group, pts))
    return out


def tick_transform(figure: ET.Element, vertical: bool, log: bool) -> tuple[Any, Any]:
    """value -> pixel and pixel -> value, fitted from two labelled grid lines of one axis."""
    ticks = []
    for line in svg_of(figure).iter(f"{SVG}line"):
        if line.get("data-value") is None or "sz-grid" not in line.get("class", ""):
            continue
        is_horizontal = line.get("y1") == line.get("y2")
        if is_horizontal == vertical:
            pos = float(line.get("y1") if vertical else line.get("x1"))
            ticks.append((float(line.get("data-value")), pos))
    ticks.sort()
    (v0, p0), (v1, p1) = ticks[0], ticks[-1]
    f = (lambda v: math.log(v)) if log else (lambda v: v)
    g = (lambda u: math.exp(u)) if log else (lambda u: u)
    scale = (p1 - p0) / (f(v1) - f(v0))
    return (lambda v: p0 + (f(v) - f(v0)) * scale), (lambda p: g(f(v0) + (p - p0) / scale))


def engine_row(df: pd.DataFrame, server: str, model: str, checkpoint: str) -> pd.DataFrame:
    """The chosen, fitting fp8-KV row the chart should have used (the widest precision of the model)."""
    rows = df[
        (df["server"] == server)
        & (df["model"] == model)
        & (df["checkpoint"] == checkpoint)
        & (df["kv_cache_dtype"] == "fp8")
        & df["chosen"]
        & df["fits"]
    ]
    assert len(rows) >= 1
    return rows


def plan_row_at(df: pd.DataFrame, row: pd.DataFrame, context: int) -> pd.DataFrame:
    """The row of ``row``'s combination whose plan the chart draws at ``context``: the one chosen at the
    shortest published context at or above it (the longest beyond them)."""
    lengths = [c for c in df.attrs["contexts"] if f"chosen_{c}" in df]
    at = next((c for c in lengths if c >= context), lengths[-1])
    same = np.logical_and.reduce([df[k] == row[k].iloc[0] for k in COMBINATION])
    return df[same & df[f"chosen_{at}"]]


def test_every_server_chart_parses_and_is_accessible(real, servers) -> None:
    """Assert each chart is well-formed XML with an svg titled and described for screen readers."""
    cat, df = real
    for server in cat.servers:
        markup = conc_svg("en", cat, df, server)
        root = parse(markup)
        if server not in servers:
            assert root.tag == "p"
            continue
        svg = svg_of(root)
        ident = svg.get("id")
        assert ident == f"sz-conc-{server.replace('.', '-')}"
        title, desc = svg.find(f"{SVG}title"), svg.find(f"{SVG}desc")
        assert title is not None and title.text and cat.servers[server].name in title.text
        assert desc is not None and desc.text
        assert svg.get("aria-labelledby") == f"{ident}-title {ident}-desc"
        assert svg.get("role") == "img"
        assert "\n" not in markup
    price = parse(price_of("ru", cat, df))
    assert svg_of(price).find(f"{SVG}title").text == "Месячная цена за 1\u00a0ГБ памяти GPU"


def test_output_is_deterministic(real, servers) -> None:
    """Assert two calls, and a call on a freshly evaluated matrix, give the same bytes."""
    cat, df = real
    fresh_cat = load_catalog(ROOT / "catalog")
    fresh = evaluate(fresh_cat)
    for server in servers[:4]:
        first = conc_svg("ru", cat, df, server)
        assert first == conc_svg("ru", cat, df, server)
        assert first == conc_svg("ru", fresh_cat, fresh, server)
    assert price_of("zh", cat, df) == price_of("zh", fresh_cat, fresh)


def test_coordinates_have_two_decimals(real, servers) -> None:
    """Assert every number in a coordinate attribute is written with exactly two decimals."""
    cat, df = real
    markup = conc_svg("en", cat, df, servers[0]) + price_of("en", cat, df)
    for name in ("x", "y", "x1", "x2", "y1", "y2", "width", "height"):
        for value in re.findall(rf' {name}="([^"]*)"', markup):
            assert re.fullmatch(r"-?\d+\.\d\d", value), (name, value)
    for points in re.findall(r' points="([^"]*)"', markup):
        assert all(re.fullmatch(r"\d+\.\d\d,\d+\.\d\d", p) for p in points.split())


def test_one_line_per_model_with_its_points(real, servers) -> None:
    """Assert one polyline per plotted model, each with one point per context that fits."""
    cat, df = real
    rules = rules_for(str(df.attrs["vllm_version"]))
    for server in servers:
        figure = parse(conc_svg("en", cat, df, server))
        lines = polylines(figure)
        assert 1 <= len(lines) <= views.MAX_SERIES
        models = [g.get("data-model") for g, _ in lines]
        assert len(set(models)) == len(models)
        legend = figure.find("ul")
        assert legend is not None and len(legend.findall("li")) == len(lines)
        for group, pts in lines:
            row = engine_row(df, server, group.get("data-model"), group.get("data-checkpoint"))
            cap = min(int(row["max_context"].iloc[0]), 131072)
            grid = [c for c in (1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072) if c < cap] + [cap]
            fits = [c for c in grid if float(memory.concurrency_at(row, rules, c).iloc[0]) >= 1]
            assert len(pts) == len(fits), (server, group.get("data-model"))
            assert len(group.findall(f"{SVG}path")) == len(pts)  # one marker per point
            assert all(x1 < x2 for (x1, _), (x2, _) in zip(pts, pts[1:]))


def test_widest_fitting_checkpoint_is_plotted(real, servers) -> None:
    """Assert each line uses the fitting checkpoint with the most bits per weight."""
    cat, df = real
    bits = {pid: spec.weight_bits for pid, spec in cat.precisions.items()}
    bits_by_name = {spec.name: spec.weight_bits for spec in cat.precisions.values()}
    for server in servers:
        for series in views.concurrency_series(cat, df, server):
            fitting = df[
                (df["server"] == server)
                & (df["model"] == series.model)
                & df["chosen"]
                & df["fits"]
                & (df["kv_cache_dtype"] == "fp8")
            ]
            assert bits_by_name[series.precision] == max(bits[p] for p in fitting["precision"])


def test_points_match_the_engine_within_a_pixel(real, servers) -> None:
    """Assert plotted points, read back through the axis ticks, are the engine's concurrency × DP."""
    cat, df = real
    rules = rules_for(str(df.attrs["vllm_version"]))
    published = set(df.attrs["contexts"])
    checked_published = 0
    for server in servers:
        figure = parse(conc_svg("en", cat, df, server))
        log_y = svg_of(figure).get("data-scale") == "log"
        y_px, _ = tick_transform(figure, vertical=True, log=log_y)
        _, x_ctx = tick_transform(figure, vertical=False, log=True)
        for group, pts in polylines(figure):
            chosen = engine_row(df, server, group.get("data-model"), group.get("data-checkpoint"))
            for x, y in pts:
                ctx = int(round(x_ctx(x)))
                candidates = [c for c in (1024 * 2**k for k in range(8)) if abs(c - ctx) / c < 0.01]
                ctx = candidates[0] if candidates else min(int(chosen["max_context"].iloc[0]), 131072)
                row = plan_row_at(df, chosen, ctx)
                dp = int(row["dp"].iloc[0])
                expected = float(memory.concurrency_at(row, rules, ctx).iloc[0]) * dp
                assert abs(y_px(expected) - y) <= 1.0, (server, group.get("data-model"), ctx, expected)
                if ctx in published:
                    assert abs(y_px(float(row[f"concurrency_{ctx}"].iloc[0]) * dp) - y) <= 1.0
                    checked_published += 1
    assert checked_published > 0


def test_log_scale_only_beyond_two_decades(real, servers) -> None:
    """Assert the y axis is logarithmic exactly when the plotted values span more than 100×."""
    cat, df = real
    for server in servers:
        values = [v for s in views.concurrency_series(cat, df, server) for v in s.values]
        figure = parse(conc_svg("en", cat, df, server))
        expected = "log" if max(values) / min(values) > 100 else "linear"
        assert svg_of(figure).get("data-scale") == expected


def strip_language(figure: ET.Element) -> list[tuple[str, dict[str, str]]]:
    """Every element's tag and attributes, without text and without translated attributes."""
    return [(el.tag, {k: v for k, v in el.attrib.items() if k != "aria-label"}) for el in figure.iter()]


def texts(figure: ET.Element) -> list[str]:
    return [el.text or "" for el in figure.iter()]


def test_languages_differ_only_in_labels(real, servers) -> None:
    """Assert geometry is byte-identical across languages while titles, axis labels and numbers differ."""
    cat, df = real
    for server in servers[:5]:
        figures = {lang: parse(conc_svg(lang, cat, df, server)) for lang in LANGS}
        shapes = {lang: strip_language(fig) for lang, fig in figures.items()}
        assert shapes["en"] == shapes["zh"] == shapes["ru"]
        titles = {lang: svg_of(fig).find(f"{SVG}title").text for lang, fig in figures.items()}
        assert len(set(titles.values())) == 3
        labels = {
            lang: [el.text for el in svg_of(fig).iter(f"{SVG}text") if "sz-axis-label" in el.get("class", "")]
            for lang, fig in figures.items()
        }
        assert labels["en"] != labels["zh"] != labels["ru"] != labels["en"]
        points = {lang: [pts for _, pts in polylines(fig)] for lang, fig in figures.items()}
        assert points["en"] == points["zh"] == points["ru"]
    prices = {lang: parse(price_of(lang, cat, df)) for lang in LANGS}
    assert strip_language(prices["en"]) == strip_language(prices["zh"]) == strip_language(prices["ru"])
    assert texts(prices["en"]) != texts(prices["ru"])


def test_numbers_are_formatted_for_the_page_language(real, servers) -> None:
    """Assert tick labels follow each locale: ru groups with a no-break space, zh and en with a comma."""
    cat, df = real
    big = next(
        s for s in servers if max(v for x in views.concurrency_series(cat, df, s) for v in x.values) > 1000
    )
    ticks = {
        lang: [el.text for el in svg_of(parse(conc_svg(lang, cat, df, big))).iter(f"{SVG}text")]
        for lang in LANGS
    }
    assert "1,000" in ticks["en"] and "1,000" in ticks["zh"] and "1\u00a0000" in ticks["ru"]
    rows = views.price_rows(cat, df)
    if len(rows):
        first = rows[0]
        for lang in LANGS:
            shown = fmt_money(first.price_per_gb_month, first.currency, lang)
            assert shown in texts(parse(price_of(lang, cat, df)))


def test_no_script_and_nothing_external(real, servers) -> None:
    """Assert no script, no link, no stylesheet or font import: only the SVG namespace URL appears."""
    cat, df = real
    markup = "".join(conc_svg(lang, cat, df, s) for s in servers[:3] for lang in LANGS)
    markup += "".join(price_of(lang, cat, df) for lang in LANGS)
    lowered = markup.lower()
    for forbidden in (
        "<script",
        "href",
        "url(",
        "@import",
        "<image",
        "<foreignobject",
        "<style",
        "javascript:",
        " on",
    ):
        if forbidden == " on":
            assert not re.search(r"\son[a-z]+=", lowered)
        else:
            assert forbidden not in lowered
    assert set(re.findall(r"https?://[^\"' ]+", markup)) == {charts.SVG_NS}


def edited_catalog(tmp_path: Path, file: str, edit) -> Path:
    """A copy of the catalog in ``tmp_path`` whose ``file`` (YAML) went through ``edit(data)``."""
    target = tmp_path / "catalog"
    if not target.exists():
        shutil.copytree(ROOT / "catalog", target)
    data = yaml.safe_load((target / file).read_text(encoding="utf-8"))
    edit(data)
    (target / file).write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return target


@pytest.fixture()
def odd_catalog(
    tmp_path: Path, real: tuple[Catalog, pd.DataFrame], servers: list[str]
) -> tuple[Path, str, str]:
    """A copy of the catalog where a plotted model and a priced server have names with markup characters."""
    cat, df = real
    server = servers[0]
    model = views.concurrency_series(cat, df, server)[0].model
    edited_catalog(
        tmp_path,
        "models.yaml",
        lambda models: models[model].update(name='Evil <b>"model"</b> & </svg><script>x</script>'),
    )

    def rename_priced(servers_yaml: dict) -> None:
        priced = next((s for s, v in servers_yaml.items() if v.get("price")), server)
        servers_yaml[priced]["name"] = "Rack <A&B>"

    return edited_catalog(tmp_path, "servers.yaml", rename_priced), server, model


def test_catalog_text_is_escaped(odd_catalog: tuple[Path, str, str]) -> None:
    """Assert '<', '&' and quotes from catalog names are escaped, and the output still parses."""
    directory, server, model = odd_catalog
    for lang in LANGS:
        markup = macros.concurrency_chart(lang, site.context(directory), server)
        figure = parse(markup)
        assert "<script" not in markup and "<b>" not in markup
        assert "Evil &lt;b&gt;&quot;model&quot;&lt;/b&gt; &amp; &lt;/svg&gt;" in markup
        legend = "".join(figure.find("ul").itertext())
        assert 'Evil <b>"model"</b> & </svg><script>x</script>' in legend
        price = macros.price_chart(lang, site.context(directory))
        parse(price)
        assert "Rack &lt;A&amp;B&gt;" in price


def test_short_context_gives_a_linear_axis(
    tmp_path: Path, real: tuple[Catalog, pd.DataFrame], servers: list[str]
) -> None:
    """Assert a single model capped at 4K tokens is drawn on a linear axis with three points."""
    cat, df = real
    server = servers[0]
    model = views.concurrency_series(cat, df, server)[0].model
    target = edited_catalog(tmp_path, "models.yaml", lambda models: models[model].update(max_context=4096))
    edited = load_catalog(target)
    figure = parse(conc_svg("en", edited, evaluate(edited), server, [model]))
    assert svg_of(figure).get("data-scale") == "linear"
    [(group, pts)] = polylines(figure)
    assert group.get("data-model") == model and len(pts) == 3


def test_unknown_names_fail_loudly(real) -> None:
    """Assert an unknown server or model is a UsageError naming it."""
    cat, df = real
    with pytest.raises(UsageError, match="no-such-server"):
        conc_svg("en", cat, df, "no-such-server")
    with pytest.raises(UsageError, match="no/such-model"):
        conc_svg("en", cat, df, next(iter(cat.servers)), ["no/such-model"])


class FakeEnv:
    """The part of the mkdocs-macros environment the shim uses."""

    def __init__(self, language: str) -> None:
        self.conf: dict[str, Any] = {"theme": {"language": language}}
        self.macros: dict[str, Any] = {}

    def macro(self, function: Any, name: str = "") -> Any:
        self.macros[name or function.__name__] = function
        return function


def test_macros_are_registered(servers, monkeypatch: pytest.MonkeyPatch) -> None:
    """Assert sz_chart_concurrency(server) and sz_chart_price() render in the page language."""
    monkeypatch.delenv("SIZING_CATALOG", raising=False)
    env = FakeEnv("zh")
    docs_macros.define_env(env)
    conc = env.macros["sz_chart_concurrency"](servers[0])
    assert conc == env.macros["sz_chart_concurrency"](server=servers[0])
    assert "token" in conc and parse(conc).get("class") == "sz-chart sz-chart--concurrency"
    price = parse(env.macros["sz_chart_price"]())
    assert price.find("figcaption").text == "每 GB 显存的月租价格"


def test_axis_titles_come_in_one_and_two_lines() -> None:
    """Assert an axis title is drawn on one line for wide screens and split near its middle for phones."""
    from sizing.render.charts import _axis_title, _halves

    assert _halves("Context length per sequence") == ("Context length", "per sequence")
    assert _halves("上下文长度") == ("上下", "文长度")
    out = _axis_title("Context length per sequence", 100.0, 400.0, "middle", top=True)
    assert 'class="sz-axis-label sz-wide" x="100.00" y="375.00"' in out
    assert (
        '<tspan x="100.00" y="375.00">Context length</tspan><tspan x="100.00" y="400.00">per sequence</tspan>'
        in out
    )


def test_margins_hold_the_phone_labels(real, servers) -> None:
    """Assert the y-axis margin holds the widest tick label at the phone's font size in every language."""
    from sizing.render.charts import PHONE_FONT_PX, text_width

    cat, df = real
    fig = parse(conc_svg("ru", cat, df, servers[0]))
    ticks = [el for el in svg_of(fig).iter(f"{SVG}text") if el.get("text-anchor") == "end"]
    assert ticks and all(text_width(el.text, PHONE_FONT_PX) <= float(el.get("x")) for el in ticks)


@pytest.mark.parametrize(
    ("lang", "expected"),
    [("en", "1 GPU (128K: TP 2)"), ("zh", "单卡（128K：TP 2）"), ("ru", "1 GPU (128K: TP 2)")],
)
def test_a_line_whose_plan_changes_names_it_in_the_legend(lang: str, expected: str) -> None:
    """Assert the legend names the plan from the point where it changes, in the table's words."""
    from sizing.render.charts import series_plan
    from sizing.views.series import Series

    line = Series("m", "M", "m", "BF16", "", (4096, 131072), (8.0, 1.0), ((131072, "TP 2"),))
    single = t(lang, "plan_single_gpu")
    assert series_plan(line, lang) == expected.replace("1 GPU", single).replace("单卡", single)
    assert series_plan(Series("m", "M", "m", "BF16", "DP 2", (4096,), (8.0,)), lang) == "DP 2"
