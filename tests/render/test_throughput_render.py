"""Throughput renderers: ladder, chart, worked example, calibration and workload tables in three languages."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from sizing.errors import UsageError
from sizing.render import throughput_render as tr
from sizing.site import context as site

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "site_catalog"
LANGS = ("en", "zh", "ru")


@pytest.fixture()
def ctx(monkeypatch: pytest.MonkeyPatch) -> site.SiteContext:
    monkeypatch.setenv(site.ENV_VAR, str(FIXTURE))
    return site.active_context()


def test_ladder_rows_and_locale(ctx: site.SiteContext) -> None:
    en, ru = tr.throughput_ladder("en", ctx, "gpu-l40s"), tr.throughput_ladder("ru", ctx, "gpu-l40s")
    rows = [line for line in en.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert len(rows) == 5 * len(tr.throughput_view(ctx).ladders["gpu-l40s"]["checkpoint"].unique())
    from sizing.render.i18n import t

    limits = ("bandwidth", "compute", "interconnect", "host", "kv_pool", "max_num_seqs")
    assert any(f"| {t('en', 'tp_limit_' + k)} |" in en for k in limits)
    assert any(f"| {t('ru', 'tp_limit_' + k)} |" in ru for k in limits) and "\u00a0мс |" in ru
    with pytest.raises(UsageError):
        tr.throughput_ladder("en", ctx, "no-such-server")


@pytest.mark.parametrize("lang", LANGS)
def test_chart_is_one_line_of_svg_with_band_and_target(ctx: site.SiteContext, lang: str) -> None:
    figure = tr.throughput_chart(lang, ctx, "gpu-rtx-pro")
    assert "\n" not in figure
    root = ET.fromstring(figure)
    ns = {"s": "http://www.w3.org/2000/svg"}
    svg = root.find("s:svg", ns)
    assert svg is not None and svg.get("viewBox") == "0 0 540.00 360.00"
    assert root.findall(".//s:polygon", ns) and root.find(".//s:g[@class='sz-target']", ns) is not None


def test_example_table_and_bench_block(ctx: site.SiteContext) -> None:
    table = tr.throughput_example("ru", ctx, "example-1", 16)
    assert table.count("\n| ") == 14 and "TFLOP/с" in table
    block = tr.bench_block("zh", ctx, "example-1", 16)
    assert block == tr.bench_block("en", ctx, "example-1", 16)  # commands are the same in every language
    assert re.search(r"--max-concurrency 16 --request-rate inf", block) and "--num-prompts 160" in block


def test_calibration_and_workloads_tables(ctx: site.SiteContext) -> None:
    table = tr.calibration_table("en", ctx)
    assert "| dense | output tokens/s |" in table and "+" in table
    assert "`long-prompt` | 8,192 | 1,024" in tr.workloads_table("en", ctx)
    assert tr.speed_target("ru", ctx).startswith("TPOT не больше 50")


def test_log_ticks_cover_the_range() -> None:
    assert tr.log_ticks(11.6, 284.8) == [10, 20, 50, 100, 200, 500]
    assert tr.log_ticks(20, 20) == [20, 50]
