"""Tests for sizing.render.tables: the table registry, cell formatting, escaping and the renderers."""

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
from sizing.errors import UsageError
from sizing.render import tables
from sizing.render.tables import ColumnSpec, escape_cell, format_cell, header
from sizing.site import context as site
from sizing.units import GB, GiB, KiB

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


# --- escaping --------------------------------------------------------------------------------


def test_escape_cell_neutralises_markdown_html_and_jinja() -> None:
    """Assert the escaped text has no pipe, tag, backtick, brace pair or newline, and reads the same."""
    out = escape_cell(HOSTILE)
    for bad in ("|", "<", ">", "`", "{{", "{%", "\n", "\\"):
        assert bad not in out, bad
    assert html.unescape(out) == HOSTILE.replace("\n", " ")
    assert escape_cell("250\u00a0000 \r\n  next") == "250\u00a0000 next"


@pytest.mark.parametrize("lang", LANGS)
def test_hostile_catalog_text_cannot_break_any_table(hostile_ctx: site.SiteContext, lang: str) -> None:
    """Assert every row of every table keeps the header's column count and no markup leaks through."""
    for spec in tables.table_specs(hostile_ctx).values():
        lines = tables.to_markdown(spec, lang, hostile_ctx).splitlines()
        rows = [line for line in lines if line.startswith("|")]
        widths = {len(UNESCAPED_PIPE.findall(line)) for line in rows}
        assert len(widths) <= 1, spec.id
        text = "\n".join(lines)
        assert "<script" not in text and "{{" not in text and "{%" not in text and "`" not in text, spec.id


def test_hostile_names_still_read_literally(hostile_ctx: site.SiteContext) -> None:
    """Assert the escaped name appears (unescaped by a browser) in the tables that show it."""
    md = tables.to_markdown(tables.get_spec(hostile_ctx, "price-per-gb"), "en", hostile_ctx)
    assert HOSTILE.replace("\n", " ") in html.unescape(md)


# --- cells and headers -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "value", "lang", "expected"),
    [
        ("gib", 1.5 * GiB, "en", "1.50"),
        ("gib", 1.5 * GiB, "ru", "1,50"),
        ("kib", 80 * KiB, "en", "80"),
        ("kib", 34.875 * KiB, "en", "34.9"),
        ("gb", 48 * GB, "zh", "48"),
        ("gb", 65.54 * GB, "ru", "65,5"),
        ("int", 250000, "ru", "250\u00a0000"),
        ("float1", 671.0, "en", "671"),
        ("float2", 2 / 3, "en", "0.67"),
        ("fraction", 0.9, "en", "90%"),
    ],
)
def test_numeric_cells(kind: str, value: float, lang: str, expected: str) -> None:
    """Assert numbers are shown in the header's unit with the language's separators."""
    assert format_cell(ColumnSpec("v", "col_value", kind), {"v": value}, lang) == expected


def test_missing_values_show_a_dash() -> None:
    """Assert None, NaN and empty text render as an em dash."""
    col = ColumnSpec("v", "col_value", "gib")
    for missing in (None, float("nan")):
        assert format_cell(col, {"v": missing}, "en") == "—"
    assert format_cell(ColumnSpec("v", "col_value", "text"), {"v": ""}, "en") == "—"


def test_money_uses_the_row_currency() -> None:
    """Assert money cells format the amount in the row's currency for the language."""
    col = ColumnSpec("p", "col_price", "money", decimals=0)
    assert format_cell(col, {"p": 2199, "currency": "USD"}, "en") == "$2,199"
    assert format_cell(col, {"p": 2199, "currency": "EUR"}, "ru") == "2\u00a0199\u00a0€"


def test_verdict_and_bool_cells_are_translated() -> None:
    """Assert verdicts are the translated word (no emoji: it renders as a box without an emoji font)."""
    verdict = ColumnSpec("verdict", "col_verdict", "verdict")
    assert format_cell(verdict, {"verdict": "fits", "verdict_context": 131072}, "en") == "Fits up to 128K"
    tight = {"verdict": "tight", "verdict_context": 4096}
    borderline = {"verdict": "borderline", "verdict_context": 32768}
    assert format_cell(verdict, tight, "ru") == "Впритык (контекст до 4K)"
    assert format_cell(verdict, borderline, "en") == "Borderline at 32K"
    assert format_cell(verdict, {"verdict": "no-fit", "verdict_context": 0}, "zh") == "无法容纳"
    assert format_cell(ColumnSpec("b", "col_fp8", "bool"), {"b": True}, "ru") == "Да"


@pytest.mark.parametrize(
    ("plan", "tp", "pp", "dp", "expected"),
    [
        ("dp", 1, 1, 1, "1 GPU"),
        ("dp", 1, 1, 2, "DP 2"),
        ("tp", 2, 1, 1, "TP 2"),
        ("tp", 4, 1, 2, "TP 4 × DP 2"),
        ("tp-pp", 8, 2, 1, "TP 8 × PP 2"),
        ("", 1, 1, 1, "—"),
    ],
)
def test_plan_labels(plan: str, tp: int, pp: int, dp: int, expected: str) -> None:
    """Assert plans read as vLLM's parallel sizes."""
    assert tables.plan_label({"plan": plan, "tp": tp, "pp": pp, "dp": dp}, "en") == expected


