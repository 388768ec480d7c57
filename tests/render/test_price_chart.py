"""Tests for sizing.render.price_chart: one bar per priced server, cheapest first, in its own currency."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from sizing.render import macros
from sizing.site import context as site
from tests.render.test_charts import ROOT, SVG, parse, price_of, svg_of, tick_transform


def test_price_chart_bars_are_sorted_and_proportional(real_ctx: site.SiteContext) -> None:
    """Assert one bar per priced server, cheapest first, lengths proportional to price per GB."""
    cat, df = real_ctx.catalog, real_ctx.frame
    priced = df[df["price_monthly"].notna()].drop_duplicates("server")
    figure = parse(price_of("en", cat, df))
    if priced.empty:
        assert figure.tag == "p"
        return
    rows = [g for g in svg_of(figure).iter(f"{SVG}g") if g.get("class") == "sz-bar-row"]
    assert [g.get("data-server") for g in rows] == list(
        priced.sort_values(["price_per_gb_month", "server"])["server"]
    )
    x_px, _ = tick_transform(figure, vertical=False, log=False)
    for group in rows:
        bar = group.find(f"{SVG}rect")
        server = cat.servers[group.get("data-server")]
        vram_gb = cat.gpus[server.gpu].memory_gb * server.gpus_per_node * server.nodes
        value = server.price.monthly / vram_gb
        end = float(bar.get("x")) + float(bar.get("width"))
        assert abs(end - x_px(value)) <= 1.0
        assert bar.find(f"{SVG}title") is not None


def test_price_chart_with_mixed_or_no_currencies(tmp_path: Path) -> None:
    """Assert mixed currencies keep each bar's own currency (plain-number ticks), and no prices give a
    note."""
    target = tmp_path / "catalog"
    shutil.copytree(ROOT / "tests" / "data" / "site_catalog", target)  # two priced servers, quick to evaluate
    servers_yaml = yaml.safe_load((target / "servers.yaml").read_text(encoding="utf-8"))
    priced = [s for s, v in servers_yaml.items() if v.get("price")]
    if len(priced) < 2:
        pytest.skip("needs two priced servers")
    servers_yaml[priced[0]]["price"]["currency"] = "EUR"
    (target / "servers.yaml").write_text(
        yaml.safe_dump(servers_yaml, sort_keys=False, allow_unicode=True), encoding="utf-8"
    )
    figure = parse(macros.price_chart("en", site.context(target)))
    labels = [el.text for el in svg_of(figure).iter(f"{SVG}text") if el.get("class") == "sz-bar-value"]
    assert any(label.startswith("€") for label in labels) and any(label.startswith("$") for label in labels)
    assert "0" in [el.text for el in svg_of(figure).iter(f"{SVG}text")]
    unpriced = tmp_path / "unpriced"  # a new folder: evaluated catalogs are cached per folder
    shutil.copytree(target, unpriced)
    for server in priced:
        del servers_yaml[server]["price"]
    (unpriced / "servers.yaml").write_text(
        yaml.safe_dump(servers_yaml, sort_keys=False, allow_unicode=True), encoding="utf-8"
    )
    empty = parse(macros.price_chart("ru", site.context(unpriced)))
    assert empty.tag == "p" and empty.text == "Ни у одного сервера в каталоге нет цены."
