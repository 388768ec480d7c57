"""Tests for sizing.render.tables: the renderers (Markdown, site HTML, CSV, JSON, the CLI's fit view)
and hostile text."""

from __future__ import annotations

import html
import io
import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml

from sizing.catalog.loader import load_catalog
from sizing.engine.evaluate import evaluate
from sizing.render import tables
from sizing.render.cells import ColumnSpec
from sizing.render.table_specs import TableSpec, fit_spec, get_spec, table_specs
from sizing.site import context as site
from sizing.units import GB
from sizing.views.rows import Rows, fit_view_rows

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "site_catalog"
LANGS = ("en", "zh", "ru")
HOSTILE = "Evil | <script>alert(1)</script> `tick` {{ 7 * 7 }} {% if x %} \\| [x](y)\nsecond line"
UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


@pytest.fixture(scope="module")
def ctx() -> site.SiteContext:
    """The test catalog's context."""
    return site.context(FIXTURE)


@pytest.fixture(scope="module")
def hostile_ctx(tmp_path_factory: pytest.TempPathFactory) -> site.SiteContext:
    """The test catalog with hostile text in a server name, a GPU name and a model name."""
    folder = Path(shutil.copytree(FIXTURE, tmp_path_factory.mktemp("hostile") / "catalog"))
    for stem, entry in (("servers", "gpu-l40s"), ("gpus", "l40s"), ("models", "Qwen/Qwen3-14B")):
        data = yaml.safe_load((folder / f"{stem}.yaml").read_text(encoding="utf-8"))
        data[entry]["name"] = HOSTILE
        (folder / f"{stem}.yaml").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return site.build_context(load_catalog(folder))


@pytest.mark.parametrize("lang", LANGS)
def test_hostile_catalog_text_cannot_break_any_table(hostile_ctx: site.SiteContext, lang: str) -> None:
    """Assert every row of every table keeps the header's column count and no markup leaks through."""
    for spec in table_specs(hostile_ctx).values():
        lines = tables.to_markdown(spec, lang, hostile_ctx).splitlines()
        rows = [line for line in lines if line.startswith("|")]
        widths = {len(UNESCAPED_PIPE.findall(line)) for line in rows}
        assert len(widths) <= 1, spec.id
        text = "\n".join(lines)
        assert "<script" not in text and "{{" not in text and "{%" not in text and "`" not in text, spec.id


def test_hostile_names_still_read_literally(hostile_ctx: site.SiteContext) -> None:
    """Assert the escaped name appears (unescaped by a browser) in the tables that show it."""
    md = tables.to_markdown(get_spec(hostile_ctx, "price-per-gb"), "en", hostile_ctx)
    assert HOSTILE.replace("\n", " ") in html.unescape(md)


@pytest.mark.parametrize("table_id", ["fit-gpu-rtx-pro", "what-fits", "catalog-models", "disk"])
def test_every_language_has_the_same_rows(ctx: site.SiteContext, table_id: str) -> None:
    """Assert a table has one body line per row, in every language, and unpadded cells."""
    spec = get_spec(ctx, table_id)
    counts = set()
    for lang in LANGS:
        lines = [line for line in tables.to_markdown(spec, lang, ctx).splitlines() if line.startswith("| ")]
        counts.add(len(lines))
        assert not any(re.search(r"[^\s|] {2,}| {2,}[^\s|]", line) for line in lines)
    assert counts == {len(spec.rows(ctx)) + 1}


def test_rendering_is_deterministic(ctx: site.SiteContext) -> None:
    """Assert a freshly built context renders byte-identical tables."""
    again = site.build_context(load_catalog(FIXTURE))
    for table_id, spec in table_specs(ctx).items():
        assert tables.to_markdown(spec, "ru", ctx) == tables.to_markdown(
            get_spec(again, table_id), "ru", again
        )


def test_empty_table_says_so(ctx: site.SiteContext) -> None:
    """Assert a table without rows renders the translated notice instead of a bare header."""
    empty = TableSpec("empty", (ColumnSpec("x", "col_value", "int"),), lambda c: Rows(("x",), ()), ("x",))
    assert tables.to_markdown(empty, "zh", ctx) == "*没有数据行。*\n"


# --- CSV, JSON and the CLI --------------------------------------------------------------------