@pytest.mark.parametrize(
    ("code", "value", "expected"),
    [
        ("max-model-len", "26624", "Lower the context: <code>--max-model-len 26624</code>"),
        ("kv-fp8", "fp8", "Use <code>--kv-cache-dtype fp8</code>"),
        ("checkpoint", "Qwen/Qwen3-32B-AWQ (int4-awq)", "Use Qwen/Qwen3-32B-AWQ (int4-awq)"),
        ("more-gpus", "4", "Needs 4 GPUs, more than this server has"),
        ("gpu-memory-utilization", "0.95", "Try <code>--gpu-memory-utilization 0.95</code>"),
        ("", "", ""),
    ],
)
def test_change_labels(code: str, value: str, expected: str) -> None:
    """Assert the nearest change of a non-fitting row reads as an instruction."""
    assert tables.change_label({"change": code, "change_value": value}, "en") == expected


def test_headers_carry_the_unit_in_each_language() -> None:
    """Assert a memory column's header names its unit per the language's pattern."""
    col = ColumnSpec("weights_bytes", "col_weights_per_gpu", "gib")
    assert header(col, "en") == "Weights per GPU (GiB)"
    assert header(col, "ru") == "Веса на GPU, ГиБ"
    seq = tables.seq_columns([32768])[0]
    assert header(seq, "zh") == "32K 序列数"


def test_unknown_column_kind_is_refused() -> None:
    """Assert a column with a kind outside the fixed set cannot be declared."""
    with pytest.raises(ValueError, match="unknown kind"):
        ColumnSpec("x", "col_value", "percentage")


# --- the registry ----------------------------------------------------------------------------


def test_registry_has_every_published_table(ctx: site.SiteContext) -> None:
    """Assert the fixed table ids plus one fit table per catalog server."""
    fixed = {
        "what-fits",
        "weights-by-precision",
        "gpu-classes",
        "recommendations-32b",
        "recommendations-671b",
        "cpu-cores",
        "host-ram",
        "disk",
        "quick-reference",
        "price-per-gb",
        "throughput",
        "catalog-models",
        "catalog-gpus",
        "catalog-servers",
        "catalog-precisions",
        "assumptions",
    }
    assert set(tables.table_specs(ctx)) == fixed | {f"fit-{s}" for s in ctx.catalog.servers}


def test_row_keys_are_unique_and_present(ctx: site.SiteContext) -> None:
    """Assert each table's key columns exist and identify its rows (what the diff report relies on)."""
    for spec in tables.table_specs(ctx).values():
        rows = spec.rows(ctx)
        assert set(spec.key) <= set(rows.columns), spec.id
        assert not rows.duplicated(list(spec.key)).any(), spec.id


def test_unknown_table_names_the_known_ones(ctx: site.SiteContext) -> None:
    """Assert a misspelt table id fails with the list of ids."""
    with pytest.raises(UsageError, match="what-fits"):
        tables.get_spec(ctx, "what-fit")


@pytest.mark.parametrize("table_id", ["fit-gpu-rtx-pro", "what-fits", "catalog-models", "disk"])
def test_every_language_has_the_same_rows(ctx: site.SiteContext, table_id: str) -> None:
    """Assert a table has one body line per row, in every language, and unpadded cells."""
    spec = tables.get_spec(ctx, table_id)
    counts = set()
    for lang in LANGS:
        lines = [line for line in tables.to_markdown(spec, lang, ctx).splitlines() if line.startswith("| ")]
        counts.add(len(lines))
        assert not any(re.search(r"[^\s|] {2,}| {2,}[^\s|]", line) for line in lines)
    assert counts == {len(spec.rows(ctx)) + 1}


def test_rendering_is_deterministic(ctx: site.SiteContext) -> None:
    """Assert a freshly built context renders byte-identical tables."""
    again = site.build_context(load_catalog(FIXTURE))
    for table_id, spec in tables.table_specs(ctx).items():
        assert tables.to_markdown(spec, "ru", ctx) == tables.to_markdown(
            tables.get_spec(again, table_id), "ru", again
        )


def test_empty_table_says_so(ctx: site.SiteContext) -> None:
    """Assert a table without rows renders the translated notice instead of a bare header."""
    empty = tables.TableSpec(
        "empty", (ColumnSpec("x", "col_value", "int"),), lambda c: pd.DataFrame({"x": []}), ("x",)
    )
    assert tables.to_markdown(empty, "zh", ctx) == "*没有数据行。*\n"


