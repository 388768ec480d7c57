"""What a reader sees: engine-made commands, the worked examples' values, language-neutral numbers.

Uses the MkDocs site assembled once per run (``built_site``). That two builds give identical tables and
charts is checked by ``test_engine_parity.py``: its two builds each evaluate the catalog in a process of
their own.
"""

from __future__ import annotations

import functools
import html
import re
from pathlib import Path

import pytest

from sizing.launch.commands import sglang_command, vllm_command
from sizing.render import i18n
from sizing.site.context import context
from sizing.units import MiB

LANGS = {"en": "", "zh": "zh", "ru": "ru"}
PAGES = ["", "choosing-a-gpu-server", "deployment-hardware", "fit-tables", "methodology", "catalog"]
CODE = re.compile(r"<pre[^>]*>(.*?)</pre>", re.S)
TABLE = re.compile(r"<table.*?</table>", re.S)
SVG = re.compile(r"<svg.*?</svg>", re.S)
NUMBER = {
    "en": re.compile(r"\d[\d,]*(?:\.\d+)?"),
    "zh": re.compile(r"\d[\d,]*(?:\.\d+)?"),
    "ru": re.compile(r"\d(?:[\d\u00a0\u202f]*\d)?(?:,\d+)?"),
}


def page(site: Path, lang: str, name: str) -> str:
    """The HTML of one page of the assembled site."""
    return (site / LANGS[lang] / name / "index.html").read_text(encoding="utf-8")


def text_of(fragment: str) -> str:
    """Visible text of an HTML fragment."""
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def numbers(cell: str, lang: str) -> list[float]:
    """The numbers of a table cell, parsed with the page language's separators."""
    found = NUMBER[lang].findall(cell)
    if lang == "ru":
        return [float(re.sub(r"[\u00a0\u202f]", "", n).replace(",", ".")) for n in found]
    return [float(n.replace(",", "")) for n in found]


@functools.cache
def engine_commands() -> frozenset[str]:
    """Every command the engine generates for the catalog's examples and recommended rows (computed once per
    process: each language's test compares its pages with the same set)."""
    ctx = context()
    rows = [*ctx.examples.values(), *(r for _, r in ctx.frame[ctx.frame["chosen"]].iterrows())]
    made = {vllm_command(r, ctx.catalog) for r in rows}
    return frozenset(made | {sglang_command(r, ctx.catalog, n) for r in rows for n in range(int(r["nodes"]))})


@pytest.mark.parametrize("lang", LANGS)
def test_every_launch_command_on_the_site_is_one_the_engine_generated(built_site, lang):
    made, seen = engine_commands(), 0
    for name in PAGES:
        for block in CODE.findall(page(built_site, lang, name)):
            code = text_of(block).strip()
            if code.startswith(("vllm serve", "python -m sglang.launch_server")):
                seen += 1
                assert code in made, f"{lang}/{name}: a command the engine did not generate:\n{code}"
    assert seen >= 4


@pytest.mark.parametrize("lang", LANGS)
def test_worked_examples_show_the_engines_values(built_site, lang, catalog):
    text = text_of(page(built_site, lang, "choosing-a-gpu-server"))
    ctx = context()
    for example_id, layers, heads in (("example-1", 40, 8), ("example-2", 80, 8 // 2)):
        row = ctx.example(example_id)
        gpu = catalog.gpus[catalog.servers[catalog.examples[example_id].server].gpu]
        budget = -(-float(catalog.assume("gpu_memory_utilization")) * gpu.memory_mib * MiB // 1)
        assert row["kv_bytes_per_token"] == layers * 2 * heads * 128 * 1  # fp8 KV
        expected = [
            i18n.fmt_kib(layers * 2 * heads * 128, lang),
            i18n.fmt_gib(budget, lang),
            i18n.fmt_gib(row["weights_bytes"], lang),
            i18n.fmt_gib(row["available_kv_bytes"], lang),
            i18n.fmt_number(row["kv_cache_tokens"], lang),
            i18n.fmt_number(row["sequences_4096"], lang),
            i18n.fmt_number(row["sequences_32768"], lang),
        ]
        missing = [value for value in expected if value not in text]
        assert not missing, f"{lang} {example_id}: {missing}"


def is_numeric(cell: str) -> bool:
    """A cell that states figures (digits with at most a short unit), not prose."""
    return any(c.isdigit() for c in cell) and sum(c.isalpha() for c in cell) <= 8


def table_cells(site: Path, lang: str, name: str) -> list[list[str]]:
    """Visible text of every body cell of every table of a page."""
    tables = TABLE.findall(page(site, lang, name))
    return [[text_of(cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", t, re.S)] for t in tables]


@pytest.mark.parametrize("name", PAGES)
def test_tables_hold_the_same_numbers_in_every_language(built_site, name):
    english = table_cells(built_site, "en", name)
    for lang in ("zh", "ru"):
        other = table_cells(built_site, lang, name)
        assert [len(t) for t in other] == [len(t) for t in english], f"{lang}/{name}: different tables"
        for table_en, table_other in zip(english, other):
            for cell_en, cell in zip(table_en, table_other):
                single = (i18n.t("en", "plan_single_gpu"), i18n.t(lang, "plan_single_gpu"))  # zh writes 单卡
                if (
                    cell != cell_en and is_numeric(cell_en) and (cell_en, cell) != single
                ):  # numbers must agree
                    assert numbers(cell, lang) == numbers(cell_en, "en"), (
                        f"{lang}/{name}: {cell!r} vs {cell_en!r}"
                    )
