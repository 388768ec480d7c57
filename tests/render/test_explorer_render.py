"""Tests for sizing.render.explorer_render: the explorer's data files and its page HTML."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from sizing.launch.commands import vllm_command
from sizing.render import explorer_render as xr
from sizing.render.cells import plan_label
from sizing.render.i18n import LANGS, fmt_gib
from sizing.site import context as site
from sizing.views import explorer as ve
from sizing.views import explorer_data as xd
from sizing.views.context_plans import differs_at, plan_at


@pytest.fixture(scope="module")
def ctx(real_ctx) -> site.SiteContext:
    """The real catalog's site context."""
    return real_ctx


@pytest.fixture(scope="module")
def files(prepared_ctx) -> dict[str, dict]:
    """The explorer files, parsed (:func:`sizing.render.explorer_render.explorer_payloads` of the real
    catalog, as the build's prepare step computes them)."""
    return dict(prepared_ctx.explorer)


def test_files_are_the_neutral_matrix_and_one_per_language(files: dict[str, dict]) -> None:
    """Assert one neutral file and one per language, every language file row-aligned with the neutral one
    (besides them, one chat-ladder file per server and language: tests/render/test_explorer_ladder.py)."""
    main = [name for name in files if not name.startswith("ladder.")]
    assert sorted(main) == sorted(["explorer.json", *(f"explorer.{lang}.json" for lang in LANGS)])
    count = len(files["explorer.json"]["rows"])
    assert all(len(files[f"explorer.{lang}.json"]["rows"]) == count for lang in LANGS)


def test_stored_command_is_the_engine_command_at_the_chosen_context(ctx: site.SiteContext, files) -> None:
    """Assert each context's command lines, that context as --max-model-len, give exactly vllm_command of the
    row launched with that context's plan (:func:`sizing.views.context_plans.plan_at`)."""
    neutral, rows = files["explorer.json"], xd.explorer_rows(ctx)
    for index in (0, len(rows) // 2, len(rows) - 1):
        record = rows.iloc[index].to_dict()
        for position, c in enumerate(ctx.contexts):
            lines = [neutral["lines"][i] for i in at_context(neutral["rows"][index][6], position)]
            text = neutral["joiner"].join(lines).replace(neutral["slot"], str(c))
            assert text == vllm_command(plan_at(record, c), ctx.catalog)


def test_language_strings_are_formatted_for_the_language(ctx: site.SiteContext, files) -> None:
    """Assert the weights of a row read in the language's number format (ru decimal comma)."""
    rows = xd.explorer_rows(ctx)
    for lang in ("en", "ru"):
        local = files[f"explorer.{lang}.json"]
        weights = local["texts"][local["rows"][0][10]]
        assert weights == fmt_gib(float(rows.iloc[0]["weights_bytes"]), lang)
    assert "," in files["explorer.ru.json"]["texts"][files["explorer.ru.json"]["rows"][0][10]]


def test_page_links_the_root_data_and_shows_the_heatmap(ctx: site.SiteContext, files) -> None:
    """Assert the page points at the root data files and has one cell per model and server, with a
    status word (explorer.js adds the links)."""
    out = xr.explorer_page(ctx, "zh", "../../")
    assert (
        'data-matrix="../../data/explorer.json"' in out
        and 'data-strings="../../data/explorer.zh.json"' in out
    )
    neutral = files["explorer.json"]
    cells = re.findall(
        r'<td class="sz-heat sz-heat--(fits|tight|borderline|no-fit|unsupported|beyond)">'
        r"[^<]*<small>[^<]+</small></td>",
        out,
    )
    assert len(cells) == len(neutral["models"]) * len(neutral["servers"])
    assert "<noscript>" in out and "32K" in out


def test_files_are_deterministic(ctx: site.SiteContext) -> None:
    """Assert two renders give byte-identical files (the small test catalog, evaluated twice from its
    files)."""
    small = Path(__file__).resolve().parents[1] / "data" / "site_catalog"
    first, second = (xr.explorer_files(site.build_context(site.load_catalog(small), small)) for _ in "12")
    assert first == second
    assert json.loads(first["explorer.json"])["default_context"] == ve.DEFAULT_CONTEXT


def test_written_files_are_columns_that_give_back_the_rows(prepared_ctx: site.SiteContext, files) -> None:
    """Assert each file is column-oriented (one array per named field) and decodes to the rows the
    page was rendered from; checkpoints and strings are stored once, the commonest first."""
    written = {name: json.loads(text) for name, text in xr.explorer_files(prepared_ctx).items()}
    for name, data in ((n, d) for n, d in written.items() if not n.startswith("ladder.")):
        assert len(data["fields"]) == len(data["columns"]) and "rows" not in data
        assert ve.rows_of(data) == files[name]["rows"]
    neutral = written["explorer.json"]
    assert neutral["fields"] == list(ve.NEUTRAL_FIELDS)
    assert len(neutral["checkpoints"]) == len(set(neutral["checkpoints"])) < len(neutral["columns"][1])
    local = written["explorer.en.json"]
    assert local["fields"][:2] == ["plan", "sequences_4096"] and len(local["fields"]) == 13
    uses = [sum(i == n for column in local["columns"] for i in column) for n in range(3)]
    assert uses == sorted(uses, reverse=True)


def test_notes_carry_code_as_marks_not_tags() -> None:
    """Assert a note's code spans reach the browser as backtick marks (explorer.js builds elements)."""
    assert (
        xr.marked("Lower the context: <code>--max-model-len 25600</code>")
        == "Lower the context: `--max-model-len 25600`"
    )
    assert (
        xr.marked("Use Qwen/Qwen3-14B-AWQ (INT4 AWQ) &amp; more")
        == "Use Qwen/Qwen3-14B-AWQ (INT4 AWQ) & more"
    )


def at_context(value: list, position: int) -> list:
    """A stored per-context value at ``position`` (what explorer.js's ``atContext`` reads)."""
    return value[position] if isinstance(value[0], list) else value


def test_each_context_shows_the_plan_and_memory_it_launches(ctx: site.SiteContext, files) -> None:
    """Assert a row launched on another plan at some context stores per context its command, memory bar, plan
    label and weights; a row with one plan stores each once, as before (the data stay small)."""
    rows, neutral, local = xd.explorer_rows(ctx), files["explorer.json"], files["explorer.en.json"]
    records = rows.to_dict("records")
    index, c = next(
        (i, c)
        for i, r in enumerate(records)
        for c in ctx.contexts
        if differs_at(r, c) and r[f"weights_bytes_{c}"] != r["weights_bytes"]
    )
    record, position = records[index], ctx.contexts.index(c)
    assert neutral["rows"][index][7][position] == ve.bar_widths(ve.at_context(record, c))
    texts, per_context = local["texts"], local["plan_at"][str(index)]
    assert texts[per_context[position][0]] == plan_label(plan_at(record, c), "en")
    assert texts[per_context[position][1]] == fmt_gib(float(record[f"weights_bytes_{c}"]), "en")
    same = next(i for i, r in enumerate(records) if not any(differs_at(r, x) for x in ctx.contexts))
    assert str(same) not in local["plan_at"] and not isinstance(neutral["rows"][same][7][0], list)
    assert not isinstance(neutral["rows"][same][6][0], list)
