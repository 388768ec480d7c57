"""Tests for sizing.render.macros: the page macros' output, and one real mkdocs build of a page using them."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from sizing.errors import UsageError
from sizing.launch.commands import sglang_command, vllm_command
from sizing.render import macros, table_specs
from sizing.render.i18n import fmt_gib
from sizing.site import context as site
from sizing.site import docs_macros
from sizing.views.policy import fit_table_servers

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "data" / "site_catalog"
LANGS = ("en", "zh", "ru")
HOSTILE = "Evil | <script>alert(1)</script> {{ 6 * 7 }}"


def _ctx() -> site.SiteContext:
    """The site context the macros are given (the test catalog, prepared and cached)."""
    return site.active_context()


@pytest.fixture(autouse=True)
def test_catalog(monkeypatch: pytest.MonkeyPatch) -> site.SiteContext:
    """Point the macros at the test catalog."""
    monkeypatch.setenv(site.ENV_VAR, str(FIXTURE))
    return site.active_context()


def test_table_is_sortable_markdown(test_catalog: site.SiteContext) -> None:
    """Assert sz_table wraps the table in the container tablesort-init.js looks for."""
    out = macros.table("en", _ctx(), "price-per-gb")
    assert out.startswith(
        '\n<div class="sz-sortable" data-search-exclude data-scroll-hint="Scroll sideways for '
        'more columns" data-rows-hint="2 rows, scroll inside the table" markdown>\n\n| Server |'
    )
    assert out.endswith("\n\n</div>\n")
    with pytest.raises(UsageError, match="unknown table"):
        macros.table("en", _ctx(), "nope")


def test_fit_tables_have_a_filter_and_a_heading_per_shown_server(test_catalog: site.SiteContext) -> None:
    """Assert one H3 with the server's id per server of the policy, then one for the others, all
    inside the filter's target; every other server is a row with its id, linking to the explorer."""
    out = macros.fit_tables("zh", _ctx(), "fit-tables/")
    target = re.search(r'<input class="sz-filter"[^>]*data-target="([^"]+)"', out).group(1)
    assert f'<div id="{target}" markdown>' in out
    servers = test_catalog.catalog.servers
    shown = fit_table_servers({sid: s.kind for sid, s in servers.items()})
    assert shown[:2] == ["gpu-l40s", "gpu-rtx-pro"] and "ref-2x-h100" in shown and len(shown) < len(servers)
    ids = re.findall(r"^### .+ \{ #(fit-[^ ]+) \}$", out, re.M)
    assert ids == [*(f"fit-{s}" for s in shown), "fit-other-servers"]
    others = [sid for sid in servers if sid not in shown]
    assert re.findall(r'<tr id="fit-([^"]+)"><td><a href="../../zh/explorer/#server=\1">', out) == others
    assert out.count('<div class="sz-sortable" data-search-exclude data-scroll-hint=') == len(ids)
    assert out.count('<div class="sz-fit-section" markdown>') == len(shown)
    assert re.search(
        r'<p class="sz-filter-empty" data-for="' + target + r'" role="status" hidden>没有匹配', out
    )
    assert (
        f"1 × NVIDIA L40S，每卡 {fmt_gib(test_catalog.catalog.gpus['l40s'].memory_mib * 2**20, 'zh')}" in out
    )


def test_other_servers_count_their_fit_table_rows(test_catalog: site.SiteContext) -> None:
    """Assert an other server's row counts the verdicts of its whole fit table (fits, tight, no fit)."""
    counts = macros.verdict_counts(_ctx(), "ref-8x-h100")
    rows = table_specs.fit_spec("ref-8x-h100", test_catalog.contexts).rows(test_catalog)
    assert (
        len(rows)
        and sum(counts.values()) == len(rows)
        and counts["no-fit"] == sum(not bool(f) for f in rows.column("fits"))
    )
    row = re.search(r'<tr id="fit-ref-8x-h100">(.*?)</tr>', macros.fit_tables("en", _ctx())).group(1)
    assert re.findall(r"<td>(\d+)</td>", row) == [str(n) for n in counts.values()]
    assert 'href="../explorer/#server=ref-8x-h100"' in row
    assert "<td><code>--kv-cache-dtype fp8</code></td>" in row


def test_other_servers_name_the_kv_type_their_rows_are_counted_with(real_ctx: site.SiteContext) -> None:
    """Assert every other server's row names its KV cache type: ``auto`` on T4 and V100 (no FP8 KV backend
    below sm_80), the summary's ``fp8`` elsewhere, as each full table's settings line does."""
    out = macros.fit_tables("ru", real_ctx)
    kinds = {sid: s.kind for sid, s in real_ctx.catalog.servers.items()}
    others = [sid for sid in kinds if sid not in fit_table_servers(kinds)]
    named = {}
    for sid in others:
        row = re.search(rf'<tr id="fit-{re.escape(sid)}">(.*?)</tr>', out).group(1)
        named[sid] = re.search(r"<code>--kv-cache-dtype (\w+)</code>", row).group(1)
    gpus = {sid: real_ctx.catalog.servers[sid].gpu for sid in others}
    assert {named[s] for s in others if gpus[s].startswith(("t4", "v100"))} == {"auto"}
    assert {named[s] for s in others if not gpus[s].startswith(("t4", "v100"))} == {"fp8"}