def test_summary_tables_state_their_settings(ctx: site.SiteContext) -> None:
    """Assert the what-fits note names the KV type, memory utilisation and max model length."""
    md = tables.to_markdown(tables.get_spec(ctx, "what-fits"), "en", ctx)
    assert "<code>--kv-cache-dtype fp8</code>" in md and "<code>--gpu-memory-utilization 0.90</code>" in md
    assert f"<code>--max-model-len {ctx.catalog.assume('max_model_len')}</code>" in md
    ru = tables.to_markdown(tables.get_spec(ctx, "what-fits"), "ru", ctx)
    assert (
        f"<code>--max-model-len {ctx.catalog.assume('max_model_len')}</code>" in ru
        and "0,90</code>" not in ru
    )


# --- CSV, JSON and the CLI --------------------------------------------------------------------


def test_csv_and_json_carry_the_raw_values(ctx: site.SiteContext) -> None:
    """Assert CSV and JSON hold the unformatted numbers of the table, with its key columns."""
    spec = tables.get_spec(ctx, "price-per-gb")
    frame = pd.read_csv(io.StringIO(tables.to_csv(spec, ctx)))
    records = json.loads(tables.to_json(spec, ctx))
    assert list(frame["server"]) == [r["server"] for r in records] == ["gpu-l40s", "gpu-rtx-pro"]
    s = ctx.catalog.servers["gpu-l40s"]
    assert records[0]["price_monthly"] == s.price.monthly
    assert records[0]["vram_bytes"] == ctx.catalog.gpus[s.gpu].memory_gb * GB


def test_cli_table_filters_and_formats() -> None:
    """Assert the CLI table lists the recommended rows of one server in all three formats."""
    cat = load_catalog(FIXTURE)
    md = tables.cli_table(cat, evaluate(cat), None, "gpu-l40s", None, "markdown")
    body = [line for line in md.splitlines() if line.startswith("| ")][1:]
    n_rows = len(json.loads(tables.cli_table(cat, evaluate(cat), None, "gpu-l40s", None, "json")))
    assert len(body) == n_rows and all("gpu-l40s" in line for line in body)
    csv = pd.read_csv(io.StringIO(tables.cli_table(cat, evaluate(cat), "Qwen/Qwen3-14B", None, "fp8", "csv")))
    assert set(csv["precision"]) == {"fp8"} and set(csv["model"]) == {"Qwen/Qwen3-14B"}


@pytest.mark.parametrize(
    ("model", "server", "precision", "flag"),
    [
        ("nope/model", None, None, "--model"),
        (None, "nope", None, "--server"),
        (None, None, "fp3", "--precision"),
    ],
)
def test_cli_table_rejects_unknown_ids(
    model: str | None, server: str | None, precision: str | None, flag: str
) -> None:
    """Assert an id the catalog lacks is a one-line usage error naming the flag."""
    with pytest.raises(UsageError, match=flag):
        tables.cli_table(load_catalog(FIXTURE), pd.DataFrame(), model, server, precision, "markdown")


def test_one_gpu_servers_do_not_say_one_copy_per_gpu() -> None:
    """Assert the reason on a one-GPU server says the model fits that GPU, not "one copy per GPU"."""
    row = {"reason": "fits-one-gpu", "server_gpus": 1, "fits": True}
    assert tables.change_label(row, "ru") == "Модель помещается на этот GPU"
    assert tables.change_label({**row, "server_gpus": 2}, "en") == "Fits on one GPU: one copy per GPU"


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
    col = tables.ColumnSpec("interconnect", "col_interconnect", "catalog")
    assert tables.html_cell(col, {"interconnect": "PCIe"}, "PCIe") == '<span class="sz-long">PCIe</span>'
    assert tables.html_cell(tables.ColumnSpec("gpu", "col_id", "text"), {"gpu": "l40s"}, "l40s") == "l40s"


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

    spec = tables.fit_spec("gpu-l40s", ctx.contexts)
    page = tables.html_rows_table(spec.columns, spec.rows(ctx), lang)
    heads = re.findall(r"<th>(.*?)</th>", page)
    assert heads[4:6] == [users, cost] and 'class="sz-head-group"' in page
    speed = fit_speed(ctx).set_index(["checkpoint", "server", "kv_cache_dtype"])
    fp8 = speed.loc[("Qwen/Qwen3-14B-FP8", "gpu-l40s", "fp8")]
    cells = [re.findall(r"<td>(.*?)</td>", line) for line in page.splitlines() if line.startswith("<tr")]
    row = next(c for c in cells if c[1] == "FP8 (E4M3)" and c[0] == "Qwen3 14B")
    assert row[5] == html.escape(fmt_money(fp8["speed_usd"], "USD", lang, 3)) and int(row[4].split()[-1]) > 0
    assert [c[5] for c in cells if c[0] == "Qwen3 14B" and c[1] == "BF16"] == [html.escape(slow)]


def test_fit_table_note_names_the_kv_type_its_server_shows(real_ctx: site.SiteContext) -> None:
    """Assert a fit table's settings line says fp8 on an L4 and auto on a T4 (no FP8 KV backend below
    sm_80)."""
    specs = tables.table_specs(real_ctx)
    assert "--kv-cache-dtype fp8" in specs["fit-ref-1x-l4"].note(real_ctx, "en")
    assert "--kv-cache-dtype auto" in specs["fit-ref-1x-t4"].note(real_ctx, "ru")