def test_csv_and_json_carry_the_raw_values(ctx: site.SiteContext) -> None:
    """Assert CSV and JSON hold the unformatted numbers of the table, with its key columns."""
    spec = get_spec(ctx, "price-per-gb")
    frame = pd.read_csv(io.StringIO(tables.to_csv(spec, ctx)))
    records = json.loads(tables.to_json(spec, ctx))
    assert list(frame["server"]) == [r["server"] for r in records] == ["gpu-l40s", "gpu-rtx-pro"]
    s = ctx.catalog.servers["gpu-l40s"]
    assert records[0]["price_monthly"] == s.price.monthly
    assert records[0]["vram_bytes"] == ctx.catalog.gpus[s.gpu].memory_gb * GB


def test_cli_table_filters_and_formats() -> None:
    """Assert the CLI table lists the recommended rows of one server in all three formats."""
    cat = load_catalog(FIXTURE)
    md = tables.cli_table(fit_view_rows(cat, evaluate(cat), None, "gpu-l40s", None), "markdown")
    body = [line for line in md.splitlines() if line.startswith("| ")][1:]
    n_rows = len(
        json.loads(tables.cli_table(fit_view_rows(cat, evaluate(cat), None, "gpu-l40s", None), "json"))
    )
    assert len(body) == n_rows and all("gpu-l40s" in line for line in body)
    csv = pd.read_csv(
        io.StringIO(tables.cli_table(fit_view_rows(cat, evaluate(cat), "Qwen/Qwen3-14B", None, "fp8"), "csv"))
    )
    assert set(csv["precision"]) == {"fp8"} and set(csv["model"]) == {"Qwen/Qwen3-14B"}


def test_source_cells_are_short_links() -> None:
    """Assert a catalog source becomes links named by repository or host; a document kind stays text."""
    source = (
        "ai-dynamo/aiconfigurator@095f58a51c4ca8e61b66ec108d86f223f8d559ce:systems/l40s.yaml (864 GB/s); "
        "https://github.com/akash-network/provider-configs/pull/99 (nvidia-smi); "
        "https://www.nvidia.com/l40s/datasheet.pdf; NVIDIA datasheet"
    )
    cell = tables.source_cell(source, "en")
    assert cell.startswith('<span class="sz-long">') and cell.count("<a href=") == 3
    assert (
        '<a href="https://github.com/ai-dynamo/aiconfigurator/blob/095f58a51c4c/systems/l40s.yaml">'
        "ai-dynamo/aiconfigurator</a>" in cell
    )
    assert ">akash-network/provider-configs</a>" in cell and ">www.nvidia.com</a>" in cell


def test_catalog_text_cells_are_bounded_on_the_site_only() -> None:
    """Assert long catalog texts get the bounded box on the site and stay plain for the CLI."""
    col = ColumnSpec("interconnect", "col_interconnect", "catalog")
    assert tables.html_cell(col, {"interconnect": "PCIe"}, "PCIe") == '<span class="sz-long">PCIe</span>'
    assert tables.html_cell(ColumnSpec("gpu", "col_id", "text"), {"gpu": "l40s"}, "l40s") == "l40s"


@pytest.mark.parametrize(
    ("lang", "users", "cost", "slow"),
    [
        ("en", "Users within the speed target", "$ per 1M output tokens", "— (none within target)"),
        ("zh", "满足速度目标的用户数", "每百万输出 token 费用（美元）", "— （无人达标）"),
        ("ru", "Клиентов в пределах целевой скорости", "$ за 1 млн токенов ответа", "— (слишком медленно)"),
    ],
)
def test_fit_tables_show_users_and_cost_of_the_chat_ladder(
    ctx: site.SiteContext, lang: str, users: str, cost: str, slow: str
) -> None:
    """The two speed columns sit before the grouped sequence columns, with the view's figures (cautious
    end)."""
    from sizing.render.i18n import fmt_money
    from sizing.views.throughput import fit_speed

    spec = fit_spec("gpu-l40s", ctx.contexts)
    page = tables.html_rows_table(spec.columns, spec.rows(ctx), lang)
    heads = re.findall(r"<th>(.*?)</th>", page)
    assert heads[4:6] == [users, cost] and 'class="sz-head-group"' in page
    speed = fit_speed(ctx).set_index(["checkpoint", "server", "kv_cache_dtype"])
    fp8 = speed.loc[("Qwen/Qwen3-14B-FP8", "gpu-l40s", "fp8")]
    cells = [re.findall(r"<td>(.*?)</td>", line) for line in page.splitlines() if line.startswith("<tr")]
    row = next(c for c in cells if c[1] == "FP8 (E4M3)" and c[0] == "Qwen3 14B")
    assert row[5] == html.escape(fmt_money(fp8["speed_usd"], "USD", lang, 3)) and int(row[4].split()[-1]) > 0
    assert [c[5] for c in cells if c[0] == "Qwen3 32B" and c[1] == "FP8 (E4M3)"] == [html.escape(slow)]