def test_value_formats_one_example_figure(test_catalog: site.SiteContext) -> None:
    """Assert sz_value shows the example's numbers with units and the page language's separators."""
    row = test_catalog.example("example-1")
    assert macros.value("en", _ctx(), "example-1", "weights_gib") == fmt_gib(row["weights_bytes"], "en")
    assert macros.value("ru", _ctx(), "example-1", "seq_32768") == str(int(row["sequences_32768"]))
    assert macros.value("en", _ctx(), "example-1", "kv_kib_per_token") == "80\u00a0KiB"
    assert macros.value("ru", _ctx(), "example-1", "decode_tps_ceiling").endswith("токена/с")


def test_value_rejects_unknown_fields(test_catalog: site.SiteContext) -> None:
    """Assert a misspelt field or an unpublished context is an error listing the fields."""
    for field in ("weight_gib", "seq_1000"):
        with pytest.raises(UsageError, match="weights_gib"):
            macros.value("en", _ctx(), "example-1", field)


def test_commands_are_fenced_and_language_neutral(test_catalog: site.SiteContext) -> None:
    """Assert sz_command is the engine's command in a bash fence, identical in every language."""
    row = test_catalog.example("example-2")
    outputs = {macros.command(lang, _ctx(), "example-2") for lang in LANGS}
    assert outputs == {f"\n```bash\n{vllm_command(row, test_catalog.catalog)}\n```\n"}
    two_nodes = test_catalog.example("dh-671b-fp8-2n-8xh100")
    sglang = macros.command("ru", _ctx(), "dh-671b-fp8-2n-8xh100", engine="sglang")
    for rank in (0, 1):
        assert (
            f"На узле {rank}:\n\n```bash\n{sglang_command(two_nodes, test_catalog.catalog, rank)}\n```"
            in sglang
        )


def test_a_data_parallel_group_across_nodes_gets_a_command_per_node(test_catalog: site.SiteContext) -> None:
    """Assert a vLLM DP + EP engine spanning nodes prints each node's own command (node 1 headless), and
    replicas inside each node print one command with the every-node note."""
    ctx = test_catalog
    rows = ctx.frame[ctx.frame["chosen"] & (ctx.frame["nodes"] > 1)]
    spanning = rows[rows["expert_parallel"] & (rows["pp"] == 1) & (rows["dp"] > rows["dp"] // rows["nodes"])]
    replicas = rows[(rows["pp"] == 1) & ~rows["expert_parallel"]]
    assert len(spanning) and len(replicas)
    row = spanning.iloc[0]
    probe = replace(ctx, examples={"span": row, "replicas": replicas.iloc[0]})
    out = macros.command("en", probe, "span")
    assert out.count("```bash") == int(row["nodes"]) and "--headless" in out and "On node 1:" in out
    out = macros.command("zh", probe, "replicas")
    assert out.count("```bash") == 1 and "在每个节点上运行同一条命令" in out and "--headless" not in out
    with pytest.raises(UsageError, match="engine"):
        macros.command("en", _ctx(), "example-1", engine="tgi")


def test_parallel_tabs_pair_vllm_and_sglang(test_catalog: site.SiteContext) -> None:
    """Assert each example gets a new vLLM/SGLang tab set, multi-node SGLang one block per node."""
    out = macros.parallel_tabs("en", _ctx(), ["dh-671b-fp8-8xh200", "dh-671b-fp8-2n-8xh100"])
    assert out.count("/// tab | vLLM\n    new: true\n") == 2 and out.count("/// tab | SGLang\n") == 2
    nodes = test_catalog.catalog.servers["ref-2n-8x-h100"].nodes
    assert out.count("--node-rank") == nodes and "On node 1:" in out
    assert macros.parallel_tabs("en", _ctx(), "example-1").count("/// tab |") == 2


@pytest.mark.parametrize(
    ("lang", "page_url", "prefix"),
    [
        ("en", None, "../"),
        ("en", "", ""),
        ("en", "fit-tables/", "../"),
        ("en", "guide/fit-tables/", "../../"),
        ("zh", "fit-tables/", "../../"),
        ("ru", "", "../"),
    ],
)
def test_download_links_reach_the_one_copy_at_the_site_root(
    lang: str, page_url: str | None, prefix: str
) -> None:
    """Assert the raw links reach the site root's downloads/ folder from a page of any language."""
    out = macros.downloads(lang, _ctx(), page_url)
    assert re.findall(r'href="([^"]+)" download', out) == [
        f"{prefix}downloads/fits.csv",
        f"{prefix}downloads/fits.json",
    ]


def test_verdicts_are_text_badges(test_catalog: site.SiteContext) -> None:
    """Assert site verdict cells are coloured badges carrying the translated word, never emoji."""
    out = macros.fit_tables("ru", _ctx())
    assert '<span class="sz-badge sz-badge--fits">Помещается (контекст до ' in out
    assert "✅" not in out and "❌" not in out


def test_example_is_the_worked_table(test_catalog: site.SiteContext) -> None:
    """Assert sz_example renders the example's steps with its checkpoint in the title."""
    out = macros.example("ru", _ctx(), "example-1")
    assert "**Qwen/Qwen3-14B-FP8 на GPU L40S: 1 GPU**" in out and "| Шаг | Расчёт | Результат |" in out


def test_define_env_registers_the_site_macros() -> None:
    """Assert every page macro is registered under its sz_ name."""

    class Env:
        conf = {"theme": {"language": "en"}}
        names: list[str] = []

        def macro(self, function, name=""):
            self.names.append(name)

    env = Env()
    docs_macros.define_env(env)
    assert {
        "sz_table",
        "sz_fit_tables",
        "sz_example",
        "sz_value",
        "sz_command",
        "sz_parallel_tabs",
        "sz_downloads",
        "sz_calibration_table",
        "sz_calibration_grouped_table",
    } <= set(env.names)


# --- a real build -----------------------------------------------------------------------------

PAGE = """\
# Page

## Literal { #literal }

{{ sz_literal() }}

## Fit { #fit }

{{ sz_fit_tables() }}

## Commands { #commands }

{{ sz_parallel_tabs(["example-1"]) }}
"""


def _mini_project(tmp: Path, catalog: Path) -> tuple[Path, dict[str, str]]:
    """A one-page MkDocs project using the site's macros plus one returning Jinja syntax."""
    (tmp / "docs").mkdir(parents=True)
    (tmp / "docs" / "index.md").write_text(PAGE, encoding="utf-8")
    (tmp / "literal_macros.py").write_text(
        textwrap.dedent("""\
        from sizing.site.docs_macros import define_env as site_env

        def define_env(env):
            site_env(env)
            env.macro(lambda: "{{ 6 * 7 }} {% if true %}yes{% endif %}", "sz_literal")
        """),
        encoding="utf-8",
    )
    config = {
        "site_name": "mini",
        "docs_dir": "docs",
        "theme": {"name": "material", "language": "en"},
        "markdown_extensions": [
            "attr_list",
            "md_in_html",
            "tables",
            "pymdownx.superfences",
            {"pymdownx.blocks.tab": {"alternate_style": True}},
        ],
        "plugins": [
            {"macros": {"modules": ["literal_macros"], "on_error_fail": True, "on_undefined": "strict"}}
        ],
    }
    (tmp / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    env = {
        **os.environ,
        "PYTHONPATH": f"{tmp}{os.pathsep}{ROOT}",
        site.ENV_VAR: str(catalog),
        "NO_MKDOCS_2_WARNING": "1",
        "DISABLE_MKDOCS_2_WARNING": "true",
    }
    return tmp, env


def test_macro_output_is_not_rendered_again_and_catalog_text_stays_literal(tmp_path: Path) -> None:
    """Assert mkdocs-macros leaves macro output alone and hostile catalog names reach HTML as text."""
    catalog = Path(shutil.copytree(FIXTURE, tmp_path / "catalog"))
    servers = yaml.safe_load((catalog / "servers.yaml").read_text(encoding="utf-8"))
    servers["gpu-l40s"]["name"] = HOSTILE
    (catalog / "servers.yaml").write_text(yaml.safe_dump(servers, allow_unicode=True), encoding="utf-8")
    project, env = _mini_project(tmp_path / "project", catalog)
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(project / "site")],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    html = (project / "site" / "index.html").read_text(encoding="utf-8")
    assert "{{ 6 * 7 }} {% if true %}yes{% endif %}" in html
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "{{ 6 * 7 }}" not in html.split('id="fit"')[1] and "&#123;&#123; 6 * 7 &#125;&#125;" in html
    assert re.search(r'<h3 id="fit-gpu-l40s">Evil &#124; &lt;script&gt;', html)
    assert 'class="tabbed-set' in html and ">SGLang</label>" in html


def test_rows_hint_counts_rows_in_the_page_language(test_catalog: site.SiteContext) -> None:
    """Assert a sortable table carries its row count with the CLDR plural of the page language."""
    assert 'data-rows-hint="2 строки, прокрутите внутри таблицы"' in macros.sortable(
        "| a |\n|---|\n| 1 |\n| 2 |", "ru", 2
    )
    assert macros.markdown_rows("| a |\n|---|\n| 1 |\n| 2 |\n\n*note*") == 2
    assert "data-rows-hint" not in macros.sortable("| a |\n|---|", "en", 0)


def test_fit_table_groups_the_sequence_columns(test_catalog: site.SiteContext) -> None:
    """Assert a fit table has two header rows: the group label over the context columns, then 4K, 32K…"""
    out = macros.fit_tables("ru", _ctx())
    assert '<th colspan="3" scope="colgroup">Последовательностей при контексте</th></tr><tr><th>' in out
    assert "<th>4K</th><th>32K</th><th>128K</th></tr></thead>" in out
